"""At every decision point: interceptors first, then hooks, as separate steps."""

from __future__ import annotations

import json

from llm_worker import (
    Continue,
    Finished,
    Item,
    Message,
    Pause,
    PreRequestInfo,
    PromptSubmitInfo,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Skip,
    ToolCall,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
    Worker,
    Yielded,
)
from llm_worker.interceptor import Abort, ToolCallInfo, Yield
from llm_worker.testing import assert_well_formed
from pod import HookRegistry, events

from .conftest import RecordingInterceptor, echo


def recording_hooks(log: list[str]) -> HookRegistry:
    registry = HookRegistry()

    @registry.on(events.PROMPT_SUBMIT)
    def on_prompt(info: PromptSubmitInfo) -> Continue:
        log.append("hook:prompt_submit")
        return Continue()

    @registry.on(events.PRE_LLM_REQUEST)
    def on_request(info: PreRequestInfo) -> Continue:
        log.append("hook:pre_llm_request")
        return Continue()

    @registry.on(events.PRE_TOOL_CALL)
    def on_call(info: ToolCallSummary) -> Continue:
        log.append("hook:pre_tool_call")
        return Continue()

    @registry.on(events.POST_TOOL_CALL)
    def on_result(info: ToolResultSummary) -> Continue:
        log.append("hook:post_tool_call")
        return Continue()

    @registry.on(events.TURN_END)
    def on_end(info: TurnEndInfo) -> Continue:
        log.append("hook:turn_end")
        return Continue()

    return registry


async def test_interceptors_run_before_hooks_at_every_point() -> None:
    log: list[str] = []
    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("echo", {"text": "hi"})]), ScriptedReply(text="ok")]
    )
    worker = Worker(
        client,
        tools=[echo],
        interceptors=[RecordingInterceptor(log, "first"), RecordingInterceptor(log, "second")],
        hooks=recording_hooks(log).freeze(),
    )
    result = await worker.run("go")
    assert result == Finished(text="ok", turn=0)
    assert log == [
        "first:prompt_submit",
        "second:prompt_submit",
        "hook:prompt_submit",
        "first:pre_llm_request",
        "second:pre_llm_request",
        "hook:pre_llm_request",
        "first:pre_tool_call",
        "second:pre_tool_call",
        "hook:pre_tool_call",
        "first:post_tool_call",
        "second:post_tool_call",
        "hook:post_tool_call",
        "first:pre_llm_request",
        "second:pre_llm_request",
        "hook:pre_llm_request",
        "first:turn_end",
        "second:turn_end",
        "hook:turn_end",
    ]


class RewriteArguments(RecordingInterceptor):
    def pre_tool_call(self, info: ToolCallInfo) -> Continue | Skip | Abort | Pause:
        super().pre_tool_call(info)
        info.call = info.call.model_copy(update={"arguments": json.dumps({"text": "rewritten"})})
        return Continue()


async def test_hook_sees_the_interceptors_rewrite_and_so_does_the_history() -> None:
    log: list[str] = []
    seen: list[ToolCallSummary] = []
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def look(info: ToolCallSummary) -> Continue:
        log.append("hook:pre_tool_call")
        seen.append(info)
        return Continue()

    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("echo", {"text": "original"})]), ScriptedReply("ok")]
    )
    worker = Worker(
        client, tools=[echo], interceptors=[RewriteArguments(log)], hooks=registry.freeze()
    )
    await worker.run("go")
    assert [s.argument("text") for s in seen] == ["rewritten"]
    calls = [item for item in worker.history if isinstance(item, ToolCall)]
    assert [json.loads(c.arguments) for c in calls] == [{"text": "rewritten"}]
    assert worker.history[-2].model_dump()["content"] == "rewritten"  # the tool ran with it
    assert log.index("interceptor:pre_tool_call") < log.index("hook:pre_tool_call")


class YieldOnce(RecordingInterceptor):
    def __init__(self, log: list[str]) -> None:
        super().__init__(log)
        self.yielded = False

    def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
        super().pre_llm_request(context)
        if not self.yielded:
            self.yielded = True
            return Yield(reason="compact first")
        return Continue()


async def test_an_interceptor_yield_means_the_hooks_do_not_run_for_that_point() -> None:
    log: list[str] = []
    worker = Worker(
        ScriptedClient([ScriptedReply("ok")]),
        interceptors=[YieldOnce(log)],
        hooks=recording_hooks(log).freeze(),
    )
    result = await worker.run("go")
    assert result == Yielded(reason="compact first", turn=0)
    assert log[-1] == "interceptor:pre_llm_request"
    assert "hook:pre_llm_request" not in log
    assert worker.status == "yielded"

    result = await worker.resume()
    assert result == Finished(text="ok", turn=0)
    # On resume the interceptors run again for the request, then (only then) the hooks.
    assert log[3:6] == [
        "interceptor:pre_llm_request",
        "hook:pre_llm_request",
        "interceptor:turn_end",
    ]


class SkipEverything(RecordingInterceptor):
    def pre_tool_call(self, info: ToolCallInfo) -> Continue | Skip | Abort | Pause:
        super().pre_tool_call(info)
        return Skip(reason="interceptor said no")


async def test_first_non_continue_interceptor_stops_the_chain_and_the_hooks() -> None:
    log: list[str] = []
    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("echo", {"text": "x"})]), ScriptedReply("ok")]
    )
    worker = Worker(
        client,
        tools=[echo],
        interceptors=[SkipEverything(log, "first"), RecordingInterceptor(log, "second")],
        hooks=recording_hooks(log).freeze(),
    )
    await worker.run("go")
    assert "second:pre_tool_call" not in log
    assert "hook:pre_tool_call" not in log
    assert "hook:post_tool_call" not in log  # the tool never ran
    assert worker.history[-2].model_dump()["content"] == "tool call skipped: interceptor said no"
    assert_well_formed(worker.history)


async def test_summaries_count_the_history_after_the_interceptors() -> None:
    seen: list[PreRequestInfo] = []
    registry = HookRegistry()

    @registry.on(events.PRE_LLM_REQUEST)
    def look(info: PreRequestInfo) -> Continue:
        seen.append(info)
        return Continue()

    class DropAllButLast(RecordingInterceptor):
        def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
            del context[:-1]
            return Continue()

    history = [Message(role="user", text="old " * 100), Message(role="assistant", text="x" * 99)]
    worker = Worker(
        ScriptedClient([ScriptedReply("ok")]),
        interceptors=[DropAllButLast([])],
        hooks=registry.freeze(),
        history=history,
    )
    await worker.run("a" * 400)
    assert seen[0].item_count == 1
    assert seen[0].estimated_tokens == (400 + 4) // 4
