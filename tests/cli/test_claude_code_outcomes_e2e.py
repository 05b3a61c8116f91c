"""Claude Code hook outcomes end to end, through ``pod run`` against a local OpenAI-style
server: ``additionalContext`` where Claude Code delivers it, the merge of several hooks of
one event, ``PermissionRequest``'s ``updatedInput``/``interrupt``, a prompt hook's ``model``.

The tools and helpers are those of ``test_claude_code_hooks_e2e``: each tool records what it
did in ``tool_log.jsonl``; each test asserts what the model received and what the tool did.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.cli.conftest import ReplayServer, chat_reply
from tests.cli.test_claude_code_hooks_e2e import (
    command,
    run,
    run_settings,
    script,
    tool_log,
    tool_messages,
    workspace,
)

__all__ = ["workspace"]  # the fixture, shared

# Python: context before a call; reading .env is denied with context as well.
CONTEXT_BEFORE = """
import json, sys
data = json.load(sys.stdin)
path = data["tool_input"].get("file_path", "")
specific = {"hookEventName": "PreToolUse", "additionalContext": "note: " + path.split("/")[-1]}
if path.endswith(".env"):
    specific.update(permissionDecision="deny", permissionDecisionReason="no secrets")
else:
    specific.update(permissionDecision="allow")
print(json.dumps({"hookSpecificOutput": specific}))
"""

# Python: a Stop hook that adds context once (Claude Code then goes on with it).
CONTEXT_AT_STOP = """
import json, sys
data = json.load(sys.stdin)
if not data["stop_hook_active"]:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "Stop",
        "additionalContext": "end with one line: swept"}}))
"""


def test_pre_tool_use_context_reaches_the_model_with_the_result_and_stop_context_goes_on(
    server: ReplayServer, workspace: Path
) -> None:
    pre = script(workspace, "context.py", CONTEXT_BEFORE)
    stop = script(workspace, "stop.py", CONTEXT_AT_STOP)
    hooks = {
        "PreToolUse": [{"matcher": "Read", "hooks": [command(f"{sys.executable} {pre}")]}],
        "Stop": [{"hooks": [command(f"{sys.executable} {stop}")]}],
    }
    server.reply_json(
        chat_reply(
            calls=(
                ("c_readme", "Read", {"file_path": str(workspace / "README.md")}),
                ("c_env", "Read", {"file_path": str(workspace / ".env")}),
            )
        )
    )
    server.reply_json(chat_reply(text="read it"))  # Stop: context, the turn goes on
    server.reply_json(chat_reply(text="swept"))
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    assert out.strip() == "swept"
    seen = tool_messages(server, 1)
    # allow + additionalContext: the tool ran; the context follows its result.
    assert seen["c_readme"] == "hello\n\n\n[hook context] note: README.md"
    # deny + additionalContext: the call did not run; the context follows the refusal.
    assert seen["c_env"].startswith("tool call skipped: no secrets")
    assert seen["c_env"].endswith("\n\n[hook context] note: .env")
    assert "TOKEN=secret" not in json.dumps(server.requests[1].body)
    assert tool_log(workspace) == [{"tool": "Read", "file_path": str(workspace / "README.md")}]
    # Stop's additionalContext: the model's next message, and the turn went on.
    last = server.requests[2].body["messages"][-1]
    assert (last["role"], last["content"]) == ("user", "end with one line: swept")
    assert len(server.requests) == 3


# Python: sleeps a second between two timestamps it records, then answers as told.
TIMED = """
import json, sys, time
name, answer = sys.argv[1], sys.argv[2]
json.load(sys.stdin)
start = time.time()
time.sleep(1)
with open(name + ".times", "w") as out:
    json.dump([start, time.time()], out)
