"""The history list: a ``list[Item]`` that keeps its own size counters.

Interceptors receive the live history as a plain ``list[Item]`` and may change it in any
way a list allows (compaction replaces a prefix, notifications append). This subclass
updates a running character count on every mutation, so the token estimate the engine puts
in ``PreRequestInfo`` costs O(1) per request, and O(changed items) per mutation, never
O(history).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, SupportsIndex, final, overload

from pydantic import BaseModel
from typing_extensions import override

from ._items import Item, Message, Reasoning, Summary, ToolCall, ToolResult
from ._privilege import Privileged
from ._text import utf8_prefix

__all__ = ["CHARS_PER_TOKEN", "History", "item_chars", "recent_items"]

CHARS_PER_TOKEN: Final = 4
"""Local estimate used until a provider reports real input tokens."""

_ITEM_OVERHEAD: Final = 4

_CHARS: Final[dict[type, Callable[[Item], int]]] = {
    Message: lambda item: len(item.text),  # type: ignore[union-attr]
    Reasoning: lambda item: len(item.text),  # type: ignore[union-attr]
    Summary: lambda item: len(item.text),  # type: ignore[union-attr]
    ToolCall: lambda item: len(item.name) + len(item.arguments),  # type: ignore[union-attr]
    ToolResult: lambda item: len(item.content),  # type: ignore[union-attr]
}


def item_chars(item: Item) -> int:
    """Return the size of one item in characters, as the token estimate counts it."""
    return _CHARS[type(item)](item) + _ITEM_OVERHEAD


def _view(item: Item, max_bytes: int) -> tuple[str, str]:
    match item:
        case Message(role=role, text=text):
            return role, utf8_prefix(text, max_bytes)
        case ToolCall(name=name, arguments=arguments):
            return "tool_call", utf8_prefix(f"{name} {arguments}", max_bytes)
        case ToolResult(content=content):
            return "tool_result", utf8_prefix(content, max_bytes)
        case Reasoning(text=text):
            return "reasoning", utf8_prefix(text, max_bytes)
        case Summary(text=text):
            return "summary", utf8_prefix(text, max_bytes)


def recent_items(history: list[Item], count: int, max_bytes: int) -> tuple[tuple[str, str], ...]:
    """The last ``count`` items as ``(kind, text)`` pairs of new strings, oldest first.

    ``kind`` is a message's role or the item's kind; ``text`` is cut to ``max_bytes`` UTF-8
    bytes (a tool call's is its name and arguments). O(count): the history's length does not
    matter.
    """
    return tuple(_view(item, max_bytes) for item in history[-count:]) if count > 0 else ()


def _total(items: Iterable[Item]) -> int:
    return sum(_CHARS[type(item)](item) + _ITEM_OVERHEAD for item in items)


@final
class History(list[Item], Privileged):  # counters need every mutator
    """A ``list[Item]`` that tracks its size and estimates its token count in O(1)."""

    __slots__ = ("__weakref__", "_anchor_chars", "_anchor_tokens", "_chars", "_revision")

    def __init__(self, items: Iterable[Item] = ()) -> None:
        super().__init__(items)
        self._chars = _total(self)
        self._revision = 0
        self._anchor_tokens: int | None = None
        self._anchor_chars = 0

    @property
    def chars(self) -> int:
        """Total size of the items in characters."""
        return self._chars

    @property
    def revision(self) -> int:
        """Changes whenever the items change other than by appending at the end.

        Lets a reader that has seen the first ``n`` items (a payload builder) know that they
        are still the same and only ``self[n:]`` is new.
        """
        return self._revision

    def estimated_tokens(self) -> int:
        """Estimate the input tokens of a request carrying this history.

        Anchored on the provider's last reported input tokens (which include the system
        prompt and tool definitions) plus the local estimate of what changed since.
        """
        if self._anchor_tokens is None:
            return self._chars // CHARS_PER_TOKEN
        delta = (self._chars - self._anchor_chars) // CHARS_PER_TOKEN
        return max(0, self._anchor_tokens + delta)

    def calibrate(self, input_tokens: int, chars_sent: int) -> None:
        """Record that a request of ``chars_sent`` characters cost ``input_tokens``."""
        self._anchor_tokens = input_tokens
        self._anchor_chars = chars_sent

    @override
    def append(self, item: Item, /) -> None:
        super().append(item)
        self._chars += _CHARS[type(item)](item) + _ITEM_OVERHEAD

    @override
    def extend(self, items: Iterable[Item], /) -> None:
        items = tuple(items)
        super().extend(items)
        chars = self._chars
        for item in items:
            chars += _CHARS[type(item)](item) + _ITEM_OVERHEAD
        self._chars = chars

    @override
    def __iadd__(self, items: Iterable[Item], /) -> History:  # type: ignore[override]
        self.extend(items)
        return self

    @override
    def insert(self, index: SupportsIndex, item: Item, /) -> None:
        super().insert(index, item)
        self._revision += 1
        self._chars += item_chars(item)

    @override
    def pop(self, index: SupportsIndex = -1, /) -> Item:
        item = super().pop(index)
        self._revision += 1
        self._chars -= item_chars(item)
        return item

    @override
    def remove(self, item: Item, /) -> None:
        super().remove(item)
        self._revision += 1
        self._chars -= item_chars(item)

    @override
    def clear(self) -> None:
        super().clear()
        self._chars = 0
        self._revision += 1

    @overload
    def __setitem__(self, index: SupportsIndex, item: Item, /) -> None: ...
    @overload
    def __setitem__(self, index: slice, items: Iterable[Item], /) -> None: ...
    @override
    def __setitem__(self, index: SupportsIndex | slice, value: Item | Iterable[Item], /) -> None:
        if isinstance(index, slice):
            if isinstance(value, BaseModel):
                raise TypeError("can only assign an iterable of items to a slice")
            new = list(value)
            removed = _total(self[index])
            super().__setitem__(index, new)
            self._revision += 1
            self._chars += _total(new) - removed
        else:
            if not isinstance(value, BaseModel):
                raise TypeError("can only assign an item to an index")
            removed = item_chars(self[index])
            super().__setitem__(index, value)
            self._revision += 1
            self._chars += item_chars(value) - removed

    @override
    def __delitem__(self, index: SupportsIndex | slice, /) -> None:
        removed = _total(self[index]) if isinstance(index, slice) else item_chars(self[index])
        super().__delitem__(index)
        self._revision += 1
        self._chars -= removed

    @override
    def __imul__(self, count: SupportsIndex, /) -> History:
        super().__imul__(count)
        self._chars = _total(self)
        self._revision += 1
        return self

    @override
    def sort(self, *, key: Callable[[Item], Any] | None = None, reverse: bool = False) -> None:
        super().sort(key=key, reverse=reverse)  # pyright: ignore[reportArgumentType]  # items have no order: a key is needed
        self._revision += 1

    @override
    def reverse(self) -> None:
        super().reverse()
        self._revision += 1
