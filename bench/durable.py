"""Durable runs: the cost of checkpointing a Pod run, next to the in-memory Pod.

The workload is the loop section's (``bench.workload``: one tool call per turn, two trivial
hooks, idle interceptors), run by a ``pod.durable.DurableAgent`` as a DBOS workflow on:

- SQLite, ``sync="full"`` (the default: every checkpoint synced to disk);
- SQLite, ``sync="normal"`` (WAL, synced at WAL checkpoints: survives a crashed
  process, may lose the last checkpoints with the machine);
- PostgreSQL, when ``$POD_BENCH_POSTGRES_URL`` names a server (a database is created there).

Durable runs do I/O and use DBOS's threads, so they are timed in *wall* time (the in-memory
Pod beside them too, in the same process, alternating). Flatness is the median gap between
the tool's clock stamps around turn 10 and turn 1,000. Recovery: a 1,000-turn run is killed
(SIGKILL) while waiting for its last model request; a new process launches DBOS, which
replays the recorded steps, and the time from launch to the run's result is reported.
Memory: what a 1,000-turn run holds halfway (allocated and alive, traced), durable and in an
in-memory Pod with the same parts; and the peak allocation of one run (a durable run's peak
includes DBOS serialising its result, the whole history, once at the end).

    python -m bench.durable [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, final

from rich.console import Console
from rich.table import Table

from llm_worker import (
    Finished,
    LlmRequest,
    LlmResponse,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
)
from pod import HookRegistry, Pod, PodSettings, events
from pod.durable import DurableAgent, DurableSettings, SyncMode, launch, shutdown

from .floor import ARGUMENTS, CLOCK, FINAL_TEXT
from .workload import allow_tool, echo, make_runner, watch_request

__all__ = ["DurableFigures", "measure_durable", "print_durable"]

TURN_COUNTS: Final = (100, 1_000)
_REPEATS: Final = {100: 5, 1_000: 2}
PER_TURN_TARGET: Final = {"sqlite": 3e-3, "postgres": 5e-3}
"""By database: the most a durable turn may cost (issue 15)."""
FLATNESS_TARGET: Final = 1.5
RECOVERY_TARGET: Final = 5.0
POSTGRES_ENV: Final = "POD_BENCH_POSTGRES_URL"
_EARLY: Final = (2, 22)
_LATE: Final = (950, 1_000)


def _model_of_request(turns: int) -> Callable[[LlmRequest], ScriptedReply]:
    """The loop section's model as a function of the request (its length: the prompt, then a
    call and a result per turn), call ids included: a recovered run, whose replayed requests
    are not sent, asks it the same questions and gets the same answers."""
    final = ScriptedReply(text=FINAL_TEXT)

    def reply(request: LlmRequest) -> ScriptedReply:
        done = (len(request.items) - 1) // 2
        if done >= turns:
            return final
        call = ScriptedCall(name="echo", arguments=ARGUMENTS, call_id=f"call_{done + 1}")
        return ScriptedReply(calls=(call,))

    return reply


@final
class _SwappableClient:
    """The agent's client; each repeat gets a fresh scripted model of the right length."""

    def __init__(self) -> None:
        self.inner = ScriptedClient(then=_model_of_request(0), record=False)
        self.block_at: int | None = None
        """Hang in the model request that follows this many tool results (then be killed)."""
        self.probe_at: int | None = None
        """Note the memory traced at the model request that follows this many tool results."""
        self.traced = 0

    async def complete(self, request: LlmRequest) -> LlmResponse:
        if self.probe_at is not None and len(request.items) == 2 * self.probe_at + 1:
            self.traced = tracemalloc.get_traced_memory()[0]
        if self.block_at is not None and len(request.items) >= 2 * self.block_at:
            _signal_blocked()
            await asyncio.sleep(3600)  # killed here by the recovery benchmark
        return await self.inner.complete(request)


def _signal_blocked() -> None:
    Path(os.environ["POD_BENCH_SIGNAL"]).write_text("blocked")


_client: Final = _SwappableClient()


def _hooks() -> HookRegistry:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, allow_tool)
    registry.on(events.PRE_LLM_REQUEST, watch_request)
    return registry


_POD_SETTINGS: Final = PodSettings(max_requests_per_turn=10**6, compaction_threshold_tokens=10**9)
agent: Final = DurableAgent("bench", _client, tools=[echo], hooks=_hooks(), settings=_POD_SETTINGS)


@final
@dataclass
class BackendFigures:
    """What one backend measured."""

    per_turn: dict[int, tuple[float, float]] = field(default_factory=dict)
    """By N: best seconds per turn of (durable, in-memory)."""
    flatness: tuple[float, float] = (0.0, 0.0)
    """Median seconds per turn around turn 10 and turn 1,000 (durable)."""
    memory: tuple[int, int] = (0, 0)
    """Peak bytes of one 1,000-turn run (durable, in-memory)."""
    held: tuple[int, int] = (0, 0)
    """Bytes alive halfway through a 1,000-turn run (durable, in-memory)."""
    recovery: float | None = None
    """Seconds from launch to the result of a recovered 1,000-turn run."""


