"""``PromptHook``: a Claude Code ``type: "prompt"`` hook's answer, ``{"ok", "reason"}``, mapped
onto each event's decision; anything else, a failing model and a timeout fail the hook."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from pod import (
    Abort,
    CommandHookError,
    Continue,
    Feedback,
    PromptSubmitInfo,
    Skip,
    TurnEndInfo,
    events,
)
from pod.command._claude_prompt import PROMPT_HOOK_SYSTEM, PromptHook

from .conftest import CALL, RESULT

PROMPT = PromptSubmitInfo(input_text="deploy to prod", turn=0)
TURN_END = TurnEndInfo(turn=0, tool_calls_in_turn=1, final_text_preview="done")


class Model:
    """A stand-in for the Pod's model: answers ``reply`` and records each question."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.asked: list[tuple[str, str]] = []

    async def __call__(self, system: str, prompt: str) -> str:
        self.asked.append((system, prompt))
        return self.reply


def ask(event: events.HookEvent[Any, Any], info: Any, model: Any, **options: Any) -> Any:
    hook = PromptHook(event, "Judge this: $ARGUMENTS", model, cwd="/work", **options)
    return asyncio.run(hook(info))


REFUSED = json.dumps({"ok": False, "reason": "not yet"})


@pytest.mark.parametrize(
    ("event", "info", "expected"),
    [
        pytest.param(events.PRE_TOOL_CALL, CALL, Skip, id="PreToolUse-skips"),
        pytest.param(events.TURN_END, TURN_END, Feedback, id="Stop-keeps-going"),
        pytest.param(events.PROMPT_SUBMIT, PROMPT, Abort, id="UserPromptSubmit-refuses"),
        pytest.param(events.POST_TOOL_CALL, RESULT, Feedback, id="PostToolUse-feedback"),
    ],
)
def test_ok_false_maps_as_a_scripts_exit_2_with_the_reason(
    event: events.HookEvent[Any, Any], info: Any, expected: type
) -> None:
    model = Model(REFUSED)
    decision = ask(event, info, model)
    assert isinstance(decision, expected)
    assert "not yet" in str(decision)
    [(system, question)] = model.asked
    assert system == PROMPT_HOOK_SYSTEM
    sent = json.loads(question.removeprefix("Judge this: "))
    assert sent["cwd"] == "/work"
    assert sent["hook_event_name"] == event_name(event)


def event_name(event: events.HookEvent[Any, Any]) -> str:
    return {
        events.PRE_TOOL_CALL.name: "PreToolUse",
        events.TURN_END.name: "Stop",
        events.PROMPT_SUBMIT.name: "UserPromptSubmit",
        events.POST_TOOL_CALL.name: "PostToolUse",
    }[event.name]


def test_ok_true_continues_and_a_prompt_without_arguments_gets_the_event_after_it() -> None:
    model = Model('{"ok": true}')
    hook = PromptHook(events.PROMPT_SUBMIT, "Is it polite?", model, cwd="/work")
    assert isinstance(asyncio.run(hook(PROMPT)), Continue)
    [(_, question)] = model.asked
    head, _, tail = question.partition("\n\n")
    assert head == "Is it polite?"
    assert json.loads(tail)["prompt"] == "deploy to prod"


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param("yes, fine", id="prose"),
        pytest.param('{"ok": "yes"}', id="ok-not-a-boolean"),
        pytest.param('{"reason": "x"}', id="no-ok"),
        pytest.param("[true]", id="not-an-object"),
    ],
)
def test_an_answer_that_is_not_ok_or_reason_fails_the_hook_naming_it(reply: str) -> None:
    with pytest.raises(CommandHookError, match=r"prompt 'Judge this: \$ARGUMENTS'") as caught:
        ask(events.PRE_TOOL_CALL, CALL, Model(reply))
    assert repr(reply) in str(caught.value)


def test_a_failing_or_slow_model_fails_the_hook() -> None:
    async def broken(system: str, prompt: str) -> str:
        raise ConnectionError("model unreachable")

    async def slow(system: str, prompt: str) -> str:
        await asyncio.sleep(10)
        return '{"ok": true}'

    with pytest.raises(CommandHookError, match=r"could not ask the model \(model unreachable\)"):
        ask(events.PRE_TOOL_CALL, CALL, broken)
    with pytest.raises(CommandHookError, match=r"timed out after 0\.05s"):
        ask(events.PRE_TOOL_CALL, CALL, slow, timeout=0.05)


def test_a_matcher_keeps_other_tools_from_the_model() -> None:
    model = Model(REFUSED)
    assert isinstance(ask(events.PRE_TOOL_CALL, CALL, model, matcher="Write"), Continue)
    assert model.asked == []
