"""The Worker's resumable state, besides the history: where the current turn stands.

Plain dataclasses (cheap to update on the hot path) that pydantic can still serialise, so a
paused run can be saved as JSON and resumed in another process (see ``WorkerSnapshot``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from ._client import Usage
from ._items import Item, ToolCall, ToolResult
from ._results import PausePoint

__all__ = ["CallState", "RunState", "ToolBatch", "WorkerStatus"]

WorkerStatus: TypeAlias = Literal["idle", "running", "paused", "yielded"]
"""``idle``: ready for ``run``; ``paused``/``yielded``: ready for ``resume`` (or a new run)."""

Point: TypeAlias = Literal["idle", "tool_calls"] | PausePoint
"""Where the turn stands: idle, inside the tool calls of a reply, or at a decision point it
may pause at (one list of points: a point added to ``PausePoint`` is a place to stand too)."""


@dataclass(slots=True)
class CallState:
    """One tool call of the reply being processed."""

    call: ToolCall
    position: int
    history_index: int
    pre_intercepted: bool = False
    decision: Literal["undecided", "approved", "skipped"] = "undecided"
    skip_reason: str = ""
    context: str = ""
    """An ``Annotate``'s text: written after the call's result when it is recorded."""
    result: ToolResult | None = None
    post_intercepted: bool = False
    recorded: bool = False


@dataclass(slots=True)
class ToolBatch:
    """The tool calls of one reply: decided in order, run together, recorded in order."""

    calls: list[CallState]
    request_index: int
    next_decision: int = 0
    executed: bool = False
    next_record: int = 0

    @classmethod
    def of_reply(cls, items: Sequence[Item], start: int, request_index: int) -> ToolBatch | None:
        """The batch of a reply's ``items`` appended at history index ``start`` (``None``: the
        reply has no tool calls)."""
        calls: list[CallState] = []
        for offset, item in enumerate(items):
            if isinstance(item, ToolCall):
                calls.append(
                    CallState(call=item, position=len(calls), history_index=start + offset)
                )
        return cls(calls=calls, request_index=request_index) if calls else None

    def undecided(self) -> list[CallState]:
        """The calls no one has decided on yet (a paused run's pending calls), in call order."""
        return [c for c in self.calls if c.decision == "undecided"]

    def to_run(self) -> list[CallState]:
        """The approved calls that have no result yet, in call order."""
        return [c for c in self.calls if c.decision == "approved" and c.result is None]

    def unrecorded(self) -> list[CallState]:
        """The calls whose result is not in the history yet, in call order."""
        return [c for c in self.calls if not c.recorded]


@dataclass(slots=True)
class RunState:
    """Where the current turn stands: everything besides the history needed to resume."""

    status: WorkerStatus = "idle"
    point: Point = "idle"
    turn: int = -1
    request_index: int = 0
    tool_calls_this_turn: int = 0
    interceptors_done: bool = False
    hooks_done: bool = False
    final_text: str = ""
    continued: int = 0
    """Times in a row a ``TURN_END`` hook's ``Feedback`` kept the turn going."""
    batch: ToolBatch | None = None
    usage: list[Usage] = field(default_factory=list[Usage])
