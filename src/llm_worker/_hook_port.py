"""The hook port: how the engine asks hooks for decisions, without knowing ``pod``.

The Worker calls one method per decision point with a read-only summary and acts on the
decision. ``pod``'s frozen ``HookRegistry`` implements this protocol; :data:`NO_HOOKS` is the
port of a Worker without hooks. A port reports a hook that raised, timed out or answered
illegally by raising :class:`~llm_worker.HookFailedError`; the Worker then aborts the run.
"""

from __future__ import annotations

from typing import Final, Protocol, final

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

__all__ = ["NO_HOOKS", "HookPort", "NoHooks"]


class HookPort(Protocol):
    """One method per decision point; each returns a decision legal there."""

    async def prompt_submit(self, info: PromptSubmitInfo) -> PromptSubmitDecision: ...
    async def pre_llm_request(self, info: PreRequestInfo) -> PreRequestDecision: ...
    async def pre_tool_call(self, info: ToolCallSummary) -> PreToolDecision: ...
    async def post_tool_call(self, info: ToolResultSummary) -> PostToolDecision: ...
    async def turn_end(self, info: TurnEndInfo) -> TurnEndDecision: ...
    async def abort(self, info: AbortInfo) -> None: ...


_CONTINUE: Final = Continue()


@final
class NoHooks:
    """The port with no hooks: every decision is ``Continue``."""

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
