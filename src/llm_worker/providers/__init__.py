"""llm_worker.providers: LLM clients for real models, on the official SDKs.

- :class:`OpenAIChatClient` (extra ``openai``): Chat Completions, for OpenAI and for
  OpenAI-compatible servers (vLLM, Ollama, llama.cpp).
- :class:`AnthropicClient` (extra ``anthropic``): the Messages API.
- :func:`client_from_spec` builds either from a ``"provider:model"`` string.

Importing this package imports neither SDK: each is imported when its client is built, and
a missing one raises :class:`MissingExtraError` naming the extra to install. Request
failures raise :class:`llm_worker.LlmClientError` (``ContextTooLongError`` for an
oversized request); no SDK exception type crosses the ``LlmClient`` protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ._anthropic import DEFAULT_MAX_TOKENS as DEFAULT_MAX_TOKENS
from ._anthropic import AnthropicClient as AnthropicClient
from ._anthropic_wire import build_anthropic_payload as build_anthropic_payload
from ._common import SUMMARY_HEADER as SUMMARY_HEADER
from ._errors import MissingCredentialsError as MissingCredentialsError
from ._errors import MissingExtraError as MissingExtraError
from ._errors import ModelSpecError as ModelSpecError
from ._errors import ProviderSetupError as ProviderSetupError
from ._openai import OpenAIChatClient as OpenAIChatClient
from ._openai_wire import build_openai_payload as build_openai_payload

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "PROVIDERS",
    "SUMMARY_HEADER",
    "AnthropicClient",
    "MissingCredentialsError",
    "MissingExtraError",
    "ModelSpecError",
    "OpenAIChatClient",
    "ProviderSetupError",
    "build_anthropic_payload",
    "build_openai_payload",
    "client_from_spec",
]

PROVIDERS: Final = ("openai", "anthropic")
"""The provider names a model spec may start with."""


def client_from_spec(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    stream: bool = False,
    on_text: Callable[[str], None] | None = None,
    max_retries: int | None = None,
    timeout: float | None = None,
) -> OpenAIChatClient | AnthropicClient:
    """Build a client from a model spec such as ``"openai:gpt-4o-mini"``.

    Args:
        spec: ``provider:model``; the provider is one of :data:`PROVIDERS`, the model is
            everything after the first colon (it may hold colons: ``openai:qwen3:8b``).
        base_url: the API root (a local OpenAI-compatible server, a proxy); default: the
            provider's environment variable, then its public API.
        api_key: the key; default: the provider's environment variable.
        stream: stream replies; ``on_text`` then sees the text as it arrives.
        on_text: called with reply text, for live output.
        max_retries: retries of a failed request, done by the SDK; ``None``: its default.
        timeout: seconds per request attempt; ``None``: the SDK's default.

    Raises:
        ModelSpecError: the spec is not ``provider:model`` with a known provider.
        MissingExtraError: the provider's SDK is not installed.
        MissingCredentialsError: no key was given or found.
    """
    provider, colon, model = spec.partition(":")
    provider = provider.strip().lower()
    model = model.strip()
    if not colon or not provider or not model:
        raise ModelSpecError(spec, f"expected provider:model, e.g. openai:gpt-4o-mini ({_KNOWN})")
    if provider == "openai":
        return OpenAIChatClient(
            model,
            api_key=api_key,
            base_url=base_url,
            max_retries=max_retries,
            timeout=timeout,
            stream=stream,
            on_text=on_text,
        )
    if provider == "anthropic":
        return AnthropicClient(
            model,
            api_key=api_key,
            base_url=base_url,
            max_retries=max_retries,
            timeout=timeout,
            stream=stream,
            on_text=on_text,
        )
    raise ModelSpecError(spec, f"unknown provider {provider!r} ({_KNOWN})")


_KNOWN: Final = "providers: " + ", ".join(PROVIDERS)
