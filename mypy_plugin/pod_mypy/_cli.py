"""``python -m pod_mypy check PATH...``: the plugin's analysis as a stand-alone command.

For teams that type-check with pyright, or run mypy without the plugin. It runs a cold mypy
build of PATH with the plugin enabled whatever the configuration says (the rest of the
configuration, such as search paths, is read as mypy would), and prints:

- the **boundary report**: every hook it found and every registration of a declared hook,
  with file:line, event, hook, and verified / unverifiable (and why) / trusted;
- every ``hook-*`` finding. ``# type: ignore`` and ``# mypy: ignore-errors`` do not silence
  them here; mypy's own errors are not this command's business and are not shown.

Results go to stdout (``--json`` for scripts), diagnostics to stderr. Exit status: 0 when
there is no finding, 1 when there is one, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn, final

from mypy import build
from mypy.errors import CompileError
from mypy.main import process_options

from . import __version__
from ._config import read_settings
from ._database import load, render_markdown
from ._report import Report, install
from .plugin import PodPlugin

__all__ = ["main"]

_PLUGIN = "pod_mypy"


@final
class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"pod_mypy: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m pod_mypy",
        description="Check that hook code cannot reach the run's context (docs/plugin.md).",
    )
    parser.add_argument("--version", action="version", version=f"pod_mypy {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser(
        "check", help="check PATH... and print the boundary report (exit 1 on any finding)"
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--config-file", help="the mypy configuration to read (default: mypy's)")
    check.add_argument("--debug", action="store_true", help="show tracebacks")
    database = commands.add_parser(
        "database", help="print the taming database (docs/plugin.md renders it)"
    )
    database.add_argument("--markdown", action="store_true", help="as docs/plugin.md's tables")
    database.add_argument(
        "--json", action="store_true", help="as JSON: its digest and every entry, table by table"
    )
    database.add_argument(
        "--into", metavar="FILE", help="replace the tables between the database markers of FILE"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    if arguments.command == "database":
        raw = load()
        if arguments.into:
            return _write_tables(arguments.into, render_markdown(raw))
        if arguments.markdown:
            print(render_markdown(raw))
        elif arguments.json:
            entries = [entry._asdict() for entry in raw.entries]
            print(json.dumps({"digest": raw.digest, "entries": entries}, indent=2))
        else:
            for entry in raw.entries:
                print(f"[{entry.table}] {entry.name}: {entry.text}")
        return 0
    missing = [path for path in arguments.paths if not os.path.exists(path)]
    if missing:
        print(f"pod_mypy: error: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    try:
        report = _run(list(arguments.paths), arguments.config_file)
    except CompileError as error:
        if arguments.debug:
            raise
        print("\n".join(error.messages) or str(error), file=sys.stderr)
        return 1
    except (SystemExit, OSError, ValueError) as error:
        if arguments.debug:
            raise
        print(f"pod_mypy: error: {error}", file=sys.stderr)
        return 2
    try:
        if arguments.json:
            document = {
                "version": __version__,
                "hooks": [entry._asdict() for entry in report.hooks],
                "hook_modules": [entry._asdict() for entry in report.modules],
                "grants": report.grants,
                "findings": [finding._asdict() for finding in report.findings],
            }
            print(json.dumps(document, indent=2))
        else:
            _print_text(report)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (`| head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1 if report.findings else 0


_START = "<!-- taming-database:start -->"
_END = "<!-- taming-database:end -->"


def _write_tables(path: str, tables: str) -> int:
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        print(f"pod_mypy: error: {error}", file=sys.stderr)
        return 2
    if _START not in text or _END not in text:
        print(f"pod_mypy: error: {path} has no {_START} ... {_END} markers", file=sys.stderr)
        return 2
    head, _, rest = text.partition(_START)
    _, _, tail = rest.partition(_END)
    with open(path, "w", encoding="utf-8") as file:
        file.write(f"{head}{_START}\n{tables.strip()}\n{_END}{tail}")
    return 0


def _run(paths: list[str], config_file: str | None) -> Report:
    flags = [*(["--config-file", config_file] if config_file else []), *paths]
    sources, options = process_options(flags, require_targets=True)
    # Passed as an extra plugin: mypy loads configured plugins only from a config file.
    options.plugins = [p for p in options.plugins if p.partition(":")[0] != _PLUGIN]
    # A cold build: every hook body is walked, none is replayed from a cache.
    options.incremental = False
    options.cache_dir = os.devnull
    report = Report()
    settings = read_settings(options.config_file)
    report.grants = {
        "capabilities": sorted(settings.capabilities),
        "host_modules": list(settings.host_modules),
        "hook_modules": list(settings.hook_modules),
        "trusted_packages": sorted(settings.trusted_packages),
    }
    install(report)
    try:
        build.build(sources, options, extra_plugins=[PodPlugin(options)])
    finally:
        install(None)
    # Only what the given paths hold: imported modules are checked where they are sources.
    given = {os.path.abspath(source.path) for source in sources if source.path}
    report.hooks = sorted(
        (entry for entry in report.hooks if os.path.abspath(entry.path) in given),
        key=lambda entry: (entry.path, entry.line),
    )
    report.modules = sorted(
        (entry for entry in report.modules if os.path.abspath(entry.path) in given),
        key=lambda entry: entry.path,
    )
    report.findings = sorted(
        (finding for finding in report.findings if os.path.abspath(finding.path) in given),
        key=lambda finding: (finding.path, finding.line),
    )
    return report


def _print_text(report: Report) -> None:
    print(f"pod_mypy {__version__}: boundary report")
    print("grants (the configuration's [pod_mypy] settings):")
    for key, values in report.grants.items():
        print(f"  {key}: {', '.join(values) if values else '(none)'}")
    print("hook modules:")
    if not report.modules:
        print("  (none)")
    for module in report.modules:
        print(f"  {module.path}  {module.module}  {module.findings} finding(s)")
    print("hooks:")
    if not report.hooks:
        print("  (no hooks found)")
    for entry in report.hooks:
        line = f"  {entry.path}:{entry.line}  {entry.event}  {entry.hook}  {entry.status}"
        print(f"{line}: {entry.why}" if entry.why else line)
    if report.findings:
        print("findings:")
    for finding in report.findings:
        print(f"  {finding.path}:{finding.line}: {finding.message}  [{finding.code}]")
    counts: dict[str, int] = {}
    for entry in report.hooks:
        counts[entry.status] = counts.get(entry.status, 0) + 1
    summary = ", ".join(f"{count} {status}" for status, count in sorted(counts.items()))
    print(f"{len(report.hooks)} hooks ({summary or 'none'}); {len(report.findings)} findings")
