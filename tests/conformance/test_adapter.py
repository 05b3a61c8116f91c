"""``AgentHooks`` outside the kit: what a user of ``pod.agent_hooks`` sees."""

from __future__ import annotations

from typing import Any

from agent_hooks import InterceptionEmitter, InterceptionRecord, Verdict

from llm_worker import OUTPUT_BYTES, ScriptedCall, ScriptedClient, ScriptedReply, ToolResult, tool
from llm_worker.testing import assert_well_formed
from pod import Aborted, Finished, HookRegistry, Pod
from pod.agent_hooks import AgentHooks


@tool
def fetch(url: str) -> str:
    """Fetch a URL."""
    return f"fetched {url}"


class NoInternal:
    def intercept(self, context: dict[str, Any]) -> Verdict:
        at_tool_call = context["interception_point"] == "pre_tool_call"
        if at_tool_call and "internal" in context["tool_call"]["args"]["url"]:
            return Verdict.deny(reason="internal hosts are off limits")
        return Verdict.allow()


class RewritesTheInput:
    def intercept(self, context: dict[str, Any]) -> dict[str, Any]:
        if context["interception_point"] == "input":
            return {
                "decision": "transform",
                "reason": "redact",
                "transform": {"path": "$target.content", "value": "x"},
            }
        return {"decision": "allow"}


def pod_with(interceptor: object, records: list[InterceptionRecord]) -> Pod:
    emitter = InterceptionEmitter().register(interceptor)  # type: ignore[arg-type]
    registry = HookRegistry()
    AgentHooks(emitter, on_record=records.append).register(registry)
    client = ScriptedClient(
        [
            ScriptedReply(calls=(ScriptedCall("fetch", {"url": "http://internal/"}, "c1"),)),
            ScriptedReply("done"),
        ]
    )
    return Pod(client, tools=[fetch], hooks=registry)


async def test_a_deny_at_pre_tool_call_skips_the_call_and_every_record_is_reported() -> None:
    records: list[InterceptionRecord] = []
    pod = pod_with(NoInternal(), records)

    assert await pod.run("fetch it") == Finished(text="done", turn=0)

    (result,) = [item for item in pod.history if isinstance(item, ToolResult)]
    assert result.content == (
        "tool call skipped: AGENT-HOOKS pre_tool_call: deny (interceptor 0): "
        "internal hosts are off limits"
    )
    points = [r.interception_point.value for r in records]
    model_call = ["pre_model_call", "post_model_call"]
    assert points == [
        "agent_startup",
        "input",
        *model_call,
        "pre_tool_call",
        *model_call,
        "output",
        "agent_shutdown",
    ]
    assert_well_formed(pod.history)


async def test_a_transform_where_llm_pod_has_no_context_to_write_fails_closed() -> None:
    pod = pod_with(RewritesTheInput(), [])

    result = await pod.run("my password is hunter2")

    assert isinstance(result, Aborted)
    assert result.reason == (
        "AGENT-HOOKS: a transform of input.content at input is not supported (hooks never "
        "write to llm-pod's context)"
    )
    assert pod.history == ()


class SeesTheOutput:
    def __init__(self) -> None:
        self.outputs: list[dict[str, Any]] = []

    def intercept(self, context: dict[str, Any]) -> Verdict:
        if context["interception_point"] == "output":
            self.outputs.append(context["output"])
            if "secret" in context["output"]["content"]:
                return Verdict.deny(reason="no secrets out")
        return Verdict.allow()


def pod_answering(text: str, interceptor: object, records: list[InterceptionRecord]) -> Pod:
    emitter = InterceptionEmitter().register(interceptor)  # type: ignore[arg-type]
    registry = HookRegistry()
    AgentHooks(emitter, on_record=records.append).register(registry)
    return Pod(ScriptedClient([ScriptedReply(text)]), hooks=registry)


async def test_a_deny_at_output_withholds_the_answer_and_shutdown_says_error() -> None:
    records: list[InterceptionRecord] = []
    pod = pod_answering("the secret is X", SeesTheOutput(), records)

    result = await pod.run("tell me")

    assert result == Aborted(
        reason="AGENT-HOOKS output: deny (interceptor 0): no secrets out", turn=0
    )
    shutdown = records[-1].to_wire()
    assert shutdown["interception_point"] == "agent_shutdown"
    assert len(records) == 6  # startup, input, pre/post model call, output, shutdown


async def test_an_answer_over_output_bytes_is_shown_cut_with_its_whole_length() -> None:
    seer = SeesTheOutput()
    text = "x" * (OUTPUT_BYTES + 10)
    pod = pod_answering(text, seer, [])

    assert await pod.run("write a lot") == Finished(text=text, turn=0)

    assert seer.outputs == [
        {"content": "x" * OUTPUT_BYTES, "truncated": True, "length": OUTPUT_BYTES + 10}
    ]


class SeesTheMessages:
    def __init__(self) -> None:
        self.messages: list[list[dict[str, Any]]] = []

    def intercept(self, context: dict[str, Any]) -> Verdict:
        if context["interception_point"] == "pre_model_call":
            self.messages.append(context["messages"])
        return Verdict.allow()


async def test_pre_model_call_shows_the_requests_last_items_as_messages() -> None:
    seer = SeesTheMessages()
    pod = pod_with(seer, [])

    await pod.run("fetch it")

    assert seer.messages == [
        [{"role": "user", "content": "fetch it"}],
        [
            {"role": "user", "content": "fetch it"},
            {"role": "assistant", "content": 'fetch {"url": "http://internal/"}'},
            {"role": "tool", "content": "fetched http://internal/"},
        ],
    ]
