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
Memory per run (the target): what a worker holds per run it serves, the marginal memory of K
runs held at once, (held(8) - held(1)) / 7. A hook pauses each 1,000-turn run halfway: durable
runs wait durably for a decision (their Pods alive), in-memory Pods are kept paused; bytes
alive are traced (tracemalloc, all threads, after ``gc.collect()``), then the runs are aborted.
Also shown, labelled: what one run holds halfway, and the peak of one whole run; both include
what DBOS's background threads allocate meanwhile (process-level, not per run).

    python -m bench.durable [--quick] [--memory-by-owner]
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
from tracemalloc import Snapshot
from typing import Final, TypeAlias, final

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
from pod import (
    Abort,
    Aborted,
    Continue,
    FrozenHookRegistry,
    HookRegistry,
    Pause,
    Paused,
    Pod,
    PodSettings,
    ToolCallSummary,
    events,
)
from pod.durable import (
    DurableAgent,
    DurableRuns,
    DurableSettings,
    RunDecision,
    SyncMode,
    launch,
    shutdown,
)

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
HELD_RUNS: Final = (1, 8)
"""How many runs a worker holds at once, paused halfway, for the memory per run."""
_HALFWAY: Final = "-halfway"
"""The suffix of the call id a held run's model gives halfway; the pause hook stops there."""


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


def _pause_halfway(call: ToolCallSummary) -> Continue | Pause:
    """Held runs' ``PRE_TOOL_CALL`` hook: pause at the call the model marked halfway."""
    if call.call_id.endswith(_HALFWAY):
        return Pause(reason="held halfway (bench)")
    return Continue()


def _held_hooks() -> FrozenHookRegistry:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, _pause_halfway)
    registry.on(events.PRE_LLM_REQUEST, watch_request)
    return registry.freeze()


