"""The LLM client protocol and ``ScriptedClient``, the deterministic client of tests and demos.

The protocol is one call: a request (the history, the tool definitions, the system prompt)
in, one assistant reply out. It fits OpenAI Chat Completions and Anthropic Messages as they
are: a reply may hold text, reasoning and several tool calls; usage and the stop reason are
reported when the provider gives them. Streaming is the adapter's business: it assembles the
stream into one reply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal, Protocol, TypeAlias, final

from pydantic import BaseModel, Field, JsonValue

from ._errors import LlmClientError
from ._items import Item, Message, Reasoning, ToolCall
from ._privilege import Privileged
from ._tools import ToolDefinition
from ._validated import validated

__all__ = [
    "LlmClient",
    "LlmRequest",
    "LlmResponse",
    "Script",
    "ScriptedCall",
    "ScriptedClient",
    "ScriptedReply",
    "StopReason",
    "Usage",
]

StopReason: TypeAlias = Literal["end_turn", "tool_calls", "max_tokens", "refusal", "other"]
"""Why the model stopped, normalised across providers."""


@final
class Usage(BaseModel, frozen=True, extra="forbid"):
    """Token counts a provider reported for one request."""

    input_tokens: int
    output_tokens: int


@final
@dataclass(frozen=True, slots=True)
class LlmRequest(Privileged):
    """One request to a model.

    ``items`` is a read-only view of the live history, valid for the duration of the call
    (the engine does not copy the history per request); copy what you need to keep.
    """

    items: Sequence[Item]
    tools: tuple[ToolDefinition, ...] = ()
    system_prompt: str | None = None


@final
class LlmResponse(BaseModel, frozen=True, extra="forbid"):
    """One assistant reply: its items in order, usage and stop reason."""

    items: tuple[Annotated[Message | Reasoning | ToolCall, Field(discriminator="kind")], ...]
    usage: Usage | None = None
    stop_reason: StopReason = "end_turn"

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls of the reply, in the order the model gave them."""
        return tuple(item for item in self.items if isinstance(item, ToolCall))

    @property
    def text(self) -> str:
        """The assistant text of the reply (messages joined)."""
        return "".join(item.text for item in self.items if isinstance(item, Message))


class LlmClient(Protocol):
    """A model provider. Adapters map provider errors to :class:`LlmClientError`."""

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """Send ``request`` and return the assistant's whole reply."""
        ...


@final
@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """A tool call in a scripted reply. ``arguments`` may be a mapping or raw JSON text
    (raw text lets a script send malformed arguments); ``call_id`` defaults to ``call_<n>``."""

    name: str
    arguments: Mapping[str, JsonValue] | str = "{}"
    call_id: str | None = None


@final
@dataclass(frozen=True, slots=True)
class ScriptedReply:
    """A reply for :class:`ScriptedClient`: text, tool calls, reasoning, usage."""

    text: str = ""
    calls: Sequence[ScriptedCall] = ()
    reasoning: str = ""
    usage: Usage | None = None


Script: TypeAlias = (
    ScriptedReply | LlmResponse | Callable[[LlmRequest], ScriptedReply | LlmResponse]
)
"""One step of a script: a fixed reply, or a function of the request that makes one."""


@final
class ScriptedClient(Privileged):
    """A deterministic ``LlmClient`` that answers from a script, in order.

    Each step is a reply or a function of the request. When the script runs out, ``then``
    (if given) answers every further request; otherwise the request fails with
    :class:`LlmClientError`. With ``record=True`` a copy of every request's items is kept in
    ``requests`` for tests to inspect.
    """

    def __init__(
        self,
        script: Iterable[Script] = (),
        *,
        then: Script | None = None,
        record: bool = True,
    ) -> None:
        self._script = list(script)
        self._position = 0
        self._then = then
        self._record = record
        self._next_call_number = 0
        self.requests: list[tuple[Item, ...]] = []

    @property
    def remaining(self) -> int:
        """Steps of the script not used yet."""
        return len(self._script) - self._position

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """Answer with the next step of the script."""
        if self._record:
            self.requests.append(tuple(request.items))
        if self._position < len(self._script):
            step = self._script[self._position]
            self._position += 1
        elif self._then is not None:
            step = self._then
        else:
            raise LlmClientError("the script has no reply left", provider="scripted")
        reply = step(request) if callable(step) else step
        return self._to_response(reply) if isinstance(reply, ScriptedReply) else reply

    def _to_response(self, reply: ScriptedReply) -> LlmResponse:
        items: list[Message | Reasoning | ToolCall] = []
        if reply.reasoning:
            items.append(Reasoning(text=reply.reasoning))
        if reply.text:
            items.append(Message(role="assistant", text=reply.text))
        for call in reply.calls:
            self._next_call_number += 1
            arguments = (
                call.arguments
                if isinstance(call.arguments, str)
                else json.dumps(dict(call.arguments), ensure_ascii=False)
            )
            items.append(
                validated(
                    ToolCall,
                    call_id=call.call_id or f"call_{self._next_call_number}",
                    name=call.name,
                    arguments=arguments,
                )
            )
        return validated(
            LlmResponse,
            items=tuple(items),
            usage=reply.usage,
            stop_reason="tool_calls" if reply.calls else "end_turn",
        )
