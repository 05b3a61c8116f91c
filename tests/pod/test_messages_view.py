"""``PreRequestInfo.recent_items``: the messages view hooks get at ``PRE_LLM_REQUEST``.

A bounded view of the request about to be sent: its last ``RECENT_ITEMS`` items, oldest
first, each ``(kind, text)`` with the text cut to ``PREVIEW_BYTES``; plain strings, so
nothing in it reaches back into the history.
"""

from __future__ import annotations

from llm_worker import (
    PREVIEW_BYTES,
    RECENT_ITEMS,
    Message,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    tool,
)
from pod import Continue, HookRegistry, Pod, PreRequestInfo, events


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def watching(seen: list[PreRequestInfo]) -> HookRegistry:
    registry = HookRegistry()

    @registry.on(events.PRE_LLM_REQUEST)
    def watch(info: PreRequestInfo) -> Continue:
        seen.append(info)
        return Continue()

    return registry


async def test_each_request_shows_its_last_items_oldest_first() -> None:
    seen: list[PreRequestInfo] = []
    client = ScriptedClient(
        [
            ScriptedReply(calls=[ScriptedCall("lookup", {"key": "k"}, call_id="c1")]),
            ScriptedReply(text="done"),
        ]
    )
    pod = Pod(client, tools=[lookup], hooks=watching(seen))

    await pod.run("look k up")

    first, second = seen
    assert first.recent_items == (("user", "look k up"),)
    assert second.recent_items == (
        ("user", "look k up"),
        ("tool_call", 'lookup {"key": "k"}'),
        ("tool_result", "value of k"),
    )
    assert second.item_count == 3


async def test_a_long_history_shows_only_its_last_items_each_cut_to_the_preview() -> None:
    seen: list[PreRequestInfo] = []
    history = [
        Message(role="user" if i % 2 == 0 else "assistant", text=f"{i:03} " + "é" * PREVIEW_BYTES)
        for i in range(40)
    ]
    pod = Pod(ScriptedClient([ScriptedReply("ok")]), hooks=watching(seen), history=history)

    await pod.run("and now?")

    [info] = seen
    assert info.item_count == 41
    assert len(info.recent_items) == RECENT_ITEMS
    # The last 15 of the old items, then the prompt.
    assert [text[:3] for _, text in info.recent_items[:-1]] == [f"{i:03}" for i in range(25, 40)]
    assert info.recent_items[-1] == ("user", "and now?")
    for kind, text in info.recent_items[:-1]:
        assert kind in {"user", "assistant"}
        assert len(text.encode()) <= PREVIEW_BYTES
        assert text.startswith(f"{text[:3]} é")
