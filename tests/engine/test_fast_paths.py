"""The hot path's shortcuts change nothing a user can see.

Points without hooks are skipped (no summary, no call), interceptor methods left as the
base class wrote them are not called, and hooks still get exactly what they got before.
"""

from __future__ import annotations

from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from llm_worker import (
    HOOK_POINTS,
    NO_HOOKS,
    POST_TOOL_CALL_POINT,
    PRE_TOOL_CALL_POINT,
    Continue,
    Finished,
    HookPoint,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    SelectiveHookPort,
    Skip,
    ToolCallSummary,
    Worker,
)
from llm_worker.interceptor import CONTINUE, Abort, Interceptor, Pause, ToolCallInfo
from llm_worker.testing import assert_well_formed
from pod import HookRegistry, events

from .conftest import echo

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")


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
        self.seen: list[object] = []

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool:
        return point is PRE_TOOL_CALL_POINT

    async def ask(self, point: HookPoint[InputT, DecisionT], info: InputT, /) -> DecisionT:
        if point is not PRE_TOOL_CALL_POINT:
            raise AssertionError(f"asked at {point.name}, which has no hooks")
        self.seen.append(info)
        return point.neutral


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
    # The engine asks with its points; the registry answers with the catalogue's events.
    assert [event.point for event in events.CATALOGUE] == list(HOOK_POINTS)


def test_the_frozen_registry_listens_exactly_where_hooks_are_registered() -> None:
    registry = HookRegistry()
    registry.on(events.POST_TOOL_CALL, lambda result: Continue())
    frozen = registry.freeze()

    assert [p for p in HOOK_POINTS if frozen.listens_to(p)] == [POST_TOOL_CALL_POINT]
    assert not any(NO_HOOKS.listens_to(p) for p in HOOK_POINTS)


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
