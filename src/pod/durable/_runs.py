"""``DurableRuns``: durable runs seen from any process (no DBOS launch, no agent code).

It reads and writes the system database through a ``DBOSClient``: list runs, show one,
approve a paused run, submit a run to the queue of an agent's workers, wait for a result.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final, Literal, TypeAlias, final

import sqlalchemy as sa
from dbos import DBOSClient, WorkflowHandle
from pydantic import BaseModel, TypeAdapter, ValidationError

from llm_worker import ApprovalMismatchError, LlmResponse, Message, Paused, ToolCall, ToolResult

from ..hooks._errors import PodUsageError
from ._agent import (
    DECISION_TOPIC,
    PAUSE_EVENT,
    RUN_WORKFLOW_PREFIX,
    PauseRecord,
    RunDecision,
    RunEnd,
    RunOutcome,
    history_event,
    new_run_id,
)
from ._served import served_agents
from ._steps import POD_STEP, step_names
from ._system import APP_VERSION, QUEUE_NAME, database_url, sqlite_path

__all__ = ["DurableRuns", "RunInfo", "RunStatus", "ShownItem"]

RunStatus: TypeAlias = Literal["queued", "running", "paused", "finished", "failed", "cancelled"]
"""Where a run is: ``running`` includes a run whose process died, until it is recovered."""

_STATUS: Final[dict[str, RunStatus]] = {
    "ENQUEUED": "queued",
    "DELAYED": "queued",
    "PENDING": "running",
    "SUCCESS": "finished",
    "ERROR": "failed",
    "MAX_RECOVERY_ATTEMPTS_EXCEEDED": "failed",
    "CANCELLED": "cancelled",
}
_PAUSE: Final = TypeAdapter(PauseRecord | Paused | None)


@final
class RunInfo(BaseModel, frozen=True, extra="forbid"):
    """One durable run as ``pod runs`` lists it."""

    run_id: str
    agent: str
    status: RunStatus
    started: datetime | None
    """When the run was created (submitted or started), UTC."""
    last_step: str | None
    """The name of the last step recorded; ``None`` before the first."""
    pending_calls: tuple[str, ...] = ()
    """Call ids waiting for ``pod approve`` (only when ``paused``)."""
    paused: Paused | None = None
    executor: str | None = None
    """The worker (DBOS executor id) running the run, or the last one that ran it; ``None``
    while it waits in the queue."""


@final
class ShownItem(BaseModel, frozen=True, extra="forbid"):
    """One line of ``pod runs show``: what a step recorded."""

    step: str
    text: str


@final
class DurableRuns:
    """Durable runs in one system database, from any process.

    Args:
        database: the system database URL; default ``$POD_DATABASE_URL`` or the SQLite file
            under ``.pod/``.
    """

    def __init__(self, database: str | None = None) -> None:
        self.database = database_url(database)
        path = sqlite_path(self.database)
        if path is not None and not path.is_file():  # nothing is created for a reader
            raise PodUsageError(
                f"no durable runs here: {path} does not exist (start `pod worker` in this "
                "folder, or give the database of the workers)"
            )
        self._client = DBOSClient(system_database_url=self.database)

    def close(self) -> None:
        """Release the database connections."""
        self._client.destroy()

    def _unused(self) -> bool:
        """Whether no DBOS process has launched on this SQLite file yet (so: no runs). The
        client never creates DBOS's tables; a worker or ``launch`` does."""
        path = sqlite_path(self.database)
        if path is None:
            return False
        if not path.exists():
            return True
        with contextlib.closing(sqlite3.connect(path)) as connection:
            found = connection.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'workflow_status'"
            ).fetchone()
        return found is None

    def _last_step(self, run_id: str) -> str | None:
        steps = self._pod_steps(run_id, load_output=False)
        return steps[-1][0] if steps else None

    def _pod_steps(self, run_id: str, *, load_output: bool) -> list[tuple[str, bool, object]]:
        """A run's recorded steps of pod, in order: (name, whether it raised, output or
        exception); DBOS's own operations (events, messages) left out."""
        return [
            (str(step["function_name"]), step["error"] is not None, step["error"] or step["output"])
            for step in self._client.list_workflow_steps(run_id, load_output=load_output)
            if str(step["function_name"]).startswith(POD_STEP)
        ]

    def __enter__(self) -> DurableRuns:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def submit(self, agent: str, prompt: str, *, run_id: str | None = None) -> str:
        """Queue a run of the agent named ``agent`` for its workers; return the run id.

        Raises:
            PodUsageError: no worker (no ``launch``) has used this SQLite database yet.
        """
        if self._unused():
            raise PodUsageError(f"no worker has used {self.database} yet: start `pod worker`")
        served = served_agents(self.database)
        if agent not in served:
            known = ", ".join(sorted(served)) or "none yet"
            raise PodUsageError(
                f"no worker serves an agent {agent!r} (agents served here: {known}); "
                "start a `pod worker` whose --app defines it"
            )
        if run_id is not None and self._client.list_workflows(
            workflow_ids=[run_id], load_input=False, load_output=False
        ):
            raise PodUsageError(
                f"run id {run_id!r} is taken: give another, or none for a fresh one"
            )
        run_id = run_id or new_run_id()
        self._client.enqueue(
            {
                "queue_name": QUEUE_NAME,
                "workflow_name": RUN_WORKFLOW_PREFIX + agent,
                "workflow_id": run_id,
                "app_version": APP_VERSION,
            },
            prompt,
        )
        return run_id

    def list_runs(self, *, limit: int | None = None) -> list[RunInfo]:
        """Durable runs, newest first."""
        if self._unused():
            return []
        statuses = self._client.list_workflows(
            workflow_id_prefix=None,
            sort_desc=True,
            limit=limit,
            load_input=False,
            load_output=False,
        )
        return [
            self._info(status) for status in statuses if status.name.startswith(RUN_WORKFLOW_PREFIX)
        ]

    def get(self, run_id: str) -> RunInfo:
        """One run.

        Raises:
            PodUsageError: there is no run ``run_id``.
        """
        statuses = (
            []
            if self._unused()
            else self._client.list_workflows(
                workflow_ids=[run_id], load_input=False, load_output=False
            )
        )
        if not statuses or not statuses[0].name.startswith(RUN_WORKFLOW_PREFIX):
            raise PodUsageError(f"no durable run {run_id!r} in {self.database}")
        return self._info(statuses[0])

    def _info(self, status: Any) -> RunInfo:
        run_id: str = status.workflow_id
        run_status = _STATUS.get(status.status, "running")
        paused = self._paused(run_id) if run_status == "running" else None
        created = status.created_at
        return RunInfo(
            run_id=run_id,
            agent=status.name.removeprefix(RUN_WORKFLOW_PREFIX),
            status="paused" if paused is not None else run_status,
            started=None if created is None else datetime.fromtimestamp(created / 1000, UTC),
            last_step=self._last_step(run_id),
            pending_calls=() if paused is None else tuple(c.call_id for c in paused.pending_calls),
            paused=paused,
            executor=status.executor_id,
        )

    def _paused(self, run_id: str) -> Paused | None:
        record = self._pause(run_id)
        return record if isinstance(record, Paused | None) else record.paused

    def _pause(self, run_id: str) -> PauseRecord | Paused | None:
        """The pause the run waits on (a bare ``Paused``: one published by an earlier
        version, without its number)."""
        value = self._client.get_event(run_id, PAUSE_EVENT, timeout_seconds=0)
        try:
            return _PAUSE.validate_python(value)
        except ValidationError:
            return None

    def show(self, run_id: str) -> tuple[RunInfo, list[ShownItem]]:
        """A run and the history it recorded so far.

        A finished run shows its final history. A run in progress shows its prompt and
        what its steps recorded (model replies, tool results, decisions), before the
        Pod's interceptors (e.g. truncation) touched them.

        Raises:
            PodUsageError: there is no run ``run_id``.
        """
        info = self.get(run_id)
        statuses = self._client.list_workflows(workflow_ids=[run_id])
        status = statuses[0]
        output = status.output
        if isinstance(output, RunEnd):
            history = self._outcome(run_id, output).history
            return info, [_item_line("history", item) for item in history]
        shown: list[ShownItem] = []
        inputs = status.input
        if inputs and inputs.get("args"):
            shown.append(ShownItem(step="prompt", text=f"user: {inputs['args'][0]}"))
        shown.extend(_recorded(self._pod_steps(run_id, load_output=True)))
        return info, shown

    def approve(self, run_id: str, decision: RunDecision) -> Paused:
        """Send ``decision`` to the paused run ``run_id``; return the pause it answers.

        One decision answers a pause: a second one for the same pause, from this process or
        another, at the same time or later, is refused (the first is the one the run takes).

        Raises:
            PodUsageError: the run does not exist, is not paused, the decision names a call
                that is not pending, or the pause was already answered (nothing is sent).
            ApprovalMismatchError: an approval's digest (``RunDecision.digests``) is not the
                pending call's, with both digests (nothing is sent; the run checks again).
        """
        info = self.get(run_id)
        # One read of the pause: the checks and the key are of the same pause.
        pause = None if info.paused is None else self._pause(run_id)
        paused = pause.paused if isinstance(pause, PauseRecord) else pause
        if paused is None:
            status = "running" if info.paused is not None else info.status
            raise PodUsageError(f"run {run_id} is not paused (it is {status})")
        pending = [call.call_id for call in paused.pending_calls]
        unknown = decision.named() - set(pending)
        if unknown:
            raise PodUsageError(
                f"run {run_id} has no pending call {', '.join(sorted(unknown))} "
                f"(pending: {', '.join(pending) or 'none'})"
            )
        current = {call.call_id: call.digest for call in paused.pending_calls}
        for call_id, shown in sorted(decision.digests.items()):
            if shown != current[call_id]:
                raise ApprovalMismatchError(call_id=call_id, shown=shown, current=current[call_id])
        message = decision.model_dump(mode="json")
        if isinstance(pause, PauseRecord):
            self._send_once(run_id, message, f"{DECISION_TOPIC}/{pause.number}")
        else:  # paused by an earlier version: no number to name it by
            self._client.send(run_id, message, DECISION_TOPIC)
        return paused

    def _send_once(self, run_id: str, message: object, key: str) -> None:
        """Send ``message`` as the one decision of the pause ``key`` names, or refuse it:
        the check and the send are one transaction, one approver at a time per run."""
        system = self._client._sys_db  # pyright: ignore[reportPrivateUsage]  # DBOS pinned
        status, notifications = system.tables.workflow_status, system.tables.notifications
        with system.engine.begin() as connection:
            # The run's row, locked (PostgreSQL; SQLite's transactions take the write lock).
            connection.execute(
                sa.update(status)
                .where(status.c.workflow_uuid == run_id)
                .values(updated_at=status.c.updated_at)
            )
            answered = connection.execute(
                sa.select(notifications.c.message_uuid).where(
                    notifications.c.message_uuid == f"{key}::{run_id}"  # DBOS's key per run
                )
            ).first()
            if answered is not None:
                raise PodUsageError(
                    f"run {run_id}: this pause was already answered by another decision "
                    "(the run takes the first); nothing sent"
                )
            self._client.send_in_transaction(
                connection, run_id, message, DECISION_TOPIC, idempotency_key=key
            )

    def result(self, run_id: str) -> RunOutcome:
        """Wait for the run to end and return its outcome."""
        handle: WorkflowHandle[object] = self._client.retrieve_workflow(run_id)
        end = handle.get_result()
        if not isinstance(end, RunEnd):
            raise PodUsageError(f"{run_id} is not a durable run of llm-pod")
        return self._outcome(run_id, end)

    def _outcome(self, run_id: str, end: RunEnd) -> RunOutcome:
        parts = range(end.history_parts)
        return end.outcome(
            self._client.get_event(run_id, history_event(n), timeout_seconds=0) for n in parts
        )


