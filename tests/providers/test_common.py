"""The per-object conversion cache the payload builders rely on."""

from __future__ import annotations

import gc

from llm_worker import Message
from llm_worker.providers._common import ItemCache


def test_each_object_is_converted_once() -> None:
    calls: list[str] = []

    def convert(message: Message) -> str:
        calls.append(message.text)
        return message.text.upper()

    cache = ItemCache[Message, str](convert)
    hello = Message(role="user", text="hello")
    twin = Message(role="user", text="hello")  # equal, but another object

    assert [cache.get(hello), cache.get(hello), cache.get(twin)] == ["HELLO"] * 3
    assert calls == ["hello", "hello"]


def test_an_entry_goes_when_its_object_does() -> None:
    cache = ItemCache[Message, str](lambda message: message.text)
    kept = Message(role="user", text="kept")
    dropped = Message(role="user", text="dropped")
    cache.get(kept)
    cache.get(dropped)
    assert len(cache) == 2

    del dropped
    gc.collect()

    assert len(cache) == 1
    assert cache.get(kept) == "kept"
