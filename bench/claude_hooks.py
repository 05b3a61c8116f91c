"""Per-call cost of Claude Code hooks from a settings file: no hooks, 1 hook, 14 hooks, each
run per call (Claude Code's way) and persistent (llm-pod's ``"pod": {"persistent": true}``).

Usage: ``.venv/bin/python bench/claude_hooks.py [--calls 30]``

Each hook is a ``PreToolUse`` command hook matching ``Bash``, loaded by ``read_claude_settings``
as ``pod run --claude-settings`` loads it, and asked through the frozen registry as the engine
asks it. Per call it reads its stdin and exits 0 (``cat > /dev/null``); persistent, one bash
process answers ``{}`` to each request line (``while read -r line; do echo '{}'; done``); the
first call, which starts the persistent processes, is not counted. Hooks of one event run one
after another, so 14 per-call hooks cost about 14 process starts. Prints the median and p95
milliseconds per call, the median cost of one hook, and the ratio to no hooks, side by side.
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


PER_CALL = {"type": "command", "command": "cat > /dev/null"}
PERSISTENT = {
    "type": "command",
    "command": "while IFS= read -r line; do echo '{}'; done",
    "pod": {"persistent": True},
}


ROWS = (("-", 0), ("per-call", 1), ("persistent", 1), ("per-call", 14), ("persistent", 14))
"""Each row's mode and number of hooks."""


def registry_with(count: int, folder: Path, *, persistent: bool = False) -> HookRegistry:
    hook = PERSISTENT if persistent else PER_CALL
    groups = [{"matcher": "Bash", "hooks": [hook]} for _ in range(count)]
    path = folder / f"settings_{count}_{persistent}.json"
    path.write_text(json.dumps({"hooks": {"PreToolUse": groups}}))
    registry = HookRegistry()
    for configured in read_claude_settings(path, project_dir=folder).hooks:
        configured.register(registry)
    return registry


async def measure(registry: HookRegistry, calls: int) -> list[float]:
    frozen = registry.freeze()
    await frozen.dispatch(events.PRE_TOOL_CALL, CALL)  # starts persistent processes: not counted
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
    rows: list[tuple[str, int, list[float]]] = []
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(measure(registry_with(0, Path(folder)), calls))  # warms the interpreter up
        for mode, count in ROWS:
            registry = registry_with(count, Path(folder), persistent=mode == "persistent")
            rows.append((mode, count, asyncio.run(measure(registry, calls))))
    base = statistics.median(rows[0][2])
    print(
        f"{'hooks':>5} {'mode':>10} {'median ms':>10} {'p95 ms':>8} {'ms a hook':>10} "
        f"{'x no hooks':>11}"
    )
    for mode, count, latencies in rows:
        median = statistics.median(latencies)
        p95 = statistics.quantiles(latencies, n=20)[-1]
        each = f"{(median - base) / count:>10.3f}" if count else f"{'-':>10}"
        print(f"{count:>5} {mode:>10} {median:>10.3f} {p95:>8.3f} {each} {median / base:>11.0f}")


if __name__ == "__main__":
    main()
