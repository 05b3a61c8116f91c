"""Only what the event allows comes back from a hook, and nothing of it runs in dispatch."""

from __future__ import annotations

from collections.abc import Awaitable, Generator
from typing import Any

import pytest

from llm_worker import (
    HookFailedError,
    Privileged,
    PrivilegedTool,
    ScriptedClient,
    Skip,
    Tool,
    ToolCallSummary,
    Worker,
)
from pod import HookRegistry, events

from ..engine.conftest import echo

CALL = ToolCallSummary(call_id="c1", tool_name="shell", arguments='{"command": "ls"}', turn=0)


class _Awaitable:
    """A user object whose ``__await__`` would run inside the dispatcher if it were awaited."""

    def __init__(self, ran: list[str]) -> None:
        self.ran = ran

    def __await__(self) -> Generator[Any, None, Skip]:
        self.ran.append("__await__ ran")
        return Skip(reason="from __await__")
        yield  # pragma: no cover  # makes this a generator


async def _dispatch(hook: Any) -> object:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, hook)
    return await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL)


async def test_a_sync_hook_returning_an_awaitable_fails_and_it_is_never_awaited() -> None:
    ran: list[str] = []
    with pytest.raises(HookFailedError, match=r"returned _Awaitable, which PRE_TOOL_CALL does"):
        await _dispatch(lambda call: _Awaitable(ran))
    assert ran == []


async def test_a_sync_hook_returning_a_coroutine_fails_and_its_body_never_runs() -> None:
    ran: list[str] = []

    async def body(call: ToolCallSummary) -> Skip:
        ran.append("body ran")
        return Skip(reason="late")

    # The coroutine is closed unstarted, so no "never awaited" warning either (warnings
    # are errors under pytest here).
    with pytest.raises(HookFailedError, match=r"returned a coroutine from a sync hook"):
        await _dispatch(lambda call: body(call))  # noqa: PLW0108  # a sync callable
    assert ran == []


async def test_a_sync_hook_with_a_timeout_returning_an_awaitable_is_not_awaited() -> None:
    ran: list[str] = []
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: _Awaitable(ran), timeout=5)
    with pytest.raises(HookFailedError, match=r"returned _Awaitable"):
        await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL)
    assert ran == []


async def test_an_async_hook_returning_a_non_coroutine_awaitable_fails_unawaited() -> None:
    ran: list[str] = []

    class Sneaky:
        async def __call__(self, call: ToolCallSummary) -> Skip:
            return Skip(reason="honest")

    sneaky = Sneaky()
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, sneaky)  # registered as async
    # After registration, the class is patched to hand back a user awaitable instead.
    Sneaky.__call__ = lambda self, call: _Awaitable(ran)  # type: ignore[method-assign,assignment,return-value]
    with pytest.raises(HookFailedError, match=r"async hook must return a coroutine"):
        await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL)
    assert ran == []


class _Loud:
    """Something a hook could smuggle in a decision field: it runs code when printed."""

    def __init__(self, ran: list[str]) -> None:
        self.ran = ran

    def __str__(self) -> str:
        self.ran.append("__str__ ran")
        return "loud"

    __repr__ = __str__


async def test_a_decision_built_without_validation_fails_without_running_its_fields() -> None:
    ran: list[str] = []
    forged = Skip.model_construct(reason=_Loud(ran))  # type: ignore[arg-type]
    with pytest.raises(HookFailedError, match=r"returned a malformed Skip"):
        await _dispatch(lambda call: forged)
    missing = Skip.model_construct()
    with pytest.raises(HookFailedError, match=r"returned a malformed Skip"):
        await _dispatch(lambda call: missing)
    assert ran == []


async def test_a_str_subclass_in_a_decision_is_malformed() -> None:
    class Sly(str):
        __slots__ = ()

    forged = Skip.model_construct(reason=Sly("sly"))
    with pytest.raises(HookFailedError, match=r"returned a malformed Skip"):
        await _dispatch(lambda call: forged)


async def test_a_subclass_of_a_legal_decision_is_not_legal() -> None:
    class MySkip(Skip):  # type: ignore[misc]  # Skip is final for the checkers only
        pass

    with pytest.raises(HookFailedError, match=r"returned MySkip, which PRE_TOOL_CALL"):
        await _dispatch(lambda call: MySkip(reason="x"))


def test_every_tool_the_worker_hands_out_is_privileged() -> None:
    class PlainTool:
        """A Tool by shape only: no marker of its own."""

        name = "plain"
        description = "plain"
        parameters: dict[str, Any] = {"type": "object"}  # noqa: RUF012

        async def call(self, arguments: dict[str, Any]) -> str:
            return "ran"

    plain: Tool = PlainTool()
    worker = Worker(ScriptedClient([]), tools=[plain, echo])
    handed_out = dict(worker.tools)
    assert set(handed_out) == {"plain", "echo"}
    for handed in handed_out.values():
        assert isinstance(handed, Privileged)
        assert isinstance(handed, PrivilegedTool)
    assert not isinstance(plain, Privileged)


def test_changing_the_tools_mapping_changes_no_run() -> None:
    worker = Worker(ScriptedClient([]), tools=[echo])
    tools: Any = worker.tools
    with pytest.raises(TypeError):
        tools["shell"] = echo

    class Grab:
        """``mappingproxy == x`` hands ``x`` the dict behind the proxy."""

        grabbed: Any = None

        def __eq__(self, other: object) -> bool:
            Grab.grabbed = other
            return False

        __hash__ = None  # type: ignore[assignment]

    assert (tools == Grab()) is False
    Grab.grabbed.clear()  # the copy behind the view: the Worker's own table is untouched
    assert [definition.name for definition in worker._tool_definitions] == ["echo"]
    assert set(worker._tools) == {"echo"}


async def test_a_privileged_tool_runs_the_tool_it_wraps() -> None:
    handed = Worker(ScriptedClient([]), tools=[echo]).tools["echo"]
    result: Awaitable[str] = handed.call({"text": "hi"})
    assert await result == "hi"
    assert PrivilegedTool.of(handed) is handed
