"""Shared pieces for engine tests: a few tools and a recording interceptor."""

from __future__ import annotations

from llm_worker import Abort, Continue, Item, Pause, Skip, tool
from llm_worker.interceptor import (
    CONTINUE,
    Interceptor,
    PromptInfo,
    ToolCallInfo,
    ToolResultInfo,
    Yield,
)


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@tool
def fail(message: str) -> str:
    """Always raise."""
    raise RuntimeError(message)


class RecordingInterceptor(Interceptor):
    """Appends ``interceptor:<point>`` to a shared log at each decision point."""

    def __init__(self, log: list[str], name: str = "interceptor") -> None:
        self.log = log
        self.name = name

    def on_prompt_submit(self, prompt: PromptInfo) -> Continue | Abort:
        self.log.append(f"{self.name}:prompt_submit")
        return CONTINUE

    def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
        self.log.append(f"{self.name}:pre_llm_request")
        return CONTINUE

    def pre_tool_call(self, info: ToolCallInfo) -> Continue | Skip | Abort | Pause:
        self.log.append(f"{self.name}:pre_tool_call")
        return CONTINUE

    def post_tool_call(self, info: ToolResultInfo) -> Continue | Abort:
        self.log.append(f"{self.name}:post_tool_call")
        return CONTINUE

    def on_turn_end(self, history: list[Item]) -> Continue | Pause:
        self.log.append(f"{self.name}:turn_end")
        return CONTINUE

    def on_abort(self, reason: str) -> None:
        self.log.append(f"{self.name}:abort")
