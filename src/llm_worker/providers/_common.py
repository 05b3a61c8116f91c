"""What the provider adapters share: the per-item conversion cache and the stream guard.

Items are immutable, so the provider form of an item never changes: :class:`ItemCache`
keeps it per live item object (keyed by identity, dropped when the item is collected), and
building the payload of a long history costs a cache lookup per item, not a conversion.
The cached values are shared between requests: callers must treat them as read-only.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterable, AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar, cast, final

from .._errors import LlmClientError
from .._history import History
from .._items import Item, Summary

__all__ = [
    "SUMMARY_HEADER",
    "FoldMemo",
    "ItemCache",
    "api_error_detail",
    "connection_failure",
    "fold_memo",
    "guarded_events",
    "summary_text",
    "unreadable_reply",
]

KeyT = TypeVar("KeyT")
ValueT = TypeVar("ValueT")
EventT = TypeVar("EventT")

SUMMARY_HEADER: Final = "[Summary of the earlier conversation]"
"""First line of the user message a ``Summary`` item is sent as."""


def summary_text(summary: Summary) -> str:
    """Return the text a compaction summary is sent to the model as (in a user message)."""
    return f"{SUMMARY_HEADER}\n{summary.text}"


@final
class ItemCache(Generic[KeyT, ValueT]):
    """The converted form of each live object, computed once per object.

    Keyed by identity rather than by value: hashing a frozen model hashes all its fields,
    which is the cost the cache exists to avoid. An entry goes away when its object is
    collected, so the cache never holds more than the live objects it has seen.
    """

    __slots__ = ("__weakref__", "_convert", "_entries")

    def __init__(self, convert: Callable[[KeyT], ValueT]) -> None:
        self._convert = convert
        self._entries: dict[int, tuple[weakref.ref[KeyT], ValueT]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: KeyT) -> ValueT:
        """Return the converted form of ``key``, converting it on first sight."""
        ident = id(key)
        entry = self._entries.get(ident)
        if entry is not None and entry[0]() is key:
            return entry[1]
        value = self._convert(key)
        self._entries[ident] = (weakref.ref(key, self._dropper(ident)), value)
        return value

    def _dropper(self, ident: int) -> Callable[[weakref.ref[KeyT]], None]:
        cache = weakref.ref(self)  # the callback must not keep the cache alive

        def drop(ref: weakref.ref[KeyT]) -> None:
            live = cache()
            if live is None:
                return
            entry = live._entries.get(ident)
            if entry is not None and entry[0] is ref:  # not a newer object with a reused id
                del live._entries[ident]

        return drop


async def guarded_events(
    stream: AsyncIterable[EventT], *, map_error: Callable[[Exception], LlmClientError]
) -> AsyncIterator[EventT]:
    """Yield the events of an SDK stream; any failure to get the next one is an ``LlmClientError``.

    Only fetching the next event is guarded: the SDKs let some transport errors of a broken
    stream through unmapped (httpx's protocol errors), and none may cross the client
    protocol. Code that consumes the events runs outside the guard.
    """
    iterator = aiter(stream)
    while True:
        try:
            event = await anext(iterator)
        except StopAsyncIteration:
            return
        except Exception as exc:  # whatever broke the stream, the caller gets LlmClientError
            raise map_error(exc) from exc
        yield event


def api_error_detail(body: object) -> tuple[str | None, str | None]:
    """Return the ``message`` and ``type`` of a provider's JSON error body, if it has them.

    Accepts the whole body (``{"error": {...}}``) or the inner error object, as the SDKs
    store either.
    """
    if not isinstance(body, Mapping):
        return None, None
    fields = cast(Mapping[str, object], body)
    inner = fields.get("error")
    if isinstance(inner, Mapping):
        fields = cast(Mapping[str, object], inner)
    message = fields.get("message")
    error_type = fields.get("type")
    return (
        message if isinstance(message, str) else None,
        error_type if isinstance(error_type, str) else None,
    )


def unreadable_reply(exc: Exception, *, provider: str, streaming: bool) -> LlmClientError:
    """Map an exception the SDK let through unwrapped (a transport or JSON error).

    In a stream it means the stream broke (worth a retry); otherwise the reply could not be
    read, e.g. a body cut short or not JSON.
    """
    problem = f"{type(exc).__name__}: {exc}"
    if streaming:
        return LlmClientError(f"the stream broke: {problem}", provider=provider, retryable=True)
    return LlmClientError(f"the reply could not be read: {problem}", provider=provider)


@final
@dataclass(slots=True)
class FoldMemo:
    """What a payload builder folded of one history, to continue where it stopped.

    A builder folds items into messages; only the last message can still grow (the open
    group: an assistant run, consecutive same-role blocks). The memo keeps the messages, how
    many of them are closed, where the open group starts in the history, and the history's
    ``revision`` and length when it stopped. If the history only grew since (same revision),
    the builder drops the open message, folds from ``open_from`` and is done: a turn costs
    what is new, not the whole history again.
    """

    key: object = None
    """What else the messages depend on (e.g. the system prompt)."""
    revision: int = -1
    length: int = 0
    open_from: int = 0
    closed: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list[dict[str, Any]])

    def resume_from(self, items: Sequence[Item], key: object) -> int | None:
        """Where to continue folding ``items``, or ``None`` to fold them all again.

        On a continue, the open message is dropped from ``messages`` first.
        """
        if (
            not isinstance(items, History)
            or items.revision != self.revision
            or key != self.key
            or len(items) < self.length
        ):
            return None
        del self.messages[self.closed :]
        return self.open_from

    def record(self, items: Sequence[Item], key: object, *, open_from: int, closed: int) -> None:
        """Remember where folding ``items`` stopped."""
        self.key = key
        self.revision = items.revision if isinstance(items, History) else -1
        self.length = len(items)
        self.open_from = open_from
        self.closed = closed


def fold_memo(items: Sequence[Item], memos: ItemCache[History, FoldMemo]) -> FoldMemo:
    """The memo of this history (a fresh one for a plain sequence, which has no revision)."""
    return memos.get(items) if isinstance(items, History) else FoldMemo()


def connection_failure(
    message: str, *, timed_out: bool, streaming: bool, base_url: str, provider: str
) -> LlmClientError:
    """The error for a request that never got an answer: the server could not be reached,
    timed out, or cut a stream being read. Always worth a retry."""
    if streaming:
        problem = "timed out" if timed_out else f"was cut: {message}"
        return LlmClientError(f"the stream {problem}", provider=provider, retryable=True)
    problem = "timed out" if timed_out else f"failed: {message}"
    return LlmClientError(
        f"cannot reach {base_url}: the request {problem}", provider=provider, retryable=True
    )
