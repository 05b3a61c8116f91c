"""The Chat Completions wire format: history to request body, reply to ``LlmResponse``.

History mapping (:func:`build_openai_payload`): the system prompt is the first ``system``
message; a run of assistant items (text and tool calls of one reply) is one ``assistant``
message with ``tool_calls``; each ``ToolResult`` is one ``tool`` message with its
``tool_call_id``; a ``Summary`` is a ``user`` message headed by ``SUMMARY_HEADER``;
``Reasoning`` is not sent (Chat Completions has no input for it). Tool-call arguments go
back exactly as the model wrote them, malformed or not.

Replies: :func:`response_of` reads a whole completion, :class:`ChunkAssembler` a stream
(it refuses a stream that ended before its ``finish_reason``). :func:`map_openai_error`
turns any SDK exception into an :class:`LlmClientError`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

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
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

__all__ = [
    "PROVIDER",
    "ChunkAssembler",
    "build_openai_payload",
    "map_openai_error",
    "response_of",
]

PROVIDER: Final = "openai"

_Form = dict[str, Any]


def _item_form(item: Item) -> _Form | None:
    match item:
        case Message(role=role, text=text):
            return {"role": role, "content": text}
        case ToolCall(call_id=call_id, name=name, arguments=arguments):
            return {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        case ToolResult(call_id=call_id, content=content):
            return {"role": "tool", "tool_call_id": call_id, "content": content}
        case Summary():
            return {"role": "user", "content": summary_text(item)}
        case Reasoning():
            return None


def _tool_form(definition: ToolDefinition) -> _Form:
    function: _Form = {"name": definition.name, "parameters": definition.parameters}
    if definition.description:
        function["description"] = definition.description
    return {"type": "function", "function": function}


_ITEM_FORMS: Final = ItemCache[Item, _Form | None](_item_form)
_TOOL_FORMS: Final = ItemCache[ToolDefinition, _Form](_tool_form)
_FOLDS: Final = ItemCache[History, FoldMemo](lambda history: FoldMemo())


def build_openai_payload(request: LlmRequest) -> dict[str, Any]:
    """Build the ``messages`` and ``tools`` of a Chat Completions request.

    Each item's converted form is cached for as long as the item lives, and for a
    ``History`` the messages built for the previous request are continued when the
    history only grew since, so a turn costs what it added. The returned lists and dicts
    are shared with those caches: treat them as read-only, and as valid until the next
    build for the same history.
    """
    items = request.items
    memo = fold_memo(items, _FOLDS)
    start = memo.resume_from(items, request.system_prompt)
    if start is None:
        memo.messages = (
            [{"role": "system", "content": request.system_prompt}]
            if request.system_prompt is not None
            else []
        )
        start = 0
    open_from, closed = _fold(items, start, memo.messages)
    memo.record(items, request.system_prompt, open_from=open_from, closed=closed)
    payload: dict[str, Any] = {"messages": memo.messages}
    if request.tools:
        payload["tools"] = [_TOOL_FORMS.get(definition) for definition in request.tools]
    return payload


def _fold(items: Sequence[Item], start: int, messages: list[_Form]) -> tuple[int, int]:
    """Append the messages of ``items[start:]``; return where the open assistant run starts
    (``len(items)`` if none is open) and how many messages are closed."""
    get = _ITEM_FORMS.get
    texts: list[str] = []  # the current run of assistant items
    plain: list[_Form] = []
    calls: list[_Form] = []
    run_from = len(items)
    for index in range(start, len(items)):
        item = items[index]
        form = get(item)
        if form is None:
            continue
        kind = type(item)
        if kind is ToolCall or (kind is Message and form["role"] == "assistant"):
            if not (plain or calls):
                run_from = index
            if kind is ToolCall:
                calls.append(form)
            else:
                texts.append(form["content"])
                plain.append(form)
            continue
        if plain or calls:
            _close_assistant_run(messages, texts, plain, calls)
            texts, plain, calls = [], [], []
        messages.append(form)
    closed = len(messages)
    if plain or calls:
        _close_assistant_run(messages, texts, plain, calls)
        return run_from, closed
    return len(items), closed


def _close_assistant_run(
    messages: list[_Form], texts: list[str], plain: list[_Form], calls: list[_Form]
) -> None:
    if not calls:
        messages.extend(plain)
        return
    content = "\n\n".join(text for text in texts if text)
    messages.append({"role": "assistant", "content": content or None, "tool_calls": calls})


_STOP_REASONS: Final[Mapping[str, StopReason]] = {
    "stop": "end_turn",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "max_tokens",
    "content_filter": "refusal",
}


def _stop_reason(finish_reason: str | None, has_calls: bool) -> StopReason:
    if has_calls:  # some local servers say "stop" after tool calls
        return "tool_calls"
    return _STOP_REASONS.get(finish_reason or "", "other")


def _call_id(given: str | None) -> str:
    # Some local servers send no id; the Worker pairs results by id, so make a unique one.
    return given or f"call_{uuid.uuid4().hex[:24]}"


def _reasoning_of(extra: Mapping[str, object] | None) -> str:
    # vLLM and llama.cpp send ``reasoning_content``, Ollama sends ``reasoning``.
    if not extra:
        return ""
    value = extra.get("reasoning_content") or extra.get("reasoning")
    return value if isinstance(value, str) else ""


def response_of(completion: ChatCompletion) -> LlmResponse:
    if not completion.choices:
        raise LlmClientError("the reply has no choices", provider=PROVIDER)
    choice = completion.choices[0]
    message = choice.message
    items: list[Message | Reasoning | ToolCall] = []
    reasoning = _reasoning_of(message.model_extra)
    if reasoning:
        items.append(Reasoning(text=reasoning))
    text = message.content or message.refusal or ""
    if text:
        items.append(Message(role="assistant", text=text))
    has_calls = False
    for call in message.tool_calls or ():
        if call.type == "function":
            has_calls = True
            items.append(
                ToolCall(
                    call_id=_call_id(call.id),
                    name=call.function.name,
                    arguments=call.function.arguments,
                )
            )
    usage = completion.usage
    return LlmResponse(
        items=tuple(items),
        usage=None
        if usage is None
        else Usage(input_tokens=usage.prompt_tokens, output_tokens=usage.completion_tokens),
        stop_reason="refusal"
        if message.refusal and not message.content
        else _stop_reason(choice.finish_reason, has_calls),
    )


@dataclass(slots=True)
class _StreamedCall:
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list[str])


@dataclass(slots=True)
class ChunkAssembler:
    """Builds one reply from the chunks of a streamed completion."""

    on_text: Callable[[str], None] | None
    text: list[str] = field(default_factory=list[str])
    reasoning: list[str] = field(default_factory=list[str])
    calls: dict[int, _StreamedCall] = field(default_factory=dict[int, _StreamedCall])
    finish_reason: str | None = None
    usage: Usage | None = None

    def add(self, chunk: ChatCompletionChunk) -> None:
        if chunk.usage is not None:
            self.usage = Usage(
                input_tokens=chunk.usage.prompt_tokens,
                output_tokens=chunk.usage.completion_tokens,
            )
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            delta = choice.delta
            reasoning = _reasoning_of(delta.model_extra)
            if reasoning:
                self.reasoning.append(reasoning)
            if delta.content:
                self.text.append(delta.content)
                if self.on_text is not None:
                    self.on_text(delta.content)
            for call_delta in delta.tool_calls or ():
                call = self.calls.setdefault(call_delta.index, _StreamedCall())
                if call_delta.id and not call.call_id:
                    call.call_id = call_delta.id
                function = call_delta.function
                if function is not None:
                    if function.name and not call.name:
                        call.name = function.name
                    if function.arguments:
                        call.arguments.append(function.arguments)
            if choice.finish_reason is not None:
                self.finish_reason = choice.finish_reason

    def response(self) -> LlmResponse:
        if self.finish_reason is None:
            raise LlmClientError(
                "the stream ended before the reply was complete",
                provider=PROVIDER,
                retryable=True,
            )
        items: list[Message | Reasoning | ToolCall] = []
        if self.reasoning:
            items.append(Reasoning(text="".join(self.reasoning)))
        if self.text:
            items.append(Message(role="assistant", text="".join(self.text)))
        for index in sorted(self.calls):
            call = self.calls[index]
            items.append(
                ToolCall(
                    call_id=_call_id(call.call_id),
                    name=call.name,
                    arguments="".join(call.arguments),
                )
            )
        return LlmResponse(
            items=tuple(items),
            usage=self.usage,
            stop_reason=_stop_reason(self.finish_reason, bool(self.calls)),
        )


_CONTEXT_PHRASES: Final = (
    "maximum context length",
    "context length",
    "context window",
    "context size",
    "prompt is too long",
)


def map_openai_error(exc: Exception, *, base_url: str, streaming: bool = False) -> LlmClientError:
    """Translate an exception from the ``openai`` SDK into an :class:`LlmClientError`.

    ``streaming``: the exception broke a stream being read; one that is not the SDK's own
    (a transport error it let through) then means a dropped stream, worth a retry.
    """
    import openai

    if isinstance(exc, openai.APIConnectionError):
        return connection_failure(
            exc.message,
            timed_out=isinstance(exc, openai.APITimeoutError),
            streaming=streaming,
            base_url=base_url,
            provider=PROVIDER,
        )
    if not isinstance(exc, openai.OpenAIError):
        return unreadable_reply(exc, provider=PROVIDER, streaming=streaming)
    if not isinstance(exc, openai.APIError):
        return LlmClientError(f"{type(exc).__name__}: {exc}", provider=PROVIDER)
    message, error_type = api_error_detail(exc.body)
    detail = message or exc.message
    status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
    where = f" ({status})" if status is not None else ""
    if status in (None, 400, 413) and (
        exc.code == "context_length_exceeded"
        or error_type == "exceed_context_size_error"  # llama.cpp
        or any(phrase in detail.lower() for phrase in _CONTEXT_PHRASES)
    ):
        return ContextTooLongError(
            f"the request does not fit the model's context window{where}: {detail}",
            provider=PROVIDER,
        )
    if status in (401, 403):
        return LlmClientError(
            f"authentication failed{where}: {detail} (set api_key=... or OPENAI_API_KEY)",
            provider=PROVIDER,
        )
    if status == 404:
        return LlmClientError(
            f"not found{where}: {detail} (check the model name and the base URL {base_url})",
            provider=PROVIDER,
        )
    retryable = status is None or status in (408, 409, 429) or status >= 500
    if exc.code == "insufficient_quota":  # a 429 that waiting does not cure
        retryable = False
    return LlmClientError(
        f"request failed{where}: {detail}", provider=PROVIDER, retryable=retryable
    )
