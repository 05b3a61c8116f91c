"""``WorkerSnapshot``: a paused (or idle) run as JSON, to resume in another process.

A snapshot holds the history and the run state (turn counters, the tool calls of the reply
being processed and what was decided about each). It is refused, with a
:class:`SnapshotError` and nothing changed, if it is not a snapshot, is corrupt, or comes from
another format version.
"""

from __future__ import annotations

from typing import Final, Literal, Self, cast, final

import pydantic_core
from pydantic import BaseModel, ValidationError, model_validator

from ._digest import call_digest
from ._errors import SnapshotError
from ._items import Item, ToolCall, ToolResult
from ._run_state import CallState, RunState
from ._text import utf8_len

__all__ = [
    "MAX_SNAPSHOT_BYTES",
    "SNAPSHOT_FORMAT",
    "SNAPSHOT_VERSION",
    "WorkerSnapshot",
    "check_known_version",
    "check_snapshot_header",
    "parse_snapshot_json",
]

SNAPSHOT_FORMAT: Final = "llm-pod/worker-snapshot"
SNAPSHOT_VERSION: Final = 1
"""Bumped whenever the snapshot's meaning changes; other versions are refused."""
MAX_SNAPSHOT_BYTES: Final = 64 << 20
"""The largest snapshot text read (64 MiB, any kind: Worker, Pod, saved run)."""


