"""Claude Code hooks guard durable runs: ``pod worker --claude-settings`` on PostgreSQL, its
run's worker killed with SIGKILL mid-run and restarted under its name to recover it.

The agent (``tests.durable.app:claude_agent``) has no tools of its own; the worker gives it
Claude Code's (``Bash``, ...) in ``--workdir``. Its model runs ``rm -rf keep`` (a
``PreToolUse`` hook denies it), then two ``echo`` commands; the worker is killed while the
model is asked for the second. Each hook logs what it read, with its process id.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from llm_worker import Finished, Message, ToolCall, ToolResult
from llm_worker.testing import assert_well_formed
from pod.durable import DurableRuns
from pod.durable._agent import claude_session_id

from .conftest import TIMEOUT, Scene, counts, kill

GUARD = """
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(data["cwd"], "hook_log.jsonl"), "a") as log:
    log.write(json.dumps({"pid": os.getppid(), "session_id": data["session_id"],
        "transcript_path": data["transcript_path"],
        "command": data["tool_input"]["command"]}) + "\\n")
if "rm" in data["tool_input"]["command"].split():
    sys.stderr.write("no rm here: " + data["tool_input"]["command"])
    sys.exit(2)
"""

SESSION = """
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(data["cwd"], "session_log.jsonl"), "a") as log:
    log.write(json.dumps({"pid": os.getppid(), "event": data["hook_event_name"],
        "source": data.get("source"), "reason": data.get("reason"),
        "session_id": data["session_id"]}) + "\\n")
if data["hook_event_name"] == "SessionStart":
    print("the project is a test fixture (" + data["source"] + ")")
"""


def _settings(workdir: Path) -> Path:
    for name, text in (("guard.py", GUARD), ("session.py", SESSION)):
        (workdir / name).write_text(text)

    def command(name: str) -> dict[str, Any]:
        return {"type": "command", "command": f"{sys.executable} {workdir / name}"}

    settings = workdir / "settings.json"
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [command("guard.py")]}],
        "SessionStart": [{"hooks": [command("session.py")]}],
        "SessionEnd": [{"hooks": [command("session.py")]}],
    }
    settings.write_text(json.dumps({"hooks": hooks}))
    return settings


def _worker(scene: Scene, workdir: Path, settings: Path) -> list[str]:
    return [
        "-m", "pod", "worker", "--app", "tests.durable.app:claude_agent",
        "--database", scene.database, "--executor-id", "w1",
        f"--claude-settings={settings}", f"--workdir={workdir}",
    ]  # fmt: skip


def _serving(scene: Scene, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while "serving" not in scene.output(process):
        assert process.poll() is None, scene.output(process)
        assert time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.05)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_guard_hook_guards_a_durable_run_and_its_session_survives_a_recovery(
    postgres_scene: Scene,
) -> None:
    scene = postgres_scene
    workdir = scene.folder / "project"
    workdir.mkdir()
    (workdir / "keep").write_text("precious\n")
    settings = _settings(workdir)
    first = scene.start(_worker(scene, workdir, settings), POD_TEST_BLOCK_MODEL="2")
    _serving(scene, first)
    submitted = scene.run(
        [
            "-m",
            "pod",
            "submit",
            "go",
            "--agent=claude",
            "--run-id=run-c1",
            "--database",
            scene.database,
        ]
    )
    assert submitted.returncode == 0, submitted.stderr
    scene.wait_for("blocked", first)  # asked for the third command
    kill(first)
    before = _lines(workdir / "hook_log.jsonl")
    assert [entry["command"] for entry in before] == ["rm -rf keep", "echo hi >> made.txt"]

    second = scene.start(_worker(scene, workdir, settings))  # the same name: it recovers
    with DurableRuns(scene.database) as runs:
        deadline = time.monotonic() + TIMEOUT
        while runs.get("run-c1").status != "finished":
            assert second.poll() is None, scene.output(second)
            assert time.monotonic() < deadline, "the recovered run did not finish"
            time.sleep(0.1)
        outcome = runs.result("run-c1")

    # The guard: the rm never ran, the model was told why; the other commands ran once.
    assert (workdir / "keep").read_text() == "precious\n"
    assert (workdir / "made.txt").read_text() == "hi\nagain\n"
    assert outcome.result == Finished(text="claude: done", turn=0)
    assert_well_formed(outcome.history)
    results = {i.call_id: i for i in outcome.history if isinstance(i, ToolResult)}
    assert "no rm here: rm -rf keep" in results["bash-0"].content
    assert counts(scene.events(), "model ") == {
        "claude:0": 1,
        "claude:1": 1,
        "claude:2": 2,
        "claude:3": 1,
    }

    # One session across the crash: the id derived from the run id, one transcript.
    hooks = _lines(workdir / "hook_log.jsonl")
    assert [entry["command"] for entry in hooks] == [
        "rm -rf keep",
        "echo hi >> made.txt",
        "echo again >> made.txt",
    ]
    session_id = claude_session_id("run-c1")
    assert {entry["session_id"] for entry in hooks} == {session_id}
    transcript = workdir / ".pod" / "transcripts" / f"{session_id}.jsonl"
    assert {entry["transcript_path"] for entry in hooks} == {str(transcript)}
    assert hooks[0]["pid"] == hooks[1]["pid"] != hooks[2]["pid"]  # before and after

    # SessionStart: startup in the first worker, resume in the one that recovered the run;
    # SessionEnd once, at the end. Only the startup context reached the model, once.
    sessions = _lines(workdir / "session_log.jsonl")
    assert [(e["event"], e["source"] or e["reason"]) for e in sessions] == [
        ("SessionStart", "startup"),
        ("SessionStart", "resume"),
        ("SessionEnd", "other"),
    ]
    assert {e["session_id"] for e in sessions} == {session_id}
    assert sessions[0]["pid"] == hooks[0]["pid"]
    assert sessions[1]["pid"] == sessions[2]["pid"] == hooks[2]["pid"]
    told = [
        i.text for i in outcome.history if isinstance(i, Message) and "[notification]" in i.text
    ]
    assert told == ["[notification] the project is a test fixture (startup)"]

    # The transcript, kept up to date across the crash: each call written once.
    lines = _lines(transcript)
    assert {line["sessionId"] for line in lines} == {session_id}
    written = [
        block["id"]
        for line in lines
        if line["type"] == "assistant"
        for block in line["message"]["content"]
        if block["type"] == "tool_use"
    ]
    assert written == ["bash-0", "bash-1", "bash-2"]
    assert [c.call_id for c in outcome.history if isinstance(c, ToolCall)] == written
