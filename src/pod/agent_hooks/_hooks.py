"""The hooks ``AgentHooks.register`` registers: llm-pod's own hook classes (host library code,
trusted by ``pod_mypy`` as ``PermissionHook`` and ``CommandHook`` are), one per event, each
handing its summary to the adapter. Kept apart from ``_adapter.py`` so that module holds no
hook code.
"""

from __future__ import annotations

from llm_worker import (
    OutputDecision,
    OutputInfo,
    PostLlmResponseInfo,
    PostResponseDecision,
    PostToolDecision,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    PromptSubmitDecision,
    PromptSubmitInfo,
    RunEndInfo,
    RunStartDecision,
    RunStartInfo,
    ToolCallSummary,
    ToolResultSummary,
)

from ..hooks import _events as events
from ..hooks._base import Hook
from ..hooks._registry import HookRegistry
from ._adapter import AgentHooks

__all__ = ["register"]


def register(adapter: AgentHooks, registry: HookRegistry) -> None:
    """Register ``adapter`` at every llm-pod event that has an AGENT-HOOKS point."""
    registry.on(events.RUN_START, _AgentStartup(adapter))
    registry.on(events.PROMPT_SUBMIT, _Input(adapter))
    registry.on(events.PRE_LLM_REQUEST, _PreModelCall(adapter))
    registry.on(events.POST_LLM_RESPONSE, _PostModelCall(adapter))
    registry.on(events.PRE_TOOL_CALL, _PreToolCall(adapter))
    registry.on(events.POST_TOOL_CALL, _PostToolCall(adapter))
    registry.on(events.OUTPUT, _Output(adapter))
    registry.on(events.RUN_END, _AgentShutdown(adapter))


class _AgentStartup(Hook[RunStartInfo, RunStartDecision]):
    """llm-pod's own hook class asking the emitter at ``agent_startup``."""

    def __init__(self, adapter: AgentHooks) -> None:
        self._adapter = adapter

    async def __call__(self, info: RunStartInfo) -> RunStartDecision:
        return await self._adapter.agent_startup(info)


class _Input(Hook[PromptSubmitInfo, PromptSubmitDecision]):
    """llm-pod's own hook class (host library code) asking the emitter at ``input``."""

    def __init__(self, adapter: AgentHooks) -> None:
        self._adapter = adapter

    async def __call__(self, info: PromptSubmitInfo) -> PromptSubmitDecision:
        return await self._adapter.input(info)


class _PreModelCall(Hook[PreRequestInfo, PreRequestDecision]):
    """llm-pod's own hook class asking the emitter at ``pre_model_call``."""

    def __init__(self, adapter: AgentHooks) -> None:
        self._adapter = adapter

    async def __call__(self, info: PreRequestInfo) -> PreRequestDecision:
        return await self._adapter.pre_model_call(info)


class _PostModelCall(Hook[PostLlmResponseInfo, PostResponseDecision]):
    """llm-pod's own hook class asking the emitter at ``post_model_call``."""

    def __init__(self, adapter: AgentHooks) -> None:
        self._adapter = adapter

    async def __call__(self, info: PostLlmResponseInfo) -> PostResponseDecision:
        return await self._adapter.post_model_call(info)


class _PreToolCall(Hook[ToolCallSummary, PreToolDecision]):
    """llm-pod's own hook class asking the emitter at ``pre_tool_call``."""

    def __init__(self, adapter: AgentHooks) -> None:
        self._adapter = adapter

    async def __call__(self, info: ToolCallSummary) -> PreToolDecision:
        return await self._adapter.pre_tool_call(info)


class _PostToolCall(Hook[ToolResultSummary, PostToolDecision]):
    """llm-pod's own hook class asking the emitter at ``post_tool_call``."""

    def __init__(self, adapter: AgentHooks) -> None:
        self._adapter = adapter

    async def __call__(self, info: ToolResultSummary) -> PostToolDecision:
        return await self._adapter.post_tool_call(info)


class _Output(Hook[OutputInfo, OutputDecision]):
    """llm-pod's own hook class asking the emitter at ``output``."""

    def __init__(self, adapter: AgentHooks) -> None:
        self._adapter = adapter

    async def __call__(self, info: OutputInfo) -> OutputDecision:
        return await self._adapter.output(info)


class _AgentShutdown(Hook[RunEndInfo, None]):
    """llm-pod's own hook class telling the emitter at ``agent_shutdown``."""

    def __init__(self, adapter: AgentHooks) -> None:
        self._adapter = adapter

    async def __call__(self, info: RunEndInfo) -> None:
        await self._adapter.agent_shutdown(info)
