"""HookRegistry: registration order, first non-Continue wins, frozen, failures fail closed."""

from __future__ import annotations

import asyncio
import logging

import pytest

from llm_worker import HookFailedError
from pod import (
    Abort,
    AbortInfo,
    Continue,
    Pause,
    PodUsageError,
    PreRequestInfo,
    RegistryFrozenError,
    Skip,
    ToolCallSummary,
    UnknownEventError,
    events,
)
from pod import HookRegistry as Registry

CALL = ToolCallSummary(call_id="c1", tool_name="shell", arguments='{"command": "ls"}', turn=0)
REQUEST = PreRequestInfo(
    turn=0, request_index=0, item_count=1, estimated_tokens=1, tool_calls_this_turn=0
)


async def test_hooks_run_in_registration_order_and_first_non_continue_wins() -> None:
    called: list[str] = []
    registry = Registry()

    @registry.on(events.PRE_TOOL_CALL)
    def first(call: ToolCallSummary) -> Continue:
        called.append("first")
        return Continue()

    @registry.on(events.PRE_TOOL_CALL)
    async def second(call: ToolCallSummary) -> Skip:
        called.append("second")
        return Skip(reason="second says no")

    @registry.on(events.PRE_TOOL_CALL)
    def third(call: ToolCallSummary) -> Abort:
        called.append("third")
        return Abort(reason="never asked")

    frozen = registry.freeze()
    assert await frozen.dispatch(events.PRE_TOOL_CALL, CALL) == Skip(reason="second says no")
    assert called == ["first", "second"]
    assert frozen.hooks_for(events.PRE_TOOL_CALL) == (
        f"{__name__}.{first.__qualname__}",
        f"{__name__}.{second.__qualname__}",
        f"{__name__}.{third.__qualname__}",
    )


async def test_every_hook_continuing_gives_continue_and_abort_hooks_all_run() -> None:
    seen: list[str] = []
    registry = Registry()
    registry.on(events.PRE_LLM_REQUEST, lambda info: Continue())
    registry.on(events.ABORT, lambda info: seen.append(f"a:{info.reason}"))  # type: ignore[func-returns-value]

    @registry.on(events.ABORT)
    def also(info: AbortInfo) -> None:
        seen.append(f"b:{info.reason}")

    frozen = registry.freeze()
    assert await frozen.dispatch(events.PRE_LLM_REQUEST, REQUEST) == Continue()
    assert await frozen.dispatch(events.ABORT, AbortInfo(reason="why", turn=0)) is None
    assert seen == ["a:why", "b:why"]


def test_registering_after_freeze_is_a_clear_error() -> None:
    registry = Registry()
    frozen = registry.freeze()
    assert registry.freeze() is frozen
    with pytest.raises(RegistryFrozenError, match=r"^cannot register .*late on PRE_TOOL_CALL"):

        @registry.on(events.PRE_TOOL_CALL)
        def late(call: ToolCallSummary) -> Continue:
            return Continue()

    with pytest.raises(AttributeError, match="cannot change"):
        frozen._by_event = {}  # type: ignore[misc]


def test_registering_for_an_unknown_event_is_a_clear_error() -> None:
    registry = Registry()
    fake = events.HookEvent(events.PRE_TOOL_CALL.point, "fake")
    with pytest.raises(UnknownEventError, match=r"is not a hook event; use one of pod\.events"):
        registry.on(fake, lambda call: Continue())
    with pytest.raises(UnknownEventError):
        registry.on("pre_tool_call", lambda call: Continue())  # type: ignore[call-overload]


def test_deny_policy_only_for_pre_tool_call() -> None:
    with pytest.raises(PodUsageError, match="only meaningful for PRE_TOOL_CALL"):
        Registry().on(events.PRE_LLM_REQUEST, lambda info: Continue(), on_error="deny")


async def test_a_raising_hook_fails_closed_naming_the_hook_and_the_error() -> None:
    registry = Registry()

    @registry.on(events.PRE_TOOL_CALL)
    def broken(call: ToolCallSummary) -> Continue:
        raise ValueError("bad rule file")

    with pytest.raises(HookFailedError) as info:
        await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL)
    assert str(info.value) == (
        f"hook {__name__}.{broken.__qualname__} on PRE_TOOL_CALL failed: "
        "raised ValueError: bad rule file"
        f" at tests/hooks/test_registry.py:{broken.__code__.co_firstlineno + 2}"
    )
    assert isinstance(info.value.__cause__, ValueError)


async def test_an_illegal_decision_at_run_time_fails_closed() -> None:
    registry = Registry()
    registry.on(events.PRE_LLM_REQUEST, lambda info: Skip(reason="x"))  # type: ignore[arg-type,return-value]
    with pytest.raises(HookFailedError, match=r"which PRE_LLM_REQUEST does not allow"):
        await registry.freeze().dispatch(events.PRE_LLM_REQUEST, REQUEST)


async def test_deny_policy_skips_the_call_and_ignore_policy_logs_and_continues(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(call: ToolCallSummary) -> Continue:
        raise RuntimeError("boom")

    denying = Registry()
    denying.on(events.PRE_TOOL_CALL, broken, on_error="deny")
    decision = await denying.freeze().dispatch(events.PRE_TOOL_CALL, CALL)
    assert isinstance(decision, Skip)
    assert "failed: raised RuntimeError: boom at tests/hooks/" in decision.reason

    ignoring = Registry()
    ignoring.on(events.PRE_TOOL_CALL, broken, on_error="ignore")
    ignoring.on(events.PRE_TOOL_CALL, lambda call: Pause(reason="ask"))
    with caplog.at_level(logging.WARNING, logger="pod.hooks"):
        assert await ignoring.freeze().dispatch(events.PRE_TOOL_CALL, CALL) == Pause(reason="ask")
    assert "raised RuntimeError: boom at tests/hooks/" in caplog.text
    assert "(ignored: on_error='ignore')" in caplog.text


async def test_a_slow_hook_times_out_under_its_policy() -> None:
    registry = Registry()

    @registry.on(events.PRE_TOOL_CALL, timeout=0.05)
    async def slow(call: ToolCallSummary) -> Continue:
        await asyncio.sleep(10)
        return Continue()

    with pytest.raises(HookFailedError, match=r"timed out after 0.05s"):
        await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL)


async def test_every_abort_hook_observes_even_when_one_fails() -> None:
    seen: list[str] = []
    registry = Registry()

    @registry.on(events.ABORT)
    def broken(info: AbortInfo) -> None:
        raise RuntimeError("audit log is down")

    @registry.on(events.ABORT)
    def audit(info: AbortInfo) -> None:
        seen.append(info.reason)

    with pytest.raises(HookFailedError, match="raised RuntimeError: audit log is down"):
        await registry.freeze().dispatch(events.ABORT, AbortInfo(reason="policy", turn=0))
    assert seen == ["policy"]


def test_a_frozen_registry_compares_and_hashes_by_identity() -> None:
    class Unhashable:
        __hash__ = None  # type: ignore[assignment]

        def __call__(self, call: ToolCallSummary) -> Continue:
            return Continue()

    registry = Registry()
    registry.on(events.PRE_TOOL_CALL, Unhashable())
    frozen = registry.freeze()
    same_hooks = Registry()
    assert {frozen: 1}[frozen] == 1
    assert frozen == frozen  # noqa: PLR0124
    assert frozen != same_hooks.freeze()
    assert repr(frozen) == "<FrozenHookRegistry pre_tool_call=1>"