@final
class WorkerSnapshot(BaseModel, frozen=True, extra="forbid"):
    """The history and run state of a Worker that is not running."""

    format: Literal["llm-pod/worker-snapshot"] = SNAPSHOT_FORMAT
    version: int = SNAPSHOT_VERSION
    history: list[Item]
    state: RunState
    run_id: str = ""
    """The run's identity (``Worker.run_id``), part of every pending call's digest; ``""`` in
    a snapshot saved before runs had one."""

    @model_validator(mode="before")
    @classmethod
    def _known_version(cls, data: object) -> object:
        # In the model, so every way of loading (``model_validate_json`` too) refuses another
        # version. SnapshotError is not a ValueError: pydantic lets it through unwrapped.
        check_known_version(data, kind="snapshot", version=SNAPSHOT_VERSION)
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        self.check()
        return self

    def pending_digests(self) -> dict[str, str]:
        """By call id, the identity digest of each call the saved run waits on: what an
        ``Approve`` must name when the restored Worker resumes (``PendingCall.digest``)."""
        batch = self.state.batch
        return {
            c.call.call_id: call_digest(
                run_id=self.run_id,
                turn=self.state.turn,
                call_id=c.call.call_id,
                tool_name=c.call.name,
                arguments=c.call.arguments,
            )
            for c in ([] if batch is None else batch.undecided())
        }

    def to_json(self) -> str:
        """Serialise to JSON text."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, data: str | bytes) -> WorkerSnapshot:
        """Parse and check a snapshot.

        Raises:
            SnapshotError: not JSON, not a snapshot, another version, or inconsistent.
        """
        return cls.from_document(parse_snapshot_json(data, kind="snapshot"))

    @classmethod
    def from_document(cls, document: object) -> WorkerSnapshot:
        """Check an already parsed snapshot (e.g. the Worker part of a Pod snapshot).

        Raises:
            SnapshotError: not a snapshot, another version, or inconsistent.
        """
        fields = check_snapshot_header(
            document, kind="snapshot", format=SNAPSHOT_FORMAT, version=SNAPSHOT_VERSION
        )
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            raise SnapshotError(f"corrupt snapshot: {exc}") from exc

    def check(self) -> None:
        """Check that the run state agrees with the history: what a resumed run would run,
        show or send is what the history says.

        Raises:
            SnapshotError: naming the first disagreement: a call id twice, a result without
                its call (or under another tool's name, or twice), a pending call that is
                not in the history or differs from it, an open call the state does not
                account for, or impossible progress.
        """
        state = self.state
        if state.status == "running":
            raise SnapshotError("inconsistent snapshot: a running Worker cannot be restored")
        calls, answered = _paired(self.history)
        batch = state.batch
        pending: set[str] = set()
        if batch is not None:
            for call_state in batch.calls:
                pending.add(_agreeing(call_state, calls, answered))
            in_order = 0 <= batch.next_record <= batch.next_decision <= len(batch.calls)
            if not in_order or (batch.executed and batch.next_decision != len(batch.calls)):
                raise SnapshotError("inconsistent snapshot: impossible tool-call progress")
        for call_id in calls:
            if call_id not in answered and call_id not in pending:
                raise SnapshotError(
                    f"inconsistent snapshot: call {call_id!r} has no result and the "
                    f"{state.status} state has no pending call for it"
                )


def _paired(history: list[Item]) -> tuple[dict[str, ToolCall], set[str]]:
    """The history's calls by id and the ids that have their result, checking that ids
    are unique and every result follows exactly one call of the same tool."""
    calls: dict[str, ToolCall] = {}
    answered: set[str] = set()
    for index, item in enumerate(history):
        if isinstance(item, ToolCall):
            if item.call_id in calls:
                raise SnapshotError(
                    f"inconsistent snapshot: call id {item.call_id!r} appears twice (item {index})"
                )
            calls[item.call_id] = item
        elif isinstance(item, ToolResult):
            call = calls.get(item.call_id)
            if call is None:
                raise SnapshotError(
                    f"inconsistent snapshot: result {item.call_id!r} (item {index}) "
                    "follows no call of that id"
                )
            if item.call_id in answered:
                raise SnapshotError(
                    f"inconsistent snapshot: call {item.call_id!r} has a second result "
                    f"(item {index})"
                )
            if item.name != call.name:
                raise SnapshotError(
                    f"inconsistent snapshot: result {item.call_id!r} is named {item.name!r}; "
                    f"its call is to {call.name!r}"
                )
            answered.add(item.call_id)
    return calls, answered


def _agreeing(call_state: CallState, calls: dict[str, ToolCall], answered: set[str]) -> str:
    """The id of a call of the state, checked against the history's call of that id."""
    call = call_state.call
    recorded = calls.get(call.call_id)
    if recorded is None:
        raise SnapshotError(
            f"inconsistent snapshot: pending call {call.call_id!r} is not in the history"
        )
    for field in ("name", "arguments"):
        if getattr(call, field) != getattr(recorded, field):
            raise SnapshotError(
                f"inconsistent snapshot: pending call {call.call_id!r} has another {field} "
                f"in the state ({_short(getattr(call, field))}) than in the history "
                f"({_short(getattr(recorded, field))})"
            )
    result = call_state.result
    if result is not None and (result.call_id, result.name) != (call.call_id, call.name):
        raise SnapshotError(
            f"inconsistent snapshot: the state's result for {call.call_id!r} is for "
            f"{result.call_id!r} ({result.name!r})"
        )
    if call_state.recorded and call.call_id not in answered:
        raise SnapshotError(
            f"inconsistent snapshot: call {call.call_id!r} is recorded by the state but "
            "has no result in the history"
        )
    if not call_state.recorded and call.call_id in answered:
        raise SnapshotError(
            f"inconsistent snapshot: call {call.call_id!r} has a result in the history "
            "that the state has not recorded"
        )
    return call.call_id


def _short(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def parse_snapshot_json(data: str | bytes, *, kind: str) -> object:
    """Parse snapshot text strictly; ``kind`` names it in errors (``"Pod snapshot"``).

    Unlike ``json.loads``, invalid UTF-8, lone surrogate escapes (which could not be saved
    again), NaN and absurd nesting are refused.

    Raises:
        SnapshotError: the text is not such JSON, or is over :data:`MAX_SNAPSHOT_BYTES`.
    """
    size = len(data) if isinstance(data, bytes) else utf8_len(data)
    if size > MAX_SNAPSHOT_BYTES:
        raise SnapshotError(
            f"not a {kind}: {size:,} bytes is over the limit of {MAX_SNAPSHOT_BYTES:,}"
        )
    try:
        return pydantic_core.from_json(data, allow_inf_nan=False)
    except ValueError as exc:
        raise SnapshotError(f"not a {kind}: invalid JSON ({exc})") from exc


def check_snapshot_header(
    document: object, *, kind: str, format: str, version: int
) -> dict[str, object]:
    """Check that ``document`` is a JSON object of this ``format`` and ``version``.

    Raises:
        SnapshotError: another kind of document, or a version this llm-pod does not read.
    """
    if not isinstance(document, dict):
        raise SnapshotError(f"not a {kind}: expected a JSON object")
    fields = cast(dict[str, object], document)  # JSON object keys are strings
    if fields.get("format") != format:
        raise SnapshotError(f"not a {kind}: expected format {format!r}")
    if "version" not in fields:
        raise SnapshotError(f"not a {kind}: no version")
    check_known_version(fields, kind=kind, version=version)
    return fields


def check_known_version(data: object, *, kind: str, version: int) -> None:
    """Refuse a mapping whose ``version`` is given and is not ``version``.

    A missing version means the current one (a snapshot being built in memory).

    Raises:
        SnapshotError: another version.
    """
    if isinstance(data, dict):
        found = cast(dict[str, object], data).get("version", version)
        # ``type(...) is int``: ``True == 1`` and ``1.0 == 1`` would pass an equality test.
        if type(found) is not int or found != version:
            raise SnapshotError(
                f"{kind} version {found!r} is not supported by this llm-pod "
                f"(it reads version {version}); resume it with the version that wrote it"
            )
