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
from tests.isolation.conftest import wait_until_dead

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


def _project(scene: Scene, scripts: dict[str, str], hooks: dict[str, list[str]]) -> Path:
    """A project folder holding ``keep``, the hook ``scripts`` and ``settings.json``, whose
    ``hooks`` maps each event to the scripts it runs (tool events: for ``Bash``; one named
    ``persistent_*`` in persistent mode); return the settings file."""
    workdir = scene.folder / "project"
    workdir.mkdir()
    (workdir / "keep").write_text("precious\n")
    for name, text in scripts.items():
        (workdir / name).write_text(text)

    def entry(name: str) -> dict[str, Any]:
        hook: dict[str, Any] = {"type": "command", "command": f"{sys.executable} {workdir / name}"}
        if name.startswith("persistent_"):
            hook["pod"] = {"persistent": True}
        return hook

    def group(event: str, names: list[str]) -> dict[str, Any]:
        tools = event in ("PreToolUse", "PermissionRequest")
        return {"matcher": "Bash" if tools else "", "hooks": [entry(name) for name in names]}

    settings = workdir / "settings.json"
    settings.write_text(json.dumps({"hooks": {e: [group(e, n)] for e, n in hooks.items()}}))
    return settings


def _worker(scene: Scene, settings: Path, *options: str, **env: str) -> subprocess.Popen[str]:
    """A ``pod worker`` serving the ``claude`` agent, guarded by ``settings``, once it serves."""
    argv = [
        "-m", "pod", "worker", "--app", "tests.durable.app:claude_agent",
        "--database", scene.database, f"--claude-settings={settings}",
        f"--workdir={settings.parent}", *options,
    ]  # fmt: skip
    process = scene.start(argv, **env)
    deadline = time.monotonic() + TIMEOUT
    while "serving" not in scene.output(process):
        assert process.poll() is None, scene.output(process)
        assert time.monotonic() < deadline, "the worker did not start"
        time.sleep(0.05)
    return process


def _pod(scene: Scene, *argv: str) -> None:
    done = scene.run(["-m", "pod", *argv, "--database", scene.database])
    assert done.returncode == 0, done.stderr


def _wait_for_status(
    scene: Scene, runs: DurableRuns, run_id: str, status: str, worker: subprocess.Popen[str]
) -> None:
    deadline = time.monotonic() + TIMEOUT
    while runs.get(run_id).status != status:
        assert worker.poll() is None, scene.output(worker)
        assert time.monotonic() < deadline, f"the run is not {status}"
        time.sleep(0.1)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_guard_hook_guards_a_durable_run_and_its_session_survives_a_recovery(
    postgres_scene: Scene,
) -> None:
    scene = postgres_scene
    settings = _project(
        scene,
        {"guard.py": GUARD, "session.py": SESSION},
        {"PreToolUse": ["guard.py"], "SessionStart": ["session.py"], "SessionEnd": ["session.py"]},
    )
    workdir = settings.parent
    first = _worker(scene, settings, "--executor-id=w1", POD_TEST_BLOCK_MODEL="2")
    _pod(scene, "submit", "go", "--agent=claude", "--run-id=run-c1")
    scene.wait_for("blocked", first)  # asked for the third command
    kill(first)
    before = _lines(workdir / "hook_log.jsonl")
    assert [entry["command"] for entry in before] == ["rm -rf keep", "echo hi >> made.txt"]

    second = _worker(scene, settings, "--executor-id=w1")  # the same name: it recovers
    with DurableRuns(scene.database) as runs:
        _wait_for_status(scene, runs, "run-c1", "finished", second)
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
    assert "the context of SessionStart (resume) hooks is not given" in scene.output(second)

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


# Persistent: one line per event; logs its pid, to show which process answered.
ASK = """
import json, os, sys
for line in sys.stdin:
    cwd = json.loads(line)["cwd"]
    with open(os.path.join(cwd, "ask_pids.txt"), "a") as log:
        log.write(str(os.getpid()) + "\\n")
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "ask", "permissionDecisionReason": "a human looks at it"}}),
        flush=True)
"""

PERMISSION = """
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(data["cwd"], "asked.jsonl"), "a") as log:
    log.write(json.dumps({"event": data["hook_event_name"],
        "about": data.get("tool_input", {}).get("command") or data.get("notification_type"),
        "session_id": data["session_id"]}) + "\\n")
command = data.get("tool_input", {}).get("command", "")
if data["hook_event_name"] == "PermissionRequest" and command.startswith("echo"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
        "decision": {"behavior": "allow"}}}))
"""


def test_permission_request_hooks_answer_a_durable_pause_and_notification_hears_the_rest(
    sqlite_scene: Scene,
) -> None:
    scene = sqlite_scene
    settings = _project(
        scene,
        {"persistent_ask.py": ASK, "permission.py": PERMISSION},
        {
            "PreToolUse": ["persistent_ask.py"],
            "PermissionRequest": ["permission.py"],
            "Notification": ["permission.py"],
        },
    )
    workdir = settings.parent
    worker = _worker(scene, settings)
    _pod(scene, "submit", "go", "--agent=claude", "--run-id=run-p1")
    with DurableRuns(scene.database) as runs:
        _wait_for_status(scene, runs, "run-p1", "paused", worker)  # the rm: nobody allowed it
        assert runs.get("run-p1").pending_calls == ("bash-0",)
        _pod(scene, "approve", "run-p1", "--skip=bash-0=not rm")
        _wait_for_status(scene, runs, "run-p1", "finished", worker)  # the echos: allowed
        outcome = runs.result("run-p1")

    assert (workdir / "keep").read_text() == "precious\n"
    assert (workdir / "made.txt").read_text() == "hi\nagain\n"
    results = {i.call_id: i.content for i in outcome.history if isinstance(i, ToolResult)}
    assert "not rm" in results["bash-0"]
    asked = _lines(workdir / "asked.jsonl")
    assert [(entry["event"], entry["about"]) for entry in asked] == [
        ("PermissionRequest", "rm -rf keep"),
        ("Notification", "permission_prompt"),  # a human was waited for once
        ("PermissionRequest", "echo hi >> made.txt"),
        ("PermissionRequest", "echo again >> made.txt"),
    ]
    assert {entry["session_id"] for entry in asked} == {claude_session_id("run-p1")}
    # The persistent guard's process ends while the run waits for a human, and with the run.
    first, second, third = (workdir / "ask_pids.txt").read_text().split()
    assert first != second == third
    assert wait_until_dead(int(first))
    assert wait_until_dead(int(second))
