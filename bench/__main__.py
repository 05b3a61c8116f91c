"""``python -m bench``: run every section, print the table, write JSON and the plot.

Options: ``--quick`` (a few repeats: a smoke test, not figures to quote) and ``--out DIR``
(default ``bench/results``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import sys
import time
from pathlib import Path

from rich.console import Console

from .hooks import DispatchFigures, measure_dispatch
from .loop import LoopFigures, measure_loop
from .payload import PayloadFigures, measure_payload
from .report import plot, print_table, raw_figures, rows, write_json


async def _measure(
    console: Console, *, quick: bool
) -> tuple[LoopFigures, DispatchFigures, PayloadFigures]:
    console.print("loop overhead and flatness ...")
    loop = await measure_loop(quick=quick)
    console.print("hook dispatch ...")
    dispatch = await measure_dispatch(quick=quick)
    console.print("provider payloads ...")
    payload = await measure_payload(quick=quick)
    for provider, reason in payload.skipped.items():
        console.print(f"  payload ({provider}): skipped: {reason}")
    return loop, dispatch, payload


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few repeats (smoke test)")
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    arguments = parser.parse_args()
    out: Path = arguments.out
    console = Console(width=None if sys.stdout.isatty() else 120)
    started = time.perf_counter()
    loop, dispatch, payload = asyncio.run(_measure(console, quick=arguments.quick))
    table = rows(loop, dispatch, payload)
    print_table(table, console)
    out.mkdir(parents=True, exist_ok=True)
    write_json(raw_figures(loop, dispatch, payload, table), out / "results.json")
    console.print(f"raw figures: {out / 'results.json'}")
    if importlib.util.find_spec("agent_hooks") is not None:  # needs the agent-hooks extra
        from .agent_hooks import measure_agent_hooks, print_agent_hooks

        console.print("AGENT-HOOKS interceptors and the messages view ...")
        print_agent_hooks(asyncio.run(measure_agent_hooks(quick=arguments.quick)), console)
    else:
        console.print("AGENT-HOOKS: skipped (the agent-hooks extra is not installed)")
    if importlib.util.find_spec("dbos") is not None:  # the durable section needs the extra
        from .durable import measure_durable, print_durable
        from .durable_floor import measure_floor, print_floor

        console.print("durable runs ...")
        print_durable(asyncio.run(measure_durable(quick=arguments.quick)), console)
        print_floor(asyncio.run(measure_floor(quick=arguments.quick)), console)
    else:
        console.print("durable runs: skipped (the dbos extra is not installed)")
    from .tracing import measure_mcp, measure_tracing, print_tracing

    console.print("tracing and MCP ...")
    tracing = asyncio.run(measure_tracing(quick=arguments.quick))
    mcp = asyncio.run(measure_mcp(quick=arguments.quick))
    print_tracing(tracing, mcp, console)
    png = out / "per_turn.png"
    if plot(loop, payload, png):
        console.print(f"plot: {png}")
    else:
        console.print("plot: skipped (matplotlib is not installed; `make bench` installs it)")
    console.print(
        f"{time.perf_counter() - started:.0f} s on {os.cpu_count()} CPUs. Figures are best of "
        "repeats (the JSON has every repeat); a 2-core machine is noisy: compare the ratios."
    )


if __name__ == "__main__":
    main()
