"""Each hook's Input is its own (issue 11).

Two hooks (three, in fact) on every event: the first and the last try every Python-level
write on what they receive; the one between records what it sees and guards a tool call.
Its view, the decisions, the trace and the history must be those of a run without vandals.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from llm_worker import (
    ITEMS_ADAPTER,
    Continue,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Skip,
    ToolCallSummary,
)
from pod import HookRegistry, PermissionHook, Pod, TraceEvent, events

from ..engine.conftest import echo
from ..hooks.test_read_only import SCRIPT as READ_ONLY_SCRIPT

VANDALISED = "VANDALISED"


class _Lookalike(BaseModel):
    """What a vandal turns its Input into with ``__class__`` assignment."""

    call_id: str = VANDALISED
    tool_name: str = VANDALISED
    arguments: str = VANDALISED

    def parsed_arguments(self) -> dict[str, Any]:
        return {"text": VANDALISED}

    def argument(self, name: str) -> Any:
        return VANDALISED


def _fake(value: object) -> object:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return 999
    return '{"text": "VANDALISED"}' if value and str(value).startswith("{") else VANDALISED


def vandalise(info: BaseModel) -> None:
    """Every Python-level write on ``info`` short of ctypes; each may fail, none may count."""
    cls = type(info)
    fake = {name: _fake(getattr(info, name)) for name in cls.model_fields}
    attempts: list[Callable[[], object]] = []
    for name, value in fake.items():
        attempts += [
            lambda name=name: delattr(info, name),
            lambda name=name, value=value: setattr(info, name, value),
            lambda name=name, value=value: object.__setattr__(info, name, value),
            lambda name=name, value=value: vars(info).__setitem__(name, value),
            lambda name=name, value=value: info.__dict__.update({name: value}),
            lambda name=name, value=value: cls.__pydantic_validator__.validate_assignment(
                info, name, value
            ),
        ]
    attempts += [
        lambda: cls.__init__(info, **fake),  # pydantic validates *into* self
        lambda: info.__setstate__(
            {
                "__dict__": dict(fake),
                "__pydantic_fields_set__": set(fake),
                "__pydantic_extra__": None,
                "__pydantic_private__": None,
            }
        ),
        lambda: object.__setattr__(info, "__dict__", dict(fake)),
        # The slot descriptors pydantic declares on BaseModel.
        lambda: BaseModel.__dict__["__pydantic_fields_set__"].__set__(info, set()),
        lambda: BaseModel.__dict__["__pydantic_extra__"].__set__(info, {"x": VANDALISED}),
        info.__pydantic_fields_set__.clear,
    ]
    if isinstance(info, ToolCallSummary):
        parsed = info.parsed_arguments()
        if parsed is not None:
            attempts.append(lambda: parsed.__setitem__("text", VANDALISED))
    attempts += [  # last: they change what the object is
        lambda: setattr(info, "__class__", _Lookalike),
        lambda: object.__dict__["__class__"].__set__(info, _Lookalike),
    ]
    for attempt in attempts:
        with contextlib.suppress(Exception):
            attempt()


def _view(info: BaseModel) -> tuple[object, ...]:
    arguments = info.parsed_arguments() if isinstance(info, ToolCallSummary) else None
    return (type(info).__name__, info.model_dump(), arguments)


# The second run: an unknown tool, then the script runs out, so the run aborts.
SCRIPT = [*READ_ONLY_SCRIPT, ScriptedReply(calls=[ScriptedCall("nope")])]


async def _run(*, vandals: bool) -> tuple[list[tuple[object, ...]], str, list[str], bytes]:
    """Run twice (a finished run, an aborted one); return views, results, trace, history."""
    seen: list[tuple[object, ...]] = []
    registry = HookRegistry()

    def vandal(info: Any) -> Any:
        event = next(e for e in events.CATALOGUE if e.input_type is type(info))
        vandalise(info)
        return event.neutral

    def recorder(info: Any) -> Any:
        seen.append(_view(info))
        if isinstance(info, ToolCallSummary) and info.argument("text") == "two":
            return Skip(reason=f"no {info.tool_name} of two")
        event = next(e for e in events.CATALOGUE if e.input_type is type(info))
        return event.neutral

    for event in events.CATALOGUE:
        if vandals:
            registry.on(event, vandal)
        registry.on(event, recorder)
        if vandals:
            registry.on(event, vandal)
    trace: list[TraceEvent] = []
    pod = Pod(ScriptedClient(SCRIPT), tools=[echo], hooks=registry, trace=trace.append)
    first = await pod.run("please echo")
    second = await pod.run("again")
    results = first.model_dump_json() + second.model_dump_json()
    messages = [f"{e.source}/{e.actor}: {e.message}" for e in trace]
    return seen, results, messages, ITEMS_ADAPTER.dump_json(list(pod.history))


async def test_what_a_hook_does_to_its_input_reaches_no_other_hook_nor_the_run() -> None:
    clean = await _run(vandals=False)
    vandalised = await _run(vandals=True)

    seen, results, trace, history = vandalised
    assert {view[0] for view in seen} >= {
        "PromptSubmitInfo",
        "PreRequestInfo",
        "ToolCallSummary",
        "ToolResultSummary",
        "TurnEndInfo",
        "AbortInfo",
    }
    assert seen == clean[0]
    assert results == clean[1]
    assert trace == clean[2]
    assert history == clean[3]
    assert VANDALISED.encode() not in history
    assert b"tool call skipped: no echo of two" in history  # the guard still saw "two"


async def test_the_vandal_really_rewrites_an_object_it_is_given() -> None:
    # The attacks above are real: on a summary of its own, they change what it says.
    info = ToolCallSummary(call_id="c1", tool_name="echo", arguments='{"text": "two"}', turn=0)
    vandalise(info)
    assert type(info) is _Lookalike
    assert info.argument("text") == VANDALISED


async def test_a_hook_keeping_its_decision_cannot_change_the_one_acted_on() -> None:
    kept: list[Skip] = []
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def skip(call: ToolCallSummary) -> Skip:
        decision = Skip(reason="first reason")
        kept.append(decision)
        return decision

    call = ToolCallSummary(call_id="c1", tool_name="echo", arguments="{}", turn=0)
    decision = await registry.freeze().dispatch(events.PRE_TOOL_CALL, call)
    object.__setattr__(kept[0], "reason", VANDALISED)
    assert decision is not kept[0]
    assert decision == Skip(reason="first reason")


async def test_hooks_get_equal_inputs_but_never_the_same_object() -> None:
    received: list[object] = []
    registry = HookRegistry()
    for _ in range(3):
        registry.on(events.PRE_TOOL_CALL, lambda call: (received.append(call), Continue())[1])
    call = ToolCallSummary(call_id="c1", tool_name="echo", arguments="{}", turn=0)
    await registry.freeze().dispatch(events.PRE_TOOL_CALL, call)
    assert received == [call, call, call]
    assert len({id(info) for info in received}) == 3


async def test_a_registry_chained_to_itself_still_gives_each_hook_its_own_input() -> None:
    seen: list[tuple[object, ...]] = []
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: (seen.append(_view(call)), Continue())[1])
    registry.on(events.PRE_TOOL_CALL, lambda call: (vandalise(call), Continue())[1])
    frozen = registry.freeze()
    chained = frozen.then(frozen)
    call = ToolCallSummary(call_id="c1", tool_name="echo", arguments='{"text": "two"}', turn=0)
    original = _view(call)
    await chained.dispatch(events.PRE_TOOL_CALL, call)
    assert seen == [original, original]


async def test_only_our_read_only_hooks_share_the_original(monkeypatch: pytest.MonkeyPatch) -> None:
    given: list[object] = []
    original_call = PermissionHook.__call__

    def spy(self: PermissionHook, call: ToolCallSummary) -> Any:
        given.append(call)
        return original_call(self, call)

    monkeypatch.setattr(PermissionHook, "__call__", spy)

    class Anything(type):
        def __eq__(cls, other: object) -> bool:
            return True  # claims to be every class, PermissionHook included

        __hash__ = type.__hash__

    class Impostor(metaclass=Anything):
        def __call__(self, call: ToolCallSummary) -> Continue:
            given.append(call)
            vandalise(call)
            return Continue()

    seen: list[tuple[object, ...]] = []
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, PermissionHook([], default="allow"))
    registry.on(events.PRE_TOOL_CALL, Impostor())
    registry.on(events.PRE_TOOL_CALL, lambda call: (seen.append(_view(call)), Continue())[1])
    call = ToolCallSummary(call_id="c1", tool_name="echo", arguments='{"text": "two"}', turn=0)
    original = _view(call)
    await registry.freeze().dispatch(events.PRE_TOOL_CALL, call)
    assert given[0] is call  # the policy hook read the original: no copy
    assert given[1] is not call  # the impostor got a copy of its own
    assert seen == [original]
