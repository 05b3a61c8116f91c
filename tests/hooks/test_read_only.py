"""A hook cannot change the run's context, whatever plain Python it tries on its input."""

from __future__ import annotations

import contextlib
from typing import Any

from pydantic import BaseModel

from llm_worker import (
    ITEMS_ADAPTER,
    Continue,
    PreRequestInfo,
    PromptSubmitInfo,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
    Worker,
)
from pod import HookRegistry, events
from pod.events import PreCompactInfo

from ..engine.conftest import echo

SCRIPT = [
    ScriptedReply(
        calls=[
            ScriptedCall("echo", {"text": "one", "nested": {"deep": [1, 2]}}),
            ScriptedCall("echo", {"text": "two"}),
        ]
    ),
    ScriptedReply(text="done"),
]


def vandalise(info: BaseModel) -> None:
    """Try everything plain Python offers on what a hook receives."""
    for name, value in list(vars(info).items()):
        replacement: Any = 999 if isinstance(value, int) else "VANDALISED"
        with contextlib.suppress(Exception):
            setattr(info, name, replacement)
        with contextlib.suppress(Exception):
            object.__setattr__(info, name, replacement)
        with contextlib.suppress(Exception):
            vars(info)[name] = replacement
        with contextlib.suppress(Exception):
            delattr(info, name)
    with contextlib.suppress(Exception):
        info.__pydantic_fields_set__.clear()
    if isinstance(info, ToolCallSummary):
        parsed = info.parsed_arguments()
        if parsed is not None:
            parsed["text"] = "VANDALISED"
            nested = parsed.get("nested")
            if isinstance(nested, dict):
                nested["deep"] = "VANDALISED"


def vandal_registry() -> HookRegistry:
    registry = HookRegistry()

    def prompt(info: PromptSubmitInfo) -> Continue:
        vandalise(info)
        return Continue()

    def request(info: PreRequestInfo) -> Continue:
        vandalise(info)
        return Continue()

    def call(info: ToolCallSummary) -> Continue:
        vandalise(info)
        return Continue()

    def result(info: ToolResultSummary) -> Continue:
        vandalise(info)
        return Continue()

    def end(info: TurnEndInfo) -> Continue:
        vandalise(info)
        return Continue()

    registry.on(events.PROMPT_SUBMIT, prompt)
    registry.on(events.PRE_LLM_REQUEST, request)
    registry.on(events.PRE_TOOL_CALL, call)
    registry.on(events.POST_TOOL_CALL, result)
    registry.on(events.TURN_END, end)
    return registry


async def run_history(registry: HookRegistry | None) -> bytes:
    hooks = registry.freeze() if registry is not None else None
    worker = (
        Worker(ScriptedClient(SCRIPT), tools=[echo], hooks=hooks)
        if hooks is not None
        else Worker(ScriptedClient(SCRIPT), tools=[echo])
    )
    await worker.run("please echo")
    return ITEMS_ADAPTER.dump_json(list(worker.history))


async def test_hooks_that_try_every_trick_leave_the_history_byte_for_byte_unchanged() -> None:
    untouched = await run_history(None)
    vandalised = await run_history(vandal_registry())
    assert vandalised == untouched
    assert b"VANDALISED" not in vandalised


async def test_a_kept_summary_shows_what_the_hook_saw_then() -> None:
    kept: list[tuple[PreRequestInfo, dict[str, Any]]] = []
    registry = HookRegistry()

    @registry.on(events.PRE_LLM_REQUEST)
    def keep(info: PreRequestInfo) -> Continue:
        kept.append((info, info.model_dump()))
        return Continue()

    worker = Worker(ScriptedClient(SCRIPT), tools=[echo], hooks=registry.freeze())
    await worker.run("go")
    assert len(kept) == 2
    for info, at_the_time in kept:
        assert info.model_dump() == at_the_time
    assert kept[0][0].item_count == 1
    assert kept[1][0].item_count == 5


def _reachable_values(value: object, depth: int = 0) -> list[object]:
    """Every value reachable from ``value`` through attributes, elements and dict values."""
    found: list[object] = [value]
    if depth > 10:
        return found
    children: list[object] = []
    if isinstance(value, BaseModel):
        children = list(vars(value).values())
    elif isinstance(value, tuple | list | set | frozenset):
        children = list(value)  # pyright: ignore[reportUnknownArgumentType]
    elif isinstance(value, dict):
        children = list(value.values())  # pyright: ignore[reportUnknownArgumentType]
    for child in children:
        found.extend(_reachable_values(child, depth + 1))
    return found


async def test_no_attribute_path_from_a_summary_leads_into_the_run() -> None:
    received: list[BaseModel] = []
    registry = HookRegistry()
    for event in events.CATALOGUE:
        registry.on(event, lambda info, _e=event: (received.append(info), _e.neutral)[1])
    worker = Worker(
        ScriptedClient([*SCRIPT, ScriptedReply(calls=[ScriptedCall("nope")])]),
        tools=[echo],
        hooks=registry.freeze(),
    )
    await worker.run("go")
    await worker.run("again")  # an unknown tool, then the script runs out: the run aborts
    kinds = {type(info) for info in received}
    # Every event a Worker asks (PRE_COMPACT is the Pod's: tests/pod/test_pre_compact.py).
    assert kinds == {event.input_type for event in events.CATALOGUE} - {PreCompactInfo}
    allowed = (str, int, float, bool, type(None), tuple)
    for info in received:
        for value in _reachable_values(info)[1:]:
            assert isinstance(value, allowed), (type(info).__name__, type(value).__name__)
