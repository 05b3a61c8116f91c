"""Loop overhead and flatness: llm-pod against the hand-written loop, in the same process.

For each N the two runners alternate, each repeat on a fresh runner, so drifts in machine
load hit both. Per-turn time is the whole run divided by N (the collector included); the
peak memory of one run of each is traced separately (tracing slows runs down).

Flatness comes from the tool's clock stamps in the longest runs: the gap between two
stamps is one turn, so the median gap in a window of turns around 10, 1,000 and 10,000
shows whether a turn costs more as the history grows.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, final

from ._measure import Sample, peak_bytes, sample, timed
from .floor import CLOCK, CURVE_EDGES
from .workload import Runner, make_baseline, make_runner

__all__ = ["FLATNESS_WINDOWS", "TURN_COUNTS", "LoopFigures", "measure_loop"]

TURN_COUNTS: Final = (100, 1_000, 10_000)
_REPEATS: Final = {100: 300, 1_000: 60, 10_000: 8}

FLATNESS_WINDOWS: Final = {"~10": (2, 22), "~1,000": (950, 1_050), "~10,000": (9_900, 10_000)}
"""Turn ranges ``[start, stop)`` whose median gap is the per-turn cost at that length."""


@final
@dataclass(frozen=True)
class SideBySide:
    """One quantity for llm-pod and the hand-written loop."""

    pod: Sample
    baseline: Sample

    @property
    def ratio(self) -> float:
        return self.pod.best / self.baseline.best


@final
@dataclass(frozen=True)
class LoopFigures:
    """Everything the loop section measured."""

    per_turn: dict[int, SideBySide]
    """By N: seconds per turn."""
    peak_memory: dict[int, tuple[int, int]]
    """By N: peak bytes allocated during one run, (llm-pod, hand-written)."""
    flatness: dict[str, SideBySide]
    """By window name: seconds per turn at that history length (median gap in the window)."""
    curve: list[tuple[int, float, float]]
    """(turn, llm-pod seconds per turn, hand-written seconds per turn) for the plot."""


def _gaps(stamps: Sequence[int]) -> list[float]:
    """Seconds between consecutive stamps: ``gaps[i]`` is the cost of turn ``i + 1``."""
    return [(b - a) / 1e9 for a, b in itertools.pairwise(stamps)]


def _window(gaps: Sequence[float], start: int, stop: int) -> float:
    return statistics.median(gaps[start - 1 : stop - 1])


async def _one(factory: Callable[[int], Runner], turns: int) -> tuple[float, list[float]]:
    runner = factory(turns)
    CLOCK.reset()
    seconds = await timed(runner.run)
    runner.check()
    return seconds / turns, _gaps(CLOCK.stamps)


async def _peak(factory: Callable[[int], Runner], turns: int) -> int:
    runner = factory(turns)
    CLOCK.reset()
    peak = await peak_bytes(runner.run)
    runner.check()
    return peak


async def measure_loop(*, quick: bool = False) -> LoopFigures:
    """Run the loop section (``quick``: a few repeats, for a smoke test)."""
    per_turn: dict[int, SideBySide] = {}
    peak_memory: dict[int, tuple[int, int]] = {}
    long_gaps: tuple[list[list[float]], list[list[float]]] = ([], [])
    for turns in TURN_COUNTS:
        repeats = 2 if quick else _REPEATS[turns]
        pod_times: list[float] = []
        base_times: list[float] = []
        await _one(make_runner, turns)  # warm-up: imports, caches, first allocations
        await _one(make_baseline, turns)
        for _ in range(repeats):
            seconds, gaps = await _one(make_runner, turns)
            pod_times.append(seconds)
            if turns == TURN_COUNTS[-1]:
                long_gaps[0].append(gaps)
            seconds, gaps = await _one(make_baseline, turns)
            base_times.append(seconds)
            if turns == TURN_COUNTS[-1]:
                long_gaps[1].append(gaps)
        per_turn[turns] = SideBySide(sample(pod_times), sample(base_times))
        peak_memory[turns] = (await _peak(make_runner, turns), await _peak(make_baseline, turns))
    flatness = {
        name: SideBySide(
            sample([_window(g, start, stop) for g in long_gaps[0]]),
            sample([_window(g, start, stop) for g in long_gaps[1]]),
        )
        for name, (start, stop) in FLATNESS_WINDOWS.items()
    }
    curve = [
        (
            start,
            min(_window(g, start, stop) for g in long_gaps[0]),
            min(_window(g, start, stop) for g in long_gaps[1]),
        )
        for start, stop in itertools.pairwise(CURVE_EDGES)
    ]
    return LoopFigures(per_turn, peak_memory, flatness, curve)
