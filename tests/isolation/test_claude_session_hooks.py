"""The Claude Code hooks ``pod run`` runs itself (``SessionStart``, ``SessionEnd``,
``Notification``, ``PermissionRequest``): what each answer gives, and that a failing
``PermissionRequest`` hook denies while a failing observer only warns."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from pod.command._claude_code import ClaudeSession
from pod.command._claude_session_hooks import SessionHook, SessionHookOutcome, merged_permission


def hook(event_name: str, command: str, tmp_path: Path, timeout: float = 10) -> SessionHook:
    shell = shutil.which("bash") or "/bin/sh"
    return SessionHook(
        event_name=event_name,
        argv=(shell, "-c", command),
        display=command,
        timeout=timeout,
        cwd=str(tmp_path),
        env={},
        matcher=None,
        source="settings.json: hooks.X[0].hooks[0]",
    )


def answer(value: object) -> str:
    return f"echo {json.dumps(json.dumps(value))}"


@pytest.mark.parametrize(
    ("event_name", "command", "outcome"),
    [
        ("SessionStart", "echo 'use French'", SessionHookOutcome(context="use French")),
        (
            "SessionStart",
            answer({"hookSpecificOutput": {"additionalContext": "branch: main"}}),
            SessionHookOutcome(context="branch: main"),
        ),
        ("SessionEnd", "echo 'bye'", SessionHookOutcome()),
        (
            "PermissionRequest",
            answer({"hookSpecificOutput": {"decision": {"behavior": "allow"}}}),
            SessionHookOutcome(behavior="allow"),
        ),
        (
            "PermissionRequest",
            answer({"hookSpecificOutput": {"decision": {"behavior": "deny", "message": "no"}}}),
            SessionHookOutcome(behavior="deny", message="no"),
        ),
        (
            "PermissionRequest",
            "echo 'not now' >&2; exit 2",
            SessionHookOutcome(behavior="deny", message="not now"),
        ),
        ("PermissionRequest", "true", SessionHookOutcome()),
        (
            "PermissionRequest",
            answer(
                {
                    "hookSpecificOutput": {
                        "decision": {"behavior": "allow", "updatedInput": {"command": "ls -a"}}
                    }
                }
            ),
            SessionHookOutcome(behavior="allow", updated_input='{"command": "ls -a"}'),
        ),
        (
            "PermissionRequest",
            answer(
                {
                    "hookSpecificOutput": {
                        "decision": {"behavior": "deny", "message": "stop", "interrupt": True}
                    }
                }
            ),
            SessionHookOutcome(behavior="deny", message="stop", interrupt=True),
        ),
    ],
)
async def test_session_hook_answers(
    tmp_path: Path, event_name: str, command: str, outcome: SessionHookOutcome
) -> None:
    assert await hook(event_name, command, tmp_path).run({}, session=ClaudeSession()) == outcome


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("echo 'down' >&2; exit 1", "exited with status 1; stderr: down"),
        ("echo '{nope'", "printed an invalid Claude Code answer"),
        (
            answer({"hookSpecificOutput": {"decision": {"behavior": "maybe"}}}),
            "'maybe' (allow or deny)",
        ),
        (
            answer({"hookSpecificOutput": {"decision": {"behavior": "allow", "updatedInput": 1}}}),
            "updatedInput that is not an object",
        ),
        (
            answer({"hookSpecificOutput": {"decision": {"behavior": "deny", "interrupt": "y"}}}),
            "interrupt that is not true or false",
        ),
    ],
)
async def test_a_failing_permission_request_hook_denies_and_an_observer_only_warns(
    tmp_path: Path, command: str, problem: str
) -> None:
    denied = await hook("PermissionRequest", command, tmp_path).run({}, session=ClaudeSession())
    assert denied.behavior == "deny"
    assert problem in denied.message
    assert command in denied.warning
    observed = await hook("Notification", command, tmp_path).run({}, session=ClaudeSession())
    assert observed.behavior is None
    if "exited" in problem or "invalid" in problem:  # a Notification's decision is not read
        assert problem in observed.warning


async def test_on_failure_continue_leaves_a_failed_permission_request_to_a_human(
    tmp_path: Path,
) -> None:
    lenient = dataclasses.replace(
        hook("PermissionRequest", "echo 'down' >&2; exit 1", tmp_path), fail_closed=False
    )
    outcome = await lenient.run({}, session=ClaudeSession())
    assert outcome.behavior is None  # no decision: the pause waits for a person
    assert "exited with status 1; stderr: down" in outcome.warning


async def test_a_slow_session_hook_times_out_with_a_warning(tmp_path: Path) -> None:
    slow = hook("SessionEnd", "sleep 5", tmp_path, timeout=0.3)
    outcome = await slow.run({"reason": "other"}, session=ClaudeSession())
    assert outcome.warning == "SessionEnd hook `sleep 5` timed out after 0.3s"


@pytest.mark.parametrize(
    ("outcomes", "merged"),
    [
        pytest.param([SessionHookOutcome(), SessionHookOutcome()], SessionHookOutcome(), id="none"),
        pytest.param(
            [
                SessionHookOutcome(behavior="allow"),
                SessionHookOutcome(behavior="deny", message="no"),
            ],
            SessionHookOutcome(behavior="deny", message="no"),
            id="deny-beats-allow",
        ),
        pytest.param(
            [
                SessionHookOutcome(behavior="deny", message="a"),
                SessionHookOutcome(behavior="deny", message="b", interrupt=True),
            ],
            SessionHookOutcome(behavior="deny", message="a; b", interrupt=True),
            id="an-interrupt-among-denies-stops",
        ),
        pytest.param(
            [SessionHookOutcome(behavior="allow", updated_input='{"a": 1}'), SessionHookOutcome()],
            SessionHookOutcome(behavior="allow", updated_input='{"a": 1}'),
            id="allow-carries-its-updated-input",
        ),
    ],
)
def test_permission_request_answers_merge(
    outcomes: list[SessionHookOutcome], merged: SessionHookOutcome
) -> None:
    assert merged_permission(outcomes) == merged


def test_two_different_updated_inputs_deny_the_call() -> None:
    merged = merged_permission(
        [
            SessionHookOutcome(behavior="allow", updated_input='{"a": 1}'),
            SessionHookOutcome(behavior="allow", updated_input='{"a": 2}'),
        ]
    )
    assert merged.behavior == "deny"
    assert "different arguments" in merged.message
