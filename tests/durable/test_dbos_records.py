"""A durable run's steps are DBOS's own step records: DBOS lists them, replays them (its fork
and its recovery), and the DBOS internals that write them are still there."""

from __future__ import annotations

import inspect
import pickle
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

import pytest
from dbos import DBOS, SetWorkflowID

from llm_worker import (
    Finished,
    LlmRequest,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolResult,
    tool,
)
from pod import Continue, HookRegistry, ToolCallSummary, events
from pod.durable import DurableAgent, DurableSettings, StepMismatchError, launch, shutdown
from pod.durable._dbos_records import DbosRecordedSteps

calls: list[str] = []


@tool
def fetch(key: str) -> str:
    """Fetch a key."""
    calls.append(key)
    return f"{key}=value"


def _model(request: LlmRequest) -> ScriptedReply:
    done = sum(isinstance(i, ToolResult) for i in request.items)
    if done >= 2:
        return ScriptedReply(text="fetched")
    call = ScriptedCall(name="fetch", arguments={"key": f"k{done}"}, call_id=f"c{done}")
    return ScriptedReply(calls=(call,))


def _allow(call: ToolCallSummary) -> Continue:
    del call
    return Continue()


_hooks = HookRegistry()
_hooks.on(events.PRE_TOOL_CALL, _allow)
fetching: Final = DurableAgent(
    "fetching", ScriptedClient(then=_model, record=False), tools=[fetch], hooks=_hooks
)

step_name = "pod.tool:retired"
"""The name the test workflow gives its one step (a test changes it, as a new release would)."""


@DBOS.workflow(name="pod.test/one-step")
async def one_step() -> str:
    steps = DbosRecordedSteps()

    async def answer() -> str:
        return "old"

    return await steps.step(step_name, answer)


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[str]:
    url = f"sqlite:///{tmp_path / 'durable.sqlite'}"
    await launch(DurableSettings(database=url))
    calls.clear()
    yield url
    shutdown()


async def test_dbos_lists_the_steps_of_a_run_between_its_own_operations(database: str) -> None:
    outcome = await fetching.run("fetch two keys", run_id="run-listed")
    assert isinstance(outcome.result, Finished)

    steps = await DBOS.list_workflow_steps_async("run-listed")

    names = [step["function_name"] for step in steps]
    assert names == [
        "pod.model",
        "pod.hook:pre_tool_call",
        "pod.tool:fetch",
        "pod.model",
        "pod.hook:pre_tool_call",
        "pod.tool:fetch",
        "pod.model",
        "DBOS.setEvent",  # the history, published by DBOS's own operation
    ]
    assert [step["function_id"] for step in steps] == list(range(1, len(steps) + 1))
    assert [s["output"] for s in steps if s["function_name"] == "pod.tool:fetch"] == [
        "k0=value",
        "k1=value",
    ]
    assert all(step["error"] is None for step in steps)
    assert all(
        step["started_at_epoch_ms"] is not None and step["completed_at_epoch_ms"] is not None
        for step in steps
    )


async def test_dbos_fork_replays_the_recorded_steps_and_runs_the_rest(database: str) -> None:
    first = await fetching.run("fetch two keys", run_id="run-forked")
    assert calls == ["k0", "k1"]

    # Start again from the second model request: the first call's steps are copied, not run.
    handle = await DBOS.fork_workflow_async("run-forked", 4)
    end = await handle.get_result()

    assert calls == ["k0", "k1", "k1"]
    assert end.result == first.result
    forked = await DBOS.list_workflow_steps_async(handle.get_workflow_id())
    assert [s["function_name"] for s in forked][:3] == [
        "pod.model",
        "pod.hook:pre_tool_call",
        "pod.tool:fetch",
    ]


