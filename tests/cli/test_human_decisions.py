"""Every human decision is in the trace and in ``--json``, and ``--json`` decisions are data
(``{"kind", "reason", "hook"}``), not display strings (issue 27)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import (
    PROMPT,
    ReplayServer,
    pod_command,
    queue_weather_session,
    run_arguments,
)


def test_resume_decisions_are_traced_as_a_persons_with_structured_decisions(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), "--json", cwd=tmp_path)
    assert paused.returncode == 5, paused.stderr
    lines = [json.loads(line) for line in paused.stdout.splitlines()]
    [pause] = [line for line in lines if line.get("actor") == "PRE_TOOL_CALL"]
    assert pause["decision"] == {
        "kind": "Pause",
        "reason": "get_weather needs a human",
        "hook": "approval_hooks.ask_first",
    }
    saved = lines[-1]["snapshot"]
    copy = tmp_path / "copy.json"  # resuming updates the file: a second one for the text trace
    copy.write_bytes((tmp_path / saved).read_bytes())

    resumed = pod_command(
        "resume",
        saved,
        "--api-key=k",
        "--approve",
        "call_paris",
        "--skip",
        "call_tokyo=not today",
        "--json",
        cwd=tmp_path,
    )
    assert resumed.returncode == 0, resumed.stderr
    people = [
        line
        for line in map(json.loads, resumed.stdout.splitlines())
        if line.get("source") == "person"
    ]
    assert people == [
        {
            "type": "trace",
            "source": "person",
            "actor": "PRE_TOOL_CALL",
            "message": "call_paris get_weather",
            "decision": {"kind": "Continue", "reason": None, "hook": None},
        },
        {
            "type": "trace",
            "source": "person",
            "actor": "PRE_TOOL_CALL",
            "message": "call_tokyo get_weather",
            "decision": {"kind": "Skip", "reason": "not today", "hook": None},
        },
    ]

    shown = pod_command(
        "resume",
        str(copy),
        "--api-key=k",
        "--approve",
        "call_paris",
        "--approve",
        "call_tokyo",
        cwd=tmp_path,
    )
    assert "  person      PRE_TOOL_CALL   call_paris get_weather -> Continue" in shown.stderr
