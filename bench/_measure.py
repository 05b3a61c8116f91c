"""Timing and memory helpers shared by the benchmark sections.

Every figure is taken over several repeats: ``best`` (the minimum: the least disturbed
run, the usual choice for comparing code paths) and ``median`` (what a typical run costs).
The garbage collector stays on while timing, as in real use, but each repeat starts after
a full collection so one run's garbage is not charged to the next.

Whole runs are timed in CPU time of the process (``time.process_time``), not wall time: on
a shared 2-core machine a run preempted by another process would otherwise be charged for
the other process's work. The benchmarks do no I/O and start no threads, so CPU time is
the time the loop costs.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import final

__all__ = ["Sample", "peak_bytes", "sample", "timed"]


@final
@dataclass(frozen=True, slots=True)
class Sample:
    """Repeated measurements of one quantity (seconds, or any unit the caller chose)."""

    values: tuple[float, ...]

    @property
    def best(self) -> float:
        return min(self.values)

    @property
    def median(self) -> float:
        return statistics.median(self.values)


def sample(values: Sequence[float]) -> Sample:
    """Wrap raw measurements."""
    if not values:
        raise ValueError("a sample needs at least one value")
    return Sample(tuple(values))


async def timed(run: Callable[[], Awaitable[object]]) -> float:
    """Return the CPU time of one ``await run()``, in seconds, after a full collection."""
    gc.collect()
    start = time.process_time()
    await run()
    return time.process_time() - start


async def peak_bytes(run: Callable[[], Awaitable[object]]) -> int:
    """Return the peak of memory allocated by Python during one ``await run()``.

    Traced with ``tracemalloc``, which slows the run down: never time with it on.
    """
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        await run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - base
