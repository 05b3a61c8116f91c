"""The public import surface: the fixed names are importable from exactly where design says."""

from __future__ import annotations

import importlib
import types

import pytest

import llm_worker
import pod
from llm_worker import Privileged

FIXED = {
    "llm_worker": [
        "Item",
        "Message",
        "ToolCall",
        "ToolResult",
        "Worker",
        "Interceptor",
        "ToolCallInfo",
        "ToolResultInfo",
        "Tool",
        "tool",
        "LlmClient",
        "ScriptedClient",
    ],
    "pod": [
        "HookRegistry",
        "events",
        "Continue",
        "Skip",
        "Abort",
        "Pause",
        "PromptSubmitInfo",
        "PreRequestInfo",
        "ToolCallSummary",
        "ToolResultSummary",
        "TurnEndInfo",
        "AbortInfo",
    ],
}


@pytest.mark.parametrize("package", ["llm_worker", "pod"])
def test_all_lists_exactly_the_public_names(package: str) -> None:
    module = importlib.import_module(package)
    public = sorted(
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    )
    assert sorted(set(module.__all__) - {"events"}) == public
    assert set(FIXED[package]) <= set(module.__all__)


def test_the_context_types_are_declared_privileged() -> None:
    for cls in [
        llm_worker.Message,
        llm_worker.ToolCall,
        llm_worker.ToolCallInfo,
        llm_worker.ToolResultInfo,
        llm_worker.Worker,
        llm_worker.Interceptor,
    ]:
        assert issubclass(cls, Privileged), cls


def test_there_is_no_bridge_from_interceptors_to_hooks() -> None:
    assert not hasattr(pod, "HookInterceptor")
    for module in (pod, llm_worker):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, llm_worker.Interceptor):
                assert value is llm_worker.Interceptor
