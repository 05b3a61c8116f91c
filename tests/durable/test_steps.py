"""What a durable run records as steps, in this process: model requests, tool calls, hook
decisions and compaction summaries, in the order they happen."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy
from dbos import DBOSClient

from llm_worker import (
    Finished,
    Item,
    LlmRequest,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Summary,
    ToolResult,
    tool,
)
from llm_worker.testing import assert_well_formed
from pod import (
    Continue,
    HookRegistry,
    Pod,
    PodSettings,
    SummaryText,
    ToolCallSummary,
    TraceEvent,
    events,
)
from pod.durable import (
    DurableAgent,
    DurableRuns,
    DurableSettings,
    SyncMode,
    launch,
    shutdown,
)
from pod.durable._agent import RunEnd

from .conftest import Scene


@tool
def lookup(key: str) -> str:
    """Look a key up."""
    return f"{key}: " + "x" * 400  # long results: compaction is soon due


class _Summariser:
    async def summarise(self, items: Sequence[Item], /) -> SummaryText:
        return SummaryText(text=f"{len(items)} items: lookups")


def _model(request: LlmRequest) -> ScriptedReply:
    done = sum(isinstance(i, ToolResult) for i in request.items)
    if any(isinstance(i, Summary) for i in request.items) and done >= 2:
        return ScriptedReply(text="done")
    call = ScriptedCall(name="lookup", arguments={"key": f"k{done}"}, call_id=f"c{done}")
    return ScriptedReply(calls=(call,))


def _allow(call: ToolCallSummary) -> Continue:
    del call
    return Continue()


hooks = HookRegistry()
hooks.on(events.PRE_TOOL_CALL, _allow)


def _parts() -> dict[str, Any]:
    return {
        "client": ScriptedClient(then=_model, record=False),
        "tools": [lookup],
        "hooks": hooks,
        "summariser": _Summariser(),
        "settings": PodSettings(compaction_threshold_tokens=300, compaction_keep_recent=2),
    }


compacting = DurableAgent("compacting", **_parts())
durable_trace: list[TraceEvent] = []
traced = DurableAgent("traced", **_parts(), trace=durable_trace.append)


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[str]:
    url = f"sqlite:///{tmp_path / 'durable.sqlite'}"
    await launch(DurableSettings(database=url))
    yield url
    shutdown()


async def test_every_call_is_a_step_in_order(database: str) -> None:
    outcome = await compacting.run("look up some keys", run_id="run-steps")

    assert isinstance(outcome.result, Finished)
    assert_well_formed(outcome.history)
    with DurableRuns(database) as runs:
        info, shown = runs.show("run-steps")
    assert shown[0].text.startswith("summary: ")  # the final history, compacted
    assert info.status == "finished"
    assert info.last_step == "pod.model"
    steps = runs_steps(database, "run-steps")
    assert steps[:3] == ["pod.model", "pod.hook:pre_tool_call", "pod.tool:lookup"]
    assert "pod.summary" in steps  # compaction's summary is a step too
    tool_steps = steps.count("pod.tool:lookup")
    assert tool_steps == steps.count("pod.hook:pre_tool_call") >= 2  # one decision per call


def runs_steps(database: str, run_id: str) -> list[str]:
    """The names of the steps of pod that DBOS recorded for ``run_id``, in order."""
    client = DBOSClient(system_database_url=database)
    try:
        steps = client.list_workflow_steps(run_id, load_output=False)
    finally:
        client.destroy()
    return [s["function_name"] for s in steps if s["function_name"].startswith("pod.")]


async def test_a_durable_run_traces_what_a_pod_traces_and_records_the_same_steps(
    database: str,
) -> None:
    durable_trace.clear()
    outcome = await traced.run("look up some keys", run_id="run-traced")
    await compacting.run("look up some keys", run_id="run-untraced")

    pod_trace: list[TraceEvent] = []
    pod = Pod(**_parts(), trace=pod_trace.append)
    assert await pod.run("look up some keys") == outcome.result
    assert durable_trace == pod_trace
    assert {e.actor for e in pod_trace} >= {"compaction", "PRE_TOOL_CALL", "TURN_END"}
    # Points without hooks are traced but not recorded: a trace adds no step.
    assert runs_steps(database, "run-traced") == runs_steps(database, "run-untraced")


async def test_the_history_is_published_in_parts_not_in_the_stored_result(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pod.durable._agent.HISTORY_PART_ITEMS", 3)
    outcome = await compacting.run("look up some keys", run_id="run-parts")

    client = DBOSClient(system_database_url=database)
    try:
        (status,) = client.list_workflows(workflow_ids=["run-parts"])
    finally:
        client.destroy()
    stored = status.output
    assert isinstance(stored, RunEnd)
    assert stored == RunEnd(
        result=outcome.result, usage=outcome.usage, history_parts=-(-len(outcome.history) // 3)
    )
    assert stored.history_parts >= 2
    with DurableRuns(database) as runs:
        assert runs.result("run-parts") == outcome
        _, shown = runs.show("run-parts")
    assert len(shown) == len(outcome.history)


@pytest.mark.parametrize(("sync", "expected"), [("normal", "off"), ("full", "on")])
async def test_sync_normal_turns_off_synchronous_commit_for_dbos_on_postgresql(
    sync: SyncMode, expected: str, postgres_scene: Scene
) -> None:
    from dbos._dbos import _get_dbos_instance  # DBOS's own engine: no public handle to it

    await launch(DurableSettings(database=postgres_scene.database, sync=sync))
    try:
        engine = _get_dbos_instance()._sys_db.engine
        with engine.connect() as connection:
            setting = connection.execute(sqlalchemy.text("SHOW synchronous_commit")).scalar()
    finally:
        shutdown()
    assert setting == expected
