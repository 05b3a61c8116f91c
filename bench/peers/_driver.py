"""What every peer driver shares (standard library only: it runs in the peer's own venv).

A driver builds a fresh agent for ``n`` turns of the workload (one tool call per model
turn, the tool being ``bench.floor.echo_body``, a trivial hook before each model request
and before each tool call where the peer has such hooks) and hands :func:`drive` a factory.
``drive`` times the peer and the hand-written floor alternately in this same process (CPU
time, best of repeats), reads the per-turn cost against history length from the tool's
clock (``floor.curve``), and prints one JSON object on its last line of output.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for floor.py

from floor import CLOCK, HandWrittenLoop, curve

__all__ = ["CLOCK", "drive"]

RunFactory = Callable[[int], Callable[[], Awaitable[object]]]


async def _timed(run: Callable[[], Awaitable[object]], turns: int) -> tuple[float, list[int]]:
    CLOCK.reset()
    gc.collect()
    start = time.process_time()
    await run()
    seconds = time.process_time() - start
    stamps = CLOCK.stamps
    if len(stamps) != turns:
        raise AssertionError(f"expected {turns} tool calls, the run made {len(stamps)}")
    return seconds / turns, stamps


async def _measure(make: RunFactory, turn_counts: list[int], repeats: int) -> dict[str, object]:
    per_turn: dict[str, dict[str, float]] = {}
    curves: dict[str, dict[int, float]] = {}
    for turns in turn_counts:
        await _timed(make(min(turns, 20)), min(turns, 20))  # warm-up: imports, first calls
        peer_times: list[float] = []
        floor_times: list[float] = []
        for _ in range(repeats if turns <= 100 else 1):
            seconds, stamps = await _timed(make(turns), turns)
            peer_times.append(seconds)
            if turns == max(turn_counts):
                curves["peer"] = curve(stamps)
            floor = HandWrittenLoop(turns)
            seconds, stamps = await _timed(floor.run, turns)
            floor.check()
            floor_times.append(seconds)
            if turns == max(turn_counts):
                curves["floor"] = curve(stamps)
        per_turn[str(turns)] = {"peer": min(peer_times), "floor": min(floor_times)}
    return {"per_turn": per_turn, "curve": curves}


def drive(peer: str, version: str, make: RunFactory, notes: list[str]) -> None:
    """Measure ``make`` against the floor and print the figures as JSON (last line)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, nargs="+", default=[100, 1_000])
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    figures = asyncio.run(_measure(make, arguments.turns, arguments.repeats))
    print(json.dumps({"peer": peer, "version": version, "notes": notes, **figures}))
