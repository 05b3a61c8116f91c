"""``OpenAIChatClient``: Chat Completions on the official ``openai`` SDK (extra ``openai``).

Works with OpenAI and with OpenAI-compatible servers (vLLM, Ollama, llama.cpp) through
``base_url``. One :meth:`OpenAIChatClient.complete` is one request; with ``stream=True`` the
stream is assembled into one reply, and a stream that ends early raises
:class:`LlmClientError`, so no partial reply ever reaches the history. How the history is
sent is in ``_openai_wire``.

The payload goes to the SDK as ``extra_body``: the SDK's typed ``messages=`` parameter walks
every message through its TypedDict transform on every request (about 1.7 s at 10,000
items, against 12 ms to encode them), and the prebuilt payload needs no transform.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, final

from pydantic import JsonValue

from .._client import LlmRequest, LlmResponse
from .._errors import LlmClientError, UsageError
from .._privilege import Privileged
from ._common import guarded_events
from ._errors import MissingCredentialsError, MissingExtraError, ProviderSetupError
from ._openai_wire import (
    PROVIDER,
    ChunkAssembler,
    build_openai_payload,
    map_openai_error,
    response_of,
)

if TYPE_CHECKING:
    import openai

__all__ = ["LOCAL_API_KEY", "OpenAIChatClient"]

LOCAL_API_KEY: Final = "no-key"
"""Sent when ``base_url`` points at a server of your own and no key is set: local servers
(Ollama, vLLM, llama.cpp) usually ignore the key, but the SDK insists on having one."""


@final
class OpenAIChatClient(Privileged):
    """An :class:`~llm_worker.LlmClient` on OpenAI Chat Completions (or a compatible server).

    Args:
        model: the model name, e.g. ``"gpt-4o-mini"`` or a local server's model.
        api_key: the key; default ``OPENAI_API_KEY``. When neither is set and a base URL is
            (a local server), :data:`LOCAL_API_KEY` is sent.
        base_url: the API root, e.g. ``"http://127.0.0.1:11434/v1"``; default
            ``OPENAI_BASE_URL``, then OpenAI's.
        max_retries: retries of a failed request, done by the SDK; ``None``: its default (2).
        timeout: seconds per request attempt, enforced by the SDK; ``None``: its default.
        stream: stream each reply (assembled into one reply before it is returned).
        on_text: called with the reply's text as it arrives (each delta when streaming,
            the whole text otherwise), for live output.
        extra_body: more request fields, e.g. ``{"temperature": 0.2, "max_tokens": 1024}``.
        sdk_client: an ``openai.AsyncOpenAI`` to use instead of building one; then the
            connection options above must be left unset, and closing it is the caller's job.

    Raises:
        MissingExtraError: the ``openai`` package is not installed.
        MissingCredentialsError: no key and no base URL of your own.
        ProviderSetupError: the SDK rejected the configuration.
    """

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int | None = None,
        timeout: float | None = None,
        stream: bool = False,
        on_text: Callable[[str], None] | None = None,
        extra_body: Mapping[str, JsonValue] | None = None,
        sdk_client: openai.AsyncOpenAI | None = None,
    ) -> None:
        try:
            import openai
        except ImportError as exc:
            raise MissingExtraError(PROVIDER, "openai") from exc
        self._model = model
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
        if api_key is None and not os.environ.get("OPENAI_API_KEY"):
            if base_url is None and not os.environ.get("OPENAI_BASE_URL"):
                raise MissingCredentialsError(PROVIDER, "OPENAI_API_KEY")
            api_key = LOCAL_API_KEY
        options: dict[str, Any] = {}
        if max_retries is not None:
            options["max_retries"] = max_retries
        if timeout is not None:
            options["timeout"] = timeout
        try:
            self._sdk = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, **options)
        except openai.OpenAIError as exc:
            raise ProviderSetupError(f"cannot build the OpenAI client: {exc}") from exc

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
        body = {**self._extra_body, **build_openai_payload(request)}
        completions = self._sdk.chat.completions
        if not self._stream:
            try:
                completion = await completions.create(
                    model=self._model, messages=[], extra_body=body
                )
            except Exception as exc:  # every SDK failure is mapped; see guarded_events
                raise self._map_error(exc) from exc
            response = response_of(completion)
            if self._on_text is not None and response.text:
                self._on_text(response.text)
            return response
        try:
            stream = await completions.create(
                model=self._model,
                messages=[],
                stream=True,
                stream_options={"include_usage": True},
                extra_body=body,
            )
        except Exception as exc:
            raise self._map_error(exc) from exc
        assembler = ChunkAssembler(on_text=self._on_text)
        try:
            async for chunk in guarded_events(stream, map_error=self._map_stream_error):
                assembler.add(chunk)
        finally:
            await stream.close()
        return assembler.response()

    def _map_error(self, exc: Exception) -> LlmClientError:
        return map_openai_error(exc, base_url=self.base_url)

    def _map_stream_error(self, exc: Exception) -> LlmClientError:
        return map_openai_error(exc, base_url=self.base_url, streaming=True)

    async def aclose(self) -> None:
        """Close the HTTP connections (unless the SDK client was passed in)."""
        if self._owns_sdk_client:
            await self._sdk.close()

    async def __aenter__(self) -> OpenAIChatClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"OpenAIChatClient(model={self._model!r}, base_url={self.base_url!r})"
