"""Snapshots: every way of loading refuses another version; restore checks what it is given."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from llm_worker import (
    MAX_SNAPSHOT_BYTES,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    WorkerSnapshot,
    tool,
)
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


# -- the state must agree with the history (issue 23, part 2) -----------------------------

DEPLOY = '{"command": "deploy"}'
OTHER_ARGUMENTS = '{"command": "rm -rf /"}'


def _call(document: dict[str, Any]) -> dict[str, Any]:
    call: dict[str, Any] = document["worker"]["state"]["batch"]["calls"][0]["call"]
    return call


def _history(document: dict[str, Any]) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = document["worker"]["history"]
    return history


def _result(call_id: str, name: str = "shell") -> dict[str, Any]:
    return {"kind": "tool_result", "call_id": call_id, "name": name, "content": "ok"}


def _state_runs_other_arguments(document: dict[str, Any]) -> None:
    _call(document)["arguments"] = OTHER_ARGUMENTS


def _history_shows_other_arguments(document: dict[str, Any]) -> None:
    _history(document)[1]["arguments"] = OTHER_ARGUMENTS


def _state_renames_the_tool(document: dict[str, Any]) -> None:
    _call(document)["name"] = "other"


def _orphan_result(document: dict[str, Any]) -> None:
    _history(document).append(_result("ghost"))


def _duplicate_call_id(document: dict[str, Any]) -> None:
    _history(document).append({**_history(document)[1], "arguments": OTHER_ARGUMENTS})


def _second_result(document: dict[str, Any]) -> None:
    _history(document).insert(1, {**_history(document)[1], "call_id": "earlier"})
    _history(document)[2:2] = [_result("earlier"), _result("earlier")]


def _result_under_another_name(document: dict[str, Any]) -> None:
    _history(document).insert(1, {**_history(document)[1], "call_id": "earlier"})
    _history(document).insert(2, _result("earlier", name="other"))


def _idle_with_an_open_call(document: dict[str, Any]) -> None:
    state = document["worker"]["state"]
    state.update(status="idle", point="idle", batch=None)


BROKEN: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "state runs other arguments": (
        _state_runs_other_arguments,
        "pending call 'deploy' has another arguments in the state ('{\"command\": \"rm -rf /\"}')",
    ),
    "history shows other arguments": (
        _history_shows_other_arguments,
        "pending call 'deploy' has another arguments in the state ('{\"command\": \"deploy\"}')",
    ),
    "renamed tool": (_state_renames_the_tool, "pending call 'deploy' has another name"),
    "orphan result": (_orphan_result, "result 'ghost' (item 2) follows no call of that id"),
    "duplicate call id": (_duplicate_call_id, "call id 'deploy' appears twice (item 2)"),
    "second result": (_second_result, "call 'earlier' has a second result (item 3)"),
    "result under another name": (
        _result_under_another_name,
        "result 'earlier' is named 'other'; its call is to 'shell'",
    ),
    "idle with an open call": (
        _idle_with_an_open_call,
        "call 'deploy' has no result and the idle state has no pending call for it",
    ),
}


@pytest.mark.parametrize(("damage", "problem"), BROKEN.values(), ids=BROKEN.keys())
async def test_a_snapshot_whose_state_disagrees_with_its_history_is_refused_naming_it(
    damage: Callable[[dict[str, Any]], None], problem: str
) -> None:
    document = await _saved()
    damage(document)
    text = json.dumps(document)
    with pytest.raises(SnapshotError) as refused:
        PodSnapshot.from_json(text)
    assert str(refused.value).startswith(f"inconsistent snapshot: {problem}")
    with pytest.raises(SnapshotError):  # the other loaders run the same check
        PodSnapshot.model_validate_json(text)


async def test_a_snapshot_over_the_size_limit_is_refused_before_it_is_parsed() -> None:
    document = await _saved()
    document["pending_notifications"] = ["x" * MAX_SNAPSHOT_BYTES]
    with pytest.raises(SnapshotError, match=r"^not a Pod snapshot: [\d,]+ bytes is over the limit"):
        PodSnapshot.from_json(json.dumps(document))
