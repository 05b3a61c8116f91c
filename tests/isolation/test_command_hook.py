"""CommandHook (per-call mode) against real scripts: every way a command can answer or fail."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pod import (
    AbortInfo,
    CommandHook,
    CommandHookError,
    Continue,
    HookFailedError,
    HookRegistry,
    PodUsageError,
    PreToolDecision,
    Skip,
    ToolCallSummary,
    UnknownEventError,
    events,
)
from pod.command._protocol import stdin_schema

from .conftest import (
    CALL,
    REQUEST,
    WRITE_PID,
    ScriptFactory,
    read_pid,
    wait_until_dead,
    zombie_children,
)


def hook(argv: list[str], *, timeout: float = 30) -> CommandHook[ToolCallSummary, PreToolDecision]:
    return CommandHook(events.PRE_TOOL_CALL, argv, timeout=timeout)


async def test_an_approving_script_gets_the_event_and_its_input_as_json(
    script: ScriptFactory, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.json"
    argv = script(
        f"""
        import sys
        data = sys.stdin.buffer.read()
        open({str(seen)!r}, "wb").write(data)
        print('{{"decision": "continue"}}')
        """
    )
    assert await hook(argv)(CALL) == Continue()
    raw = seen.read_bytes()
    assert raw.count(b"\n") == 0  # one line, so persistent mode can frame it the same way
    request = json.loads(raw)
    assert request == {
        "event": "pre_tool_call",
        "input": CALL.model_dump(mode="json"),
        "arguments": {"command": "ls"},  # parsed: no JSON inside JSON to decode
    }
    assert ToolCallSummary.model_validate(request["input"]) == CALL
    jsonschema.validate(request, stdin_schema(events.PRE_TOOL_CALL))


async def test_arguments_that_are_not_an_object_arrive_as_null(
    script: ScriptFactory, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.json"
    argv = script(
        f"""
        import sys
        open({str(seen)!r}, "wb").write(sys.stdin.buffer.read())
        print('{{"decision": "continue"}}')
        """
    )
    odd = CALL.model_copy(update={"arguments": "[1, 2"})
    assert await hook(argv)(odd) == Continue()
    request = json.loads(seen.read_bytes())
    assert request["arguments"] is None
    assert request["input"]["arguments"] == "[1, 2"
    jsonschema.validate(request, stdin_schema(events.PRE_TOOL_CALL))


async def test_a_denying_script_skips_the_call_with_its_reason(script: ScriptFactory) -> None:
    argv = script(
        """
        import json, sys
        call = json.load(sys.stdin)["input"]
        print(json.dumps({"decision": "skip", "reason": f"{call['tool_name']} is not allowed"}))
        """
    )
    assert await hook(argv)(CALL) == Skip(reason="shell is not allowed")


async def test_a_script_sleeping_past_the_timeout_is_killed_with_its_stderr_kept(
    script: ScriptFactory,
) -> None:
    argv = script(
        """
        import sys, time
        print("thinking hard", file=sys.stderr, flush=True)
        time.sleep(60)
        """
    )
    with pytest.raises(CommandHookError) as failure:
        await hook(argv, timeout=1.5)(CALL)
    assert failure.value.problem == "timed out after 1.5s"
    assert failure.value.stderr == "thinking hard"
    assert str(failure.value) == (
        f"command `{' '.join(argv)}` timed out after 1.5s; stderr: thinking hard"
    )
    assert zombie_children() == []


async def test_a_script_raising_an_exception_fails_with_its_traceback_tail(
    script: ScriptFactory,
) -> None:
    argv = script('raise ValueError("rules.toml is missing")')
    with pytest.raises(CommandHookError) as failure:
        await hook(argv)(CALL)
    assert failure.value.problem == "exited with status 1"
    assert failure.value.stderr.startswith("Traceback")
    assert failure.value.stderr.endswith("ValueError: rules.toml is missing")


async def test_a_script_killed_by_a_signal_names_the_signal(script: ScriptFactory) -> None:
    argv = script("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    with pytest.raises(CommandHookError, match=r"` was killed by SIGKILL$"):
        await hook(argv)(CALL)


async def test_a_script_exiting_non_zero_fails_even_with_a_valid_decision(
    script: ScriptFactory,
) -> None:
    argv = script(
        """
        import sys
        print('{"decision": "continue"}')
        print("policy server unreachable", file=sys.stderr)
        sys.exit(3)
        """
    )
    with pytest.raises(CommandHookError) as failure:
        await hook(argv)(CALL)
    assert str(failure.value).endswith("` exited with status 3; stderr: policy server unreachable")


async def test_a_script_printing_garbage_fails(script: ScriptFactory) -> None:
    argv = script('print("sure, go ahead")')
    with pytest.raises(CommandHookError, match=r"` printed something that is not JSON \(.*\): "):
        await hook(argv)(CALL)


async def test_a_script_printing_nothing_fails(script: ScriptFactory) -> None:
    argv = script("pass")
    with pytest.raises(CommandHookError, match=r"` printed no decision \(stdout was empty\)$"):
        await hook(argv)(CALL)


async def test_a_decision_the_event_does_not_allow_fails(script: ScriptFactory) -> None:
    argv = script("""print('{"decision": "skip", "reason": "no"}')""")
    pre_request = CommandHook(events.PRE_LLM_REQUEST, argv)
    with pytest.raises(CommandHookError) as failure:
        await pre_request(REQUEST)
    assert failure.value.problem == (
        "printed the decision 'skip', which PRE_LLM_REQUEST does not allow "
        "(allowed: continue, abort, pause)"
    )


async def test_a_malformed_decision_fails_naming_the_field(script: ScriptFactory) -> None:
    argv = script("""print('{"decision": "skip", "reason": 7, "force": true}')""")
    with pytest.raises(CommandHookError) as failure:
        await hook(argv)(CALL)
    assert failure.value.problem == (
        "printed an invalid 'skip' decision: reason: Input should be a valid string; "
        "force: Extra inputs are not permitted"
    )


async def test_a_script_flooding_stdout_is_stopped(script: ScriptFactory) -> None:
    argv = script(
        """
        import sys
        chunk = b"x" * 65536
        while True:
            sys.stdout.buffer.write(chunk)
        """
    )
    with pytest.raises(CommandHookError, match=r"` printed more than 1048576 bytes on stdout"):
        await hook(argv)(CALL)


async def test_a_command_that_cannot_start_fails_naming_it(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-policy")
    with pytest.raises(CommandHookError) as failure:
        await hook([missing])(CALL)
    assert str(failure.value).startswith(f"command `{missing}` could not start: [Errno 2]")


async def test_a_script_that_does_not_read_its_input_is_fine(script: ScriptFactory) -> None:
    big = ToolCallSummary(call_id="c", tool_name="write", arguments="x" * 1_000_000, turn=0)
    argv = script("""print('{"decision": "continue"}')""")
    assert await hook(argv)(big) == Continue()


async def test_abort_hooks_observe_only_and_their_output_is_ignored(
    script: ScriptFactory, tmp_path: Path
) -> None:
    seen = tmp_path / "abort.json"
    argv = script(
        f"""
        import sys
        open({str(seen)!r}, "wb").write(sys.stdin.buffer.read())
        print("logged it")
        """
    )
    info = AbortInfo(reason="policy violation", turn=2)
    observer = CommandHook(events.ABORT, argv)
    assert await observer(info) is None  # type: ignore[func-returns-value]  # "logged it" is not read
    assert json.loads(seen.read_bytes()) == {
        "event": "abort",
        "input": {"reason": "policy violation", "turn": 2},
    }
    failing = CommandHook(events.ABORT, script("import sys; sys.exit(2)"))
    with pytest.raises(CommandHookError, match=r"exited with status 2$"):
        await failing(info)


async def test_a_child_outliving_a_timed_out_script_is_killed(
    script: ScriptFactory, tmp_path: Path
) -> None:
    pid_file = tmp_path / "child.pid"
    argv = script(
        WRITE_PID
        + f"""
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
write_pid({str(pid_file)!r}, child.pid)
time.sleep(120)
"""
    )
    with pytest.raises(CommandHookError, match=r"timed out after 2s$"):
        await hook(argv, timeout=2)(CALL)
    assert wait_until_dead(read_pid(pid_file))
    assert zombie_children() == []


async def test_a_child_left_behind_by_a_script_that_answered_is_killed_at_once(
    script: ScriptFactory, tmp_path: Path
) -> None:
    # The child inherits stdout: waiting for end-of-file would wait for the child.
    pid_file = tmp_path / "child.pid"
    argv = script(
        WRITE_PID
        + f"""
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
write_pid({str(pid_file)!r}, child.pid)
print('{{"decision": "continue"}}', flush=True)
"""
    )
    assert await hook(argv, timeout=60)(CALL) == Continue()
    assert wait_until_dead(read_pid(pid_file))


async def test_cancelling_the_caller_kills_the_command_and_its_children(
    script: ScriptFactory, tmp_path: Path
) -> None:
    pid_file = tmp_path / "script.pid"
    argv = script(
        WRITE_PID
        + f"""