def _item_line(step: str, item: object) -> ShownItem:
    if isinstance(item, Message):
        return ShownItem(step=step, text=f"{item.role}: {item.text}")
    if isinstance(item, ToolCall):
        return ShownItem(step=step, text=f"call {item.call_id}: {item.name}({item.arguments})")
    if isinstance(item, ToolResult):
        flag = " (error)" if item.is_error else ""
        return ShownItem(step=step, text=f"result {item.call_id}{flag}: {item.content}")
    if isinstance(item, BaseModel):
        fields = item.model_dump(mode="json", exclude={"kind"})
        kind = getattr(item, "kind", type(item).__name__)
        return ShownItem(step=step, text=f"{kind}: {fields}")
    return ShownItem(step=step, text=repr(item))


def _recorded(steps: Sequence[tuple[str, bool, object]]) -> list[ShownItem]:
    model, summary, tool_prefix, hook_prefix = step_names()
    shown: list[ShownItem] = []
    for name, raised, output in steps:
        if raised:
            shown.append(ShownItem(step=name, text=f"error: {output}"))
        elif name == model and isinstance(output, LlmResponse):
            shown.extend(_item_line(name, item) for item in output.items)
        elif name.startswith(tool_prefix):
            shown.append(ShownItem(step=name, text=f"output: {output}"))
        elif name.startswith(hook_prefix) or name == summary:
            shown.append(ShownItem(step=name, text=str(output)))
    return shown
