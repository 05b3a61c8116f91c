"""``PodSnapshot``: a paused Pod as JSON, to resume in a fresh process.

It holds the Worker's snapshot (history, turn counters, the tool calls being decided and
what was decided about each), the notifications not yet flushed, and the usage of
compaction summaries. Restore it into a fresh Pod built with the same configuration
(model, tools, hooks, permissions, settings), then ``resume`` with decisions for the
pending calls; a pending call left undecided is put to the hooks again.
"""

from __future__ import annotations

import json
from typing import Final, Literal, cast, final

from pydantic import BaseModel, ConfigDict, ValidationError

from llm_worker import SnapshotError, Usage, WorkerSnapshot

__all__ = ["POD_SNAPSHOT_VERSION", "PodSnapshot"]

POD_SNAPSHOT_FORMAT: Final = "llm-pod/pod-snapshot"
POD_SNAPSHOT_VERSION: Final = 1
"""Bumped whenever the snapshot's meaning changes; other versions are refused."""


@final
class PodSnapshot(BaseModel):
    """Everything a fresh Pod needs to continue a saved run."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    format: Literal["llm-pod/pod-snapshot"] = POD_SNAPSHOT_FORMAT
    version: int = POD_SNAPSHOT_VERSION
    worker: WorkerSnapshot
    pending_notifications: tuple[str, ...] = ()
    summary_usage: tuple[Usage, ...] = ()

    def to_json(self) -> str:
        """Serialise to JSON text."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, data: str | bytes) -> PodSnapshot:
        """Parse and check a snapshot.

        Raises:
            SnapshotError: not JSON, not a Pod snapshot, another version, or inconsistent.
        """
        try:
            raw: object = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise SnapshotError(f"not a Pod snapshot: invalid JSON ({exc})") from exc
        if not isinstance(raw, dict):
            raise SnapshotError("not a Pod snapshot: expected a JSON object")
        fields = cast(dict[str, object], raw)  # JSON object keys are strings
        if fields.get("format") != POD_SNAPSHOT_FORMAT:
            raise SnapshotError(f"not a Pod snapshot: expected format {POD_SNAPSHOT_FORMAT!r}")
        if fields.get("version") != POD_SNAPSHOT_VERSION:
            raise SnapshotError(
                f"Pod snapshot version {fields.get('version')!r} is not supported by this "
                f"llm-pod (it reads version {POD_SNAPSHOT_VERSION}); resume it with the "
                "version that wrote it"
            )
        worker = fields.get("worker")
        # The Worker part is checked by its own reader (format, version, consistency).
        checked_worker = WorkerSnapshot.from_json(json.dumps(worker))
        try:
            return cls.model_validate({**fields, "worker": checked_worker})
        except ValidationError as exc:
            raise SnapshotError(f"corrupt Pod snapshot: {exc}") from exc
