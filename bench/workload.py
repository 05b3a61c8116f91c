"""The scripted workload: one tool call per model turn, two trivial hooks, idle interceptors.

Two runners do the same work for ``n`` turns:

- :func:`make_runner` builds the llm-pod runner: a ``Worker`` on ``ScriptedClient`` (a
  reply *function*, nothing recorded), one tool, one trivial hook on ``PRE_TOOL_CALL`` and
  one on ``PRE_LLM_REQUEST`` in a frozen ``pod.HookRegistry``, and three idle interceptors
  doing the cheap checks the Pod's compaction, notification and truncation do when they
  have nothing to do. Swapping in ``pod.Pod`` is a change to that one factory.
- :func:`make_baseline` builds the floor, ``bench.floor.HandWrittenLoop``: a minimal asyncio
  loop doing the same bookkeeping (call the pre-request hook, ask the fake model, append
  the call, call the tool hook, parse the arguments, call the tool, append the result).

Both call the same tool body, which stamps the clock: the gaps between stamps are the
per-turn costs at each history length (see ``bench.floor.TurnClock``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Final, Protocol, final

from llm_worker import (
    Finished,
    Item,
    LlmRequest,
    Message,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolResult,
    Worker,
    tool,
    utf8_len,
    utf8_prefix,
)
from llm_worker.interceptor import (
    CONTINUE,
    Abort,
    Continue,
    History,
    Interceptor,
    ToolResultInfo,
    Yield,
)
from llm_worker.testing import pairing_problems
from pod import HookRegistry, PreRequestInfo, ToolCallSummary, events

from .floor import ARGUMENTS, FINAL_TEXT, HandWrittenLoop, echo_body

__all__ = [
    "Runner",
    "WorkerRunner",
    "make_baseline",
    "make_runner",
]

echo: Final = tool(name="echo", description="Return the text.")(echo_body)
"""The same function as a llm-pod tool (validated arguments, JSON schema)."""


class Runner(Protocol):
    """Runs the workload once (a fresh runner per run) and checks it did what it should."""

    turns: int

    async def run(self) -> None: ...
    def check(self) -> None:
        """Raise ``AssertionError`` if the run did not do the whole workload."""
        ...


# -- the llm-pod side ------------------------------------------------------------------------

_HOOK_DECISION: Final = Continue()


def allow_tool(call: ToolCallSummary) -> Continue:
    """The trivial ``PRE_TOOL_CALL`` hook."""
    del call
    return _HOOK_DECISION


def watch_request(info: PreRequestInfo) -> Continue:
    """The trivial ``PRE_LLM_REQUEST`` hook."""
    del info
    return _HOOK_DECISION


@final
class IdleCompaction(Interceptor):
    """Stands in for compaction: compares the O(1) token estimate to a threshold."""

    def __init__(self, threshold_tokens: int) -> None:
        self._threshold = threshold_tokens

    def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
        tokens = context.estimated_tokens() if isinstance(context, History) else len(context)
        if tokens <= self._threshold:
            return CONTINUE
        return Yield(reason=f"compaction: ~{tokens} tokens")


@final
class IdleNotifications(Interceptor):
    """Stands in for notifications: checks an empty queue before every request."""

    def __init__(self) -> None:
        self.pending: deque[str] = deque()

    def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
        if not self.pending:
            return CONTINUE
        while self.pending:
            context.append(Message(role="user", text=self.pending.popleft()))
        return CONTINUE


@final
class IdleTruncation(Interceptor):
    """Stands in for truncation: compares each result's length to a limit."""

    def __init__(self, max_bytes: int) -> None:
        self._max_bytes = max_bytes

    def post_tool_call(self, info: ToolResultInfo) -> Continue | Abort:
        result = info.result
        if utf8_len(result.content) <= self._max_bytes:
            return CONTINUE
        info.result = ToolResult(
            call_id=result.call_id,
            name=result.name,
            content=utf8_prefix(result.content, self._max_bytes),
            is_error=result.is_error,
        )
        return CONTINUE


def _scripted_model(turns: int) -> Callable[[LlmRequest], ScriptedReply]:
    """A reply function: one tool call per request for ``turns`` requests, then text."""
    call_reply = ScriptedReply(calls=(ScriptedCall(name="echo", arguments=ARGUMENTS),))
    final_reply = ScriptedReply(text=FINAL_TEXT)
    requests = 0

    def reply(request: LlmRequest) -> ScriptedReply:
        nonlocal requests
        del request
        requests += 1
        return call_reply if requests <= turns else final_reply

    return reply


@final
class WorkerRunner:
    """The workload on ``llm_worker.Worker`` with a frozen ``pod.HookRegistry``."""

    def __init__(self, turns: int) -> None:
        self.turns = turns
        registry = HookRegistry()
        registry.on(events.PRE_TOOL_CALL, allow_tool)
        registry.on(events.PRE_LLM_REQUEST, watch_request)
        self.worker = Worker(
            ScriptedClient(then=_scripted_model(turns), record=False),
            tools=[echo],
            interceptors=[
                IdleNotifications(),
                IdleCompaction(threshold_tokens=10**9),
                IdleTruncation(max_bytes=32_768),
            ],
            hooks=registry.freeze(),
            max_requests_per_turn=turns + 1,
        )
        self.result: object = None

    async def run(self) -> None:
        self.result = await self.worker.run("go")

    def check(self) -> None:
        assert isinstance(self.result, Finished), self.result
        history = self.worker.history
        assert len(history) == 2 * self.turns + 2, len(history)
        assert not pairing_problems(history)


def make_runner(turns: int) -> Runner:
    """The llm-pod runner for ``turns`` turns.

    To measure ``pod.Pod`` instead, return a runner whose ``run`` awaits
    ``Pod(ScriptedClient(then=_scripted_model(turns), record=False), tools=[echo],
    hooks=registry, settings=PodSettings(max_requests_per_turn=turns + 1,
    compaction_threshold_tokens=10**9)).run("go")``: the Pod brings its own interceptors.
    """
    return WorkerRunner(turns)


# -- the hand-written floor ------------------------------------------------------------------


def make_baseline(turns: int) -> Runner:
    """The hand-written runner for ``turns`` turns."""
    return HandWrittenLoop(turns)
