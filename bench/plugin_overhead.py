"""Overhead of the pod_mypy plugin: mypy with it against plain mypy, side by side, one run.

Generates a code base of hook modules (each with decorated hooks, a ``@hook`` function, a
``Hook`` subclass, a lambda registration, helpers and a mutable dataclass) and, beside each, a
host module of application code that uses a ``Worker`` and the hook module's state (hooks in
one module, the host in another: pod_mypy 3 refuses setup code in hook modules), then times
``mypy --strict`` on it without a plugin, with an inert
plugin (mypy's own price for any plugin: the floor), with ``pod_mypy`` from its sources and
with the mypyc-compiled ``pod_mypy`` that release wheels ship, interleaving the configurations
so machine noise hits all alike:

- cold: an empty cache (the whole build, typeshed and pydantic included);
- warm: nothing changed since the last run;
- warm, one module edited: a body-only edit to one hook module.

Reports medians of wall time and of child CPU time (and the minimum cold wall time, the figure
least disturbed by other load), with their ratios to plain mypy. Before
timing, it checks that every configuration passes on the clean code and that the plugin does
catch a violation planted in one module (so the plugin really ran).

Usage: ``python bench/plugin_overhead.py [--modules 200] [--repeats 7] [--compiled PYTHON]``
(``make bench-plugin`` builds the compiled plugin with ``mypy_plugin/compile_plugin.py`` and
passes its environment's python).
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from mypy.version import __version__ as mypy_version

CONFIGS: Final = {
    "plain mypy": "[mypy]\nstrict = true\n",
    "inert plugin": "[mypy]\nstrict = true\nplugins = inert_plugin.py\n",
    "with pod_mypy": "[mypy]\nstrict = true\nplugins = pod_mypy\n",
    "pod_mypy, mypyc": "[mypy]\nstrict = true\nplugins = pod_mypy\n",
}
"""Configuration name -> mypy.ini; the first one is the baseline. The inert plugin answers
nothing: what it costs is mypy's own price for any plugin (its hook queries go through a
Python subclass), the floor no plugin can go under. "with pod_mypy" runs the plugin's
sources; "pod_mypy, mypyc" the compiled plugin that release wheels ship (``--compiled``)."""
COMPILED: Final = "pod_mypy, mypyc"

INERT_PLUGIN: Final = '''\
"""A mypy plugin that answers nothing (bench/plugin_overhead.py's floor)."""

from mypy.plugin import Plugin


def plugin(version: str) -> type[Plugin]:
    return Plugin
'''

WORLD: Final = '''\
"""Application objects the hook modules live next to."""

from llm_worker import ScriptedClient, Worker

WORKER = Worker(ScriptedClient([]))
'''

MODULE: Final = '''\
"""Generated hook module {i}."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pod import (
    Abort,
    Continue,
    Hook,
    HookRegistry,
    Pause,
    PostToolDecision,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndDecision,
    TurnEndInfo,
    events,
    hook,
)

registry = HookRegistry()
PATTERN = re.compile(r"tool_{i}_\\w+")


@dataclass
class Stats{i}:
    calls: int = 0
    names: list[str] = field(default_factory=list)

    def record(self, name: str) -> int:
        self.names.append(name)
        self.calls += 1
        return self.calls


STATS = Stats{i}()


def classify_{i}(name: str, limit: int) -> str:
    if PATTERN.match(name):
        return "known"
    return "unknown" if len(name) > limit else "short"


def over_budget_{i}(tokens: int) -> bool:
    return tokens > {budget}


@registry.on(events.PRE_TOOL_CALL)
def guard_{i}(call: ToolCallSummary) -> PreToolDecision:
    kind = classify_{i}(call.tool_name, {limit})
    if kind == "unknown":
        return Skip(reason=f"{{kind}} tool {{call.tool_name}}")
    command = call.argument("command")
    if isinstance(command, str) and "rm -rf" in command:
        return Abort(reason="destructive command")
    return Continue()


@registry.on(events.PRE_LLM_REQUEST)
async def budget_{i}(info: PreRequestInfo) -> PreRequestDecision:
    if over_budget_{i}(info.estimated_tokens):
        return Pause(reason=f"{{info.estimated_tokens}} tokens")
    return Continue()


@hook(events.POST_TOOL_CALL)
def post_{i}(result: ToolResultSummary) -> PostToolDecision:
    failed = result.is_error and result.turn > {turns}
    return Abort(reason="tool failed") if failed else Continue()


class TurnLimit{i}(Hook[TurnEndInfo, TurnEndDecision]):
    def __init__(self, limit: int) -> None:
        self.limit = limit

    def __call__(self, info: TurnEndInfo) -> TurnEndDecision:
        if info.turn >= self.limit:
            return Pause(reason=f"turn {{info.turn}}")
        return Continue()


registry.on(events.POST_TOOL_CALL, post_{i})
registry.on(events.TURN_END, TurnLimit{i}({turns} + 1))
registry.on(
    events.PROMPT_SUBMIT,
    lambda prompt: Continue() if prompt.input_text else Abort(reason="empty prompt"),
)
'''

HOST: Final = '''\
"""Generated host module {i}: application code beside hook module {i}."""

from app.hooks_{i:03d} import STATS, registry
from app.world import WORKER


def report_{i}() -> str:
    """Application code, not hook code: it may use the Worker."""
    STATS.record("report")
    frozen = registry.freeze()
    items = len(WORKER.context)
    return f"{{WORKER.turn}} turns, {{items}} items, {{STATS.calls}} calls, {{frozen}}"
'''

PLANTED: Final = "    kind = classify_"
"""The line of a hook a violation is planted before."""
VIOLATION: Final = "    print(call.__class__)\n"


@dataclass
class Timings:
    wall: list[float] = field(default_factory=list[float])
    cpu: list[float] = field(default_factory=list[float])


def generate(root: Path, modules: int) -> list[Path]:
    """Write the ``app`` package; return the hook modules' paths."""
    package = root / "app"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "world.py").write_text(WORLD)
    paths = []
    for i in range(modules):
        path = package / f"hooks_{i:03d}.py"
        path.write_text(MODULE.format(i=i, budget=10_000 + i, limit=i % 17 + 3, turns=i % 5))
        (package / f"host_{i:03d}.py").write_text(HOST.format(i=i))
        paths.append(path)
    (root / "inert_plugin.py").write_text(INERT_PLUGIN)
    for name, config in CONFIGS.items():
        (root / _slug(name)).with_suffix(".ini").write_text(config)
    return paths


