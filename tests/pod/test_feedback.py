"""``Feedback``: a hook tells the model something and the run goes on. At ``POST_TOOL_CALL``
the text reaches the model with the result it is about; at ``TURN_END`` the turn does not
end and the text is the model's next instruction. The engine writes it, bounded."""

from __future__ import annotations

from typing import Any

import pytest

from llm_worker import (
    Feedback,
    Message,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolResult,
    TurnEndInfo,
    tool,
)
from llm_worker.testing import assert_well_formed
from pod import (
    Continue,
    Finished,
    HookRegistry,
    LimitReached,
    Pod,
    PodSettings,
    ToolResultSummary,
    events,
)


@tool
def write_file(path: str) -> str:
    """Write a file."""
    return f"wrote {path}"


async def test_post_tool_call_feedback_reaches_the_model_next_to_the_result() -> None:
    registry = HookRegistry()

    @registry.on(events.POST_TOOL_CALL)
    def lint(result: ToolResultSummary) -> Feedback | Continue:
        if result.output_preview.endswith(".py"):
            return Feedback(text="lint: line 1 is too long")
        return Continue()

    client = ScriptedClient(
        [
            ScriptedReply(
                calls=[
                    ScriptedCall("write_file", {"path": "a.py"}),
                    ScriptedCall("write_file", {"path": "b.txt"}),
                ]
            ),
            ScriptedReply(text="done"),
        ]
    )
    pod = Pod(client, tools=[write_file], hooks=registry)
    result = await pod.run("write")
    assert isinstance(result, Finished)  # feedback is not a pause
    sent = [item for item in client.requests[1] if isinstance(item, ToolResult)]
    assert [r.content for r in sent] == [
        "wrote a.py\n\n[hook feedback] lint: line 1 is too long",
        "wrote b.txt",
    ]
    assert [r.is_error for r in sent] == [False, False]
    assert_well_formed(pod.history)


async def test_turn_end_feedback_keeps_the_turn_going_with_the_text_as_instruction() -> None:
    registry = HookRegistry()
    seen: list[int] = []

    @registry.on(events.TURN_END)
    def insist(info: TurnEndInfo) -> Feedback | Continue:
        seen.append(info.continued)
        if "tests pass" not in info.final_text_preview:
            return Feedback(text="run the tests before you stop")
        return Continue()

    client = ScriptedClient([ScriptedReply(text="done"), ScriptedReply(text="tests pass")])
    pod = Pod(client, hooks=registry)
    result = await pod.run("fix it")
    assert isinstance(result, Finished)
    assert result.text == "tests pass"
    assert seen == [0, 1]  # the re-entry knows a hook kept it going (stop_hook_active)
    last = client.requests[1][-1]
    assert isinstance(last, Message)
    assert (last.role, last.text) == ("user", "run the tests before you stop")


async def test_a_hook_that_always_continues_the_turn_meets_the_request_limit() -> None:
    registry = HookRegistry()
    registry.on(events.TURN_END, lambda info: Feedback(text="again"))
    client = ScriptedClient([ScriptedReply(text="done")] * 3)
    pod = Pod(client, hooks=registry, settings=PodSettings(max_requests_per_turn=3))
    result = await pod.run("go")
    assert isinstance(result, LimitReached)


async def test_prompt_submit_feedback_follows_the_prompt_as_context() -> None:
    registry = HookRegistry()
    registry.on(events.PROMPT_SUBMIT, lambda info: Feedback(text="today is Monday"))
    client = ScriptedClient([ScriptedReply(text="ok")])
    pod = Pod(client, hooks=registry)
    assert isinstance(await pod.run("what day is it?"), Finished)
    sent = [(m.role, m.text) for m in client.requests[0] if isinstance(m, Message)]
    assert sent == [("user", "what day is it?"), ("user", "today is Monday")]


@pytest.mark.parametrize("event", [events.PRE_TOOL_CALL, events.PRE_LLM_REQUEST])
def test_feedback_is_refused_where_it_has_no_meaning(event: events.HookEvent[Any, Any]) -> None:
    assert Feedback not in event.decision_types