import os, time
write_pid({str(pid_file)!r}, os.getpid())
time.sleep(120)
"""
    )
    task = asyncio.create_task(hook(argv)(CALL))
    while not pid_file.exists():  # noqa: ASYNC110  # the script is starting
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_until_dead(read_pid(pid_file))
    assert zombie_children() == []


async def test_a_registry_timeout_names_the_command_and_kills_it(
    script: ScriptFactory, tmp_path: Path
) -> None:
    pid_file = tmp_path / "script.pid"
    argv = script(
        WRITE_PID
        + f"""
import os, time
write_pid({str(pid_file)!r}, os.getpid())
time.sleep(120)
"""
    )
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, hook(argv), timeout=1)
    with pytest.raises(HookFailedError) as failure:
        await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL)
    assert str(failure.value) == (
        f"hook pod.command._hook.CommandHook({' '.join(argv)}) on PRE_TOOL_CALL failed: "
        "timed out after 1s"
    )
    assert wait_until_dead(read_pid(pid_file))


async def test_a_hook_given_another_events_input_fails_clearly(script: ScriptFactory) -> None:
    argv = script("""print('{"decision": "continue"}')""")
    wrong = CommandHook(events.PRE_TOOL_CALL, argv)
    with pytest.raises(CommandHookError, match=r"serves PRE_TOOL_CALL but was given a PreRequest"):
        await wrong(REQUEST)  # type: ignore[arg-type]  # what a checker would have caught


def test_the_command_is_an_argv_list_never_a_shell_string() -> None:
    with pytest.raises(PodUsageError, match=r"not the string 'python3 policy.py'.*no shell"):
        CommandHook(events.PRE_TOOL_CALL, "python3 policy.py")
    for bad in ([], [""], ["python3", 3]):
        with pytest.raises(PodUsageError, match=r"non-empty list of strings"):
            CommandHook(events.PRE_TOOL_CALL, bad)  # type: ignore[arg-type]


def test_construction_checks_the_timeout_mode_and_event() -> None:
    for timeout in (0, -1, float("inf"), float("nan")):
        with pytest.raises(PodUsageError, match=r"timeout must be positive and finite"):
            CommandHook(events.PRE_TOOL_CALL, ["true"], timeout=timeout)
    with pytest.raises(PodUsageError, match=r"unknown CommandHook mode 'forever'"):
        CommandHook(events.PRE_TOOL_CALL, ["true"], mode="forever")  # type: ignore[arg-type]
    fake = events.HookEvent(events.PRE_TOOL_CALL.point, "fake")
    with pytest.raises(UnknownEventError):
        CommandHook(fake, ["true"])


def test_a_command_hook_describes_itself() -> None:
    command = CommandHook(events.PRE_TOOL_CALL, [sys.executable, "my policy.py"], timeout=5)
    assert command.event is events.PRE_TOOL_CALL
    assert command.command == (sys.executable, "my policy.py")
    assert (command.timeout, command.mode) == (5.0, "per-call")
    assert repr(command) == (
        f"CommandHook(<HookEvent PRE_TOOL_CALL>, {[sys.executable, 'my policy.py']!r}, "
        "timeout=5, mode='per-call')"
    )
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, command)
    assert registry.freeze().hooks_for(events.PRE_TOOL_CALL) == (
        f"pod.command._hook.CommandHook({sys.executable} 'my policy.py')",
    )


_ENVIRONMENT = {
    "POD_TEST_PLAIN": "visible",
    "OPENAI_API_KEY": "sk-test",
    "GITHUB_TOKEN": "ghp-test",
    "PGPASSWORD": "hunter2",
    "POD_DATABASE_URL": "postgresql://u:pw@db/pod",
    "AWS_SESSION_TOKEN": "aws-test",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TMPDIR": "/tmp",
    "TERM": "xterm",
    "HOME": "/home/pod-test",
}
_DEFAULTS = {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp", "TERM": "xterm"}
_DEFAULTS |= {"HOME": "/home/pod-test"}


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param({}, _DEFAULTS, id="default-is-the-allow-list"),
        pytest.param({"inherit_env": True}, _ENVIRONMENT, id="inherit-everything"),
        pytest.param(
            {"inherit_env": False, "env": {"POD_TEST_PLAIN": "set"}},
            {"POD_TEST_PLAIN": "set"},
            id="inherit-nothing",
        ),
        pytest.param(
            {"inherit_env": ["PGPASSWORD", "POD_TEST_UNSET"]},
            {**_DEFAULTS, "PGPASSWORD": "hunter2"},
            id="inherit-named-beside-the-allow-list",
        ),
        pytest.param(
            {"env": {"GITHUB_TOKEN": "given"}},
            {**_DEFAULTS, "GITHUB_TOKEN": "given"},
            id="env-wins",
        ),
    ],
)
async def test_the_command_environment_is_minimal_unless_asked(
    script: ScriptFactory,
    monkeypatch: pytest.MonkeyPatch,
    options: dict[str, Any],
    expected: dict[str, str],
) -> None:
    for name, value in _ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    argv = script(
        f"""
        import json, os
        names = {[*_ENVIRONMENT]!r}
        seen = {{n: os.environ[n] for n in names if n in os.environ}}
        print(json.dumps({{"decision": "skip", "reason": json.dumps(seen, sort_keys=True)}}))
        """
    )
    # argv[0] is the interpreter's absolute path: it starts even with no PATH inherited.
    decision = await CommandHook(events.PRE_TOOL_CALL, argv, **options)(CALL)
    assert isinstance(decision, Skip)
    assert json.loads(decision.reason) == expected


def test_a_cwd_that_is_not_a_folder_is_refused_when_the_hook_is_made(tmp_path: Path) -> None:
    with pytest.raises(
        PodUsageError, match=r"^the cwd '.*/gone' of a CommandHook is not a folder$"
    ):
        CommandHook(events.PRE_TOOL_CALL, ["true"], cwd=tmp_path / "gone")