def mypy(
    root: Path, config: str, python: str, *, cold: bool
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run mypy on the package; return wall seconds, child CPU seconds and the process."""
    cache = root / f".cache-{_slug(config)}"
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    command = [
        python,
        "-m",
        "mypy",
        "--config-file",
        str((root / _slug(config)).with_suffix(".ini")),
        "--cache-dir",
        str(cache),
        "app",
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def check_setup(root: Path, planted: Path, pythons: dict[str, str]) -> None:
    """Every configuration passes the clean code; the plugin catches a planted violation."""
    for config, python in pythons.items():
        _, _, done = mypy(root, config, python, cold=True)
        if done.returncode != 0:
            raise SystemExit(f"{config} fails on the generated code:\n{done.stdout}{done.stderr}")
    clean = planted.read_text()
    planted.write_text(clean.replace(PLANTED, VIOLATION + PLANTED, 1))
    try:
        for config in ("with pod_mypy", COMPILED):
            if config in pythons:
                _, _, done = mypy(root, config, pythons[config], cold=False)
                if "[hook-" not in done.stdout:  # any pod_mypy code (hook-escape, ...)
                    raise SystemExit(f"{config} missed the planted violation:\n{done.stdout}")
    finally:
        planted.write_text(clean)


def measure(
    root: Path, paths: list[Path], pythons: dict[str, str], repeats: int, warm_runs: int
) -> dict[str, dict[str, Timings]]:
    """Interleaved runs: per repeat and configuration, one cold run, then ``warm_runs`` warm
    runs with no change and ``warm_runs`` warm runs each after a body-only edit."""
    results = {
        config: {"cold": Timings(), "warm": Timings(), "edit": Timings()} for config in pythons
    }
    edits = 0
    for repeat in range(repeats):
        for config, python in pythons.items():
            plan = ["cold"] + ["warm"] * warm_runs + ["edit"] * warm_runs
            for kind in plan:
                if kind == "edit":
                    edits += 1
                    _edit(paths[(edits * 37) % len(paths)], edits)
                wall, cpu, done = mypy(root, config, python, cold=kind == "cold")
                if done.returncode != 0:
                    raise SystemExit(f"{config} failed ({kind}):\n{done.stdout}")
                results[config][kind].wall.append(wall)
                results[config][kind].cpu.append(cpu)
        print(f"  repeat {repeat + 1}/{repeats} done", file=sys.stderr)
    return results


def _edit(path: Path, n: int) -> None:
    """A body-only edit: the module's interface stays the same."""
    text = path.read_text()
    path.write_text(re.sub(r'STATS\.record\("report[^"]*"\)', f'STATS.record("report {n}")', text))


_COLUMNS: Final = (
    ("cold wall, median", "cold", "wall", statistics.median),
    ("cold wall, min", "cold", "wall", min),
    ("cold CPU, median", "cold", "cpu", statistics.median),
    ("warm wall, median", "warm", "wall", statistics.median),
    ("warm 1 edit, median", "edit", "wall", statistics.median),
)
"""Column label, run kind, measure, statistic. The minimum is the figure least disturbed by
other load on the machine (noise only ever adds time)."""


def report(
    results: dict[str, dict[str, Timings]], modules: int, lines: int, repeats: int, warm_runs: int
) -> str:
    baseline = results[next(iter(CONFIGS))]
    width = max(len(label) for label, *_ in _COLUMNS)
    names = max(len(config) for config in results)
    rows = [
        f"pod_mypy overhead: {modules} hook modules ({lines} lines); {repeats} cold and "
        f"{repeats * warm_runs} warm runs per configuration, interleaved; "
        f"mypy {mypy_version}, Python {sys.version.split()[0]}; seconds (ratio to plain mypy)",
        "",
        f"| {'configuration':<{names}} | "
        + " | ".join(f"{label:>{width}}" for label, *_ in _COLUMNS)
        + " |",
        f"|{'-' * (names + 2)}|" + "|".join("-" * (width + 2) for _ in _COLUMNS) + "|",
    ]
    for config, timings in results.items():
        cells = []
        for _, kind, measure_name, statistic in _COLUMNS:
            value = statistic(getattr(timings[kind], measure_name))
            base = statistic(getattr(baseline[kind], measure_name))
            cells.append(f"{f'{value:.2f} (x{value / base:.2f})':>{width}}")
        rows.append(f"| {config:<{names}} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _slug(config: str) -> str:
    return config.replace(" ", "_")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modules", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=7, help="cold runs per configuration")
    parser.add_argument("--warm-runs", type=int, default=3, help="warm runs per repeat")
    parser.add_argument(
        "--compiled",
        metavar="PYTHON",
        help="the python of mypy_plugin/compile_plugin.py's environment: also time the "
        "mypyc-compiled plugin",
    )
    args = parser.parse_args()
    pythons = {config: sys.executable for config in CONFIGS if config != COMPILED}
    if args.compiled:
        pythons[COMPILED] = args.compiled
    with tempfile.TemporaryDirectory(prefix="pod-mypy-bench-") as directory:
        root = Path(directory)
        paths = generate(root, args.modules)
        lines = sum(len(path.read_text().splitlines()) for path in paths)
        print(f"checking the setup in {root} ...", file=sys.stderr)
        check_setup(root, paths[min(150, len(paths) - 1)], pythons)
        results = measure(root, paths, pythons, args.repeats, args.warm_runs)
    print(report(results, args.modules, lines, args.repeats, args.warm_runs))


if __name__ == "__main__":
    main()
