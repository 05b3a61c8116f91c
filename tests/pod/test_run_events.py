"""``RUN_START``, ``OUTPUT`` and ``RUN_END``: a run's start, its answer before it is
returned, and its end.

``RUN_START`` may refuse a run before its prompt enters the history; ``OUTPUT`` may withhold
the answer (the run is ``Aborted``); ``RUN_END`` observes every result that ends a run (not a
pause: the run goes on), after ``ABORT``.
"""

from __future__ import annotations

from llm_worker import OUTPUT_BYTES, ScriptedCall, ScriptedClient, ScriptedReply, tool
from llm_worker.testing import assert_well_formed
from pod import (
    Abort,
    Aborted,
    AbortInfo,
    Continue,
    Finished,
    HookRegistry,
    LimitReached,
    Pause,
    Paused,
    Pod,
    PodSettings,
    PodSnapshot,
    ToolCallSummary,
    events,
)
from pod.events import OutputDecision, OutputInfo, RunEndInfo, RunStartDecision, RunStartInfo


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def two_step_client(answer: str = "the answer") -> ScriptedClient:
    return ScriptedClient(
        [
            ScriptedReply(calls=[ScriptedCall("lookup", {"key": "k"}, call_id="c1")]),
            ScriptedReply(text=answer),
        ]
    )


def recording(registry: HookRegistry, seen: list[object]) -> None:
    """Register observers at the three events (and ABORT) that append what they are given."""

    @registry.on(events.RUN_START)
    def started(info: RunStartInfo) -> RunStartDecision:
        seen.append(info)
        return Continue()

    @registry.on(events.OUTPUT)
    def output(info: OutputInfo) -> OutputDecision:
        seen.append(info)
        return Continue()

    @registry.on(events.ABORT)
    def aborted(info: AbortInfo) -> None:
        seen.append(info)

    @registry.on(events.RUN_END)
    def ended(info: RunEndInfo) -> None:
        seen.append(info)


async def test_a_finished_run_meets_start_output_and_end_in_order() -> None:
    seen: list[object] = []
    registry = HookRegistry()
    recording(registry, seen)
    pod = Pod(two_step_client(), tools=[lookup], hooks=registry)

    assert await pod.run("look it up") == Finished(text="the answer", turn=0)

    assert seen == [
        RunStartInfo(turn=0, tool_names=("lookup",)),
        OutputInfo(turn=0, text="the answer", text_length=10),
        RunEndInfo(turn=0, outcome="finished", reason=""),
    ]


async def test_run_start_abort_refuses_the_run_before_the_prompt_enters_the_history() -> None:
    seen: list[object] = []
    registry = HookRegistry()
    registry.on(events.RUN_START, lambda info: Abort(reason="closed for maintenance"))
    recording(registry, seen)
    client = two_step_client()
    pod = Pod(client, tools=[lookup], hooks=registry)

    result = await pod.run("look it up")

    assert result == Aborted(reason="closed for maintenance", turn=0)
    assert pod.history == ()
    assert client.requests == []
    assert seen == [
        AbortInfo(reason="closed for maintenance", turn=0),
        RunEndInfo(turn=0, outcome="aborted", reason="closed for maintenance"),
    ]


async def test_output_abort_withholds_the_answer_and_the_history_stays_well_formed() -> None:
    seen: list[object] = []
    registry = HookRegistry()

    @registry.on(events.OUTPUT)
    def no_secrets(info: OutputInfo) -> OutputDecision:
        return Abort(reason="the answer names a secret") if "secret" in info.text else Continue()

    recording(registry, seen)
    pod = Pod(two_step_client("the secret is X"), tools=[lookup], hooks=registry)

    result = await pod.run("tell me")

    assert result == Aborted(reason="the answer names a secret", turn=0)
    assert seen[-2:] == [
        AbortInfo(reason="the answer names a secret", turn=0),
        RunEndInfo(turn=0, outcome="aborted", reason="the answer names a secret"),
    ]
    # The model's reply stays in the history (hooks never remove items); it is not returned.
    assert_well_formed(pod.history)


