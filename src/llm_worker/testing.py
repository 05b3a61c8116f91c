"""Helpers for testing code built on the engine: the history's pairing invariant.

``pairing_problems(history)`` lists every way a history breaks the invariant providers rely
on: each ``ToolCall`` has exactly one ``ToolResult`` with its ``call_id``, after it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._items import Item, ToolCall, ToolResult

__all__ = ["assert_well_formed", "pairing_problems"]


def pairing_problems(history: Iterable[Item]) -> list[str]:
    """Return a description of every pairing problem in ``history`` (empty if none)."""
    problems: list[str] = []
    open_calls: dict[str, int] = {}
    answered: set[str] = set()
    for index, item in enumerate(history):
        if isinstance(item, ToolCall):
            if item.call_id in open_calls or item.call_id in answered:
                problems.append(f"item {index}: call id {item.call_id!r} is used twice")
            open_calls[item.call_id] = index
        elif isinstance(item, ToolResult):
            if item.call_id in answered:
                problems.append(f"item {index}: second result for call {item.call_id!r}")
            elif item.call_id not in open_calls:
                problems.append(f"item {index}: result for unknown call {item.call_id!r}")
            else:
                del open_calls[item.call_id]
                answered.add(item.call_id)
    problems.extend(
        f"item {index}: call {call_id!r} has no result" for call_id, index in open_calls.items()
    )
    return problems


def assert_well_formed(history: Iterable[Item]) -> None:
    """Raise ``AssertionError`` listing the pairing problems of ``history``, if any."""
    problems = pairing_problems(history)
    assert not problems, "history is not well-formed:\n" + "\n".join(problems)
