"""Property tests over random scripted runs: the history is always well-formed, and a run
paused and resumed through JSON in a fresh Worker ends exactly like an uninterrupted one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from llm_worker import (
    ITEMS_ADAPTER,
    Aborted,
    Approve,
    CallResolution,
    Continue,
    Finished,
    Item,
    LimitReached,
    Pause,
    Paused,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Skip,
    ToolCallSummary,
    Worker,
    WorkerResult,
    WorkerSnapshot,
    tool,
)
from llm_worker.testing import assert_well_formed, pairing_problems
from pod import Abort, HookRegistry, events

Behaviour = Literal["returns", "raises", "hangs", "unknown", "malformed"]
HookMove = Literal["continue", "skip", "abort", "pause", "raise"]


@dataclass(frozen=True)
class PlannedCall:
    behaviour: Behaviour
    hook: HookMove
    resolution: Literal["approve", "skip"]


@tool
async def work(mode: str) -> str:
    """Return, raise or hang, as told."""
    if mode == "raises":
        raise RuntimeError("tool broke")
    if mode == "hangs":
        await asyncio.sleep(5)
    return f"worked ({mode})"


planned_call = st.builds(
    PlannedCall,
    behaviour=st.sampled_from(["returns", "returns", "raises", "hangs", "unknown", "malformed"]),
    hook=st.sampled_from(["continue"] * 6 + ["skip", "pause", "pause", "abort", "raise"]),
    resolution=st.sampled_from(["approve", "skip"]),
)
reply = st.one_of(
    st.text(min_size=1, max_size=20).map(lambda text: [text]),
    st.lists(planned_call, min_size=1, max_size=4),
)
# Most scripts end with a text answer; some run out mid-turn (the model request then fails).
scenario = st.tuples(st.lists(reply, min_size=1, max_size=5), st.booleans()).map(
    lambda pair: [*pair[0], ["final answer"]] if pair[1] else pair[0]
)


def build(
    plan: list[list[str] | list[PlannedCall]],
) -> tuple[list[ScriptedReply], dict[str, PlannedCall]]:
    replies: list[ScriptedReply] = []
    by_id: dict[str, PlannedCall] = {}
    for turn, step in enumerate(plan):
        calls: list[ScriptedCall] = []
        for position, planned in enumerate(step):
            if isinstance(planned, str):
                replies.append(ScriptedReply(text=planned))
                break
            call_id = f"c{turn}_{position}"
            by_id[call_id] = planned
            if planned.behaviour == "unknown":
                calls.append(ScriptedCall("missing_tool", {}, call_id=call_id))
            elif planned.behaviour == "malformed":
                calls.append(ScriptedCall("work", '{"mode": ', call_id=call_id))
            else:
                calls.append(ScriptedCall("work", {"mode": planned.behaviour}, call_id=call_id))
        if calls:
            replies.append(ScriptedReply(calls=calls))
    return replies, by_id


def hooks_for(by_id: dict[str, PlannedCall]) -> HookRegistry:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def decide(call: ToolCallSummary) -> Continue | Skip | Abort | Pause:
        move = by_id[call.call_id].hook
        if move == "raise":
            raise ValueError(f"hook broke on {call.call_id}")
        if move == "skip":
            return Skip(reason="planned skip")
        if move == "abort":
            return Abort(reason="planned abort")
        if move == "pause":
            return Pause(reason="planned pause")
        return Continue()

    return registry


def make_worker(
    replies: list[ScriptedReply], by_id: dict[str, PlannedCall], start: int
) -> tuple[Worker, ScriptedClient]:
    client = ScriptedClient(replies[start:])
    worker = Worker(
        client,
        tools=[work],
        hooks=hooks_for(by_id).freeze(),
        tool_timeout=0.02,
        max_requests_per_turn=len(replies) + 1,
    )
    return worker, client


def assert_only_open_calls(history: Iterable[Item]) -> None:
    """While paused, the calls of the reply in progress may lack results; nothing else."""
    for problem in pairing_problems(history):
        assert problem.endswith("has no result"), problem


def resolutions(result: Paused, by_id: dict[str, PlannedCall]) -> dict[str, CallResolution]:
    return {
        pending.call_id: Approve(digest=pending.digest)
        if by_id[pending.call_id].resolution == "approve"
        else Skip(reason="resolved: skip")
        for pending in result.pending_calls
    }


async def drive(plan: list[list[str] | list[PlannedCall]], *, through_json: bool) -> bytes:
    replies, by_id = build(plan)
    worker, client = make_worker(replies, by_id, 0)
    used = 0
    result: WorkerResult = await worker.run("go")
    while isinstance(result, Paused):
        event("paused and resumed")
        assert_only_open_calls(worker.history)
        decisions = resolutions(result, by_id)
        if through_json:
            used += len(client.requests)
            saved = worker.snapshot().to_json()
            worker, client = make_worker(replies, by_id, used)
            worker.restore(WorkerSnapshot.from_json(saved))
        result = await worker.resume(decisions)
    event(f"ended {type(result).__name__}")
    assert isinstance(result, Finished | Aborted | LimitReached)
    assert_well_formed(worker.history)
    assert worker.status == "idle"
    return ITEMS_ADAPTER.dump_json(list(worker.history))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=scenario)
def test_resuming_through_json_ends_like_an_uninterrupted_run(
    plan: list[list[str] | list[PlannedCall]],
) -> None:
    direct = asyncio.run(drive(plan, through_json=False))
    via_json = asyncio.run(drive(plan, through_json=True))
    assert via_json == direct


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=scenario, ticks=st.integers(min_value=0, max_value=60))
def test_cancelling_at_any_moment_leaves_a_well_formed_history(
    plan: list[list[str] | list[PlannedCall]], ticks: int
) -> None:
    async def scenario_run() -> None:
        replies, by_id = build(plan)
        worker, _ = make_worker(replies, by_id, 0)
        task = asyncio.create_task(worker.run("go"))
        for _ in range(ticks):
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        event(f"cancelled: {task.cancelled()}")
        if worker.status == "paused":  # it paused before the cancellation came
            assert_only_open_calls(worker.history)
        else:
            assert worker.status == "idle"
            assert_well_formed(worker.history)
        # The Worker is usable afterwards: a new run starts cleanly and closes what was open.
        followup = await worker.run("again")
        if not isinstance(followup, Paused):
            assert_well_formed(worker.history)

    asyncio.run(scenario_run())
