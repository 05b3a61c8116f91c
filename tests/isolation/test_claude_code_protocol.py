"""``protocol="claude-code"``: Claude Code's hook contract against real scripts, mapped onto
this project's decisions, failing closed on anything else."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from llm_worker import PreCompactInfo
from pod import (
    Abort,
    Annotate,
    CommandHook,
    CommandHookError,
    Continue,
    Feedback,
    Pause,
    PodUsageError,
    PromptSubmitInfo,
    Rewrite,
    Skip,
    TurnEndInfo,
    events,
)
from pod.command._claude_code import SESSION_ID, claude_output_schema, claude_stdin_schema

from .conftest import CALL, RESULT, ScriptFactory

PROMPT = PromptSubmitInfo(input_text="hello", turn=0)
TURN_END = TurnEndInfo(turn=0, tool_calls_in_turn=1, final_text_preview="done")
CONTINUED = TurnEndInfo(turn=0, tool_calls_in_turn=1, final_text_preview="done", continued=1)
COMPACT = PreCompactInfo(turn=0, items_to_replace=12, estimated_tokens=9000, threshold_tokens=8000)


def claude(
    event: events.HookEvent[Any, Any], argv: list[str], **options: Any
) -> CommandHook[Any, Any]:
    return CommandHook(event, argv, protocol="claude-code", **options)


def answering(script: ScriptFactory, *, stdout: str = "", stderr: str = "", status: int = 0):
    return script(
        f"""
        import sys
        sys.stdin.read()
        sys.stdout.write({stdout!r})
        sys.stderr.write({stderr!r})
        sys.exit({status})
        """
    )


@pytest.mark.parametrize(
    ("event", "info", "name", "fields"),
    [
        (events.PRE_TOOL_CALL, CALL, "PreToolUse", {"tool_name": "shell"}),
        (events.POST_TOOL_CALL, RESULT, "PostToolUse", {"tool_input": {"command": "ls"}}),
        (events.PROMPT_SUBMIT, PROMPT, "UserPromptSubmit", {"prompt": "hello"}),
        (
            events.TURN_END,
            TURN_END,
            "Stop",
            {"stop_hook_active": False, "last_assistant_message": "done"},
        ),
        (events.TURN_END, CONTINUED, "Stop", {"stop_hook_active": True}),
        (events.PRE_COMPACT, COMPACT, "PreCompact", {"trigger": "auto"}),
    ],
)
async def test_a_script_reads_claude_codes_fields_for_each_event(
    script: ScriptFactory,
    tmp_path: Path,
    *,
    event: events.HookEvent[Any, Any],
    info: Any,
    name: str,
    fields: dict[str, object],
) -> None:
    seen = tmp_path / "seen.json"
    argv = script(f"import sys; open({str(seen)!r}, 'w').write(sys.stdin.read())")
    assert await claude(event, argv, cwd=tmp_path)(info) == Continue()
    request = json.loads(seen.read_text())
    assert request["hook_event_name"] == name
    assert request["session_id"] == SESSION_ID
    assert request["cwd"] == str(tmp_path)
    assert request["transcript_path"] is None
    assert fields.items() <= request.items()
    jsonschema.validate(request, claude_stdin_schema(event))
    if event is events.PRE_TOOL_CALL:
        assert request["tool_input"] == {"command": "ls"}  # an object, as Claude Code sends
        assert request["tool_use_id"] == "c1"


@pytest.mark.parametrize(
    ("event", "info", "answer", "decision"),
    [
        pytest.param(events.PRE_TOOL_CALL, CALL, {}, Continue(), id="exit-0-silent"),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": "checked, looks fine\n"},
            Continue(),
            id="exit-0-plain-text",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"status": 2, "stderr": "rm is not allowed"},
            Skip(reason="rm is not allowed"),
            id="exit-2-blocks-the-call",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"status": 2},
            Skip(reason="blocked by a PreToolUse hook (exit status 2)"),
            id="exit-2-without-a-reason",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {
                "stdout": json.dumps(
                    {
                        "hookSpecificOutput": {
                            "hookEventName": "PreToolUse",
                            "permissionDecision": "deny",
                            "permissionDecisionReason": "not on Fridays",
                        }
                    }
                )
            },
            Skip(reason="not on Fridays"),
            id="deny",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {
                "stdout": json.dumps(
                    {
                        "hookSpecificOutput": {
                            "permissionDecision": "ask",
                            "permissionDecisionReason": "a human should look",
                        }
                    }
                )
            },
            Pause(reason="a human should look"),
            id="ask",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}})},
            Continue(),
            id="allow",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"decision": "block", "reason": "old style"})},
            Skip(reason="old style"),
            id="legacy-block",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"decision": "approve", "suppressOutput": True})},
            Continue(),
            id="legacy-approve",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"continue": False, "stopReason": "enough"})},
            Abort(reason="enough"),
            id="continue-false",
        ),
        pytest.param(
            events.PROMPT_SUBMIT,
            PROMPT,
            {"stdout": json.dumps({"decision": "block", "reason": "no secrets"})},
            Abort(reason="no secrets"),
            id="block-a-prompt",
        ),
        pytest.param(
            events.PROMPT_SUBMIT,
            PROMPT,
            {"status": 2, "stderr": "prompt refused"},
            Abort(reason="prompt refused"),
            id="exit-2-on-a-prompt",
        ),
        pytest.param(
            events.POST_TOOL_CALL,
            RESULT,
            {"stdout": json.dumps({"decision": "block", "reason": "tests fail now"})},
            Feedback(text="tests fail now"),
            id="block-after-a-tool-is-feedback",
        ),
        pytest.param(
            events.POST_TOOL_CALL,
            RESULT,
            {"status": 2, "stderr": "lint: line 3"},
            Feedback(text="lint: line 3"),
            id="exit-2-after-a-tool-is-feedback",
        ),
        pytest.param(
            events.POST_TOOL_CALL,
            RESULT,
            {
                "stdout": json.dumps(
                    {
                        "decision": "block",
                        "reason": "formatting failed",
                        "hookSpecificOutput": {
                            "hookEventName": "PostToolUse",
                            "additionalContext": "run ruff format",
                        },
                    }
                )
            },
            Feedback(text="formatting failed\nrun ruff format"),
            id="block-and-context-after-a-tool",
        ),
        pytest.param(
            events.POST_TOOL_CALL,
            RESULT,
            {"stdout": json.dumps({"hookSpecificOutput": {"additionalContext": "3 warnings"}})},
            Feedback(text="3 warnings"),
            id="context-after-a-tool",
        ),
        pytest.param(
            events.POST_TOOL_CALL,
            RESULT,
            {"stdout": json.dumps({"continue": False, "stopReason": "stop the run"})},
            Abort(reason="stop the run"),
            id="continue-false-after-a-tool",
        ),
        pytest.param(
            events.TURN_END,
            TURN_END,
            {"status": 2, "stderr": "keep working: the tests fail"},
            Feedback(text="keep working: the tests fail"),
            id="exit-2-at-stop-keeps-going",
        ),
        pytest.param(
            events.TURN_END,
            TURN_END,
            {"stdout": json.dumps({"decision": "block", "reason": "run the tests"})},
            Feedback(text="run the tests"),
            id="block-a-stop-keeps-going",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"hookSpecificOutput": {"permissionDecision": "defer"}})},
            Pause(reason="deferred by a PreToolUse hook"),
            id="defer-pauses-for-a-resume",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {
                "stdout": json.dumps(
                    {
                        "hookSpecificOutput": {
                            "permissionDecision": "allow",
                            "permissionDecisionReason": "dry run",
                            "updatedInput": {"command": "ls -n"},
                        }
                    }
                )
            },
            Rewrite.of({"command": "ls -n"}, reason="dry run"),
            id="allow-with-updated-input-rewrites",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"hookSpecificOutput": {"updatedInput": {"command": "rm"}}})},
            Rewrite.of({"command": "rm"}, reason="updatedInput of a PreToolUse hook"),
            id="updated-input-rewrites",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {
                "stdout": json.dumps(
                    {
                        "hookSpecificOutput": {
                            "permissionDecision": "ask",
                            "permissionDecisionReason": "check the branch",
                            "updatedInput": {"command": "git push origin main"},
                        }
                    }
                )
            },
            Rewrite.of(
                {"command": "git push origin main"},
                reason="check the branch",
                then=Pause(reason="check the branch"),
            ),
            id="ask-with-updated-input-shows-the-rewritten-call",
        ),
        pytest.param(
            events.TURN_END,
            TURN_END,
            {"stdout": json.dumps({"continue": False, "stopReason": "stop"})},
            Continue(),
            id="continue-false-at-stop-just-ends",
        ),
        pytest.param(
            events.PRE_COMPACT,
            COMPACT,
            {"status": 2, "stderr": "save the notes first"},
            Pause(reason="save the notes first"),
            id="block-a-compaction",
        ),
        pytest.param(
            events.PRE_COMPACT,
            COMPACT,
            {"stdout": json.dumps({"continue": False, "stopReason": "not now"})},
            Pause(reason="not now"),
            id="continue-false-before-compaction-pauses",
        ),
        pytest.param(events.PRE_COMPACT, COMPACT, {}, Continue(), id="compaction-goes-on"),
        pytest.param(
            events.PROMPT_SUBMIT,
            PROMPT,
            {"stdout": json.dumps({"hookSpecificOutput": {"additionalContext": "it is noon"}})},
            Feedback(text="it is noon"),
            id="prompt-context-is-feedback",
        ),
        pytest.param(
            events.PROMPT_SUBMIT,
            PROMPT,
            {"stdout": "branch: main\n"},
            Feedback(text="branch: main"),
            id="prompt-stdout-is-context",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"hookSpecificOutput": {"additionalContext": "fyi"}})},
            Annotate(text="fyi"),
            id="context-before-a-call-annotates-it",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {
                "stdout": json.dumps(
                    {
                        "hookSpecificOutput": {
                            "permissionDecision": "deny",
                            "permissionDecisionReason": "no",
                            "additionalContext": "use B",
                        }
                    }
                )
            },
            Annotate(text="use B", then=Skip(reason="no")),
            id="context-with-a-deny-annotates-the-skip",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {
                "stdout": json.dumps(
                    {
                        "hookSpecificOutput": {
                            "updatedInput": {"a": 1},
                            "additionalContext": "pinned",
                        }
                    }
                )
            },
            Annotate(
                text="pinned", then=Rewrite.of({"a": 1}, reason="updatedInput of a PreToolUse hook")
            ),
            id="context-with-a-rewrite-annotates-it",
        ),
        pytest.param(
            events.TURN_END,
            TURN_END,
            {"stdout": json.dumps({"hookSpecificOutput": {"additionalContext": "sweep"}})},
            Feedback(text="sweep"),
            id="context-at-stop-goes-on-with-it",
        ),
        pytest.param(
            events.PRE_COMPACT,
            COMPACT,
            {"stdout": json.dumps({"hookSpecificOutput": {"additionalContext": "keep"}})},
            Continue(),
            id="context-before-compaction-is-not-delivered",
        ),
    ],
)
async def test_claude_code_answers_map_onto_decisions(
    script: ScriptFactory,
    event: events.HookEvent[Any, Any],
    info: Any,
    answer: dict[str, Any],
    decision: object,
) -> None:
    assert await claude(event, answering(script, **answer))(info) == decision
    if answer.get("stdout", "").startswith("{"):
        jsonschema.validate(json.loads(answer["stdout"]), claude_output_schema())


@pytest.mark.parametrize(
    ("event", "info", "answer", "problem"),
    [
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"status": 1, "stderr": "Traceback: boom"},
            r"exited with status 1; stderr: Traceback: boom$",
            id="crash",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": '{"decision": "block", '},
            r"printed an invalid Claude Code answer \(EOF while parsing",
            id="garbage-json",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"decision": "deny"})},
            r"printed an invalid Claude Code answer \(decision: Input should be 'block' or "
            r"'approve'\)",
            id="unknown-decision",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"hookSpecificOutput": {"permissionDecision": "maybe"}})},
            r"permissionDecision: Input should be 'allow', 'deny', 'ask' or 'defer'",
            id="unknown-permission-decision",
        ),
        pytest.param(
            events.POST_TOOL_CALL,
            RESULT,
            {"stdout": json.dumps({"hookSpecificOutput": {"updatedInput": {"command": "rm"}}})},
            r"printed updatedInput, which only PreToolUse takes, at PostToolUse",
            id="rewrite-after-the-fact",
        ),
        pytest.param(
            events.POST_TOOL_CALL,
            RESULT,
            {"stdout": json.dumps({"hookSpecificOutput": {"permissionDecision": "deny"}})},
            r"printed permissionDecision, which only PreToolUse takes, at PostToolUse",
            id="deny-after-the-fact",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"hookSpecificOutput": {"hookEventName": "Stop"}})},
            r"answered for 'Stop' while asked about 'PreToolUse'",
            id="wrong-event",
        ),
        pytest.param(
            events.TURN_END,
            TURN_END,
            {"stdout": json.dumps({"decision": "approve"})},
            r'printed decision "approve", which only PreToolUse takes, at Stop',
            id="approve-a-stop",
        ),
        pytest.param(
            events.PRE_TOOL_CALL,
            CALL,
            {"stdout": json.dumps({"continue": "no"})},
            r"continue: Input should be a valid boolean",
            id="loose-types",
        ),
    ],
)
async def test_anything_else_fails_the_hook(
    script: ScriptFactory,
    event: events.HookEvent[Any, Any],
    info: Any,
    answer: dict[str, Any],
    problem: str,
) -> None:
    with pytest.raises(CommandHookError, match=problem):
        await claude(event, answering(script, **answer))(info)


async def test_a_slow_script_times_out(script: ScriptFactory) -> None:
    argv = script("import time; time.sleep(30)")
    with pytest.raises(CommandHookError, match=r"timed out after 0\.3s"):
        await claude(events.PRE_TOOL_CALL, argv, timeout=0.3)(CALL)


async def test_a_call_whose_arguments_are_not_an_object_is_not_put_to_the_script(
    script: ScriptFactory, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    argv = script(f"open({str(ran)!r}, 'w').write('yes')")
    with pytest.raises(CommandHookError, match=r"arguments are not a JSON object"):
        await claude(events.PRE_TOOL_CALL, argv)(CALL.model_copy(update={"arguments": "[1]"}))
    assert not ran.exists()


async def test_the_matcher_must_match_the_whole_tool_name(
    script: ScriptFactory, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    argv = script(
        f"import sys; open({str(ran)!r}, 'a').write('x'); sys.stderr.write('no'); sys.exit(2)"
    )
    hook = claude(events.PRE_TOOL_CALL, argv, matcher="Bash|Write")
    assert await hook(CALL.model_copy(update={"tool_name": "BashOutput"})) == Continue()
    assert await hook(CALL.model_copy(update={"tool_name": "Read"})) == Continue()
    assert not ran.exists()  # not even started
    assert await hook(CALL.model_copy(update={"tool_name": "Bash"})) == Skip(reason="no")
    assert ran.read_text() == "x"


def test_claude_code_options_are_checked_when_the_hook_is_made() -> None:
    with pytest.raises(Exception, match=r"^Claude Code has no hook event for abort$"):
        claude(events.ABORT, ["true"])
    with pytest.raises(Exception, match=r"^unknown protocol 'claude'"):
        CommandHook(events.PRE_TOOL_CALL, ["true"], protocol="claude")  # type: ignore[arg-type]


async def test_a_system_message_is_shown_to_the_user_and_decides_nothing(
    script: ScriptFactory, caplog: pytest.LogCaptureFixture
) -> None:
    answer = {"systemMessage": "formatter ran \x1b[31mred\x1b[0m", "suppressOutput": True}
    argv = answering(script, stdout=json.dumps(answer))
    with caplog.at_level("WARNING", logger="pod.hooks"):
        assert await claude(events.POST_TOOL_CALL, argv)(RESULT) == Continue()
    [record] = caplog.records
    message = record.getMessage()
    assert message.endswith(": formatter ran \\x1b[31mred\\x1b[0m")  # escapes shown, not run
    assert argv[-1] in message  # names the hook's command


async def test_post_tool_use_hears_of_successes_and_post_tool_use_failure_of_errors(
    script: ScriptFactory, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.jsonl"
    argv = script(
        f"import sys; open({str(seen)!r}, 'a').write(sys.stdin.read() + '\\n');"
        "sys.stderr.write('retry with --force'); sys.exit(2)"
    )
    failed = RESULT.model_copy(update={"is_error": True, "output_preview": "boom"})
    success = claude(events.POST_TOOL_CALL, argv)
    failure = claude(events.POST_TOOL_CALL, argv, claude_event="PostToolUseFailure")
    assert await success(failed) == Continue()  # not asked
    assert await failure(RESULT) == Continue()  # not asked
    assert await failure(failed) == Feedback(text="retry with --force")
    [request] = [json.loads(line) for line in seen.read_text().splitlines()]
    assert request["hook_event_name"] == "PostToolUseFailure"
    assert (request["error"], request["tool_input"]) == ("boom", {"command": "ls"})
    jsonschema.validate(request, claude_stdin_schema(events.POST_TOOL_CALL, "PostToolUseFailure"))
    with pytest.raises(PodUsageError, match="Claude Code's Stop does not run at post_tool_call"):
        claude(events.POST_TOOL_CALL, argv, claude_event="Stop")
