"""Per-call cost of Claude Code hooks from a settings file: no hooks, 1 hook, 14 hooks.

Usage: ``.venv/bin/python bench/claude_hooks.py [--calls 30]``

Each hook is a ``PreToolUse`` command hook matching ``Bash`` that reads its stdin and exits
0 (``cat > /dev/null``), loaded by ``read_claude_settings`` as ``pod run --claude-settings``
loads it, and asked through the frozen registry as the engine asks it. Hooks of one event
run one after another, so 14 hooks cost about 14 process starts. Prints the median and p95
milliseconds per call, the median cost of one hook, and the ratio to no hooks, side by side.
``protocol="claude-code"`` runs per call only: a hot hook that must not pay a process start
per call is written to the native protocol's persistent mode (``bench/command_hook.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from pod import HookRegistry, ToolCallSummary, events
from pod.command._claude_code_settings import read_claude_settings

CALL = ToolCallSummary(call_id="c1", tool_name="Bash", arguments='{"command": "ls"}', turn=0)


def registry_with(count: int, folder: Path) -> HookRegistry:
    hook = {"type": "command", "command": "cat > /dev/null"}
    groups = [{"matcher": "Bash", "hooks": [hook]} for _ in range(count)]
    path = folder / f"settings_{count}.json"
    path.write_text(json.dumps({"hooks": {"PreToolUse": groups}}))
    registry = HookRegistry()
    for configured in read_claude_settings(path, project_dir=folder).hooks:
        configured.register(registry)
    return registry


async def measure(registry: HookRegistry, calls: int) -> list[float]:
    frozen = registry.freeze()
    latencies: list[float] = []
    for _ in range(calls):
        start = time.perf_counter()
        await frozen.dispatch(events.PRE_TOOL_CALL, CALL)
        latencies.append((time.perf_counter() - start) * 1000)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30, help="tool calls per row")
    calls = parser.parse_args().calls
    with tempfile.TemporaryDirectory() as folder:
        rows = [(0, asyncio.run(measure(registry_with(0, Path(folder)), calls)))]
        for count in (0, 1, 14):
            rows.append((count, asyncio.run(measure(registry_with(count, Path(folder)), calls))))
    rows = rows[1:]  # the first row warms the interpreter up, and is not shown
    base = statistics.median(rows[0][1])
    print(f"{'hooks':>5} {'median ms':>10} {'p95 ms':>8} {'ms a hook':>10} {'x no hooks':>11}")
    for count, latencies in rows:
        median = statistics.median(latencies)
        p95 = statistics.quantiles(latencies, n=20)[-1]
        each = f"{(median - base) / count:>10.2f}" if count else f"{'-':>10}"
        print(f"{count:>5} {median:>10.3f} {p95:>8.3f} {each} {median / base:>11.0f}")


if __name__ == "__main__":
    main()
