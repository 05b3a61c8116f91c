"""The hook event catalogue, as hook authors import it: ``from pod import events``.

Each event fixes its Input (a frozen summary) and its Output (the decisions legal there);
every event's Input and decision alias is importable from here, beside its event. The
catalogue is declared in ``pod.hooks._events``; this module re-exports it.
"""

from .hooks._events import (
    ABORT,
    CATALOGUE,
    POST_LLM_RESPONSE,
    POST_TOOL_CALL,
    PRE_COMPACT,
    PRE_LLM_REQUEST,
    PRE_TOOL_CALL,
    PROMPT_SUBMIT,
    TURN_END,
    AbortInfo,
    HookEvent,
    PostLlmResponseInfo,
    PostResponseDecision,
    PostToolDecision,
    PreCompactDecision,
    PreCompactInfo,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    PromptSubmitDecision,
    PromptSubmitInfo,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndDecision,
    TurnEndInfo,
    by_name,
)

__all__ = [
    "ABORT",
    "CATALOGUE",
    "POST_LLM_RESPONSE",
    "POST_TOOL_CALL",
    "PRE_COMPACT",
    "PRE_LLM_REQUEST",
    "PRE_TOOL_CALL",
    "PROMPT_SUBMIT",
    "TURN_END",
    "AbortInfo",
    "HookEvent",
    "PostLlmResponseInfo",
    "PostResponseDecision",
    "PostToolDecision",
    "PreCompactDecision",
    "PreCompactInfo",
    "PreRequestDecision",
    "PreRequestInfo",
    "PreToolDecision",
    "PromptSubmitDecision",
    "PromptSubmitInfo",
    "ToolCallSummary",
    "ToolResultSummary",
    "TurnEndDecision",
    "TurnEndInfo",
    "by_name",
]
