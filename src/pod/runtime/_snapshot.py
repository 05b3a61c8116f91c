"""``PodSnapshot``: a paused Pod as JSON, to resume in a fresh process.

It holds the Worker's snapshot (history, turn counters, the tool calls being decided and
what was decided about each), the notifications not yet flushed, and the usage of
compaction summaries. Restore it into a fresh Pod built with the same configuration
(model, tools, hooks, permissions, settings), then ``resume`` with decisions for the
pending calls; a pending call left undecided is put to the hooks again.
"""

from __future__ import annotations

from typing import Final, Literal, final

from pydantic import BaseModel, ValidationError, model_validator

from llm_worker import (
    SnapshotError,
    Usage,
    WorkerSnapshot,
    check_known_version,
    check_snapshot_header,
    parse_snapshot_json,
)

__all__ = ["POD_SNAPSHOT_VERSION", "PodSnapshot"]

POD_SNAPSHOT_FORMAT: Final = "llm-pod/pod-snapshot"
POD_SNAPSHOT_VERSION: Final = 2
"""Bumped whenever the snapshot's meaning changes; other versions are refused.

Version 2 added ``tool_names``."""


@final
class PodSnapshot(BaseModel, frozen=True, extra="forbid"):
    """Everything a fresh Pod needs to continue a saved run."""

    format: Literal["llm-pod/pod-snapshot"] = POD_SNAPSHOT_FORMAT
    version: int = POD_SNAPSHOT_VERSION
    worker: WorkerSnapshot
    tool_names: tuple[str, ...]
    """The names of the tools of the Pod it was taken from, sorted: ``restore`` refuses a
    Pod whose tools have other names."""
    pending_notifications: tuple[str, ...] = ()
    summary_usage: tuple[Usage, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _known_version(cls, data: object) -> object:
        # In the model, so every way of loading (``model_validate_json`` too) refuses it.
        check_known_version(data, kind="Pod snapshot", version=POD_SNAPSHOT_VERSION)
        return data

    def to_json(self) -> str:
        """Serialise to JSON text."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, data: str | bytes) -> PodSnapshot:
        """Parse and check a snapshot.

        Raises:
            SnapshotError: not JSON, not a Pod snapshot, another version, or inconsistent.
        """
        fields = check_snapshot_header(
            parse_snapshot_json(data, kind="Pod snapshot"),
            kind="Pod snapshot",
            format=POD_SNAPSHOT_FORMAT,
            version=POD_SNAPSHOT_VERSION,
        )
        # The Worker part is checked by its own reader (format, version, consistency).
        worker = WorkerSnapshot.from_document(fields.get("worker"))
        try:
            return cls.model_validate({**fields, "worker": worker})
        except ValidationError as exc:
            raise SnapshotError(f"corrupt Pod snapshot: {exc}") from exc