print(answer)
"""


def timed_hook(workspace: Path, name: str, answer: str) -> dict[str, object]:
    """A hook that runs TIMED (written once per workspace) as ``name``, printing ``answer``."""
    timed = workspace / "timed.py"
    if not timed.exists():
        script(workspace, "timed.py", TIMED)
    return {
        "type": "command",
        "command": sys.executable,
        "args": [str(timed), str(workspace / name), answer],
    }


def test_hooks_of_one_event_run_in_parallel_and_deny_beats_allow(
    server: ReplayServer, workspace: Path
) -> None:
    def answering(name: str, decision: str, context: str) -> dict[str, object]:
        answer = json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": decision,
                    "permissionDecisionReason": f"{name} says {decision}",
                    "additionalContext": context,
                }
            }
        )
        return timed_hook(workspace, name, answer)

    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [answering("allower", "allow", "allowed by one")]},
            {"matcher": "Bash|Read", "hooks": [answering("denier", "deny", "denied by two")]},
        ]
    }
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(text="done"))
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    assert out.strip() == "done"
    # deny beats allow: the tool did not run; the model got the denial and both contexts.
    assert tool_log(workspace) == []
    assert tool_messages(server, 1)["c1"] == (
        "tool call skipped: denier says deny\n\n[hook context] allowed by one\ndenied by two"
    )
    # Both hooks ran, at the same time: each started before the other ended.
    (a_start, a_end), (d_start, d_end) = (
        json.loads((workspace / f"{name}.times").read_text()) for name in ("allower", "denier")
    )
    assert a_start < d_end
    assert d_start < a_end


# Python: answers the approval pause of a Bash call: git push is approved as a dry run
# (updatedInput, plus updatedPermissions that llm-pod does not apply), rm stops the run.
APPROVER = """
import json, sys
data = json.load(sys.stdin)
command = data["tool_input"]["command"]
if command.startswith("rm"):
    decision = {"behavior": "deny", "message": "rm: stopping here", "interrupt": True}
else:
    decision = {"behavior": "allow", "updatedInput": {"command": command + " --dry-run"},
                "updatedPermissions": [{"type": "addRules", "behavior": "allow",
                                        "rules": [{"toolName": "Bash"}],
                                        "destination": "session"}]}
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                         "decision": decision}}))
"""
ASK = {
    "type": "command",
    "command": """echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'""",
}


def test_permission_request_approves_the_updated_input_and_interrupt_stops_the_run(
    server: ReplayServer, workspace: Path
) -> None:
    approver = script(workspace, "approver.py", APPROVER)
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [ASK]}],
        "PermissionRequest": [{"hooks": [command(f"{sys.executable} {approver}")]}],
    }
    server.reply_json(chat_reply(calls=(("c_push", "Bash", {"command": "git push"}),)))
    server.reply_json(chat_reply(calls=(("c_rm", "Bash", {"command": "rm -r build"}),)))
    server.reply_json(chat_reply(text="never asked"))
    status, _, err = run_settings(server, workspace, hooks)
    # updatedInput: the approved call ran with the hook's arguments, and the model's history
    # shows the call as it ran.
    assert tool_log(workspace) == [{"tool": "Bash", "command": "git push --dry-run"}]
    assert tool_messages(server, 1)["c_push"] == "ran: git push --dry-run"
    [call] = [
        c
        for m in server.requests[1].body["messages"]
        for c in m.get("tool_calls") or ()
        if c["id"] == "c_push"
    ]
    assert json.loads(call["function"]["arguments"]) == {"command": "git push --dry-run"}
    # updatedPermissions: one warning line that it is not applied (the rm call was asked).
    [line] = [line for line in err.splitlines() if "updatedPermissions" in line]
    assert "is not applied" in line
    # deny + interrupt: the run stopped there; the model was not asked again.
    assert len(server.requests) == 2
    assert status == 1, err  # aborted
    assert "rm: stopping here" in err


def test_a_prompt_hooks_model_is_the_model_its_question_goes_to(
    server: ReplayServer, workspace: Path
) -> None:
    judged = {"type": "prompt", "prompt": "Refuse rm. $ARGUMENTS", "model": "judge-small"}
    own = {"type": "prompt", "prompt": "Refuse curl. $ARGUMENTS"}
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [judged]}], "Stop": [{"hooks": [own]}]}
    server.reply_json(chat_reply(calls=(("c_rm", "Bash", {"command": "rm x"}),)))
    server.reply_json(chat_reply(text='{"ok": false, "reason": "no rm"}'))  # judge-small
    server.reply_json(chat_reply(text="gave up"))
    server.reply_json(chat_reply(text='{"ok": true}'))  # Stop: the run's own model
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    assert out.strip() == "gave up"
    models = [request.body["model"] for request in server.requests]
    assert models == ["m", "judge-small", "m", "m"]
    assert "no rm" in tool_messages(server, 2)["c_rm"]
    assert tool_log(workspace) == []