def _model_pausing_halfway(turns: int) -> Callable[[LlmRequest], ScriptedReply]:
    """The loop's model, whose call after ``turns // 2`` results is marked to pause."""
    reply = _model_of_request(turns)
    halfway = ScriptedReply(
        calls=(ScriptedCall(name="echo", arguments=ARGUMENTS, call_id=f"call_half{_HALFWAY}"),)
    )

    def pausing(request: LlmRequest) -> ScriptedReply:
        return halfway if len(request.items) == 2 * (turns // 2) + 1 else reply(request)

    return pausing


_POD_SETTINGS: Final = PodSettings(max_requests_per_turn=10**6, compaction_threshold_tokens=10**9)
agent: Final = DurableAgent("bench", _client, tools=[echo], hooks=_hooks(), settings=_POD_SETTINGS)
_held_client: Final = _SwappableClient()
"""The client of held runs, durable and in memory (one per worker, shared by its runs)."""
_HELD_HOOKS: Final = _held_hooks()
held_agent: Final = DurableAgent(
    "bench-held", _held_client, tools=[echo], hooks=_HELD_HOOKS, settings=_POD_SETTINGS
)


def per_run(held: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """The marginal memory of one more held run, (held(K) - held(1)) / (K - 1), both sides."""
    few, many = min(held), max(held)
    (durable_few, memory_few), (durable_many, memory_many) = held[few], held[many]
    runs = many - few
    return (durable_many - durable_few) // runs, (memory_many - memory_few) // runs


@final
@dataclass
class BackendFigures:
    """What one backend measured."""

    per_turn: dict[int, tuple[float, float]] = field(default_factory=dict)
    """By N: best seconds per turn of (durable, in-memory)."""
    flatness: tuple[float, float] = (0.0, 0.0)
    """Median seconds per turn around turn 10 and turn 1,000 (durable)."""
    memory: tuple[int, int] = (0, 0)
    """Peak bytes of one 1,000-turn run (durable, in-memory), DBOS's threads included."""
    held: tuple[int, int] = (0, 0)
    """Bytes alive halfway through one 1,000-turn run (durable, in-memory), process-level
    allocations made meanwhile (DBOS's threads) included."""
    held_runs: dict[int, tuple[int, int]] = field(default_factory=dict[int, tuple[int, int]])
    """By K: bytes alive while K 1,000-turn runs are paused halfway (durable, in-memory)."""
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


_Snapshots: TypeAlias = list[tuple[Snapshot, Snapshot]]
"""(before, held) snapshot pairs, one per measure."""


@final
class _Baseline:
    """Memory before the runs, taken after ``gc.collect()`` with tracemalloc started.

    With ``snapshots``, a snapshot is also taken at both ends and the pair appended there.
    """

    def __init__(self, snapshots: _Snapshots | None = None) -> None:
        gc.collect()
        tracemalloc.start()
        self.traced = tracemalloc.get_traced_memory()[0]
        self._snapshots = snapshots
        self._before = tracemalloc.take_snapshot() if snapshots is not None else None

    def held(self) -> int:
        """Bytes traced and alive now above the baseline (all threads)."""
        # DBOS's threads poll its database all the time: keep them off the GIL from the
        # collection to the reading, which then sees what the collection left alive.
        interval = sys.getswitchinterval()
        sys.setswitchinterval(60.0)
        try:
            gc.collect()
            held = tracemalloc.get_traced_memory()[0] - self.traced
            if self._snapshots is not None and self._before is not None:
                self._snapshots.append((self._before, tracemalloc.take_snapshot()))
            return held
        finally:
            sys.setswitchinterval(interval)


_OWNERS: Final = (
    ("pod.durable", f"{os.sep}pod{os.sep}durable{os.sep}"),
    ("llm-pod (the Pod, its items)", f"{os.sep}llm_worker{os.sep}"),
    ("llm-pod (the Pod, its items)", f"{os.sep}pod{os.sep}"),
    ("the bench (model, tool)", f"{os.sep}bench{os.sep}"),
    ("dbos", f"{os.sep}dbos{os.sep}"),
    ("sqlalchemy", "sqlalchemy"),
)


def _owner(filename: str) -> str:
    for owner, marker in _OWNERS:
        if marker in filename:
            return owner
    return "other (stdlib, pydantic: called by any of them)"


def _alive_by_owner(before: Snapshot, after: Snapshot) -> dict[str, int]:
    """Bytes alive at ``after`` above ``before``, by the owner of the file that allocated them."""
    tracer = [tracemalloc.Filter(False, tracemalloc.__file__)]
    owners: dict[str, int] = {}
    for stat in after.filter_traces(tracer).compare_to(before.filter_traces(tracer), "filename"):
        owner = _owner(stat.traceback[0].filename)
        owners[owner] = owners.get(owner, 0) + stat.size_diff
    return owners


async def _hold_durable(
    runs: int, turns: int, monitor: DurableRuns, snapshots: _Snapshots | None = None
) -> int:
    """Start ``runs`` durable runs, wait until all are paused halfway, measure, abort them."""
    _held_client.inner = ScriptedClient(then=_model_pausing_halfway(turns), record=False)
    baseline = _Baseline(snapshots)
    try:
        run_ids = [await held_agent.start("go") for _ in range(runs)]
        waiting = set(run_ids)
        while waiting:
            await asyncio.sleep(0.1)
            for run_id in list(waiting):
                info = await asyncio.to_thread(monitor.get, run_id)
                if info.paused is not None:
                    waiting.discard(run_id)
                elif info.status not in ("queued", "running"):
                    raise RuntimeError(f"held run {run_id} ended ({info.status}) before pausing")
        held = baseline.held()
    finally:
        tracemalloc.stop()
    for run_id in run_ids:  # end them, so nothing is left running into later sections
        await asyncio.to_thread(monitor.approve, run_id, RunDecision(abort="bench: measured"))
    for run_id in run_ids:
        outcome = await asyncio.to_thread(monitor.result, run_id)
        assert isinstance(outcome.result, Aborted), outcome.result
    return held


async def _hold_in_memory(runs: int, turns: int, snapshots: _Snapshots | None = None) -> int:
    """Run ``runs`` in-memory Pods until each pauses halfway, keep them, measure, abort them."""
    _held_client.inner = ScriptedClient(then=_model_pausing_halfway(turns), record=False)
    baseline = _Baseline(snapshots)
    paused: list[tuple[Pod, Paused]] = []
    try:
        for _ in range(runs):
            pod = Pod(_held_client, tools=[echo], hooks=_HELD_HOOKS, settings=_POD_SETTINGS)
            result = await pod.run("go")
            assert isinstance(result, Paused), result
            paused.append((pod, result))
        held = baseline.held()
    finally:
        tracemalloc.stop()
    for pod, pause in paused:
        abort = Abort(reason="bench: measured")
        ended = await pod.resume({call.call_id: abort for call in pause.pending_calls})
        assert isinstance(ended, Aborted), ended
    return held


async def _held_runs(
    turns: int, database: str, snapshots: tuple[_Snapshots, _Snapshots] | None = None
) -> dict[int, tuple[int, int]]:
    """What K runs paused halfway hold at once, durable and in memory, for each K."""
    held: dict[int, tuple[int, int]] = {}
    durable_snapshots, memory_snapshots = snapshots if snapshots is not None else (None, None)
    with DurableRuns(database) as monitor:
        # Warm up with as many runs as measured: what grows with concurrency up to a bound
        # (the executor's threads, their connections and caches) is the process's, not a run's.
        await _hold_durable(max(HELD_RUNS), 4, monitor)
        await _hold_in_memory(max(HELD_RUNS), 4)
        for runs in HELD_RUNS:
            held[runs] = (
                await _hold_durable(runs, turns, monitor, durable_snapshots),
                await _hold_in_memory(runs, turns, memory_snapshots),
            )
    return held


async def memory_by_owner(turns: int) -> dict[str, tuple[int, int]]:
    """The memory per run held halfway, by owner (durable, in memory), on SQLite ``normal``.

    Owner: what allocated the bytes still alive (tracemalloc's innermost frame), so DBOS's
    share is separated from the run's own (the Pod, its items) and from ``pod.durable``'s.
    """
    snapshots: tuple[_Snapshots, _Snapshots] = ([], [])
    with tempfile.TemporaryDirectory(prefix="pod-bench-durable-") as tmp:
        database = f"sqlite:///{tmp}/owners.sqlite"
        await launch(DurableSettings(database=database, sync="normal"))
        try:
            await _held_runs(turns, database, snapshots)
        finally:
            shutdown()
    runs = max(HELD_RUNS) - min(HELD_RUNS)
    sides: list[dict[str, int]] = []
    for pairs in snapshots:  # one pair per K, in HELD_RUNS' order
        few, many = _alive_by_owner(*pairs[0]), _alive_by_owner(*pairs[-1])
        sides.append({k: (many.get(k, 0) - few.get(k, 0)) // runs for k in few.keys() | many})
    durable, memory = sides
    return {k: (durable.get(k, 0), memory.get(k, 0)) for k in durable.keys() | memory}


def print_memory_by_owner(owners: dict[str, tuple[int, int]], console: Console) -> None:
    table = Table(title="memory per run held halfway, by owner (SQLite normal; traced)")
    for column in ("allocated by", "durable", "in memory", "durable - in memory"):
        table.add_column(column)
    for owner, (durable, memory) in sorted(owners.items(), key=lambda o: -abs(o[1][0] - o[1][1])):
        table.add_row(owner, _kib(durable), _kib(memory), _kib(durable - memory))
    durable_total = sum(d for d, _ in owners.values())
    memory_total = sum(m for _, m in owners.values())
    table.add_row(
        "total", _kib(durable_total), _kib(memory_total), _kib(durable_total - memory_total)
    )
    console.print(table)


async def _peak(run: Callable[[], Awaitable[object]]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        await run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def _measure_backend(
    turn_counts: tuple[int, ...], repeats: dict[int, int], database: str
) -> BackendFigures:
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
    figures.held_runs = await _held_runs(longest, database)
    return figures


@final
@dataclass(frozen=True)
class _Backend:
    """One configuration measured: a database and a ``sync`` mode."""

    database: str
    sync: SyncMode

    def settings(self, executor_id: str | None = None) -> DurableSettings:
        return DurableSettings(database=self.database, sync=self.sync, executor_id=executor_id)

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


def _recovering_worker(run_id: str) -> str:
    return f"bench-{run_id}"


async def _child(backend: _Backend, run_id: str, turns: int, mode: str) -> None:
    _client.inner = ScriptedClient(then=_model_of_request(turns), record=False)
    if mode == "run":
        _client.block_at = turns  # the last model request (after ``turns`` tool results) hangs
        await launch(backend.settings(_recovering_worker(run_id)))
        await agent.run("go", run_id=run_id)
        return
    from pod.durable import DurableRuns

    started = time.perf_counter()
    # The killed worker restarted under its name (as a systemd unit or a StatefulSet would):
    # it recovers its runs at launch. A worker under another name would wait for the
    # takeover (dead-after, 30 s by default; bench/takeover.py measures that road).
    await launch(backend.settings(_recovering_worker(run_id)))  # recovery starts here
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
                figures[name] = await _measure_backend(turn_counts, repeats, backend.database)
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
        _memory_rows(table, name, backend)
        durable_peak, memory_peak = backend.memory
        table.add_row(
            name, "peak of one whole run (+ DBOS's threads)", f"{durable_peak / 2**20:.1f} MiB",
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


def _kib(size: int) -> str:
    return f"{size / 2**10:,.0f} KiB"


def _memory_rows(table: Table, name: str, backend: BackendFigures) -> None:
    """Memory per run (the target) and what one run held, labelled for what they include."""
    if backend.held_runs:
        durable, memory = per_run(backend.held_runs)
        few, many = min(backend.held_runs), max(backend.held_runs)
        table.add_row(
            name, f"memory per run held halfway ({many} runs - {few}) / {many - few}",
            _kib(durable), _kib(memory), f"{durable / memory:.2f}x", "≤ 1x",
            _yes(durable <= memory),
        )  # fmt: skip
        durable_many, memory_many = backend.held_runs[many]
        table.add_row(
            name, f"{many} runs held halfway at once", _kib(durable_many), _kib(memory_many),
            f"{durable_many / memory_many:.2f}x", "", "",
        )  # fmt: skip
    durable_held, memory_held = backend.held
    table.add_row(
        name, "one run held halfway (+ DBOS's threads meanwhile)", _kib(durable_held),
        _kib(memory_held), f"{durable_held / memory_held:.2f}x", "", "",
    )  # fmt: skip


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
    parser.add_argument(
        "--memory-by-owner",
        action="store_true",
        help="only the memory per run held halfway, by what allocated it (SQLite normal)",
    )
    arguments = parser.parse_args()
    console = Console(width=None if sys.stdout.isatty() else 160)
    if arguments.memory_by_owner:
        turns = TURN_COUNTS[0] if arguments.quick else TURN_COUNTS[-1]
        print_memory_by_owner(asyncio.run(memory_by_owner(turns)), console)
        return
    figures = asyncio.run(measure_durable(quick=arguments.quick))
    print_durable(figures, console)


if __name__ == "__main__":
    main()
