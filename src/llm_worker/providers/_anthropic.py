"""``AnthropicClient``: the Messages API on the official ``anthropic`` SDK (extra ``anthropic``).

One :meth:`AnthropicClient.complete` is one request; with ``stream=True`` the events are
assembled into one reply, and a stream that ends early (or carries an ``error`` event)
raises :class:`LlmClientError`, so no partial reply reaches the history. How the history is
sent is in ``_anthropic_wire``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, final

from pydantic import JsonValue

from .._client import LlmRequest, LlmResponse
from .._errors import LlmClientError, UsageError
from .._privilege import Privileged
from ._anthropic_wire import (
    PROVIDER,
    EventAssembler,
    build_anthropic_payload,
    map_anthropic_error,
    response_of,
)
from ._common import guarded_events
from ._errors import MissingCredentialsError, MissingExtraError, ProviderSetupError

if TYPE_CHECKING:
    import anthropic

__all__ = ["DEFAULT_MAX_TOKENS", "LOCAL_API_KEY", "AnthropicClient"]

DEFAULT_MAX_TOKENS: Final = 4096
"""Output tokens allowed per reply unless ``max_tokens`` says otherwise (the API requires it)."""

LOCAL_API_KEY: Final = "no-key"
"""Sent when ``base_url`` points at a server of your own and no credential is set."""


@final
class AnthropicClient(Privileged):
    """An :class:`~llm_worker.LlmClient` on the Anthropic Messages API.

    Args:
        model: the model name, e.g. ``"claude-sonnet-4-5"``.
        api_key: the key; default ``ANTHROPIC_API_KEY`` (or whatever credential the SDK
            finds: ``ANTHROPIC_AUTH_TOKEN``, a profile). When none is found and a base URL is
            set (a server of your own), :data:`LOCAL_API_KEY` is sent.
        base_url: the API root; default ``ANTHROPIC_BASE_URL``, then Anthropic's.
        max_tokens: output tokens allowed per reply (the API requires a limit).
        max_retries: retries of a failed request, done by the SDK; ``None``: its default (2).
        timeout: seconds per request attempt, enforced by the SDK; ``None``: its default.
        stream: stream each reply (assembled into one reply before it is returned).
        on_text: called with the reply's text as it arrives (each delta when streaming,
            the whole text otherwise), for live output.
        extra_body: more request fields, e.g. ``{"temperature": 0.2}``.
        sdk_client: an ``anthropic.AsyncAnthropic`` to use instead of building one; then the
            connection options above must be left unset, and closing it is the caller's job.

    Raises:
        MissingExtraError: the ``anthropic`` package is not installed.
        MissingCredentialsError: no credential and no base URL of your own.
        ProviderSetupError: the SDK rejected the configuration.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_retries: int | None = None,
        timeout: float | None = None,
        stream: bool = False,
        on_text: Callable[[str], None] | None = None,
        extra_body: Mapping[str, JsonValue] | None = None,
        sdk_client: anthropic.AsyncAnthropic | None = None,
    ) -> None:
        try:
            import anthropic
        except ImportError as exc:
            raise MissingExtraError(PROVIDER, "anthropic") from exc
        if max_tokens < 1:
            raise UsageError("max_tokens must be at least 1")
        self._model = model
        self._max_tokens = max_tokens
        self._stream = stream
        self._on_text = on_text
        self._extra_body: dict[str, Any] = dict(extra_body or {})
        self._owns_sdk_client = sdk_client is None
        if sdk_client is not None:
            given = [
                name
                for name, value in (
                    ("api_key", api_key),
                    ("base_url", base_url),
                    ("max_retries", max_retries),
                    ("timeout", timeout),
                )
                if value is not None
            ]
            if given:
                raise UsageError(
                    f"pass either sdk_client or {', '.join(given)}: "
                    "the SDK client already holds its connection options"
                )
            self._sdk = sdk_client
            return
        options: dict[str, Any] = {}
        if max_retries is not None:
            options["max_retries"] = max_retries
        if timeout is not None:
            options["timeout"] = timeout
        try:
            sdk = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, **options)
            if not _has_credential(sdk):
                if base_url is None and not os.environ.get("ANTHROPIC_BASE_URL"):
                    raise MissingCredentialsError(PROVIDER, "ANTHROPIC_API_KEY")
                sdk = anthropic.AsyncAnthropic(api_key=LOCAL_API_KEY, base_url=base_url, **options)
        except (anthropic.AnthropicError, ValueError) as exc:
            raise ProviderSetupError(f"cannot build the Anthropic client: {exc}") from exc
        self._sdk = sdk

    @property
    def model(self) -> str:
        """The model every request names."""
        return self._model

    @property
    def base_url(self) -> str:
        """The API root requests go to."""
        return str(self._sdk.base_url)

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """Send the request; return the whole reply or raise :class:`LlmClientError`."""
        # The prebuilt payload travels as ``extra_body`` (merged over ``messages=[]``), as
        # in the OpenAI client: one shape for both, and no per-request SDK processing.
        body = {**self._extra_body, **build_anthropic_payload(request)}
        messages = self._sdk.messages
        if not self._stream:
            try:
                message = await messages.create(
                    model=self._model, max_tokens=self._max_tokens, messages=[], extra_body=body
                )
            except Exception as exc:  # every SDK failure is mapped; see guarded_events
                raise self._map_error(exc) from exc
            response = response_of(message)
            if self._on_text is not None and response.text:
                self._on_text(response.text)
            return response
        try:
            stream = await messages.create(
                model=self._model,
                max_tokens=self._max_tokens,
                messages=[],
                stream=True,
                extra_body=body,
            )
        except Exception as exc:
            raise self._map_error(exc) from exc
        assembler = EventAssembler(on_text=self._on_text)
        try:
            async for event in guarded_events(stream, map_error=self._map_stream_error):
                assembler.add(event)
        finally:
            await stream.close()
        return assembler.response()

    def _map_error(self, exc: Exception) -> LlmClientError:
        return map_anthropic_error(exc, base_url=self.base_url)

    def _map_stream_error(self, exc: Exception) -> LlmClientError:
        return map_anthropic_error(exc, base_url=self.base_url, streaming=True)

    async def aclose(self) -> None:
        """Close the HTTP connections (unless the SDK client was passed in)."""
        if self._owns_sdk_client:
            await self._sdk.close()

    async def __aenter__(self) -> AnthropicClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AnthropicClient(model={self._model!r}, base_url={self.base_url!r})"


def _has_credential(sdk: anthropic.AsyncAnthropic) -> bool:
    # ``credentials`` (profiles, workload identity) exists in recent SDKs only.
    return (
        sdk.api_key is not None
        or sdk.auth_token is not None
        or getattr(sdk, "credentials", None) is not None
    )
