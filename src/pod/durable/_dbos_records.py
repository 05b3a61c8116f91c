"""A durable run's steps as DBOS's own step records, written without DBOS's per-step round trips.

A DBOS step (``DBOS.run_step_async``) costs a check transaction before the step, a record
transaction after it and three hops to a thread (2-2.4 ms on SQLite, 4.4 ms on PostgreSQL,
``bench.durable_floor``). The rows it writes are what make a step durable, and this module
writes the same rows with less around them: a step of a run is one row of DBOS's
``operation_outputs`` table, with

- the function id taken from the workflow's DBOS context as DBOS's step decorator takes it
  (so DBOS's own operations in the workflow, ``set_event``, ``recv``, ``send``, interleave
  deterministically and replay as DBOS replays them);
- the output or the exception serialised with DBOS's serializer, as DBOS serialises a step's;
- written as DBOS's ``_record_operation_result_txn`` writes it (the row goes in only while
  this process owns the workflow), but as one ``INSERT ... SELECT`` whose ``WHERE`` is that
  owner check, built once, committed in autocommit on a connection of DBOS's engine kept for
  it, in the event loop's thread, before the run goes on (DBOS's own code builds the statement
  anew per step and takes five round trips on PostgreSQL: ``docs/durability.md``); several
  rows (hook decisions, with the step they lead to) in one statement;
- read back when the run starts, all at once (``list_workflow_steps``), never per step.

So ``DBOS.list_workflow_steps`` and DBOS's console show the steps under their names
(``pod.model``, ``pod.tool:NAME``, ``pod.summary``, ``pod.hook:POINT``), and a recovered
workflow's DBOS operations find their recorded outcomes where DBOS expects them.

What this does not do that DBOS's step does: no per-step look-up of the workflow's status (a
cancelled run stops at its next DBOS operation, not at its next step), no retries, no step
span for OpenTelemetry.

**The DBOS internals this relies on** (``dbos>=3.4,<3.5``, pinned in ``pyproject.toml``; the
test ``tests/durable/test_dbos_records.py::test_the_dbos_internals_used_are_there`` fails
loudly if one changes):

- ``dbos._dbos._get_dbos_instance()``: the launched ``DBOS``, its ``_sys_db`` (the
  ``SystemDatabase``) and ``_serializer``;
- ``dbos._context.get_local_dbos_context()``: the running workflow's ``DBOSContext``, its
  ``workflow_id``, ``function_id`` (the last id taken; the next operation takes ``+ 1``, as
  ``DBOSContext.snapshot_step_ctx`` does), ``serialization_type`` and ``is_workflow()``;
- ``SystemDatabase.engine``, ``.tables`` (``operation_outputs`` and its columns,
  ``workflow_status.workflow_uuid`` and ``.owner_xid``), ``._is_sqlite``, ``.app_name``,
  ``._now_ms_sql()`` (how DBOS stamps ``retention_timestamp``) and
  ``.list_workflow_steps(workflow_id, load_output=True)``; the keys of
  ``dbos._sys_db.OperationResultInternal``; ``DBOSContext.owner_xid`` (the token that
  execution wrote to ``workflow_status.owner_xid``); the unsharded system database (pod
  configures no shard keys: ``_wf`` is ``workflow_uuid = id``);
- ``dbos._serialization.serialize_value`` and ``serialize_exception``.
"""

# This module is where pod uses DBOS's private code (listed above), and the only one.
# pyright: reportPrivateUsage=false

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Coroutine
from typing import Any, Final, TypeVar, final

import sqlalchemy as sa
from dbos._context import DBOSContext, get_local_dbos_context
from dbos._dbos import _get_dbos_instance
from dbos._error import DBOSStepNondeterminismError, DBOSWorkflowConflictIDError
from dbos._serialization import serialize_exception, serialize_value
from dbos._sys_db import OperationResultInternal, SystemDatabase
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.dml import ReturningInsert

from ._steps import POD_STEP, StepMismatchError

__all__ = ["DbosRecordedSteps", "DbosStepRecord", "close_writers", "recorded_steps"]

T = TypeVar("T")
_log = logging.getLogger("pod.durable")

DbosStepRecord = tuple[str, bool, object]
"""A recorded step: its name, whether it raised, and its output or exception."""


