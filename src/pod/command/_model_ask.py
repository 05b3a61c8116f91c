"""A :data:`~pod.command._claude_prompt.PromptAsk` from a model client: one request of its
own (a system prompt and one user message, no tools), apart from any run's history.

Kept apart from ``PromptHook`` (hook code the ``pod_mypy`` plugin checks): building an
``LlmRequest`` is the engine's business, the hook only gets the question-asking function.
"""

from __future__ import annotations

from llm_worker import LlmClient, LlmRequest, Message

from ._claude_prompt import PromptAsk

__all__ = ["model_asker"]


def model_asker(client: LlmClient) -> PromptAsk:
    """Ask ``client`` one question: ``(system, prompt) -> the reply's text``."""

    async def ask(system: str, prompt: str) -> str:
        request = LlmRequest(items=(Message(role="user", text=prompt),), system_prompt=system)
        response = await client.complete(request)
        return response.text

    return ask
