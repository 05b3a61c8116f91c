"""The scripted workload: one tool call per model turn, two trivial hooks, idle interceptors.

Two runners do the same work for ``n`` turns:

- :func:`make_runner` builds the llm-pod runner: a ``pod.Pod`` on ``ScriptedClient`` (a
  reply *function*, nothing recorded), one tool, one trivial hook on ``PRE_TOOL_CALL`` and
  one on ``PRE_LLM_REQUEST``, and the Pod's three interceptors (notification, compaction,
  truncation) enabled but idle.
- :func:`make_baseline` builds the floor, ``bench.floor.HandWrittenLoop``: a minimal asyncio
  loop doing the same bookkeeping (call the pre-request hook, ask the fake model, append
  the call, call the tool hook, parse the arguments, call the tool, append the result).

Both call the same tool body, which stamps the clock: the gaps between stamps are the
per-turn costs at each history length (see ``bench.floor.TurnClock``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol, final

from llm_worker import (
    Finished,
    LlmRequest,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    tool,
)
from llm_worker.testing import pairing_problems
from pod import Continue, HookRegistry, Pod, PodSettings, PreRequestInfo, ToolCallSummary, events

from .floor import ARGUMENTS, FINAL_TEXT, HandWrittenLoop, echo_body

__all__ = [
    "PodRunner",
    "Runner",
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
class PodRunner:
    """The workload on ``pod.Pod``: its three interceptors (notification, compaction,
    truncation) enabled but idle, two trivial hooks in the user's registry."""

    def __init__(self, turns: int) -> None:
        self.turns = turns
        registry = HookRegistry()
        registry.on(events.PRE_TOOL_CALL, allow_tool)
        registry.on(events.PRE_LLM_REQUEST, watch_request)
        self.pod = Pod(
            ScriptedClient(then=_scripted_model(turns), record=False),
            tools=[echo],
            hooks=registry,
            settings=PodSettings(
                max_requests_per_turn=turns + 1,
                # Idle, not off: the check runs before every request, the threshold is not met.
                compaction_threshold_tokens=10**9,
            ),
        )
        self.result: object = None

    async def run(self) -> None:
        self.result = await self.pod.run("go")

    def check(self) -> None:
        assert isinstance(self.result, Finished), self.result
        history = self.pod.history
        assert len(history) == 2 * self.turns + 2, len(history)
        assert not pairing_problems(history)


def make_runner(turns: int) -> Runner:
    """The llm-pod runner for ``turns`` turns."""
    return PodRunner(turns)


# -- the hand-written floor ------------------------------------------------------------------


def make_baseline(turns: int) -> Runner:
    """The hand-written runner for ``turns`` turns."""
    return HandWrittenLoop(turns)
