"""Compaction: the interceptor yields over the threshold, the Pod summarises and resumes."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Sequence

import pytest
from pod_helpers import assert_well_formed

from llm_worker import (
    Item,
    LlmRequest,
    Message,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Summary,
    ToolCall,
    ToolResult,
    Usage,
    tool,
)
from pod import (
    Continue,
    Finished,
    HookRegistry,
    LlmSummariser,
    Pod,
    PodSettings,
    PreRequestInfo,
    SummaryText,
    TraceEvent,
    events,
)
from pod.runtime._interceptors import plan_compaction

SYSTEM_PROMPT = "You are a test agent."
CHUNK = "x" * 400


@tool
def read_chunk(index: int) -> str:
    """Return one chunk of a long document."""
    return f"chunk {index}: {CHUNK}"


class ScriptedAgent:
    """Model double: ``rounds`` tool calls, then a final answer; also writes summaries."""

    def __init__(self, rounds: int, *, report_usage: bool = False) -> None:
        self.rounds = rounds
        self.report_usage = report_usage
        self.agent_input_tokens = 0
        self.agent_request_sizes: list[int] = []
        self.summary_requests: list[str] = []

    def __call__(self, request: LlmRequest) -> ScriptedReply:
        if request.system_prompt != SYSTEM_PROMPT:  # the summariser's request
            (transcript,) = request.items
            assert isinstance(transcript, Message)
            self.summary_requests.append(transcript.text)
            return ScriptedReply(
                text=f"summary #{len(self.summary_requests)}",
                usage=Usage(input_tokens=100, output_tokens=10),
            )
        self.agent_request_sizes.append(len(request.items))
        usage = None
        if self.report_usage:  # like a provider: the items plus the system prompt and tools
            chars = sum(len(item.model_dump_json()) for item in request.items)
            usage = Usage(input_tokens=60 + chars // 5, output_tokens=20)
            self.agent_input_tokens += usage.input_tokens
        turn = len(self.agent_request_sizes)
        if turn <= self.rounds:
            return ScriptedReply(
                text=f"reading {turn}",
                calls=[ScriptedCall("read_chunk", {"index": turn})],
                usage=usage,
            )
        return ScriptedReply(text="done", usage=usage)


@pytest.mark.parametrize("report_usage", [False, True], ids=["local-estimate", "calibrated"])
async def test_a_long_run_is_compacted_and_hooks_only_see_compacted_requests(
    report_usage: bool,
) -> None:
    agent = ScriptedAgent(rounds=8, report_usage=report_usage)
    seen: list[PreRequestInfo] = []
    registry = HookRegistry()

    @registry.on(events.PRE_LLM_REQUEST)
    def record(info: PreRequestInfo) -> Continue:
        seen.append(info)
        return Continue()

    trace: list[TraceEvent] = []
    threshold = 330
    pod = Pod(
        ScriptedClient(then=agent),
        tools=[read_chunk],
        hooks=registry,
        system_prompt=SYSTEM_PROMPT,
        settings=PodSettings(compaction_threshold_tokens=threshold, compaction_keep_recent=4),
        trace=trace.append,
    )

    result = await pod.run("read all chunks")

    assert result == Finished(text="done", turn=0)
    history = pod.history
    summaries = [item for item in history if isinstance(item, Summary)]
    assert len(summaries) == 1
    assert history[0] is summaries[0]
    assert_well_formed(history)
    # The summary stands for all it replaced: the prompt, 3 items a round, the answer.
    assert summaries[0].replaced_items + len(history) - 1 == 1 + 3 * agent.rounds + 1
    assert len(agent.summary_requests) >= 2  # later compactions fold the earlier summary in
    assert "read all chunks" in agent.summary_requests[0]
    assert "[summary of earlier conversation]\nsummary #1" in agent.summary_requests[1]
    # One hook call per request actually sent, with the counts of that request: the hook never
    # ran at a yield point and saw the compacted context afterwards.
    assert [info.item_count for info in seen] == agent.agent_request_sizes
    assert all(info.estimated_tokens <= threshold for info in seen)
    assert any(b.item_count < a.item_count for a, b in itertools.pairwise(seen))
    # In the trace, each yield is followed by the compaction, and only then by the hooks.
    yields = [i for i, e in enumerate(trace) if e.actor == "compaction" and "yield" in e.message]
    assert len(yields) == len(agent.summary_requests)
    for index in yields:
        following = trace[index + 1 :]
        # PRE_COMPACT is asked between the yield and the compaction, PRE_LLM_REQUEST after.
        assert following[0].actor == "PRE_COMPACT"
        first_hook = next(
            i for i, e in enumerate(following) if e.source == "hooks" and e.actor != "PRE_COMPACT"
        )
        replaced = next(i for i, e in enumerate(following) if e.message.startswith("replaced"))
        assert replaced < first_hook
        assert following[first_hook].actor == "PRE_LLM_REQUEST"
    summary_tokens = 100 * len(agent.summary_requests)
    assert pod.usage.input_tokens == agent.agent_input_tokens + summary_tokens


def _call(call_id: str) -> ToolCall:
    return ToolCall(call_id=call_id, name="t", arguments="{}")


def _result(call_id: str) -> ToolResult:
    return ToolResult(call_id=call_id, name="t", content="ok")


def test_the_plan_keeps_recent_items_and_pinned_system_messages() -> None:
    items: list[Item] = [
        Message(role="system", text="rules"),
        Message(role="user", text="a"),
        Message(role="assistant", text="b"),
        Message(role="user", text="c"),
        Message(role="assistant", text="d"),
    ]
    plan = plan_compaction(items, keep_recent=2)
    assert plan is not None
    assert (plan.start, plan.stop, plan.replaced_items) == (1, 3, 2)


def test_the_plan_never_separates_parallel_calls_from_their_results() -> None:
    items: list[Item] = [
        Message(role="user", text="go"),
        _call("1"),
        _call("2"),
        _result("1"),
        _result("2"),
        Message(role="assistant", text="done"),
    ]
    plan = plan_compaction(items, keep_recent=2)  # a naive cut falls between the results
    assert plan is not None
    assert (plan.start, plan.stop) == (0, 1)


def test_a_leading_summary_alone_is_never_summarised_again() -> None:
    items: list[Item] = [
        Summary(text="earlier", replaced_items=7),
        _call("1"),
        _result("1"),
    ]
    assert plan_compaction(items, keep_recent=2) is None
    items.insert(1, Message(role="user", text="new"))
    plan = plan_compaction(items, keep_recent=2)
    assert plan is not None
    assert (plan.start, plan.stop, plan.replaced_items) == (0, 2, 8)


def test_too_short_a_history_has_no_plan() -> None:
    items: list[Item] = [Message(role="user", text="a"), Message(role="assistant", text="b")]
    assert plan_compaction(items, keep_recent=2) is None


class FailingSummariser:
    def __init__(self) -> None:
        self.calls = 0

    async def summarise(self, items: Sequence[Item], /) -> SummaryText:
        self.calls += 1
        raise RuntimeError("summary service down")


async def test_a_failing_summariser_leaves_the_history_whole_and_the_run_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent = ScriptedAgent(rounds=4)
    summariser = FailingSummariser()
    trace: list[TraceEvent] = []
    pod = Pod(
        ScriptedClient(then=agent),
        tools=[read_chunk],
        system_prompt=SYSTEM_PROMPT,
        summariser=summariser,
        settings=PodSettings(compaction_threshold_tokens=300, compaction_keep_recent=2),
        trace=trace.append,
    )
    with caplog.at_level(logging.WARNING, logger="pod"):
        result = await pod.run("read")
    assert isinstance(result, Finished)
    assert not any(isinstance(item, Summary) for item in pod.history)
    assert len(pod.history) == 1 + 3 * 4 + 1
    # Tried at most once per request (then the request goes uncompacted), never in a loop.
    assert 1 <= summariser.calls <= len(agent.agent_request_sizes)
    assert "summary service down" in caplog.text
    assert any(e.source == "pod" and "compaction failed" in e.message for e in trace)


class CountingSummariser:
    async def summarise(self, items: Sequence[Item], /) -> SummaryText:
        return SummaryText(text=f"{len(items)} items", usage=Usage(input_tokens=7, output_tokens=3))


async def test_a_custom_summariser_is_used_and_its_usage_counted() -> None:
    agent = ScriptedAgent(rounds=5)
    pod = Pod(
        ScriptedClient(then=agent),
        tools=[read_chunk],
        system_prompt=SYSTEM_PROMPT,
        summariser=CountingSummariser(),
        settings=PodSettings(compaction_threshold_tokens=300, compaction_keep_recent=3),
    )
    assert isinstance(await pod.run("read"), Finished)
    assert agent.summary_requests == []
    summary = pod.history[0]
    assert isinstance(summary, Summary)
    assert summary.text.endswith(" items")
    assert pod.usage.input_tokens >= 7
    assert pod.usage.input_tokens % 7 == 0


async def test_no_threshold_means_no_compaction() -> None:
    agent = ScriptedAgent(rounds=6)
    pod = Pod(
        ScriptedClient(then=agent),
        tools=[read_chunk],
        system_prompt=SYSTEM_PROMPT,
        settings=PodSettings(compaction_threshold_tokens=None),
    )
    assert isinstance(await pod.run("read"), Finished)
    assert len(pod.history) == 1 + 3 * 6 + 1
    assert agent.summary_requests == []


async def test_the_default_summariser_sends_a_transcript_and_rejects_an_empty_answer() -> None:
    client = ScriptedClient([ScriptedReply(text="  ")])
    summariser = LlmSummariser(client, instructions="summarise")
    items: list[Item] = [Message(role="user", text="hello"), _call("9"), _result("9")]
    with pytest.raises(ValueError, match=r"^the model returned an empty summary$"):
        await summariser.summarise(items)
    (sent,) = client.requests
    (transcript,) = sent
    assert isinstance(transcript, Message)
    assert transcript.text == "[user]\nhello\n\n[tool call 9: t]\n{}\n\n[tool result 9: t]\nok"


class BlockingSummariser:
    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def summarise(self, items: Sequence[Item], /) -> SummaryText:
        self.started.set()
        await self.release.wait()
        return SummaryText(text="late summary")


async def test_a_run_cancelled_during_compaction_loses_nothing_and_resumes() -> None:
    agent = ScriptedAgent(rounds=4)
    summariser = BlockingSummariser()
    pod = Pod(
        ScriptedClient(then=agent),
        tools=[read_chunk],
        system_prompt=SYSTEM_PROMPT,
        summariser=summariser,
        settings=PodSettings(compaction_threshold_tokens=300, compaction_keep_recent=2),
    )
    async with asyncio.TaskGroup() as group:
        run = group.create_task(pod.run("read"))
        await summariser.started.wait()
        before = pod.history
        run.cancel()
    assert run.cancelled()
    assert pod.history == before  # the summary never half-replaced anything
    assert_well_formed(pod.history)

    summariser.release.set()
    result = await pod.resume()  # compaction is retried, then the run carries on
    assert isinstance(result, Finished)
    assert isinstance(pod.history[0], Summary)
    assert pod.history[0].text == "late summary"
    assert_well_formed(pod.history)
