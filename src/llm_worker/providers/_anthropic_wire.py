"""The Messages API wire format: history to request body, reply to ``LlmResponse``.

History mapping (:func:`build_anthropic_payload`): the system prompt and the ``system``
messages at the start of the history form ``system``; later ``system`` messages become user
text headed ``[system]``. Consecutive items of one side form one message: the text and
``tool_use`` blocks of a reply in one ``assistant`` message, the ``tool_result`` blocks
(``is_error`` set) of a batch in one ``user`` message, ahead of any text. A ``Summary`` is
user text headed by ``SUMMARY_HEADER``. ``Reasoning`` is not sent back: the API accepts only
thinking blocks it signed, and items keep no signature. Tool-call arguments that are not a
JSON object (malformed output) are sent as ``{"_raw_arguments": "<the text>"}``, since
``tool_use.input`` must be an object.

Replies: :func:`response_of` reads a whole message, :class:`EventAssembler` a stream (it
refuses a stream that ended before ``message_stop``). :func:`map_anthropic_error` turns
any SDK exception into an :class:`LlmClientError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from .._arguments import parse_arguments
from .._client import LlmRequest, LlmResponse, StopReason, Usage
from .._errors import ContextTooLongError, LlmClientError
from .._history import History
from .._items import Item, Message, Reasoning, Summary, ToolCall, ToolResult
from .._tools import ToolDefinition
from ._common import (
    FoldMemo,
    ItemCache,
    api_error_detail,
    connection_failure,
    fold_memo,
    summary_text,
    unreadable_reply,
)

if TYPE_CHECKING:
    from anthropic.types import Message as AnthropicMessage
    from anthropic.types import RawMessageStreamEvent

__all__ = [
    "PROVIDER",
    "RAW_ARGUMENTS_KEY",
    "EventAssembler",
    "build_anthropic_payload",
    "map_anthropic_error",
    "response_of",
]

PROVIDER: Final = "anthropic"

RAW_ARGUMENTS_KEY: Final = "_raw_arguments"
"""Key under which tool-call arguments that are not a JSON object are sent back."""

_Block = dict[str, Any]
_Form = tuple[str, _Block]  # (role, content block)


def _tool_input(arguments: str) -> dict[str, object]:
    # The engine's one bounded parser: deeply nested arguments from the model must not
    # make building the next request raise ``RecursionError``.
    value = parse_arguments(arguments)
    if value is not None:
        return dict(value)
    return {RAW_ARGUMENTS_KEY: arguments}


def _item_form(item: Item) -> _Form | None:
    match item:
        case Message(text=""):
            return None  # the API rejects empty text blocks
        case Message(role="system", text=text):
            return "user", {"type": "text", "text": f"[system]\n{text}"}
        case Message(role=role, text=text):
            return role, {"type": "text", "text": text}
        case ToolCall(call_id=call_id, name=name, arguments=arguments):
            return "assistant", {
                "type": "tool_use",
                "id": call_id,
                "name": name,
                "input": _tool_input(arguments),
            }
        case ToolResult(call_id=call_id, content=content, is_error=is_error):
            result: _Block = {"type": "tool_result", "tool_use_id": call_id, "is_error": is_error}
            if content:  # the API rejects an empty content string; no content is fine
                result["content"] = content
            return "user", result
        case Summary():
            return "user", {"type": "text", "text": summary_text(item)}
        case Reasoning():
            return None


def _tool_form(definition: ToolDefinition) -> _Block:
    form: _Block = {"name": definition.name, "input_schema": definition.parameters}
    if definition.description:
        form["description"] = definition.description
    return form


_ITEM_FORMS: Final = ItemCache[Item, _Form | None](_item_form)
_TOOL_FORMS: Final = ItemCache[ToolDefinition, _Block](_tool_form)
_FOLDS: Final = ItemCache[History, FoldMemo](lambda history: FoldMemo())


def _is_tool_result(block: _Block) -> bool:
    return bool(block["type"] == "tool_result")


def _message(role: str, blocks: list[_Block]) -> dict[str, Any]:
    if role == "user" and len(blocks) > 1:
        blocks.sort(key=lambda block: not _is_tool_result(block))  # results first, stable
    return {"role": role, "content": blocks}


def build_anthropic_payload(request: LlmRequest) -> dict[str, Any]:
    """Build the ``system``, ``messages`` and ``tools`` of a Messages API request.

    Each item's content block is cached for as long as the item lives, and for a
    ``History`` the messages built for the previous request are continued when the
    history only grew since, so a turn costs what it added. The returned lists and blocks
    are shared with those caches: treat them as read-only, and as valid until the next
    build for the same history.
    """
    items = request.items
    system: list[str] = [request.system_prompt] if request.system_prompt else []
    leading = 0
    for item in items:
        if not (type(item) is Message and item.role == "system"):
            break
        if item.text:
            system.append(item.text)
        leading += 1
    key = (request.system_prompt, leading)
    memo = fold_memo(items, _FOLDS)
    start = memo.resume_from(items, key)
    if start is None:
        memo.messages = []
        start = leading
    open_from, closed = _fold(items, start, memo.messages)
    memo.record(items, key, open_from=open_from, closed=closed)
    payload: dict[str, Any] = {"messages": memo.messages}
    if system:
        payload["system"] = "\n\n".join(system)
    if request.tools:
        payload["tools"] = [_TOOL_FORMS.get(definition) for definition in request.tools]
    return payload


def _fold(items: Sequence[Item], start: int, messages: list[dict[str, Any]]) -> tuple[int, int]:
    """Append the messages of ``items[start:]`` (consecutive blocks of one role make one
    message); return where the last, still open, message starts and how many are closed."""
    get = _ITEM_FORMS.get
    role = ""
    blocks: list[_Block] = []
    group_from = len(items)
    for index in range(start, len(items)):
        form = get(items[index])
        if form is None:
            continue
        if form[0] == role:
            blocks.append(form[1])
            continue
        if blocks:
            messages.append(_message(role, blocks))
        role, blocks, group_from = form[0], [form[1]], index
    closed = len(messages)
    if blocks:
        messages.append(_message(role, blocks))
        return group_from, closed
    return len(items), closed


_STOP_REASONS: Final[Mapping[str, StopReason]] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_calls",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
}


def _stop_reason(stop_reason: str | None) -> StopReason:
    return _STOP_REASONS.get(stop_reason or "", "other")


def _input_tokens(usage: object) -> int:
    # Total input is the uncached tokens plus those written to and read from the cache.
    total = 0
    for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"):
        value = getattr(usage, name, None)
        if isinstance(value, int):
            total += value
    return total


def response_of(message: AnthropicMessage) -> LlmResponse:
    items: list[Message | Reasoning | ToolCall] = []
    for block in message.content:
        if block.type == "text":
            if block.text:
                _add_text(items, block.text)
        elif block.type == "tool_use":
            arguments = json.dumps(block.input, ensure_ascii=False)
            items.append(ToolCall(call_id=block.id, name=block.name, arguments=arguments))
        elif block.type == "thinking" and block.thinking:
            items.append(Reasoning(text=block.thinking))
    return LlmResponse(
        items=tuple(items),
        usage=Usage(
            input_tokens=_input_tokens(message.usage),
            output_tokens=message.usage.output_tokens,
        ),
        stop_reason=_stop_reason(message.stop_reason),
    )


def _add_text(items: list[Message | Reasoning | ToolCall], text: str) -> None:
    last = items[-1] if items else None
    if isinstance(last, Message):  # adjacent text blocks (e.g. split by citations) join
        items[-1] = Message(role="assistant", text=last.text + text)
    else:
        items.append(Message(role="assistant", text=text))


@dataclass(slots=True)
class _StreamedBlock:
    kind: str
    call_id: str = ""
    name: str = ""
    initial_input: dict[str, object] = field(default_factory=dict[str, object])
    parts: list[str] = field(default_factory=list[str])


@dataclass(slots=True)
class EventAssembler:
    """Builds one reply from the events of a streamed message."""

    on_text: Callable[[str], None] | None
    blocks: dict[int, _StreamedBlock] = field(default_factory=dict[int, _StreamedBlock])
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str | None = None
    stopped: bool = False

    def add(self, event: RawMessageStreamEvent) -> None:
        if event.type == "message_start":
            self.input_tokens = _input_tokens(event.message.usage)
            self.output_tokens = event.message.usage.output_tokens
        elif event.type == "content_block_start":
            block = event.content_block
            streamed = _StreamedBlock(kind=block.type)
            if block.type == "tool_use":
                streamed.call_id, streamed.name = block.id, block.name
                streamed.initial_input = block.input
            elif block.type == "text" and block.text:
                streamed.parts.append(block.text)
            self.blocks[event.index] = streamed
        elif event.type == "content_block_delta":
            target = self.blocks.get(event.index)
            if target is None:
                return
            delta = event.delta
            if delta.type == "text_delta":
                target.parts.append(delta.text)
                if self.on_text is not None:
                    self.on_text(delta.text)
            elif delta.type == "input_json_delta":
                target.parts.append(delta.partial_json)
            elif delta.type == "thinking_delta":
                target.parts.append(delta.thinking)
        elif event.type == "message_delta":
            self.stop_reason = event.delta.stop_reason
            self.output_tokens = event.usage.output_tokens
            if getattr(event.usage, "input_tokens", None) is not None:  # newer API versions
                self.input_tokens = _input_tokens(event.usage)
        elif event.type == "message_stop":
            self.stopped = True

    def response(self) -> LlmResponse:
        if not self.stopped:
            raise LlmClientError(
                "the stream ended before the reply was complete",
                provider=PROVIDER,
                retryable=True,
            )
        items: list[Message | Reasoning | ToolCall] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            text = "".join(block.parts)
            if block.kind == "text" and text:
                _add_text(items, text)
            elif block.kind == "tool_use":
                if not block.parts and block.initial_input:
                    text = json.dumps(block.initial_input, ensure_ascii=False)
                items.append(ToolCall(call_id=block.call_id, name=block.name, arguments=text))
            elif block.kind == "thinking" and text:
                items.append(Reasoning(text=text))
        return LlmResponse(
            items=tuple(items),
            usage=Usage(input_tokens=self.input_tokens, output_tokens=self.output_tokens),
            stop_reason=_stop_reason(self.stop_reason),
        )


_RETRYABLE_TYPES: Final = frozenset({"rate_limit_error", "overloaded_error", "api_error"})


def map_anthropic_error(
    exc: Exception, *, base_url: str, streaming: bool = False
) -> LlmClientError:
    """Translate an exception from the ``anthropic`` SDK into an :class:`LlmClientError`.

    ``streaming``: the exception broke a stream being read; one that is not the SDK's own
    (a transport error it let through) then means a dropped stream, worth a retry.
    """
    import anthropic

    if isinstance(exc, anthropic.APIConnectionError):
        return connection_failure(
            exc.message,
            timed_out=isinstance(exc, anthropic.APITimeoutError),
            streaming=streaming,
            base_url=base_url,
            provider=PROVIDER,
        )
    if not isinstance(exc, anthropic.AnthropicError):
        return unreadable_reply(exc, provider=PROVIDER, streaming=streaming)
    if not isinstance(exc, anthropic.APIStatusError):
        return LlmClientError(f"{type(exc).__name__}: {exc}", provider=PROVIDER)
    status = exc.status_code  # 200 for an error event inside a stream
    message, error_type = api_error_detail(exc.body)
    detail = message or exc.message
    if status == 413 or "prompt is too long" in detail.lower():
        return ContextTooLongError(
            f"the request does not fit the model's context window ({status}): {detail}",
            provider=PROVIDER,
        )
    if status in (401, 403):
        return LlmClientError(
            f"authentication failed ({status}): {detail} (set api_key=... or ANTHROPIC_API_KEY)",
            provider=PROVIDER,
        )
    if status == 404:
        return LlmClientError(
            f"not found ({status}): {detail} (check the model name and the base URL {base_url})",
            provider=PROVIDER,
        )
    retryable = status in (408, 409, 429) or status >= 500 or error_type in _RETRYABLE_TYPES
    return LlmClientError(
        f"request failed ({status}): {detail}", provider=PROVIDER, retryable=retryable
    )
