"""Helpers shared by the Pod tests (imported by name: tests/pod is on sys.path)."""

from __future__ import annotations

from collections.abc import Sequence

from llm_worker import Item, ToolCall, ToolResult


def assert_well_formed(history: Sequence[Item]) -> None:
    """Every ToolCall has exactly one ToolResult, after it; no result lacks its call."""
    calls: dict[str, int] = {}
    results: dict[str, list[int]] = {}
    for index, item in enumerate(history):
        if isinstance(item, ToolCall):
            assert item.call_id not in calls, f"call {item.call_id} appears twice"
            calls[item.call_id] = index
        elif isinstance(item, ToolResult):
            results.setdefault(item.call_id, []).append(index)
    for call_id, position in calls.items():
        found = results.get(call_id, [])
        assert len(found) == 1, f"call {call_id} has {len(found)} results"
        assert found[0] > position, f"the result of {call_id} comes before its call"
    orphans = sorted(set(results) - set(calls))
    assert not orphans, f"results without a call: {orphans}"
