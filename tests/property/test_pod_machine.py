"""Property tests over random scripted Pod runs with notifications: none is lost or
duplicated, the history stays well-formed, and a Pod paused and resumed through JSON in a
fresh Pod ends exactly like an uninterrupted one."""

from __future__ import annotations

import asyncio
import threading

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llm_worker import ITEMS_ADAPTER, Message, ScriptedClient, ScriptedReply
from llm_worker.testing import assert_well_formed
from pod import (
    NOTIFICATION_PREFIX,
    Aborted,
    Finished,
    LimitReached,
    Paused,
    Pod,
    PodSettings,
    PodSnapshot,
)

from .test_worker_machine import (
    PlannedCall,
    assert_only_open_calls,
    build,
    hooks_for,
    resolutions,
    scenario,
    work,
)

Plan = list[list[str] | list[PlannedCall]]


def make_pod(
    replies: list[ScriptedReply], by_id: dict[str, PlannedCall], start: int
) -> tuple[Pod, ScriptedClient]:
    client = ScriptedClient(replies[start:])
    pod = Pod(
        client,
        tools=[work],
        hooks=hooks_for(by_id),
        settings=PodSettings(
            compaction_threshold_tokens=None,  # notifications must stay visible to count them
            tool_timeout=0.02,
            max_requests_per_turn=len(replies) + 1,
        ),
    )
    return pod, client


def flushed(pod: Pod) -> list[str]:
    return [
        item.text.removeprefix(NOTIFICATION_PREFIX)
        for item in pod.history
        if isinstance(item, Message) and item.text.startswith(NOTIFICATION_PREFIX)
    ]


async def drive(plan: Plan, *, through_json: bool) -> tuple[bytes, list[str]]:
    replies, by_id = build(plan)
    pod, client = make_pod(replies, by_id, 0)
    used = 0
    sent: list[str] = ["before the run"]
    pod.notify(sent[0])
    result = await pod.run("go")
    while isinstance(result, Paused):
        assert_only_open_calls(pod.history)
        sent.append(f"while paused #{len(sent)}")
        pod.notify(sent[-1])
        decisions = resolutions(result, by_id)
        if through_json:
            used += len(client.requests)
            saved = pod.snapshot().to_json()
            pod, client = make_pod(replies, by_id, used)
            pod.restore(PodSnapshot.from_json(saved))
        result = await pod.resume(decisions)
    assert isinstance(result, Finished | Aborted | LimitReached)
    assert_well_formed(pod.history)
    # Each notification is in exactly one place: the history (in order) or still pending.
    landed = flushed(pod)
    assert landed == sent[: len(landed)]
    assert len(landed) + pod.pending_notifications == len(sent)
    return ITEMS_ADAPTER.dump_json(list(pod.history)), landed


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=scenario)
def test_a_pod_resumed_through_json_ends_like_an_uninterrupted_one(plan: Plan) -> None:
    direct = asyncio.run(drive(plan, through_json=False))
    via_json = asyncio.run(drive(plan, through_json=True))
    assert via_json == direct


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=scenario, count=st.integers(min_value=1, max_value=50))
def test_notifications_from_another_thread_land_once_in_order(plan: Plan, count: int) -> None:
    async def scenario_run() -> None:
        replies, by_id = build(plan)
        pod, _ = make_pod(replies, by_id, 0)
        texts = [f"from thread #{i}" for i in range(count)]

        def push_all() -> None:
            for text in texts:
                pod.notify(text)

        pusher = threading.Thread(target=push_all)
        pusher.start()
        result = await pod.run("go")
        while isinstance(result, Paused):
            result = await pod.resume(resolutions(result, by_id))
        pusher.join()
        landed = flushed(pod)
        assert landed == texts[: len(landed)]
        assert len(landed) + pod.pending_notifications == count
        assert_well_formed(pod.history)

    asyncio.run(scenario_run())
