"""What one DBOS step costs, whatever runs in it: the floor under a turn made of DBOS steps.

A bare DBOS workflow of two empty async steps per turn (a turn of a durable run has at least
two steps: its model request and its tool call), on the databases and ``sync`` settings of
``bench.durable``, at N = 100 and 1,000 turns (wall time, best of the repeats). Then where a
step's time goes: DBOS's two database calls per step, timed in the thread that makes them
(``check_operation_execution``: a transaction of two ``SELECT``; ``record_operation_result``:
a transaction that checks the workflow's owner and ``INSERT``s the output), and the rest
(three hops to a thread and back, DBOS's composition of the step, serialisation).

    python -m bench.durable_floor [--quick]      # $POD_BENCH_POSTGRES_URL adds PostgreSQL
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, final

from dbos import DBOS
from rich.console import Console
from rich.table import Table

from pod.durable import DurableSettings, SyncMode, launch, shutdown

from .durable import PER_TURN_TARGET, POSTGRES_ENV

__all__ = ["FloorFigures", "measure_floor", "print_floor"]

_TURNS: Final = {100: 3, 1_000: 1}
"""By N: repeats."""
_TIMED: Final = ("check_operation_execution", "record_operation_result")


async def _empty() -> str:
    return ""


@DBOS.workflow(name="bench.two_empty_steps_per_turn")
async def _two_empty_steps_per_turn(turns: int) -> int:
    for _ in range(turns):
        await DBOS.run_step_async({"name": "model"}, _empty)
        await DBOS.run_step_async({"name": "tool"}, _empty)
    return turns


@final
@dataclass
class FloorFigures:
    """One database and ``sync`` setting."""

    per_turn: dict[int, float] = field(default_factory=dict)
    """By N: best seconds per turn of the bare workflow."""
    per_step: dict[str, float] = field(default_factory=dict)
    """Median seconds per step of each timed database call, and ``step`` (the whole step)."""


@contextmanager
def _timing(calls: dict[str, list[float]]) -> Iterator[None]:
    """Time DBOS's database calls per step (its system database object, as DBOS 3.4 has it)."""
    from dbos._dbos import _get_dbos_instance

    system_database: Any = _get_dbos_instance()._sys_db
    originals = {name: getattr(system_database, name) for name in _TIMED}

    def timed(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                calls[name].append(time.perf_counter() - started)

        return wrapper

    for name, call in originals.items():
        setattr(system_database, name, timed(name, call))
    try:
        yield
    finally:
        for name in originals:
            delattr(system_database, name)  # the class's methods again


async def _measure(settings: DurableSettings, turn_counts: dict[int, int]) -> FloorFigures:
    figures = FloorFigures()
    await launch(settings)
    try:
        for turns, repeats in turn_counts.items():
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                await _two_empty_steps_per_turn(turns)
                times.append((time.perf_counter() - started) / turns)
            figures.per_turn[turns] = min(times)
        calls: dict[str, list[float]] = {name: [] for name in _TIMED}
        turns = min(turn_counts)
        with _timing(calls):
            started = time.perf_counter()
            await _two_empty_steps_per_turn(turns)
            figures.per_step["step"] = (time.perf_counter() - started) / (2 * turns)
        for name, seconds in calls.items():
            figures.per_step[name] = statistics.median(seconds)
    finally:
        shutdown()
    return figures


async def measure_floor(*, quick: bool = False) -> dict[str, FloorFigures]:
    """Every database and ``sync`` setting in turn."""
    import os
    import uuid

    turn_counts = {100: 1} if quick else _TURNS
    figures: dict[str, FloorFigures] = {}
    with tempfile.TemporaryDirectory(prefix="pod-bench-floor-") as folder:
        databases = {"sqlite": f"sqlite:///{Path(folder) / 'floor-{sync}.sqlite'}"}
        server = os.environ.get(POSTGRES_ENV)
        if server:
            databases["postgres"] = f"{server.rpartition('/')[0]}/pod_floor_{uuid.uuid4().hex[:8]}"
        for engine, url in databases.items():
            for sync in ("full", "normal"):
                mode: SyncMode = sync
                settings = DurableSettings(database=url.format(sync=sync), sync=mode)
                figures[f"{engine} {sync}"] = await _measure(settings, turn_counts)
    return figures


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def print_floor(figures: dict[str, FloorFigures], console: Console) -> None:
    """The floor's table: per turn against the durable targets, and one step's parts."""
    table = Table(title="bare DBOS workflow: two empty steps per turn (wall time)")
    for column in ("backend", "per turn, N = 100", "per turn, N = 1,000", "target"):
        table.add_column(column)
    for column in ("one step", "check (thread)", "record (thread)", "rest"):
        table.add_column(column)
    for name, floor in figures.items():
        step = floor.per_step["step"]
        check, record = (floor.per_step[call] for call in _TIMED)
        table.add_row(
            name,
            *(_ms(floor.per_turn[n]) if n in floor.per_turn else "" for n in (100, 1_000)),
            f"≤ {_ms(PER_TURN_TARGET[name.split()[0]])}",
            _ms(step),
            _ms(check),
            _ms(record),
            _ms(step - check - record),
        )
    console.print(table)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.durable_floor", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one short repeat (smoke test)")
    arguments = parser.parse_args()
    console = Console(width=None if sys.stdout.isatty() else 160)
    print_floor(asyncio.run(measure_floor(quick=arguments.quick)), console)


if __name__ == "__main__":
    main()
