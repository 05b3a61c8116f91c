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

from ._errors import SnapshotError
from ._items import Item, ToolCall
from ._run_state import RunState

__all__ = [
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


@final
class WorkerSnapshot(BaseModel, frozen=True, extra="forbid"):
    """The history and run state of a Worker that is not running."""

    format: Literal["llm-pod/worker-snapshot"] = SNAPSHOT_FORMAT
    version: int = SNAPSHOT_VERSION
    history: list[Item]
    state: RunState

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
        """Check that the run state agrees with the history.

        Raises:
            SnapshotError: a pending tool call is not in the history, or the state is impossible.
        """
        state = self.state
        if state.status == "running":
            raise SnapshotError("inconsistent snapshot: a running Worker cannot be restored")
        batch = state.batch
        if batch is None:
            return
        calls = {item.call_id for item in self.history if isinstance(item, ToolCall)}
        for call_state in batch.calls:
            if call_state.call.call_id not in calls:
                raise SnapshotError(
                    f"inconsistent snapshot: pending call {call_state.call.call_id!r} "
                    "is not in the history"
                )
        in_order = 0 <= batch.next_record <= batch.next_decision <= len(batch.calls)
        if not in_order or (batch.executed and batch.next_decision != len(batch.calls)):
            raise SnapshotError("inconsistent snapshot: impossible tool-call progress")


def parse_snapshot_json(data: str | bytes, *, kind: str) -> object:
    """Parse snapshot text strictly; ``kind`` names it in errors (``"Pod snapshot"``).

    Unlike ``json.loads``, invalid UTF-8, lone surrogate escapes (which could not be saved
    again), NaN and absurd nesting are refused.

    Raises:
        SnapshotError: the text is not such JSON.
    """
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
