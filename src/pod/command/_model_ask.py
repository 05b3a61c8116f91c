"""A :data:`~pod.command._claude_prompt.PromptAsk` from a model client: one request of its
own (a system prompt and one user message, no tools), apart from any run's history.

Kept apart from ``PromptHook`` (hook code the ``pod_mypy`` plugin checks): building an
``LlmRequest`` is the engine's business, the hook only gets the question-asking function.
"""

from __future__ import annotations

from collections.abc import Callable

from llm_worker import LlmClient, LlmRequest, Message
from llm_worker.providers import client_from_spec

from ._claude_prompt import PromptAsk

__all__ = ["model_asker", "other_model_asker"]


def model_asker(client: LlmClient) -> PromptAsk:
    """Ask ``client`` one question: ``(system, prompt) -> the reply's text``."""

    async def ask(system: str, prompt: str) -> str:
        request = LlmRequest(items=(Message(role="user", text=prompt),), system_prompt=system)
        response = await client.complete(request)
        return response.text

    return ask


def other_model_asker(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
) -> Callable[[str], PromptAsk]:
    """For a ``prompt`` hook's ``model``: ask that model of the run's provider (the
    provider of ``spec``, ``provider:model``), at the same API with the same key.

    Each question gets a client of its own, closed once answered: a hook's model is asked
    now and then, and no client is left open when the run ends.
    """
    provider = spec.partition(":")[0]

    def asker(model: str) -> PromptAsk:
        async def ask(system: str, prompt: str) -> str:
            client = client_from_spec(
                f"{provider}:{model}",
                base_url=base_url,
                api_key=api_key,
                timeout=timeout,
                max_retries=max_retries,
            )
            try:
                return await model_asker(client)(system, prompt)
            finally:
                await client.aclose()

        return ask

    return asker
