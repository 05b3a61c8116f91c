"""The hook port: how the engine asks hooks for decisions, without knowing ``pod``.

The Worker calls one method per decision point with a read-only summary and acts on the
decision. ``pod``'s frozen ``HookRegistry`` implements this protocol; :data:`NO_HOOKS` is the
port of a Worker without hooks. A port reports a hook that raised, timed out or answered
illegally by raising :class:`~llm_worker.HookFailedError`; the Worker then aborts the run.

A port may also say which decision points have hooks at all (:class:`SelectiveHookPort`):
the Worker then neither builds a summary nor calls the port at a point without hooks, so
an unused event costs nothing. A port that does not say is asked at every point.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Final, Literal, Protocol, TypeAlias, final, runtime_checkable

from ._decisions import (
    Continue,
    PostToolDecision,
    PreRequestDecision,
    PreToolDecision,
    PromptSubmitDecision,
    TurnEndDecision,
)
from ._summaries import (
    AbortInfo,
    PreRequestInfo,
    PromptSubmitInfo,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
)

__all__ = ["NO_HOOKS", "HookPoint", "HookPort", "NoHooks", "SelectiveHookPort"]

HookPoint: TypeAlias = Literal[
    "prompt_submit", "pre_llm_request", "pre_tool_call", "post_tool_call", "turn_end", "abort"
]
"""A decision point, named as its ``HookPort`` method (and as its ``pod`` event)."""


class HookPort(Protocol):
    """One method per decision point; each returns (an awaitable of) a decision legal there.

    Implement them as ``async def`` methods, or as plain methods returning a coroutine.
    """

    def prompt_submit(self, info: PromptSubmitInfo) -> Awaitable[PromptSubmitDecision]: ...
    def pre_llm_request(self, info: PreRequestInfo) -> Awaitable[PreRequestDecision]: ...
    def pre_tool_call(self, info: ToolCallSummary) -> Awaitable[PreToolDecision]: ...
    def post_tool_call(self, info: ToolResultSummary) -> Awaitable[PostToolDecision]: ...
    def turn_end(self, info: TurnEndInfo) -> Awaitable[TurnEndDecision]: ...
    def abort(self, info: AbortInfo) -> Awaitable[None]: ...


@runtime_checkable
class SelectiveHookPort(HookPort, Protocol):
    """A hook port that knows which points have hooks (``pod``'s frozen registry).

    The answer must stay the same for the port's lifetime: the Worker asks once, when it
    is built, and skips the points without hooks from then on.
    """

    def listens_to(self, point: HookPoint) -> bool:
        """Whether any hook would be asked at ``point``."""
        ...


_CONTINUE: Final = Continue()


@final
class NoHooks:
    """The port with no hooks: every decision is ``Continue``."""

    def listens_to(self, point: HookPoint) -> bool:
        del point
        return False

    async def prompt_submit(self, info: PromptSubmitInfo) -> PromptSubmitDecision:
        return _CONTINUE

    async def pre_llm_request(self, info: PreRequestInfo) -> PreRequestDecision:
        return _CONTINUE

    async def pre_tool_call(self, info: ToolCallSummary) -> PreToolDecision:
        return _CONTINUE

    async def post_tool_call(self, info: ToolResultSummary) -> PostToolDecision:
        return _CONTINUE

    async def turn_end(self, info: TurnEndInfo) -> TurnEndDecision:
        return _CONTINUE

    async def abort(self, info: AbortInfo) -> None:
        return None


NO_HOOKS: Final = NoHooks()
