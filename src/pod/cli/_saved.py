"""Saved runs of the CLI: a Pod snapshot plus what ``pod resume`` needs to continue it.

A saved run is one JSON file (default ``.pod/runs/<run-id>.json``)::

    {"format": "llm-pod/saved-run", "version": 1, "run_id": ..., "created": ...,
     "options": {"model": ..., "rules": ..., "hooks": [...], ...},
     "paused": {...} | null, "paused_by": ... | null,
     "pod": {<the PodSnapshot, as Pod.snapshot().to_json() writes it>}}

``options`` are the ``pod run`` options that rebuild the same Pod (never the API key);
``paused`` is the pause being answered (point, reason, pending calls). The file is written
to a temporary name and renamed, so a crash never leaves half a file. It names the code
(hooks, tools) that ``pod resume`` will import: resume only files you trust.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal, final

from pydantic import BaseModel, Field, ValidationError

from llm_worker import (
    MAX_SNAPSHOT_BYTES,
    Paused,
    SnapshotError,
    check_snapshot_header,
    parse_snapshot_json,
)

from ..runtime._snapshot import PodSnapshot
from ..toolsets._toolsets import ToolsetName

__all__ = [
    "DEFAULT_RUNS_FOLDER",
    "RunOptions",
    "SavedRun",
    "SavedRunTakenError",
    "new_run_id",
    "read_saved_run",
    "taking_saved_run",
    "write_saved_run",
]

SAVED_RUN_FORMAT: Final = "llm-pod/saved-run"
SAVED_RUN_VERSION: Final = 1
DEFAULT_RUNS_FOLDER: Final = Path(".pod") / "runs"


@final
class RunOptions(BaseModel, frozen=True, extra="forbid"):
    """The ``pod run`` options that rebuild a Pod, as a saved run stores them (never the
    API key). Paths are absolute, so a resume from another folder finds the same files."""

    model: str
    """``provider:model``."""
    base_url: str | None
    rules: str | None
    """The rules file; ``None``: no permission rules."""
    claude_settings: tuple[str, ...] = ()
    """Claude Code settings files whose ``hooks`` run (``--claude-settings``)."""
    claude_plugins: tuple[str, ...] = ()
    """Claude Code plugin folders whose ``hooks/hooks.json`` run (``--claude-plugin``)."""
    claude_session_id: str | None = None
    """The ``session_id`` Claude Code hooks read (one per run, kept across resumes; names
    the run's transcript)."""
    hooks: tuple[str, ...]
    """``module:attr`` or ``/abs/file.py:attr`` specs, in the order they are asked."""
    tools: tuple[str, ...]
    toolset: ToolsetName | None = None
    """The built-in tools (``--toolset``); ``None`` (a run saved before the option): the
    default, ``claude-code`` with ``claude_settings``, else ``workspace``."""
    workdir: str
    system: str | None
    max_requests: int = Field(ge=1)
    timeout: float | None = Field(gt=0)
    """Seconds per model request attempt; ``None``: the SDK's default."""
    max_retries: int | None = Field(ge=0)
    """``None``: the SDK's default."""
    mcp_config: tuple[str, ...] = ()
    """MCP configuration files whose servers are started for the run (``--mcp-config``)."""


@final
class SavedRun(BaseModel, frozen=True, extra="forbid"):
    """A paused (or interrupted) CLI run: the Pod snapshot and how to rebuild the Pod."""

    format: Literal["llm-pod/saved-run"] = SAVED_RUN_FORMAT
    version: int = SAVED_RUN_VERSION
    run_id: str
    created: str
    """When the file was written (UTC, ISO 8601)."""
    options: RunOptions
    paused: Paused | None = None
    """The pause to answer; ``None`` when the run was not paused (finished, interrupted)."""
    paused_by: str | None = None
    """The hook that paused, by its public name, when known."""
    resumed_by: str | None = None
    """Set when a ``pod resume`` took this state (``pid 123 at <time>``); the state it saves
    afterwards has none. A file that has one is refused: it is being resumed, or a resume
    stopped before saving (and its approved calls may have run)."""
    pod: PodSnapshot


def new_run_id() -> str:
    """A sortable, unique id: ``20261130-211500-3f9a``."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(2)


def now_iso() -> str:
    """The current UTC time, ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_saved_run(saved: SavedRun, path: Path) -> None:
    """Write ``saved`` to ``path`` atomically (temporary file, then rename).

    Raises:
        OSError: the folder cannot be created or the file written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    document = saved.model_dump(mode="json", exclude={"pod"})
    document["pod"] = json.loads(saved.pod.to_json())
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    temporary.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(temporary, path)


def read_saved_run(path: Path) -> SavedRun:
    """Read and check a saved run.

    Raises:
        OSError: the file cannot be read.
        SnapshotError: not a saved run, another version, over the size limit, or its Pod
            snapshot is refused.
    """
    with path.open("rb") as file:
        return _parsed(file.read(MAX_SNAPSHOT_BYTES + 1))


class SavedRunTakenError(Exception):
    """Another ``pod resume`` holds the saved run, or one took it and did not save."""


@contextmanager
def taking_saved_run(path: Path) -> Generator[tuple[SavedRun, Callable[[], None]]]:
    """Hold ``path`` for one resume: the saved run, and ``take`` to mark it resumed.

    An exclusive lock on the file is held until the block ends; ``take`` rewrites the file
    atomically with ``resumed_by`` set, so any later resume of the same state refuses even
    if this one stops before saving. A refused load writes nothing.

    Raises:
        OSError: the file cannot be read.
        SnapshotError: as :func:`read_saved_run`.
        SavedRunTakenError: another resume holds the file, or took this state already.
    """
    with path.open("rb") as file:
        try:
            fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SavedRunTakenError(_TAKEN.format("by another `pod resume`")) from None
        # The file may have been replaced between open and lock: the lock is on the old one.
        if os.fstat(file.fileno()).st_ino != os.stat(path).st_ino:
            raise SavedRunTakenError(_TAKEN.format("by another `pod resume`"))
        saved = _parsed(file.read(MAX_SNAPSHOT_BYTES + 1))
        if saved.resumed_by is not None:
            raise SavedRunTakenError(
                _TAKEN.format(f"since {saved.resumed_by}")
                + ", or that resume stopped before saving its outcome (its approved calls "
                'may have run): check, then delete the file\'s "resumed_by" line to resume '
                "it anyway"
            )

        def take() -> None:
            marked = saved.model_copy(update={"resumed_by": f"pid {os.getpid()} at {now_iso()}"})
            write_saved_run(marked, path)

        yield saved, take


_TAKEN: Final = "this saved run is being resumed {}"


def _parsed(data: bytes) -> SavedRun:
    fields = check_snapshot_header(
        parse_snapshot_json(data, kind="saved run"),
        kind="saved run",
        format=SAVED_RUN_FORMAT,
        version=SAVED_RUN_VERSION,
    )
    # The Pod snapshot goes through its own reader: format, version, consistency.
    pod = PodSnapshot.from_json(json.dumps(fields.get("pod")))
    try:
        return SavedRun.model_validate({**fields, "pod": pod})
    except ValidationError as exc:
        raise SnapshotError(f"corrupt saved run: {exc.errors()[0]['msg']}") from exc