@final
@dataclass
class DurableFigures:
    backends: dict[str, BackendFigures]
    skipped: dict[str, str]


def _gaps(stamps: list[int]) -> list[float]:
    return [(b - a) / 1e9 for a, b in itertools.pairwise(stamps)]


async def _wall(run: Callable[[], Awaitable[object]]) -> float:
    gc.collect()
    start = time.perf_counter()
    await run()
    return time.perf_counter() - start


async def _durable_once(turns: int) -> None:
    _client.inner = ScriptedClient(then=_model_of_request(turns), record=False)
    outcome = await agent.run("go")
    assert isinstance(outcome.result, Finished), outcome.result
    assert len(outcome.history) == 2 * turns + 2


async def _memory_once(turns: int) -> None:
    runner = make_runner(turns)
    await runner.run()
    runner.check()


_in_memory_client: Final = _SwappableClient()


async def _in_memory_once(turns: int) -> None:
    """The agent's parts in an in-memory ``Pod`` (for the memory held mid-run)."""
    _in_memory_client.inner = ScriptedClient(then=_model_of_request(turns), record=False)
    pod = Pod(_in_memory_client, tools=[echo], hooks=_hooks(), settings=_POD_SETTINGS)
    assert isinstance(await pod.run("go"), Finished)


async def _held(run: Callable[[], Awaitable[object]], client: _SwappableClient, turns: int) -> int:
    """Bytes allocated and still alive halfway through a run (what a worker holds per run)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        client.probe_at = turns // 2
        await run()
        return client.traced - before
    finally:
        client.probe_at = None
        tracemalloc.stop()


async def _peak(run: Callable[[], Awaitable[object]]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        await run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def _measure_backend(turn_counts: tuple[int, ...], repeats: dict[int, int]) -> BackendFigures:
    figures = BackendFigures()
    for turns in turn_counts:
        durable: list[float] = []
        memory: list[float] = []
        for _ in range(repeats[turns]):
            CLOCK.reset()
            durable.append(await _wall(lambda t=turns: _durable_once(t)) / turns)
            stamps = list(CLOCK.stamps)
            memory.append(await _wall(lambda t=turns: _memory_once(t)) / turns)
            if turns >= _LATE[1]:
                gaps = _gaps(stamps)
                figures.flatness = (
                    statistics.median(gaps[_EARLY[0] - 1 : _EARLY[1] - 1]),
                    statistics.median(gaps[_LATE[0] - 1 : _LATE[1] - 1]),
                )
        figures.per_turn[turns] = (min(durable), min(memory))
    longest = turn_counts[-1]
    figures.memory = (
        await _peak(lambda: _durable_once(longest)),
        await _peak(lambda: _memory_once(longest)),
    )
    figures.held = (
        await _held(lambda: _durable_once(longest), _client, longest),
        await _held(lambda: _in_memory_once(longest), _in_memory_client, longest),
    )
    return figures


@final
@dataclass(frozen=True)
class _Backend:
    """One configuration measured: a database and a ``sync`` mode."""

    database: str
    sync: SyncMode

    def settings(self) -> DurableSettings:
        return DurableSettings(database=self.database, sync=self.sync)

    def argv(self) -> list[str]:
        return [self.database, self.sync]


def _recovery(backend: _Backend, turns: int, folder: Path) -> float:
    """Kill a ``turns``-turn run before its last request; time its recovery elsewhere."""
    signal_file = folder / f"blocked-{uuid.uuid4().hex[:6]}"
    env = dict(os.environ, POD_BENCH_SIGNAL=str(signal_file))
    run_id = f"recover-{uuid.uuid4().hex[:8]}"
    base = [sys.executable, "-m", "bench.durable", "--child", *backend.argv(), run_id, str(turns)]
    first = subprocess.Popen([*base, "run"], env=env)
    try:
        while not signal_file.exists():
            if first.poll() is not None:
                raise RuntimeError("the run to recover ended early")
            time.sleep(0.05)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    second = subprocess.run(
        [*base, "recover"], env=env, capture_output=True, text=True, check=False, timeout=600
    )
    if second.returncode != 0:
        raise RuntimeError(f"the recovery failed: {second.stderr}")
    return float(second.stdout.strip())


async def _child(backend: _Backend, run_id: str, turns: int, mode: str) -> None:
    _client.inner = ScriptedClient(then=_model_of_request(turns), record=False)
    if mode == "run":
        _client.block_at = turns  # the last model request (after ``turns`` tool results) hangs
        await launch(backend.settings())
        await agent.run("go", run_id=run_id)
        return
    from pod.durable import DurableRuns

    started = time.perf_counter()
    await launch(backend.settings())  # recovery starts here
    with DurableRuns(backend.database) as runs:
        outcome = await asyncio.to_thread(runs.result, run_id)
    elapsed = time.perf_counter() - started
    assert isinstance(outcome.result, Finished)
    assert len(outcome.history) == 2 * turns + 2
    shutdown()
    sys.stdout.write(f"{elapsed}\n")


def _backends(folder: Path) -> tuple[dict[str, _Backend], dict[str, str]]:
    """Every (database, sync) to measure, by name (``sqlite full``)."""
    databases = {"sqlite": f"sqlite:///{folder}/{{name}}.sqlite"}
    skipped: dict[str, str] = {}
    server = os.environ.get(POSTGRES_ENV)
    if server:
        base, _, _ = server.rpartition("/")
        databases["postgres"] = f"{base}/pod_bench_{uuid.uuid4().hex[:8]}"  # one for all
    else:
        skipped["postgres"] = f"set {POSTGRES_ENV} to a server's URL (a database is created)"
    backends: dict[str, _Backend] = {}
    for engine, url in databases.items():
        for sync in ("full", "normal"):
            name = f"{engine} {sync}"
            backends[name] = _Backend(url.format(name=name.replace(" ", "-")), sync)
    return backends, skipped


async def measure_durable(*, quick: bool = False) -> DurableFigures:
    """Measure every backend in turn (DBOS runs one system database per process)."""
    turn_counts = (100,) if quick else TURN_COUNTS
    repeats = dict.fromkeys(turn_counts, 1) if quick else _REPEATS
    figures: dict[str, BackendFigures] = {}
    with tempfile.TemporaryDirectory(prefix="pod-bench-durable-") as tmp:
        folder = Path(tmp)
        backends, skipped = _backends(folder)
        for name, backend in backends.items():
            await launch(backend.settings())
            try:
                figures[name] = await _measure_backend(turn_counts, repeats)
            finally:
                shutdown()
            if not quick:  # blocks the loop: nothing else runs (DBOS's executor is shut down)
                figures[name].recovery = _recovery(backend, TURN_COUNTS[-1], folder)
    return DurableFigures(backends=figures, skipped=skipped)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms"


def print_durable(figures: DurableFigures, console: Console) -> None:
    """The durable section's table: per turn, flatness, memory, recovery, against targets."""
    table = Table(title="durable runs (wall time; in-memory Pod in the same process)")
    for column in ("backend", "measure", "durable", "in memory", "ratio", "target", "met"):
        table.add_column(column)
    for name, backend in figures.backends.items():
        target = PER_TURN_TARGET[name.split()[0]]
        for turns, (durable, memory) in backend.per_turn.items():
            table.add_row(
                name, f"per turn, N = {turns:,}", _ms(durable), _ms(memory - 0.0),
                f"{durable / memory:.0f}x", f"≤ {_ms(target)}", _yes(durable <= target),
            )  # fmt: skip
        early, late = backend.flatness
        if early:
            growth = late / early
            table.add_row(
                name, "turn ~1,000 / turn ~10", f"{_ms(late)} / {_ms(early)}", "",
                f"{growth:.2f}x", f"≤ {FLATNESS_TARGET}x", _yes(growth <= FLATNESS_TARGET),
            )  # fmt: skip
        durable_held, memory_held = backend.held
        table.add_row(
            name, "memory held halfway", f"{durable_held / 2**20:.2f} MiB",
            f"{memory_held / 2**20:.2f} MiB", f"{durable_held / memory_held:.2f}x", "≤ 1x",
            _yes(durable_held <= memory_held),
        )  # fmt: skip
        durable_peak, memory_peak = backend.memory
        table.add_row(
            name, "peak memory, one run", f"{durable_peak / 2**20:.1f} MiB",
            f"{memory_peak / 2**20:.1f} MiB", f"{durable_peak / memory_peak:.2f}x", "",
            "",
        )  # fmt: skip
        if backend.recovery is not None:
            table.add_row(
                name, "recovery, 1,000 turns", f"{backend.recovery:.2f} s", "", "",
                f"< {RECOVERY_TARGET:.0f} s", _yes(backend.recovery < RECOVERY_TARGET),
            )  # fmt: skip
    console.print(table)
    for name, reason in figures.skipped.items():
        console.print(f"durable ({name}): skipped: {reason}")


def _yes(met: bool) -> str:
    return "yes" if met else "no"


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        database, sync, run_id, turns, mode = sys.argv[2:7]
        assert sync in ("full", "normal")
        backend = _Backend(database, sync)  # type: ignore[arg-type]
        asyncio.run(_child(backend, run_id, int(turns), mode))
        return
    parser = argparse.ArgumentParser(prog="python -m bench.durable", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one short repeat (smoke test)")
    arguments = parser.parse_args()
    console = Console(width=None if sys.stdout.isatty() else 160)
    figures = asyncio.run(measure_durable(quick=arguments.quick))
    print_durable(figures, console)


if __name__ == "__main__":
    main()