async def test_output_shows_at_most_output_bytes_of_the_answer_and_its_whole_length() -> None:
    seen: list[OutputInfo] = []
    registry = HookRegistry()
    registry.on(events.OUTPUT, lambda info: seen.append(info) or Continue())
    long = "é" * OUTPUT_BYTES  # two bytes a character
    pod = Pod(ScriptedClient([ScriptedReply(text=long)]), hooks=registry)

    assert await pod.run("write a lot") == Finished(text=long, turn=0)

    [info] = seen
    assert info.text == "é" * (OUTPUT_BYTES // 2)
    assert info.text_length == 2 * OUTPUT_BYTES


async def test_a_pause_is_not_an_end_and_the_resumed_run_ends_once() -> None:
    seen: list[object] = []
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def ask_first(call: ToolCallSummary) -> Continue | Pause:
        return Pause(reason="approve?")

    recording(registry, seen)
    pod = Pod(two_step_client(), tools=[lookup], hooks=registry)
    paused = await pod.run("look it up")
    assert isinstance(paused, Paused)
    assert [type(info) for info in seen] == [RunStartInfo]

    # Resumed in a fresh Pod, from the saved run: RUN_END is told there, once; no new start.
    seen.clear()
    again = Pod(two_step_client(), tools=[lookup], hooks=registry)
    again.restore(PodSnapshot.from_json(pod.snapshot().to_json()))
    assert await again.resume({"c1": paused.pending_calls[0].approve()}) == Finished(
        text="the answer", turn=0
    )
    assert [type(info) for info in seen] == [OutputInfo, RunEndInfo]


async def test_run_end_is_told_of_a_run_that_reached_its_limit_and_of_a_pod_abort() -> None:
    seen: list[object] = []
    registry = HookRegistry()
    recording(registry, seen)
    limited = Pod(
        ScriptedClient([ScriptedReply(calls=[ScriptedCall("lookup", {"key": "k"})])]),
        tools=[lookup],
        settings=PodSettings(max_requests_per_turn=1),
        hooks=registry,
    )
    assert await limited.run("loop") == LimitReached(limit=1, turn=0)
    assert seen[-1] == RunEndInfo(turn=0, outcome="limit_reached", reason="")

    seen.clear()
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Pause(reason="approve?"))
    recording(registry, seen)
    pod = Pod(two_step_client(), tools=[lookup], hooks=registry)
    assert isinstance(await pod.run("look it up"), Paused)
    assert await pod.abort("the reviewer said no") == Aborted(reason="the reviewer said no", turn=0)
    assert seen[-1] == RunEndInfo(turn=0, outcome="aborted", reason="the reviewer said no")


async def test_a_failing_run_end_hook_turns_a_finished_run_into_an_aborted_one() -> None:
    told: list[RunEndInfo] = []
    registry = HookRegistry()

    @registry.on(events.RUN_END)
    def broken(info: RunEndInfo) -> None:
        raise RuntimeError("audit log is down")

    registry.on(events.RUN_END, told.append)
    pod = Pod(two_step_client(), tools=[lookup], hooks=registry)

    result = await pod.run("look it up")

    assert isinstance(result, Aborted)
    assert result.error_type == "HookFailedError"
    assert "on RUN_END failed: raised RuntimeError: audit log is down" in result.reason
    assert told == [RunEndInfo(turn=0, outcome="finished", reason="")]  # the others still observe


async def test_a_failing_run_end_hook_is_appended_to_an_aborted_runs_reason() -> None:
    registry = HookRegistry()
    registry.on(events.PROMPT_SUBMIT, lambda info: Abort(reason="no"))

    @registry.on(events.RUN_END)
    def broken(info: RunEndInfo) -> None:
        raise RuntimeError("audit log is down")

    pod = Pod(two_step_client(), tools=[lookup], hooks=registry)

    result = await pod.run("look it up")

    assert isinstance(result, Aborted)
    assert result.reason.startswith("no (then hook ")
    assert "on RUN_END failed: raised RuntimeError: audit log is down" in result.reason
    assert result.reason.endswith(")")
    assert result.error_type is None


async def test_failing_run_start_and_output_hooks_fail_closed() -> None:
    for event in (events.RUN_START, events.OUTPUT):
        registry = HookRegistry()

        def broken(info: object) -> Continue:
            raise RuntimeError("policy store unreachable")

        registry.on(event, broken)  # type: ignore[call-overload]
        pod = Pod(two_step_client(), tools=[lookup], hooks=registry)

        result = await pod.run("look it up")

        assert isinstance(result, Aborted), event
        assert f"on {event.name.upper()} failed: raised RuntimeError" in result.reason
        assert_well_formed(pod.history)
