"""``POST_LLM_RESPONSE``: a hook checks the model's reply before anything in it acts.

An output guardrail aborts a reply before any of its tool calls runs, and every call still
gets its result; a paused reply resumes where it stopped, also from a saved snapshot.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult, Usage, tool
from llm_worker.testing import assert_well_formed
from pod import (
    Abort,
    Aborted,
    CommandHook,
    Continue,
    Finished,
    HookRegistry,
    Pause,
    Paused,
    Pod,
    PodSnapshot,
    Skip,
    events,
)
from pod.events import PostLlmResponseInfo, PostResponseDecision

ran: list[str] = []


@tool
def shell(command: str) -> str:
    """Run a command."""
    ran.append(command)
    return f"ran {command}"


def tidy_up_client() -> ScriptedClient:
    return ScriptedClient(
        [
            ScriptedReply(
                text="Let me clean up.",
                calls=(
                    ScriptedCall("shell", {"command": "rm -rf /"}, call_id="rm"),
                    ScriptedCall("shell", {"command": "ls"}, call_id="ls"),
                ),
                usage=Usage(input_tokens=120, output_tokens=30),
            ),
            ScriptedReply("all done"),
        ]
    )


@pytest.fixture(autouse=True)
def _forget_runs() -> None:
    ran.clear()


def pod_with(hook: object, client: ScriptedClient | None = None) -> Pod:
    registry = HookRegistry()
    registry.on(events.POST_LLM_RESPONSE, hook)  # type: ignore[call-overload]
    return Pod(client or tidy_up_client(), tools=[shell], hooks=registry)


async def test_hooks_see_each_reply_before_its_calls_are_decided() -> None:
    seen: list[PostLlmResponseInfo] = []
    order: list[str] = []
    registry = HookRegistry()

    @registry.on(events.POST_LLM_RESPONSE)
    def record(reply: PostLlmResponseInfo) -> Continue:
        seen.append(reply)
        order.append("reply")
        return Continue()

    registry.on(events.PRE_TOOL_CALL, lambda call: (order.append(call.call_id), Continue())[1])
    result = await Pod(tidy_up_client(), tools=[shell], hooks=registry).run("tidy up")

    assert result == Finished(text="all done", turn=0)
    assert seen == [
        PostLlmResponseInfo(
            turn=0,
            request_index=0,
            text_preview="Let me clean up.",
            tool_call_count=2,
            tool_names=("shell", "shell"),
            tool_arguments=('{"command": "rm -rf /"}', '{"command": "ls"}'),
            stop_reason="tool_calls",
            input_tokens=120,
            output_tokens=30,
        ),
        PostLlmResponseInfo(
            turn=0,
            request_index=1,
            text_preview="all done",
            tool_call_count=0,
            tool_names=(),
            tool_arguments=(),
            stop_reason="end_turn",
            input_tokens=None,
            output_tokens=None,
        ),
    ]
    assert order == ["reply", "rm", "ls", "reply"]


async def test_an_output_guardrail_aborts_before_any_tool_runs() -> None:
    def guardrail(reply: PostLlmResponseInfo) -> PostResponseDecision:
        if "shell" in reply.tool_names:
            return Abort(reason="destructive plan")
        return Continue()

    pod = pod_with(guardrail)
    result = await pod.run("tidy up")

    assert result == Aborted(reason="destructive plan", turn=0)
    assert ran == []
    assert_well_formed(pod.history)
    results = [item for item in pod.history if isinstance(item, ToolResult)]
    assert [(r.call_id, r.is_error) for r in results] == [("rm", True), ("ls", True)]
    assert results[0].content == "not run: the run was aborted (destructive plan)"


async def test_a_paused_reply_resumes_where_it_stopped_from_a_snapshot() -> None:
    asked: list[int] = []

    def review(reply: PostLlmResponseInfo) -> Continue | Pause:
        asked.append(reply.request_index)
        return Pause(reason="review the plan") if reply.tool_call_count else Continue()

    first = pod_with(review)
    paused = await first.run("tidy up")
    assert isinstance(paused, Paused)
    assert paused.point == "post_llm_response"
    assert [c.call_id for c in paused.pending_calls] == ["rm", "ls"]
    assert ran == []

    second = pod_with(review, client=ScriptedClient([ScriptedReply("all done")]))
    second.restore(PodSnapshot.from_json(first.snapshot().to_json()))
    result = await second.resume({"rm": Skip(reason="not that")})

    assert result == Finished(text="all done", turn=0)
    assert ran == ["ls"]
    assert asked == [0, 1]  # the paused reply is not put to the hooks again
    assert_well_formed(second.history)


async def test_a_command_hook_decides_on_a_reply(guard_command: list[str]) -> None:
    pod = pod_with(CommandHook(events.POST_LLM_RESPONSE, guard_command, timeout=10))
    result = await pod.run("tidy up")

    assert result == Aborted(reason="2 calls: shell, shell", turn=0)
    assert ran == []
    assert_well_formed(pod.history)


@pytest.fixture
def guard_command(tmp_path: Path) -> list[str]:
    path = tmp_path / "guard.py"
    path.write_text(
        "import json, sys\n"
        "request = json.load(sys.stdin)\n"
        "assert request['event'] == 'post_llm_response'\n"
        "info = request['input']\n"
        "names = ', '.join(info['tool_names'])\n"
        "print(json.dumps({'decision': 'abort', "
        "'reason': f\"{info['tool_call_count']} calls: {names}\"}))\n",
        encoding="utf-8",
    )
    return [sys.executable, str(path)]
