"""``pod rules check``: validate a policy file on its own, before any run.

It reads the file with the same loader as ``pod run --rules`` and checks its rules against
the tools a run would have (the workspace tools plus ``--tools``), so every mistake that
would refuse a run is reported here, with its file and line. Results on stdout, the problem on
stderr; exit 0 when the file is sound, 2 when it is not.
"""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, TypeVar

from rich.console import Console
from rich.markup import escape

from llm_worker import Tool, UsageError

from ..command._claude_code import claude_name, claude_output_schema, claude_stdin_schema
from ..command._claude_code_settings import read_claude_settings
from ..command._protocol import stdin_schema, stdout_schema
from ..hooks import _events as events
from ..hooks._errors import PodUsageError
from ..policy._loader import load_policy
from ..toolsets._toolsets import TOOLSETS, chosen_toolset, toolset
from ._load import LoadError, load_tools  # the same --tools loader as pod run

__all__ = [
    "add_command_schema_arguments",
    "add_rules_parser",
    "command_schema_of",
    "rules_command",
]

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2


async def _checked_only(system: str, prompt: str) -> str:
    """``pod rules check`` loads ``prompt`` hooks to check them; it never runs one."""
    raise AssertionError("pod rules check runs no hook")


def add_rules_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],  # pyright: ignore[reportPrivateUsage]
) -> None:
    """Add ``pod rules check`` to the ``pod`` subcommands."""
    rules = commands.add_parser(
        "rules",
        help="check a policy file (rules and command hooks) without running anything",
        description="Check a policy file (TOML: [[rule]] and [[hook]] tables).",
    )
    actions = rules.add_subparsers(dest="rules_command", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="validate FILE against the tools of a run",
        description=(
            "Validate FILE as `pod run --rules FILE` would: every table, every hook's cwd, "
            "and every rule against the tools of the run (those of --toolset, plus --tools). "
            "Exit 0 if sound, 2 with the file, line and fix if not."
        ),
    )
    check.add_argument("file", type=Path, nargs="?", help="the policy file")
    check.add_argument(
        "--claude-settings",
        type=Path,
        action="append",
        default=[],
        help="also check a Claude Code settings file's hooks section (repeatable)",
    )
    check.add_argument(
        "--tools", action="append", default=[], help="more tools as module:attr or file.py:attr"
    )
    check.add_argument(
        "--toolset",
        choices=TOOLSETS,
        help="the built-in tools of the run, as pod run --toolset (default: claude-code with "
        "--claude-settings, else workspace)",
    )
    check.add_argument(
        "--workdir", type=Path, default=Path(), help="the workspace of the run (default: .)"
    )
    check.add_argument("--json", action="store_true", help="print the result as JSON")


