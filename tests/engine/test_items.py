"""Items: frozen, tagged, and exact through JSON."""

from __future__ import annotations

import pydantic
import pytest

from llm_worker import (
    ITEMS_ADAPTER,
    Message,
    Reasoning,
    Summary,
    ToolCall,
    ToolResult,
)


def test_history_round_trips_through_json_exactly() -> None:
    history = [
        Message(role="system", text="be brief"),
        Message(role="user", text="héllo ✓ 日本"),
        Reasoning(text="thinking"),
        ToolCall(call_id="c1", name="read", arguments='{"path": "a"}'),
        ToolResult(call_id="c1", name="read", content="x", is_error=True),
        Summary(text="earlier: stuff", replaced_items=7),
    ]
    dumped = ITEMS_ADAPTER.dump_json(history)
    restored = ITEMS_ADAPTER.validate_json(dumped)
    assert restored == history
    assert [type(item) for item in restored] == [type(item) for item in history]
    assert ITEMS_ADAPTER.dump_json(restored) == dumped


def test_items_are_frozen_and_reject_unknown_fields() -> None:
    call = ToolCall(call_id="c1", name="read", arguments="{}")
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        call.name = "write"  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="extra"):
        ToolCall(call_id="c1", name="read", arguments="{}", secret=1)  # type: ignore[call-arg]


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(pydantic.ValidationError, match="kind"):
        ITEMS_ADAPTER.validate_json(b'[{"kind": "nope", "text": "x"}]')
