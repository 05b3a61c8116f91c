"""Per-event latency of a CommandHook: one process per event vs one persistent process.

Usage: ``.venv/bin/python bench/command_hook.py [--events 200]``

Each policy answers ``continue`` to a ``PRE_TOOL_CALL``; it is written once in Python and once
in POSIX sh, so the cost of starting the interpreter shows. The persistent figures leave out
the first event (which starts the process). Prints median, mean and p95 in milliseconds and
the per-call / persistent ratio side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pod import CommandHook, CommandMode, ToolCallSummary, events

PYTHON_POLICY = """
import sys
ANSWER = '{"decision": "continue"}'
if "--persistent" in sys.argv:
    for line in sys.stdin:
        print(ANSWER, flush=True)
else:
    sys.stdin.read()
    print(ANSWER)
"""

SH_POLICY = """
if [ "$1" = "--persistent" ]; then
    while IFS= read -r line; do echo '{"decision": "continue"}'; done
else
    cat > /dev/null
    echo '{"decision": "continue"}'
fi
"""

CALL = ToolCallSummary(
    call_id="call_1", tool_name="shell", arguments='{"command": "ls -la /tmp"}', turn=0
)


async def measure(argv: list[str], mode: CommandMode, count: int) -> list[float]:
    """Return the latency in milliseconds of ``count`` events."""
    hook = CommandHook(events.PRE_TOOL_CALL, argv, timeout=30, mode=mode)
    latencies: list[float] = []
    async with hook:
        if mode == "persistent":
            await hook(CALL)  # start-up, not counted
        for _ in range(count):
            start = time.perf_counter()
            await hook(CALL)
            latencies.append((time.perf_counter() - start) * 1000)
    return latencies


def summary(latencies: list[float]) -> tuple[float, float, float]:
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return statistics.median(ordered), statistics.fmean(ordered), p95


async def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        python_policy = Path(directory) / "policy.py"
        python_policy.write_text(PYTHON_POLICY)
        sh_policy = Path(directory) / "policy.sh"
        sh_policy.write_text(SH_POLICY)
        commands = {
            "python": [sys.executable, str(python_policy)],
            "sh": ["/bin/sh", str(sh_policy)],
        }
        print(f"{count} PRE_TOOL_CALL events per row; latency in ms (median / mean / p95)")
        print(f"{'policy':<8}{'per-call':>24}{'persistent':>24}{'ratio (median)':>18}")
        for name, argv in commands.items():
            per_call = summary(await measure(argv, "per-call", count))
            persistent = summary(await measure([*argv, "--persistent"], "persistent", count))
            cells = [" / ".join(f"{value:.2f}" for value in row) for row in (per_call, persistent)]
            ratio = per_call[0] / persistent[0]
            print(f"{name:<8}{cells[0]:>24}{cells[1]:>24}{ratio:>17.1f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=200, help="events per measurement")
    asyncio.run(main(parser.parse_args().events))
