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
- written by DBOS's own code for it (``_record_operation_result_txn``: the check that this
  process still owns the workflow, then the ``INSERT``), in the event loop's thread, committed
  before the run goes on; several rows (hook decisions, with the step they lead to) in one
  transaction;
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
- ``SystemDatabase.engine``, ``._own_key(workflow_id)``,
  ``._record_operation_result_txn(result, completed_at_epoch_ms, connection)`` and
  ``.list_workflow_steps(workflow_id, load_output=True)``; the keys of
  ``dbos._sys_db.OperationResultInternal``;
- ``dbos._serialization.serialize_value`` and ``serialize_exception``.
"""

# This module is where pod uses DBOS's private code (listed above), and the only one.
# pyright: reportPrivateUsage=false

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar, final

from dbos._context import DBOSContext, get_local_dbos_context
from dbos._dbos import _get_dbos_instance
from dbos._serialization import serialize_exception, serialize_value
from dbos._sys_db import OperationResultInternal

from ._steps import POD_STEP, StepMismatchError

__all__ = ["DbosRecordedSteps", "DbosStepRecord", "recorded_steps"]

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
        completed = _now_ms()
        system = self._system
        with system._own_key(self._run_id), system.engine.begin() as connection:
            for row in rows:
                system._record_operation_result_txn(row, completed, connection)

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