def test_hooks_of_several_files_merge_too_and_deny_beats_ask(
    server: ReplayServer, workspace: Path
) -> None:
    def answer(decision: str) -> dict[str, Any]:
        specific = {"permissionDecision": decision, "permissionDecisionReason": decision + "!"}
        return {
            "type": "command",
            "command": f"echo '{json.dumps({'hookSpecificOutput': specific})}'",
        }

    asking = workspace / "asking.json"
    asking.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [answer("ask")]}]}}))
    denying = workspace / "denying.json"
    denying.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [answer("deny")]}]}}))
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(text="done"))
    status, out, err = run(
        server, workspace, f"--claude-settings={asking}", f"--claude-settings={denying}"
    )
    # The ask of the first file does not pause the run before the second file's deny.
    assert status == 0, err
    assert out.strip() == "done"
    assert tool_messages(server, 1)["c1"] == "tool call skipped: deny!"
    assert tool_log(workspace) == []


def test_permission_request_hooks_all_answer_and_a_deny_beats_an_allow(
    server: ReplayServer, workspace: Path
) -> None:
    def answering(name: str, behavior: str) -> dict[str, Any]:
        decision = {"behavior": behavior, "message": f"{name}: {behavior}"}
        answer = json.dumps({"hookSpecificOutput": {"decision": decision}})
        return command(f"touch {workspace / name}; echo '{answer}'")

    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [ASK]}],
        "PermissionRequest": [
            {"hooks": [answering("allower", "allow")]},
            {"matcher": "Bash", "hooks": [answering("denier", "deny")]},
        ],
    }
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(text="done"))
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    assert out.strip() == "done"
    # The first hook's allow did not approve the call before the second hook was asked.
    assert tool_log(workspace) == []
    assert "denier: deny" in tool_messages(server, 1)["c1"]
    assert (workspace / "allower").exists()
    assert (workspace / "denier").exists()


def test_on_failure_continue_lets_a_failing_guard_through_and_block_stops_at_an_observer(
    server: ReplayServer, workspace: Path
) -> None:
    # Claude Code's onFailure (2.1.295): "continue" lets the call through when the hook
    # cannot answer; "block" stops what the hook guards, here the run after the call.
    lenient = {**command("echo 'policy service down' >&2; exit 1"), "onFailure": "continue"}
    strict = {**command("echo 'formatter crashed' >&2; exit 3"), "onFailure": "block"}
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [lenient]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [strict]}],
    }
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(text="not reached"))
    status, _, err = run_settings(server, workspace, hooks)

    assert [entry["command"] for entry in tool_log(workspace)] == ["ls"]  # let through
    [warning] = [line for line in err.splitlines() if "policy service down" in line]
    assert "exited with status 1" in warning
    assert warning.endswith("(ignored: on_error='ignore')")
    assert status != 0  # the observer's failure blocked: the run stopped after the call
    [stop] = [line for line in err.splitlines() if "formatter crashed" in line]
    assert "exited with status 3" in stop
    assert len(server.requests) == 1  # the model was not asked again
    assert "Traceback" not in err


def test_on_failure_of_a_parallel_group_is_each_hooks_own(
    server: ReplayServer, workspace: Path
) -> None:
    # Two PreToolUse hooks of one call run side by side; the one that may fail open does,
    # the other allows: the call runs, one warning names the failed hook.
    lenient = {**command("echo 'flaky check' >&2; exit 1"), "onFailure": "continue"}
    allow = command(
        'echo \'{"hookSpecificOutput": {"hookEventName": "PreToolUse",'
        ' "permissionDecision": "allow"}}\''
    )
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [lenient, allow]}]}
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(text="done"))
    status, out, err = run_settings(server, workspace, hooks)

    assert status == 0, err
    assert out.strip() == "done"
    assert tool_messages(server, 1)["c1"] == "ran: ls"
    [warning] = [line for line in err.splitlines() if "flaky check" in line]
    assert "exited with status 1" in warning


def test_session_start_hooks_run_side_by_side_and_their_contexts_keep_file_order(
    server: ReplayServer, workspace: Path
) -> None:
    hooks = {
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [timed_hook(workspace, "first", "Rule one: be brief.")],
            },
            {"hooks": [timed_hook(workspace, "second", "Rule two: cite files.")]},
        ]
    }
    server.reply_json(chat_reply(text="ok"))
    status, out, err = run_settings(server, workspace, hooks)

    assert status == 0, err
    assert out.strip() == "ok"
    told = json.dumps(server.requests[0].body["messages"])
    assert told.index("Rule one: be brief.") < told.index("Rule two: cite files.")
    (a_start, a_end), (b_start, b_end) = (
        json.loads((workspace / f"{name}.times").read_text()) for name in ("first", "second")
    )
    assert a_start < b_end  # each began before the other ended
    assert b_start < a_end
