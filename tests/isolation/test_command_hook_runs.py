"""Whole runs with CommandHooks: a command's decision steers the Worker, and every way a
command fails follows the registration's failure policy (abort, deny, ignore)."""

from __future__ import annotations

import logging

import pytest

from llm_worker import (
    Aborted,
    Finished,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    Tool,
    ToolResult,
    Worker,
    tool,
)
from llm_worker.testing import assert_well_formed
from pod import CommandHook, CommandMode, FailurePolicy, HookRegistry, events

from .conftest import ScriptFactory

POLICY = """
import json, sys

def decide(request):
    call = request["input"]
    path = json.loads(call["arguments"]).get("path", "")
    if call["tool_name"] == "delete" and not path.startswith("/scratch/"):
        return {"decision": "skip", "reason": f"delete outside /scratch: {path}"}
    return {"decision": "continue"}

if "--persistent" in sys.argv:
    for line in sys.stdin:
        print(json.dumps(decide(json.loads(line))), flush=True)
else:
    print(json.dumps(decide(json.load(sys.stdin))))
"""

FAILURES = {
    "timeout": ("import time; time.sleep(60)", "timed out after 1s"),
    "exception": ("raise RuntimeError('no rules')", "exited with status 1; stderr: Traceback"),
    "signal": ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "was killed by SIGKILL"),
    "non-zero exit": (
        "import sys; print('bad config', file=sys.stderr); sys.exit(2)",
        "exited with status 2; stderr: bad config",
    ),
    "garbage": ("print('yes, fine')", "printed something that is not JSON"),
    "illegal decision": (
        'print(\'{"decision": "approve"}\')',
        "printed the decision 'approve', which PRE_TOOL_CALL does not allow",
    ),
}


def make_tools(ran: list[str]) -> list[Tool]:
    @tool
    def delete(path: str) -> str:
        """Delete a file."""
        ran.append(f"delete {path}")
        return f"deleted {path}"

    @tool
    def echo(text: str) -> str:
        """Echo the text back."""
        ran.append(f"echo {text}")
        return text

    return [delete, echo]


def results(worker: Worker) -> dict[str, ToolResult]:
    return {item.call_id: item for item in worker.history if isinstance(item, ToolResult)}


@pytest.mark.parametrize("mode", ["per-call", "persistent"])
async def test_a_command_denies_a_call_and_the_history_stays_well_formed(
    script: ScriptFactory, mode: CommandMode
) -> None:
    argv = script(POLICY) + (["--persistent"] if mode == "persistent" else [])
    ran: list[str] = []
    registry = HookRegistry()
    policy = CommandHook(events.PRE_TOOL_CALL, argv, timeout=30, mode=mode)
    registry.on(events.PRE_TOOL_CALL, policy)
    client = ScriptedClient(
        [
            ScriptedReply(
                calls=[
                    ScriptedCall("delete", {"path": "/home/me/thesis.tex"}, call_id="a"),
                    ScriptedCall("echo", {"text": "hi"}, call_id="b"),
                    ScriptedCall("delete", {"path": "/scratch/tmp.txt"}, call_id="c"),
                ]
            ),
            ScriptedReply("done"),
        ]
    )
    async with policy:
        worker = Worker(client, tools=make_tools(ran), hooks=registry.freeze())
        assert await worker.run("tidy up") == Finished(text="done", turn=0)
    assert ran == ["echo hi", "delete /scratch/tmp.txt"]
    by_id = results(worker)
    assert by_id["a"].is_error
    assert by_id["a"].content == "tool call skipped: delete outside /scratch: /home/me/thesis.tex"
    assert (by_id["b"].content, by_id["c"].content) == ("hi", "deleted /scratch/tmp.txt")
    assert_well_formed(worker.history)


async def run_with_failing_hook(
    script: ScriptFactory, failure: str, on_error: FailurePolicy
) -> tuple[Worker, object, list[str], str]:
    source, _ = FAILURES[failure]
    argv = script(source)
    command = " ".join(argv)
    ran: list[str] = []
    registry = HookRegistry()
    # Only the sleeper should time out, however loaded the machine.
    timeout = 1 if failure == "timeout" else 30
    policy = CommandHook(events.PRE_TOOL_CALL, argv, timeout=timeout)
    registry.on(events.PRE_TOOL_CALL, policy, on_error=on_error)
    client = ScriptedClient(
        [
            ScriptedReply(calls=[ScriptedCall("delete", {"path": "/x"}, call_id="a")]),
            ScriptedReply("done"),
        ]
    )
    worker = Worker(client, tools=make_tools(ran), hooks=registry.freeze())
    result = await worker.run("go")
    assert_well_formed(worker.history)
    return worker, result, ran, command


@pytest.mark.parametrize("failure", FAILURES)
async def test_a_failing_command_aborts_the_run_by_default(
    script: ScriptFactory, failure: str
) -> None:
    worker, result, ran, command = await run_with_failing_hook(script, failure, "abort")
    assert isinstance(result, Aborted)
    assert result.reason.startswith(
        f"hook pod.command._hook.CommandHook({command}) on PRE_TOOL_CALL failed: "
        f"command `{command}` {FAILURES[failure][1]}"
    )
    assert "_hook.py" not in result.reason  # the command's failure, not where pod raised it
    assert ran == []
    assert results(worker)["a"].is_error


@pytest.mark.parametrize("failure", FAILURES)
async def test_a_failing_command_under_deny_skips_the_call(
    script: ScriptFactory, failure: str
) -> None:
    worker, result, ran, command = await run_with_failing_hook(script, failure, "deny")
    assert result == Finished(text="done", turn=0)
    assert ran == []
    skipped = results(worker)["a"]
    assert skipped.is_error
    assert skipped.content.startswith("tool call skipped: hook ")
    assert f"command `{command}` {FAILURES[failure][1]}" in skipped.content


@pytest.mark.parametrize("failure", FAILURES)
async def test_a_failing_command_under_ignore_logs_a_warning_and_the_call_runs(
    script: ScriptFactory, failure: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="pod.hooks"):
        worker, result, ran, command = await run_with_failing_hook(script, failure, "ignore")
    assert result == Finished(text="done", turn=0)
    assert ran == ["delete /x"]
    assert not results(worker)["a"].is_error
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert f"command `{command}` {FAILURES[failure][1]}" in record.getMessage()
    assert record.getMessage().endswith("(ignored: on_error='ignore')")


@pytest.mark.parametrize("on_error", ["abort", "ignore"])
async def test_an_illegal_decision_at_pre_llm_request_follows_the_policy(
    script: ScriptFactory, on_error: FailurePolicy, caplog: pytest.LogCaptureFixture
) -> None:
    argv = script("""print('{"decision": "skip", "reason": "not here"}')""")
    registry = HookRegistry()
    registry.on(
        events.PRE_LLM_REQUEST, CommandHook(events.PRE_LLM_REQUEST, argv), on_error=on_error
    )
    worker = Worker(ScriptedClient([ScriptedReply("hello")]), hooks=registry.freeze())
    with caplog.at_level(logging.WARNING, logger="pod.hooks"):
        result = await worker.run("hi")
    problem = "printed the decision 'skip', which PRE_LLM_REQUEST does not allow"
    if on_error == "abort":
        assert isinstance(result, Aborted)
        assert problem in result.reason
        assert caplog.records == []
    else:
        assert result == Finished(text="hello", turn=0)
        assert problem in caplog.text
