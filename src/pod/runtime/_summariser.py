"""Summarisers: what turns the older part of a history into the text of one ``Summary``.

A summariser is privileged (it reads history items), like an interceptor: the Pod calls it
when compaction is due, never a hook. :class:`LlmSummariser`, the default, makes one request
through the Pod's own client. It sends the items as a plain-text transcript in one user
message rather than replaying them: a replayed ``ToolCall`` needs the tool definitions, and
some providers reject a request that carries tool calls without them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, assert_never, final

from pydantic import BaseModel

from llm_worker import (
    Item,
    LlmClient,
    LlmRequest,
    Message,
    Reasoning,
    Summary,
    ToolCall,
    ToolResult,
    Usage,
)

__all__ = ["DEFAULT_SUMMARY_INSTRUCTIONS", "LlmSummariser", "Summariser", "SummaryText"]

DEFAULT_SUMMARY_INSTRUCTIONS: Final = (
    "You compact the history of a conversation between a user, an AI assistant and the "
    "assistant's tools. Summarise the transcript below so the assistant can carry on without "
    "it: the user's goals and instructions, decisions taken, facts learned from tool results "
    "(names, paths, numbers, errors), and work still open. Be concise and factual. If the "
    "transcript starts with an earlier summary, fold it in. Answer with the summary only."
)
"""The system prompt :class:`LlmSummariser` sends by default."""


@final
class SummaryText(BaseModel, frozen=True, extra="forbid"):
    """What a summariser returns: the summary text and, if a model made it, its usage."""

    text: str
    usage: Usage | None = None
    """Tokens the summary cost; ``None`` if unknown or free. The Pod adds it to its usage."""


class Summariser(Protocol):
    """Writes the summary that replaces older history items."""

    async def summarise(self, items: Sequence[Item], /) -> SummaryText:
        """Summarise ``items`` (oldest first; may start with an earlier ``Summary``).

        Raise any ``Exception`` to report failure: the Pod then sends the request
        uncompacted (see ``docs/pod.md``).
        """
        ...


def render_transcript(items: Sequence[Item]) -> str:
    """Render items as a plain-text transcript, one block per item."""
    blocks: list[str] = []
    for item in items:
        match item:
            case Message(role=role, text=text):
                blocks.append(f"[{role}]\n{text}")
            case Reasoning(text=text):
                blocks.append(f"[assistant reasoning]\n{text}")
            case Summary(text=text):
                blocks.append(f"[summary of earlier conversation]\n{text}")
            case ToolCall(call_id=call_id, name=name, arguments=arguments):
                blocks.append(f"[tool call {call_id}: {name}]\n{arguments}")
            case ToolResult(call_id=call_id, name=name, content=content, is_error=is_error):
                status = "error" if is_error else "result"
                blocks.append(f"[tool {status} {call_id}: {name}]\n{content}")
            case _:
                assert_never(item)
    return "\n\n".join(blocks)


@final
class LlmSummariser:
    """Summarises with one model request through ``client``.

    Args:
        client: the model to ask (the Pod passes its own).
        instructions: the system prompt of the summary request.
    """

    def __init__(self, client: LlmClient, *, instructions: str = DEFAULT_SUMMARY_INSTRUCTIONS):
        self._client = client
        self._instructions = instructions

    @property
    def instructions(self) -> str:
        """The system prompt of the summary request."""
        return self._instructions

    async def summarise(self, items: Sequence[Item], /) -> SummaryText:
        """Ask the model for a summary of ``items``.

        Raises:
            LlmClientError: the request failed.
            ValueError: the model answered with no text.
        """
        request = LlmRequest(
            items=(Message(role="user", text=render_transcript(items)),),
            system_prompt=self._instructions,
        )
        response = await self._client.complete(request)
        text = response.text.strip()
        if not text:
            raise ValueError("the model returned an empty summary")
        return SummaryText(text=text, usage=response.usage)