def recorded_steps(run_id: str) -> dict[int, DbosStepRecord]:
    """Every step DBOS recorded for ``run_id`` (pod's and DBOS's own), by function id: one
    query, outputs deserialised. DBOS must be launched in this process."""
    steps = _get_dbos_instance()._sys_db.list_workflow_steps(run_id, load_output=True)
    return {
        int(step["function_id"]): (
            str(step["function_name"]),
            step["error"] is not None,
            step["error"] if step["error"] is not None else step["output"],
        )
        for step in steps
    }


def _workflow_context() -> DBOSContext:
    context = get_local_dbos_context()
    if context is None or not context.is_workflow():
        raise RuntimeError("a durable run's steps are taken inside its DBOS workflow")
    return context


@final
class DbosRecordedSteps:
    """The steps of one durable run as DBOS step records: read once, then one write per step.

    A step's function id is taken when it starts, before any ``await``: the Worker starts
    the calls of a batch in call order, so concurrent steps get the same ids on replay.
    """

    def __init__(self) -> None:
        self._context = _workflow_context()
        self._run_id = self._context.workflow_id
        dbos = _get_dbos_instance()
        self._system = dbos._sys_db
        self._serializer = dbos._serializer
        self._recorded = recorded_steps(self._run_id)
        self._last_recorded = max(
            (fid for fid, (name, _, _) in self._recorded.items() if name.startswith(POD_STEP)),
            default=-1,
        )
        self._deferred: list[OperationResultInternal] = []

    @property
    def replaying(self) -> bool:
        """Whether recorded steps of pod are still ahead."""
        return self._context.function_id < self._last_recorded

    def next_is_recorded(self) -> bool:
        """Whether the step after the last one taken has a record (of an earlier process)."""
        return self._context.function_id + 1 in self._recorded

    async def step(
        self, name: str, call: Callable[[], Coroutine[Any, Any, T]], *, deferred: bool = False
    ) -> T:
        """Return the recorded outcome of this step, or run ``call`` and record it.

        A ``deferred`` outcome (a hook decision) is written with the next step's, in the same
        transaction, or by ``flush``: a decision costs no commit of its own. A crash before
        that commit loses it with the step it led to, and both are made again.
        """
        self._context.function_id += 1  # as DBOS takes the id of a step
        function_id = self._context.function_id
        recorded = self._recorded.pop(function_id, None)
        if recorded is not None:
            recorded_name, raised, value = recorded
            if recorded_name != name:
                raise StepMismatchError(
                    self._run_id, function_id, expected=name, recorded=recorded_name
                )
            if raised:
                raise value  # type: ignore[misc]  # DBOS recorded an exception
            result: T = value  # type: ignore[assignment]  # what this step returned
            return result
        started = _now_ms()
        try:
            output = await call()
        except Exception as exc:
            self._record(function_id, name, started, exc, raised=True, deferred=deferred)
            raise
        self._record(function_id, name, started, output, raised=False, deferred=deferred)
        return output

    def flush(self) -> None:
        """Write the deferred outcomes (before the run pauses or ends)."""
        if not self._deferred:
            return
        rows, self._deferred = self._deferred, []
        owner = self._context.owner_xid
        assert owner is not None  # DBOS gives every execution of a workflow its token
        _writer(self._system).write(self._run_id, owner, rows, _now_ms())

    def _record(
        self,
        function_id: int,
        name: str,
        started: int,
        outcome: object,
        *,
        raised: bool,
        deferred: bool,
    ) -> None:
        try:
            if raised:
                assert isinstance(outcome, Exception)
                error, serialization = serialize_exception(outcome, None, self._serializer)
                output = None
            else:
                output, serialization = serialize_value(
                    outcome, self._context.serialization_type, self._serializer
                )
                error = None
        except Exception:  # an outcome that does not serialise: the step will run again
            _log.warning(
                "run %s: step %d (%s) not recorded: its outcome does not serialise",
                self._run_id,
                function_id,
                name,
            )
            return
        self._deferred.append(
            {
                "workflow_uuid": self._run_id,
                "function_id": function_id,
                "function_name": name,
                "output": output,
                "error": error,
                "serialization": serialization,
                "started_at_epoch_ms": started,
                "child_workflow_id": None,
            }
        )
        if not deferred:
            self.flush()


def _now_ms() -> int:
    return int(time.time() * 1000)


