"""Persistent Claude Code hooks (an llm-pod extension): one long-lived process reads each
event's Claude Code stdin object as one JSON line and answers one line, what a per-call
script prints at exit 0; a failure is that hook's failure and the next event restarts it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pod import CommandHook, CommandHookError, Continue, Feedback, Skip, events
from pod.command._claude_code_settings import read_claude_settings

from .conftest import CALL, ScriptFactory
from .test_claude_code_protocol import RESULT

# A guard written to the line contract: denies commands containing "rm", logs every request
# with its process id, exits on a "crash" command before answering, takes 0.4 s on "nap"
# and 30 s on "slow".
GUARD = """
import json, os, sys, time
LOG = {log!r}
for line in sys.stdin:
    request = json.loads(line)
    with open(LOG, "a") as log:
        log.write(json.dumps({{"pid": os.getpid(), "request": request}}) + "\\n")
    command = request["tool_input"].get("command", "")
    if command == "crash":
        sys.stderr.write("guard crashed on purpose\\n")
        sys.exit(1)
    if command in ("nap", "slow"):
        time.sleep(0.4 if command == "nap" else 30)
    if "rm" in command.split():
        answer = {{"hookSpecificOutput": {{"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "no rm: " + command}}}}
    else:
        answer = {{}}
    print(json.dumps(answer), flush=True)
"""


def call(command: str) -> Any:
    return CALL.model_copy(update={"arguments": json.dumps({"command": command})})


def logged(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def guard(script: ScriptFactory, tmp_path: Path, **options: Any) -> CommandHook[Any, Any]:
    argv = script(GUARD.format(log=str(tmp_path / "log.jsonl")))
    return CommandHook(
        events.PRE_TOOL_CALL,
        argv,
        protocol="claude-code",
        mode="persistent",
        cwd=tmp_path,
        **options,
    )


async def test_one_process_answers_every_event_with_claude_codes_fields(
    script: ScriptFactory, tmp_path: Path
) -> None:
    async with guard(script, tmp_path) as hook:
        assert await hook(call("ls")) == Continue()
        assert await hook(call("rm -rf build")) == Skip(reason="no rm: rm -rf build")
        assert await hook(call("pwd")) == Continue()
    seen = logged(tmp_path / "log.jsonl")
    assert len({entry["pid"] for entry in seen}) == 1  # started once
    first = seen[0]["request"]
    assert first["hook_event_name"] == "PreToolUse"
    assert (first["tool_name"], first["tool_input"], first["cwd"]) == (
        "shell",
        {"command": "ls"},
        str(tmp_path),
    )
    assert {"session_id", "transcript_path", "permission_mode", "tool_use_id"} <= first.keys()


async def test_a_process_that_dies_mid_answer_fails_the_hook_and_is_restarted(
    script: ScriptFactory, tmp_path: Path
) -> None:
    async with guard(script, tmp_path) as hook:
        assert await hook(call("ls")) == Continue()
        with pytest.raises(CommandHookError) as failed:
            await hook(call("crash"))
        assert await hook(call("rm x")) == Skip(reason="no rm: rm x")  # a new process
    message = str(failed.value)
    assert "exited with status 1 before answering" in message
    assert "guard crashed on purpose" in message  # its stderr, named
    assert hook.command[-1] in message  # the command, named
    pids = [entry["pid"] for entry in logged(tmp_path / "log.jsonl")]
    assert pids[0] == pids[1] != pids[2]


async def test_the_timeout_is_per_event_and_a_slow_answer_restarts_the_process(
    script: ScriptFactory, tmp_path: Path
) -> None:
    async with guard(script, tmp_path, timeout=1.0) as hook:
        for _ in range(4):  # 1.6 s in all: the timeout bounds each event, not the process
            assert await hook(call("nap")) == Continue()
        with pytest.raises(CommandHookError, match=r"timed out after 1s"):
            await hook(call("slow"))
        assert await hook(call("ls")) == Continue()
    pids = [entry["pid"] for entry in logged(tmp_path / "log.jsonl")]
    assert len(set(pids[:5])) == 1  # the naps and the slow one
    assert pids[5] != pids[0]


async def test_an_observe_only_persistent_hook_answers_as_its_per_call_script_would(
    script: ScriptFactory, tmp_path: Path
) -> None:
    argv = script(
        """
        import json, sys
        for line in sys.stdin:
            request = json.loads(line)
            print(json.dumps({"decision": "block",
                "reason": "checked " + request["tool_input"]["command"]}), flush=True)
        """
    )
    hook = CommandHook(events.POST_TOOL_CALL, argv, protocol="claude-code", mode="persistent")
    async with hook:
        assert await hook(RESULT) == Feedback(text="checked ls")


def settings(tmp_path: Path, hooks: dict[str, Any]) -> Path:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hooks": hooks}))
    return path


def test_a_settings_entry_opts_in_with_its_pod_key(tmp_path: Path) -> None:
    entry = {"type": "command", "command": "./guard.py", "pod": {"persistent": True}}
    plain = {"type": "command", "command": "./guard.py"}
    path = settings(tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [entry, plain]}]})
    loaded = read_claude_settings(path, project_dir=tmp_path).hooks
    modes = [c.hook.mode for c in loaded if isinstance(c.hook, CommandHook)]
    assert modes == ["persistent", "per-call"]


@pytest.mark.parametrize(
    ("hooks", "problem"),
    [
        (
            {
                "PreToolUse": [
                    {"hooks": [{"type": "command", "command": "x", "pod": {"persist": 1}}]}
                ]
            },
            "hooks.PreToolUse[0].hooks[0]: pod.persist",
        ),
        (
            {
                "SessionStart": [
                    {"hooks": [{"type": "command", "command": "x", "pod": {"persistent": True}}]}
                ]
            },
            'hooks.SessionStart[0].hooks[0]: "pod": {"persistent": true} is for hooks of tool',
        ),
    ],
)
def test_a_bad_pod_key_refuses_the_file_naming_the_entry(
    tmp_path: Path, hooks: dict[str, Any], problem: str
) -> None:
    with pytest.raises(Exception, match="^" + str(tmp_path)) as refused:
        read_claude_settings(settings(tmp_path, hooks), project_dir=tmp_path)
    assert problem in str(refused.value)
