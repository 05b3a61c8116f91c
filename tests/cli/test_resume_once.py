"""A saved run is resumed once: two ``pod resume`` of one file, in two real processes, run
the approved call once; a resume that died before saving leaves the state, and refuses."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.conftest import PROMPT, ReplayServer, chat_reply, pod_command
from tests.cli.test_saved_runs import saved_path

SLOW_TOOLS = '''
import time
from pathlib import Path

from llm_worker import tool


@tool
def deploy(target: str) -> str:
    """Deploy."""
    with Path("runs.log").open("a") as log:
        log.write(target + "\\n")
    time.sleep(3)
    return "deployed"


TOOLS = [deploy]
'''

ASK = """
from pod import HookRegistry, Pause, ToolCallSummary, events

registry = HookRegistry()


@registry.on(events.PRE_TOOL_CALL)
def ask(call: ToolCallSummary) -> Pause:
    return Pause(reason="a human decides")
"""

TAKEN = "this saved run is being resumed"


def _paused_run(server: ReplayServer, folder: Path) -> Path:
    (folder / "slow_tools.py").write_text(SLOW_TOOLS)
    (folder / "ask.py").write_text(ASK)
    server.reply_json(chat_reply(calls=(("call_1", "deploy", {"target": "prod"}),)))
    paused = pod_command(
        "run",
        PROMPT,
        "--model=openai:m",
        f"--base-url={server.url}/v1",
        "--api-key=k",
        "--hooks=ask.py:registry",
        "--tools=slow_tools.py:TOOLS",
        "--max-retries=0",
        cwd=folder,
    )
    assert paused.returncode == 5, paused.stderr
    return folder / saved_path(paused.stderr)


def _resume(path: Path, folder: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    return subprocess.Popen(
        [sys.executable, "-m", "pod", "resume", str(path), "--approve=call_1", "--api-key=k"],
        cwd=folder,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "COLUMNS": "200"},
    )


def _runs(folder: Path) -> list[str]:
    log = folder / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def test_two_resumes_of_one_saved_run_at_once_run_the_approved_call_once(
    server: ReplayServer, tmp_path: Path
) -> None:
    path = _paused_run(server, tmp_path)
    server.reply_json(chat_reply(text="done"))
    first, second = _resume(path, tmp_path), _resume(path, tmp_path)
    outcomes = sorted([(p.wait(timeout=60), p.communicate()[1]) for p in (first, second)])
    (won, _), (refused, refusal) = outcomes
    assert (won, refused) == (0, 2), outcomes
    assert TAKEN in refusal
    assert _runs(tmp_path) == ["prod"]
    saved = json.loads(path.read_text())
    assert saved["paused"] is None  # the winner saved the finished state
    assert saved["resumed_by"] is None


def test_a_resume_killed_mid_run_leaves_the_state_and_the_next_resume_refuses(
    server: ReplayServer, tmp_path: Path
) -> None:
    path = _paused_run(server, tmp_path)
    killed = _resume(path, tmp_path)
    deadline = time.monotonic() + 30
    while not _runs(tmp_path):  # the approved call is running
        assert killed.poll() is None, killed.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    killed.communicate()
    again = pod_command("resume", str(path), "--approve=call_1", "--api-key=k", cwd=tmp_path)
    assert again.returncode == 2
    assert TAKEN in again.stderr
    assert "may have run" in again.stderr
    assert _runs(tmp_path) == ["prod"]
    saved = json.loads(path.read_text())
    assert saved["resumed_by"].startswith(f"pid {killed.pid} at ")
    assert [call["call_id"] for call in saved["paused"]["pending_calls"]] == ["call_1"]


def test_a_saved_run_whose_state_disagrees_is_refused_and_left_as_it_was(
    server: ReplayServer, tmp_path: Path
) -> None:
    path = _paused_run(server, tmp_path)
    document = json.loads(path.read_text())
    document["pod"]["worker"]["state"]["batch"]["calls"][0]["call"]["arguments"] = "{}"
    path.write_text(json.dumps(document))
    before = path.read_bytes()
    refused = pod_command("resume", str(path), "--approve=call_1", "--api-key=k", cwd=tmp_path)
    assert refused.returncode == 2
    assert "inconsistent snapshot: pending call 'call_1' has another arguments" in refused.stderr
    assert path.read_bytes() == before
    assert _runs(tmp_path) == []
