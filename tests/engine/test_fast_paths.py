"""The hot path's shortcuts change nothing a user can see.

Points without hooks are skipped (no summary, no call), interceptor methods left as the
base class wrote them are not called, and hooks still get exactly what they got before.
"""

from __future__ import annotations

from typing import get_args

import pytest

from llm_worker import (
    NO_HOOKS,
    AbortInfo,
    Continue,
    Finished,
    HookPoint,
    PostToolDecision,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    PromptSubmitDecision,
    PromptSubmitInfo,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    SelectiveHookPort,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndDecision,
    TurnEndInfo,
    Worker,
)
from llm_worker.interceptor import CONTINUE, Abort, Interceptor, Pause, ToolCallInfo
from llm_worker.testing import assert_well_formed
from pod import HookRegistry, events

from .conftest import echo


def one_call_then_text() -> ScriptedClient:
    return ScriptedClient(
        [
            ScriptedReply(calls=[ScriptedCall("echo", {"text": "hi"})]),
            ScriptedReply(text="done"),
        ]
    )


class OnlyPreToolCall:
    """A selective port with hooks at ``pre_tool_call`` only; any other call is a bug."""

    def __init__(self) -> None:
        self.seen: list[ToolCallSummary] = []

    def listens_to(self, point: HookPoint) -> bool:
        return point == "pre_tool_call"

    async def pre_tool_call(self, info: ToolCallSummary) -> PreToolDecision:
        self.seen.append(info)
        return Continue()

    async def prompt_submit(self, info: PromptSubmitInfo) -> PromptSubmitDecision:
        raise AssertionError("asked at prompt_submit, which has no hooks")

    async def pre_llm_request(self, info: PreRequestInfo) -> PreRequestDecision:
        raise AssertionError("asked at pre_llm_request, which has no hooks")

    async def post_tool_call(self, info: ToolResultSummary) -> PostToolDecision:
        raise AssertionError("asked at post_tool_call, which has no hooks")

    async def turn_end(self, info: TurnEndInfo) -> TurnEndDecision:
        raise AssertionError("asked at turn_end, which has no hooks")

    async def abort(self, info: AbortInfo) -> None:
        raise AssertionError("asked at abort, which has no hooks")


async def test_a_selective_port_is_asked_only_where_it_has_hooks() -> None:
    port = OnlyPreToolCall()
    assert isinstance(port, SelectiveHookPort)
    worker = Worker(one_call_then_text(), tools=[echo], hooks=port)

    result = await worker.run("go")

    assert isinstance(result, Finished)
    assert port.seen == [
        ToolCallSummary(call_id="call_1", tool_name="echo", arguments='{"text": "hi"}', turn=0)
    ]
    assert_well_formed(worker.history)


def test_every_hook_point_is_an_event_of_the_catalogue() -> None:
    # The frozen registry answers ``listens_to`` by event name: the two lists must agree.
    assert set(get_args(HookPoint)) == {event.name for event in events.CATALOGUE}


def test_the_frozen_registry_listens_exactly_where_hooks_are_registered() -> None:
    registry = HookRegistry()
    registry.on(events.POST_TOOL_CALL, lambda result: Continue())
    frozen = registry.freeze()

    assert [p for p in get_args(HookPoint) if frozen.listens_to(p)] == ["post_tool_call"]
    assert not any(NO_HOOKS.listens_to(p) for p in get_args(HookPoint))


async def test_a_hook_on_one_event_still_decides_when_the_others_have_none() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Skip(reason="not today"))
    worker = Worker(one_call_then_text(), tools=[echo], hooks=registry.freeze())

    result = await worker.run("go")

    assert isinstance(result, Finished)
    assert worker.history[2].content == "tool call skipped: not today"  # type: ignore[union-attr]


class PostOnly(Interceptor):
    """Overrides one method; the others are the base class's."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def post_tool_call(self, info: object) -> Continue | Abort:  # type: ignore[override]
        self.log.append("post_tool_call")
        return CONTINUE


async def test_only_overridden_interceptor_methods_run_and_they_all_do() -> None:
    log: list[str] = []
    worker = Worker(one_call_then_text(), tools=[echo], interceptors=[PostOnly(log)])

    assert isinstance(await worker.run("go"), Finished)
    assert log == ["post_tool_call"]


async def test_a_method_set_on_an_interceptor_instance_is_called() -> None:
    log: list[str] = []
    interceptor = Interceptor()

    def pre_tool_call(info: ToolCallInfo) -> Continue | Skip | Abort | Pause:
        log.append(info.call.name)
        return Skip(reason="patched")

    interceptor.pre_tool_call = pre_tool_call  # type: ignore[method-assign]
    worker = Worker(one_call_then_text(), tools=[echo], interceptors=[interceptor])

    assert isinstance(await worker.run("go"), Finished)
    assert log == ["echo"]
    assert worker.history[2].content == "tool call skipped: patched"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "decision",
    [Skip(reason="skip is not allowed here"), "continue", None],
    ids=["skip", "a string", "none"],
)
async def test_an_illegal_decision_still_fails_closed(decision: object) -> None:
    registry = HookRegistry()
    registry.on(events.PRE_LLM_REQUEST, lambda info: decision)  # type: ignore[arg-type, return-value]
    worker = Worker(one_call_then_text(), tools=[echo], hooks=registry.freeze())

    result = await worker.run("go")

    assert result.kind == "aborted"
    assert "PRE_LLM_REQUEST does not allow" in result.reason  # type: ignore[union-attr]