async def test_a_replay_that_meets_another_step_fails_the_run(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SetWorkflowID("run-changed"):
        assert await one_step() == "old"
    monkeypatch.setattr(f"{__name__}.step_name", "pod.model")  # the code changed

    handle = await DBOS.fork_workflow_async("run-changed", 2)  # step 1 is replayed
    with pytest.raises(StepMismatchError) as caught:
        await handle.get_result()

    assert str(caught.value) == (
        f"run {handle.get_workflow_id()}: step 1 is 'pod.model' now but was recorded as"
        " 'pod.tool:retired' (did the agent change?)"
    )
    assert pickle.loads(pickle.dumps(caught.value)).args == caught.value.args


@DBOS.workflow(name="pod.test/write-rows")
async def write_rows() -> list[str]:
    """Write step records as another process would, then as this one would, twice."""
    from dbos._context import get_local_dbos_context
    from dbos._dbos import _get_dbos_instance
    from dbos._error import DBOSStepNondeterminismError, DBOSWorkflowConflictIDError

    from pod.durable._dbos_records import _writer

    context = get_local_dbos_context()
    assert context is not None
    assert context.owner_xid is not None
    run_id, owner = context.workflow_id, context.owner_xid
    row = {
        "workflow_uuid": run_id,
        "function_id": 7,
        "function_name": "pod.model",
        "output": "x",
        "error": None,
        "serialization": None,
        "started_at_epoch_ms": 1,
        "child_workflow_id": None,
    }
    writer = _writer(_get_dbos_instance()._sys_db)
    failures: list[str] = []
    try:
        writer.write(run_id, "another-process", [row], 2)  # type: ignore[list-item]
    except DBOSWorkflowConflictIDError:
        failures.append("not owned")
    writer.write(run_id, owner, [row, row | {"function_id": 8}], 2)  # type: ignore[list-item]
    try:
        writer.write(run_id, owner, [row | {"function_id": 8}], 3)  # type: ignore[list-item]
    except DBOSStepNondeterminismError:
        failures.append("recorded already")
    context.function_id = 8  # the ids written above are taken
    return failures


async def test_a_record_goes_in_only_while_this_process_owns_the_run_and_only_once(
    database: str,
) -> None:
    with SetWorkflowID("run-owned"):
        assert await write_rows() == ["not owned", "recorded already"]

    steps = await DBOS.list_workflow_steps_async("run-owned")
    assert [(s["function_id"], s["function_name"]) for s in steps] == [
        (7, "pod.model"),
        (8, "pod.model"),
    ]


async def test_steps_are_taken_inside_a_workflow_only(database: str) -> None:
    with pytest.raises(RuntimeError, match="inside its DBOS workflow"):
        DbosRecordedSteps()


async def test_the_dbos_internals_used_are_there(database: str) -> None:
    """``pod.durable._dbos_records`` writes DBOS's step records with DBOS's private code; if
    an upgrade of DBOS moves or changes it, this fails before a run does."""
    from dbos import _context, _dbos, _schemas, _serialization, _sys_db
    from dbos._schemas import system_database  # noqa: F401  (loads the submodule)

    assert callable(_dbos._get_dbos_instance)
    assert callable(_context.get_local_dbos_context)
    context = _context.DBOSContext()
    for attribute in ("workflow_id", "function_id", "serialization_type"):
        assert hasattr(context, attribute), attribute
    assert callable(context.is_workflow)
    # The id of the next operation is the last one + 1, as DBOS's steps take it.
    context.function_id = 4
    assert context.snapshot_step_ctx().function_id == 5
    assert context.function_id == 5

    assert hasattr(context, "owner_xid")

    system = _sys_db.SystemDatabase
    for name in ("_now_ms_sql", "list_workflow_steps", "_wf", "_wf_values"):
        assert callable(getattr(system, name)), name
    assert "load_output" in inspect.signature(system.list_workflow_steps).parameters
    # The statement the records are written with is DBOS's row: every column of
    # operation_outputs is given, and a row is found by workflow id alone (unsharded).
    schema = _schemas.system_database.SystemSchema
    assert set(schema.operation_outputs.columns.keys()) == {
        "workflow_uuid",
        "function_id",
        "function_name",
        "output",
        "error",
        "child_workflow_id",
        "started_at_epoch_ms",
        "completed_at_epoch_ms",
        "serialization",
        "application_name",
        "retention_timestamp",
    }
    assert {"workflow_uuid", "owner_xid"} <= set(schema.workflow_status.columns.keys())
    launched = _dbos._get_dbos_instance()._sys_db
    assert launched.tables is schema
    assert launched._is_sqlite is True
    assert launched.app_name == "llm-pod"
    assert launched._wf(schema.operation_outputs, "x")[0].compare(
        schema.operation_outputs.c.workflow_uuid == "x"
    )
    assert launched._wf_values("x") == {}
    assert set(_sys_db.OperationResultInternal.__annotations__) == {
        "workflow_uuid",
        "function_id",
        "function_name",
        "output",
        "error",
        "serialization",
        "started_at_epoch_ms",
        "child_workflow_id",
    }
    for function in (_serialization.serialize_value, _serialization.serialize_exception):
        assert list(inspect.signature(function).parameters)[1:] in (
            ["serialization_type", "serializer"],
            ["serialization", "serializer"],
        )