def rules_command(args: argparse.Namespace, console: Console, errors: Console) -> int:
    """Carry out ``pod rules check``; return the exit code."""
    if args.file is None and not args.claude_settings:
        errors.print("[bold red]error:[/] give a policy FILE, --claude-settings PATH, or both")
        return EXIT_USAGE
    problems: list[str] = []
    built_in = chosen_toolset(args.toolset, claude_settings=bool(args.claude_settings))
    tools: list[Tool] = toolset(built_in, args.workdir)
    try:
        tools += load_tools(args.tools)
    except LoadError as exc:
        problems.append(str(exc))
    policy = None
    if args.file is not None and (problem := _not_a_file(args.file)) is not None:
        problems.append(f"{args.file}: {problem}")
    elif args.file is not None:
        policy = _checked(lambda: load_policy(args.file, workspace=args.workdir), problems)
    permissions = _checked(policy.permissions_or_refuse, problems) if policy else None
    if permissions is not None:
        _checked(lambda: permissions.check_tools(tools), problems)
    hooks = [*(policy.hooks if policy else ())]
    warnings: list[str] = []
    for settings in args.claude_settings:
        if (problem := _not_a_file(settings)) is not None:
            problems.append(f"{settings}: {problem}")
            continue
        loaded = _checked(
            functools.partial(
                read_claude_settings,
                settings,
                project_dir=args.workdir,
                ask=_checked_only,
                ask_model=lambda _model: _checked_only,
            ),
            problems,
        )
        if loaded is not None:
            hooks += loaded.hooks
            if (warning := loaded.warning()) is not None:
                warnings.append(warning)
    if problems:  # every one at once, one line each
        if args.json:
            console.print_json(json.dumps({"ok": False, "error": problems[0], "errors": problems}))
        for problem in problems:
            errors.print(f"[bold red]error:[/] {escape(problem)}")
        return EXIT_USAGE
    names = sorted(tool.name for tool in tools)
    warnings += [
        f"{configured.source}: matcher {configured.matcher!r} matches no tool of this run "
        f"(tools: {', '.join(names)}); the hook never runs"
        for configured in hooks
        if configured.matcher is not None and not any(map(configured.hook.selects, names))
    ]
    for warning in warnings:
        errors.print(f"[bold yellow]warning:[/] {escape(warning)}")
    rules = len(permissions.rules) if permissions else 0
    default = permissions.default if permissions else None
    checked = ", ".join(str(path) for path in [args.file, *args.claude_settings] if path)
    if args.json:
        summary = {
            "ok": True,
            "file": str(args.file) if args.file else None,
            "claude_settings": [str(path) for path in args.claude_settings],
            "rules": rules,
            "default": default,
            "hooks": [configured.source for configured in hooks],
            "warnings": warnings,
            "tools": names,
        }
        console.print_json(json.dumps(summary))
    else:
        policy_part = f"{rules} rules (default {default}), " if permissions else ""
        console.print(
            f"{checked}: ok: {policy_part}{len(hooks)} command hooks; "
            f"checked against tools {', '.join(names)}",
            markup=False,
            highlight=False,
        )
    return EXIT_OK


T = TypeVar("T")


def _checked(check: Callable[[], T], problems: list[str]) -> T | None:
    """``check()``, or ``None`` with each line of its refusal added to ``problems``."""
    try:
        return check()
    except (PodUsageError, UsageError, LoadError, OSError) as exc:
        problems.extend(str(exc).splitlines() or [type(exc).__name__])
        return None


def _not_a_file(path: Path) -> str | None:
    if path.is_dir():
        return "is a folder; give a file"
    return None if path.is_file() else "no such file"


def add_command_schema_arguments(schema: argparse.ArgumentParser) -> None:
    """Add ``--stdin`` / ``--stdout`` and ``--protocol`` to ``pod schema``."""
    streams = schema.add_mutually_exclusive_group()
    streams.add_argument(
        "--stdin",
        dest="stream",
        action="store_const",
        const="stdin",
        help="what a command hook reads on stdin at EVENT (exactly)",
    )
    streams.add_argument(
        "--stdout",
        dest="stream",
        action="store_const",
        const="stdout",
        help="what a command hook may print at EVENT (exactly what the run accepts)",
    )
    schema.add_argument(
        "--protocol",
        choices=("native", "claude-code"),
        default="native",
        help="the command hook protocol of --stdin/--stdout (default: native)",
    )


def command_schema_of(args: argparse.Namespace) -> dict[str, Any]:
    """The schema ``pod schema EVENT --stdin|--stdout`` prints.

    Raises:
        KeyError: no EVENT was given, or it is unknown, or Claude Code has no such event.
    """
    if args.event is None:
        raise KeyError(f"--{args.stream} describes one event: name it (e.g. pre_tool_call)")
    event = events.by_name(args.event)
    if args.protocol == "native":
        return stdin_schema(event) if args.stream == "stdin" else stdout_schema(event)
    if claude_name(event) is None:
        raise KeyError(f"Claude Code has no hook event for {event.name}")
    return claude_stdin_schema(event) if args.stream == "stdin" else claude_output_schema()
