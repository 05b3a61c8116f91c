"""The showcase the demo renders: every mechanism acts, in the documented order."""

from __future__ import annotations

from pod_helpers import assert_well_formed

from llm_worker import Summary
from pod import Finished, Paused, TraceEvent
from pod.cli._showcase import SHOWCASE_PROMPT, build_showcase_pod


async def test_the_showcase_exercises_every_mechanism() -> None:
    trace: list[TraceEvent] = []
    pod = build_showcase_pod(trace.append)
    paused = await pod.run(SHOWCASE_PROMPT)
    assert isinstance(paused, Paused)
    assert [call.call_id for call in paused.pending_calls] == ["call_3"]
    result = await pod.resume({"call_3": paused.pending_calls[0].approve()})

    assert isinstance(result, Finished)
    actors = {e.actor for e in trace if e.source == "interceptor"}
    assert actors == {"compaction", "notification", "truncation"}
    decisions = [e.decision for e in trace if e.actor == "PRE_TOOL_CALL"]
    by_policy = "(by pod.PermissionHook)"
    assert decisions == [
        "Continue",
        f"Skip: deleting files needs a human: ask the user instead {by_policy}",
        "Pause: shell commands need a human's OK (by pod.cli._showcase.confirm_shell)",
        f"Skip: no permission rule allows this call to read_file {by_policy}",
    ]
    assert sum(isinstance(item, Summary) for item in pod.history) == 1
    assert_well_formed(pod.history)
