"""The items a conversation history is made of.

Items are frozen pydantic models in one discriminated union, :data:`Item`. The history is a
``list[Item]`` owned by the Worker: the items are immutable, the list is not, and only the
engine and interceptors ever hold the list. JSON round-trips exactly through
:data:`ITEMS_ADAPTER`.

Invariant kept by the Worker: every ``ToolCall`` in a finished history has exactly one
``ToolResult`` with the same ``call_id`` after it.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal, TypeAlias, final

from pydantic import BaseModel, Field, TypeAdapter

from ._privilege import Privileged

__all__ = [
    "ITEMS_ADAPTER",
    "Item",
    "Message",
    "Reasoning",
    "Role",
    "Summary",
    "ToolCall",
    "ToolResult",
]

Role: TypeAlias = Literal["system", "user", "assistant"]
"""Who wrote a message."""


@final
class Message(Privileged, BaseModel, frozen=True, extra="forbid"):
    """A text message from the system, the user or the assistant."""

    kind: Literal["message"] = "message"
    role: Role
    text: str


@final
class ToolCall(Privileged, BaseModel, frozen=True, extra="forbid"):
    """A request from the model to run one tool."""

    kind: Literal["tool_call"] = "tool_call"
    call_id: str
    """Provider-assigned id pairing this call with its result."""
    name: str
    """Name of the tool to run."""
    arguments: str
    """Arguments as JSON text, exactly as the model produced them (may be malformed)."""


@final
class ToolResult(Privileged, BaseModel, frozen=True, extra="forbid"):
    """The outcome of one tool call: the tool's output or an error the model should see."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str
    name: str
    content: str
    is_error: bool = False


@final
class Reasoning(Privileged, BaseModel, frozen=True, extra="forbid"):
    """Model reasoning kept in the history (providers that expose it)."""

    kind: Literal["reasoning"] = "reasoning"
    text: str


@final
class Summary(Privileged, BaseModel, frozen=True, extra="forbid"):
    """What compaction leaves in place of older items."""

    kind: Literal["summary"] = "summary"
    text: str
    replaced_items: int = 0
    """How many items this summary replaced."""


Item: TypeAlias = Annotated[
    Message | ToolCall | ToolResult | Reasoning | Summary, Field(discriminator="kind")
]
"""Any history item, tagged by ``kind``."""

ITEMS_ADAPTER: Final[TypeAdapter[list[Item]]] = TypeAdapter(list[Item])
"""Validates and dumps a whole history (``ITEMS_ADAPTER.dump_json(history)``)."""
