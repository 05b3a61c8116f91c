"""Declared hook code at run time: ``Hook`` subclasses and ``@hook(EVENT)`` functions."""

from __future__ import annotations

import pytest

from pod import (
    Continue,
    Hook,
    HookRegistry,
    PodUsageError,
    PreToolDecision,
    Skip,
    ToolCallSummary,
    UnknownEventError,
    events,
    hook,
)
from pod.events import HookEvent

CALL = ToolCallSummary(call_id="c1", tool_name="shell", arguments="{}", turn=0)


class DenyTools(Hook[ToolCallSummary, PreToolDecision]):
    def __init__(self, *names: str) -> None:
        self.names = frozenset(names)

    def __call__(self, call: ToolCallSummary) -> PreToolDecision:
        if call.tool_name in self.names:
            return Skip(reason=f"{call.tool_name} is not allowed")
        return Continue()


class AsyncDenyAll(Hook[ToolCallSummary, PreToolDecision]):
    async def __call__(self, call: ToolCallSummary) -> PreToolDecision:
        return Skip(reason="no tools today")


async def test_a_hook_instance_is_registered_and_decides() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, DenyTools("shell"))
    frozen = registry.freeze()
    assert await frozen.dispatch(events.PRE_TOOL_CALL, CALL) == Skip(reason="shell is not allowed")
    assert frozen.hooks_for(events.PRE_TOOL_CALL) == (f"{__name__}.DenyTools",)


async def test_an_async_hook_instance_is_awaited() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, AsyncDenyAll(), timeout=5)
    assert await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL) == Skip(
        reason="no tools today"
    )


def test_the_hook_base_cannot_be_instantiated_without_call() -> None:
    class Incomplete(Hook[ToolCallSummary, PreToolDecision]):
        pass

    with pytest.raises(TypeError, match="abstract"):
        Incomplete()  # type: ignore[abstract]


async def test_a_declared_function_is_returned_unchanged_and_registers() -> None:
    def plain(call: ToolCallSummary) -> PreToolDecision:
        return Skip(reason="declared")

    declared = hook(events.PRE_TOOL_CALL)(plain)
    assert declared is plain
    assert declared(CALL) == Skip(reason="declared")
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, declared)
    assert await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL) == Skip(reason="declared")


def test_a_declared_function_cannot_be_registered_for_another_event() -> None:
    @hook(events.PRE_TOOL_CALL)
    def for_tools(call: ToolCallSummary) -> PreToolDecision:
        return Continue()

    registry = HookRegistry()
    with pytest.raises(
        PodUsageError,
        match=r"^.*for_tools is declared with @hook\(PRE_TOOL_CALL\); "
        r"it cannot be registered on PRE_LLM_REQUEST$",
    ):
        registry.on(events.PRE_LLM_REQUEST, for_tools)  # type: ignore[arg-type]
    assert registry.freeze().hooks_for(events.PRE_LLM_REQUEST) == ()


def test_hook_refuses_an_event_outside_the_catalogue() -> None:
    stray = HookEvent(events.PRE_LLM_REQUEST.point, "not in the catalogue")
    with pytest.raises(UnknownEventError):
        hook(stray)
