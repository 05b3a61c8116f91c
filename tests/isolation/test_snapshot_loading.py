"""Snapshots: every way of loading refuses another version; restore checks what it is given."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, WorkerSnapshot, tool
from pod import HookRegistry, Pause, Pod, PodSnapshot, PodUsageError, SnapshotError, events
from pod.runtime._snapshot import POD_SNAPSHOT_VERSION

SCRIPT = (
    ScriptedReply(calls=(ScriptedCall("shell", {"command": "deploy"}, call_id="deploy"),)),
    ScriptedReply("all done"),
)


@tool
def shell(command: str) -> str:
    """Run a command."""
    return f"ran {command}"


@tool
def other(text: str) -> str:
    """Another tool."""
    return text


def approval_pod() -> Pod:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Pause(reason="approve?"))
    return Pod(ScriptedClient(SCRIPT), tools=[shell], hooks=registry)


async def _saved() -> dict[str, Any]:
    pod = approval_pod()
    await pod.run("ship it")
    document: dict[str, Any] = json.loads(pod.snapshot().to_json())
    return document


LOADERS: dict[str, Callable[[type[Any], dict[str, Any]], object]] = {
    "from_json": lambda cls, data: cls.from_json(json.dumps(data)),
    "model_validate_json": lambda cls, data: cls.model_validate_json(json.dumps(data)),
    "model_validate": lambda cls, data: cls.model_validate(data),
    "the constructor": lambda cls, data: cls(**data),
}


@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
@pytest.mark.parametrize("version", [99, 0, True, 1.0, "2", None])
async def test_every_way_of_loading_a_pod_snapshot_refuses_another_version(
    load: Callable[[type[Any], dict[str, Any]], object], version: object
) -> None:
    data = await _saved()
    load(PodSnapshot, data)  # the saved one loads
    data["version"] = version
    with pytest.raises(SnapshotError, match=r"^Pod snapshot version .* is not supported"):
        load(PodSnapshot, data)


@pytest.mark.parametrize("load", LOADERS.values(), ids=LOADERS.keys())
async def test_every_way_of_loading_a_worker_snapshot_refuses_another_version(
    load: Callable[[type[Any], dict[str, Any]], object],
) -> None:
    data = (await _saved())["worker"]
    load(WorkerSnapshot, data)
    data["version"] = 99
    with pytest.raises(SnapshotError, match=r"^snapshot version 99 is not supported"):
        load(WorkerSnapshot, data)
    pod_data = await _saved()
    pod_data["worker"]["version"] = 99
    with pytest.raises(SnapshotError, match=r"^snapshot version 99 is not supported"):
        load(PodSnapshot, pod_data)


async def test_an_inconsistent_worker_snapshot_is_refused_by_model_validate_json_too() -> None:
    data = (await _saved())["worker"]
    data["history"] = []  # the pending calls are no longer in the history
    with pytest.raises(SnapshotError, match=r"^inconsistent snapshot: pending call"):
        WorkerSnapshot.model_validate_json(json.dumps(data))


async def test_restore_refuses_text_with_a_clear_error_and_changes_nothing() -> None:
    text = json.dumps(await _saved())
    fresh = approval_pod()
    with pytest.raises(
        PodUsageError,
        match=r"^restore takes a PodSnapshot, not str; load saved text with "
        r"PodSnapshot\.from_json\(text\)$",
    ):
        fresh.restore(text)  # type: ignore[arg-type]
    assert fresh.status == "idle"
    fresh.restore(PodSnapshot.from_json(text))
    assert fresh.status == "paused"


async def test_a_snapshot_records_its_tools_and_restore_refuses_other_tools() -> None:
    data = await _saved()
    assert data["tool_names"] == ["shell"]
    assert data["version"] == POD_SNAPSHOT_VERSION == 2
    snapshot = PodSnapshot.model_validate(data)
    for tools, named in (([other], r"\[other\]"), ([], "no tools")):
        pod = Pod(ScriptedClient(SCRIPT), tools=tools)
        with pytest.raises(
            SnapshotError,
            match=rf"^the snapshot was taken with tools \[shell\]; this Pod has {named}",
        ):
            pod.restore(snapshot)
        assert pod.status == "idle"
        assert pod.history == ()