@final
class _StepWriter:
    """DBOS's write of step records (``_record_operation_result_txn``: the rows go in only
    while this process owns the workflow) as one statement, on a connection of its own:

        INSERT INTO operation_outputs (...)
            SELECT <row 1> WHERE EXISTS (<the workflow, owned by us, locked>)
            UNION ALL SELECT <row 2> WHERE EXISTS (...) ...

    in autocommit: one round trip and one commit per step (DBOS's record takes five on
    PostgreSQL: a ping, ``BEGIN``, the owner check, the ``INSERT``, ``COMMIT``). The owner
    check is in the statement: on PostgreSQL it locks the workflow's row
    (``FOR NO KEY UPDATE``, as DBOS does) until the commit; SQLite runs one writer at a time.
    The statements are built once per number of rows (building a SQLAlchemy statement per
    step was most of a step's cost)."""

    def __init__(self, system: SystemDatabase) -> None:
        self._system = system
        status = system.tables.workflow_status
        self._outputs = system.tables.operation_outputs
        self._owned = sa.exists(
            sa.select(status.c.owner_xid)
            .where(
                status.c.workflow_uuid == sa.bindparam("run_id", type_=sa.Text),
                status.c.owner_xid == sa.bindparam("owner", type_=sa.Text),
            )
            .with_for_update(key_share=True)  # SQLite has no row locks: not rendered
        )
        self._statements: dict[int, ReturningInsert[tuple[int]]] = {}
        self._connection: sa.Connection | None = None
        self._lock = threading.Lock()  # runs of other threads (DBOS's own loop) share it

    def _statement(self, count: int) -> ReturningInsert[tuple[int]]:
        statement = self._statements.get(count)
        if statement is None:
            rows = [
                sa.select(
                    *(sa.bindparam(f"{name}_{n}", type_=kind) for name, kind in _COLUMNS),
                    sa.null(),  # child_workflow_id
                    sa.literal(self._system.app_name, sa.Text),
                    self._system._now_ms_sql(),  # retention_timestamp, as DBOS stamps it
                ).where(self._owned)
                for n in range(count)
            ]
            names = [name for name, _ in _COLUMNS]
            columns = [*names, "child_workflow_id", "application_name", "retention_timestamp"]
            rows_select = rows[0] if count == 1 else sa.union_all(*rows)
            # RETURNING: the driver's row count of an INSERT ... SELECT is not always given.
            statement = self._statements[count] = (
                sa.insert(self._outputs)
                .from_select(columns, rows_select)
                .returning(self._outputs.c.function_id)
            )
        return statement

    def write(
        self, run_id: str, owner: str, rows: list[OperationResultInternal], completed: int
    ) -> None:
        """Insert ``rows`` in one statement, committed, if ``owner`` still owns the run.

        Raises:
            DBOSWorkflowConflictIDError: another process took the run over.
            DBOSStepNondeterminismError: a row is already recorded at one of these ids.
        """
        values: dict[str, object] = {"run_id": run_id, "owner": owner}
        for n, row in enumerate(rows):
            for name, _ in _COLUMNS:
                value = completed if name == "completed_at_epoch_ms" else row[name]  # type: ignore[literal-required]
                values[f"{name}_{n}"] = value
        statement = self._statement(len(rows))
        with self._lock:
            try:
                inserted = len(self._connect().execute(statement, values).fetchall())
            except IntegrityError as exc:
                raise DBOSStepNondeterminismError(run_id, rows[0]["function_id"]) from exc
        if inserted != len(rows):
            raise DBOSWorkflowConflictIDError(run_id)

    def _connect(self) -> sa.Connection:
        if self._connection is None:
            self._connection = self._system.engine.connect().execution_options(
                isolation_level="AUTOCOMMIT"
            )
        return self._connection

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


_COLUMNS: Final = (
    ("workflow_uuid", sa.Text),
    ("function_id", sa.Integer),
    ("function_name", sa.Text),
    ("output", sa.Text),
    ("error", sa.Text),
    ("serialization", sa.Text),
    ("started_at_epoch_ms", sa.BigInteger),
    ("completed_at_epoch_ms", sa.BigInteger),
)
"""The columns of a step record given per row, with their types."""

_writers: Final[weakref.WeakKeyDictionary[SystemDatabase, _StepWriter]] = (
    weakref.WeakKeyDictionary()
)


def _writer(system: SystemDatabase) -> _StepWriter:
    writer = _writers.get(system)
    if writer is None:
        writer = _writers[system] = _StepWriter(system)
    return writer


def close_writers() -> None:
    """Release the connections step records are written on (before DBOS is destroyed)."""
    for writer in list(_writers.values()):
        writer.close()
    _writers.clear()
