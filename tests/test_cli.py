"""The `pod` command: events and schemas come from the catalogue, errors exit with 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pod import events
from pod.cli._main import main


def test_events_lists_every_event_with_its_fields_and_decisions(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["events"]) == 0
    out = capsys.readouterr().out
    for event in events.CATALOGUE:
        assert event.name.upper() in out
        assert event.input_type.__name__ in out
        for field in event.input_type.model_fields:
            assert f"{field}: " in out
    assert "Continue | Skip | Abort | Pause" in out
    assert "None (observe only)" in out


def test_schema_of_all_events_matches_the_catalogue(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert list(document) == [event.name for event in events.CATALOGUE]
    for event in events.CATALOGUE:
        assert document[event.name]["input"] == event.input_type.model_json_schema()
    pre_tool_output = document["pre_tool_call"]["output"]
    assert pre_tool_output["discriminator"]["propertyName"] == "decision"
    assert sorted(pre_tool_output["discriminator"]["mapping"]) == [
        "abort",
        "annotate",
        "continue",
        "pause",
        "rewrite",
        "skip",
    ]
    assert document["abort"]["output"] == {"type": "null"}
    described = document["pre_llm_request"]["input"]["properties"]["estimated_tokens"]
    assert "provider" in described["description"]


def test_schema_of_one_event_and_an_unknown_event(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "TURN_END"]) == 0
    assert list(json.loads(capsys.readouterr().out)) == ["turn_end"]
    assert main(["schema", "nope"]) == 2
    assert "no hook event 'nope'" in capsys.readouterr().err


def test_python_dash_m_pod_shows_help_for_every_command() -> None:
    for argv in ([], ["demo"], ["events"], ["schema"], ["run"], ["resume"]):
        done = subprocess.run(
            [sys.executable, "-m", "pod", *argv, "--help"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "usage: pod" in done.stdout


def test_events_spells_generic_field_types_out(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    assert main(["events"]) == 0
    out = capsys.readouterr().out
    assert "tool_names: tuple[str, ...]" in out
    assert "input_tokens: int | None" in out
