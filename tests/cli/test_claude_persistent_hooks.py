"""Persistent Claude Code hooks through ``pod run --claude-settings``: an entry's ``"pod":
{"persistent": true}`` (an llm-pod extension) keeps one process that reads one JSON request a
line and answers one line. Each test asserts what the model received, what the tool did, and
which process answered."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.cli.conftest import ReplayServer, chat_reply
from tests.cli.test_claude_code_hooks_e2e import (
    run_settings,
    script,
    tool_log,
    tool_messages,
    workspace,
)

__all__ = ["workspace"]  # the fixture, imported for pytest

# Denies Bash commands containing rm; logs each request's pid; "crash" (the Nth process's
# first request, N given) exits before answering.
LINE_GUARD = """
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
starts = os.path.join(here, "starts.txt")
with open(starts, "a") as file:
    file.write("x")
crash_in = int(sys.argv[1]) if len(sys.argv) > 1 else 0
started = len(open(starts).read())
for line in sys.stdin:
    request = json.loads(line)
    with open(os.path.join(here, "asked.jsonl"), "a") as log:
        log.write(json.dumps({"pid": os.getpid(), "event": request["hook_event_name"],
            "tool_input": request["tool_input"]}) + "\\n")
    if started == crash_in:
        sys.stderr.write("line guard crashed on purpose\\n")
        sys.exit(3)
    if request["hook_event_name"] == "PostToolUse":
        answer = {"decision": "block", "reason": "checked " + request["tool_input"]["command"]}
    elif "rm" in request["tool_input"]["command"].split():
        answer = {"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "rm is not allowed"}}
    else:
        answer = {}
    print(json.dumps(answer), flush=True)
"""


def persistent(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "pod": {"persistent": True}}


def asked(workspace: Path) -> list[dict[str, Any]]:
    lines = (workspace / "asked.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_one_process_guards_every_call_of_the_run(server: ReplayServer, workspace: Path) -> None:
    guard = script(workspace, "guard.py", LINE_GUARD)
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [persistent(f"{sys.executable} {guard}")]}]
    }
    server.reply_json(
        chat_reply(
            calls=(("c_rm", "Bash", {"command": "rm -rf /"}), ("c_ls", "Bash", {"command": "ls"}))
        )
    )
    server.reply_json(chat_reply(calls=(("c_pwd", "Bash", {"command": "pwd"}),)))
    server.reply_json(chat_reply(text="done"))
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    assert out.strip() == "done"
    assert "rm is not allowed" in tool_messages(server, 1)["c_rm"]
    assert tool_messages(server, 1)["c_ls"] == "ran: ls"
    assert tool_messages(server, 2)["c_pwd"] == "ran: pwd"
    assert tool_log(workspace) == [
        {"tool": "Bash", "command": "ls"},
        {"tool": "Bash", "command": "pwd"},
    ]
    seen = asked(workspace)
    assert sorted(entry["tool_input"]["command"] for entry in seen) == ["ls", "pwd", "rm -rf /"]
    assert len({entry["pid"] for entry in seen}) == 1  # one process for the three calls
    assert (workspace / "starts.txt").read_text() == "x"


def test_a_guard_process_that_dies_mid_answer_fails_closed_naming_its_stderr(
    server: ReplayServer, workspace: Path
) -> None:
    guard = script(workspace, "guard.py", LINE_GUARD)
    hook = f"{sys.executable} {guard} 1"  # the first process crashes
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [persistent(hook)]}]}
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    status, _, err = run_settings(server, workspace, hooks)
    assert status == 1
    assert tool_log(workspace) == []
    [line] = [line for line in err.splitlines() if "before answering" in line]
    assert hook in line
    assert "exited with status 3 before answering" in line
    assert line.endswith("line guard crashed on purpose")
    assert "Traceback" not in err


def test_an_observe_only_process_that_dies_warns_and_is_restarted_for_the_next_event(
    server: ReplayServer, workspace: Path
) -> None:
    checker = script(workspace, "guard.py", LINE_GUARD)
    hook = f"{sys.executable} {checker} 1"
    hooks = {"PostToolUse": [{"matcher": "Bash", "hooks": [persistent(hook)]}]}
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(calls=(("c2", "Bash", {"command": "pwd"}),)))
    server.reply_json(chat_reply(text="done"))
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    assert out.strip() == "done"
    [warning] = [line for line in err.splitlines() if "before answering" in line]
    assert hook in warning
    assert "line guard crashed on purpose" in warning
    assert tool_messages(server, 1)["c1"] == "ran: ls"  # no feedback: the hook failed
    assert tool_messages(server, 2)["c2"] == "ran: pwd\n\n[hook feedback] checked pwd"
    assert (workspace / "starts.txt").read_text() == "xx"  # restarted once
    assert len({entry["pid"] for entry in asked(workspace)}) == 2
