"""The hooks of one Claude Code event run side by side and their outcomes merge: the merge
table, and the failure policy of a group (a guard's failing hook fails it, once all ran; an
observer's is one warning line and the others still count)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from pod import (
    Abort,
    Annotate,
    CommandHook,
    CommandHookError,
    Continue,
    Feedback,
    Pause,
    Rewrite,
    Skip,
    events,
)
from pod.command._claude_merge import ClaudeHookGroup, merged_decision

from .conftest import CALL, RESULT, ScriptFactory


@pytest.mark.parametrize(
    ("decisions", "merged"),
    [
        pytest.param([Continue(), Continue()], Continue(), id="all-allow"),
        pytest.param([Continue(), Skip(reason="no")], Skip(reason="no"), id="deny-beats-allow"),
        pytest.param(
            [Pause(reason="ask"), Skip(reason="no")], Skip(reason="no"), id="deny-beats-ask"
        ),
        pytest.param([Continue(), Pause(reason="ask")], Pause(reason="ask"), id="ask-beats-allow"),
        pytest.param(
            [Skip(reason="a"), Skip(reason="b"), Skip(reason="a")],
            Skip(reason="a; b"),
            id="reasons-join-once",
        ),
        pytest.param(
            [Skip(reason="no"), Abort(reason="stop")], Abort(reason="stop"), id="stop-beats-all"
        ),
        pytest.param(
            [Annotate(text="one"), Annotate(text="two", then=Skip(reason="no"))],
            Annotate(text="one\ntwo", then=Skip(reason="no")),
            id="contexts-join-with-the-deny",
        ),
        pytest.param(
            [Rewrite.of({"a": 1}, reason="pin"), Pause(reason="ask")],
            Rewrite.of({"a": 1}, reason="pin", then=Pause(reason="ask")),
            id="a-rewrite-goes-with-ask",
        ),
        pytest.param(
            [Rewrite.of({"a": 1}, reason="pin"), Skip(reason="no")],
            Skip(reason="no"),
            id="a-denied-call-is-not-rewritten",
        ),
        pytest.param(
            [Rewrite.of({"a": 1}, reason="x"), Rewrite.of({"a": 1}, reason="y")],
            Rewrite.of({"a": 1}, reason="x; y"),
            id="the-same-rewrite-twice",
        ),
        pytest.param(
            [Feedback(text="lint"), Continue(), Feedback(text="types")],
            Feedback(text="lint\ntypes"),
            id="feedback-joins",
        ),
    ],
)
def test_the_merge_table(decisions: list[Any], merged: object) -> None:
    assert merged_decision(decisions, name="group") == merged


def test_two_different_rewrites_fail_the_group() -> None:
    with pytest.raises(CommandHookError, match="different arguments"):
        merged_decision(
            [Rewrite.of({"a": 1}, reason="x"), Rewrite.of({"a": 2}, reason="y")], name="group"
        )


def touching(script: ScriptFactory, marker: Path, *, status: int = 0, stdout: str = "") -> Any:
    return script(
        f"""
        import sys
        sys.stdin.read()
        open({str(marker)!r}, "w").close()
        sys.stdout.write({stdout!r})
        sys.stderr.write("broken")
        sys.exit({status})
        """
    )


async def test_a_failing_guard_hook_fails_the_group_after_every_hook_ran(
    script: ScriptFactory, tmp_path: Path
) -> None:
    hooks = [
        CommandHook(
            events.PRE_TOOL_CALL, touching(script, tmp_path / "a", status=3), protocol="claude-code"
        ),
        CommandHook(
            events.PRE_TOOL_CALL, touching(script, tmp_path / "b", status=2), protocol="claude-code"
        ),
    ]
    group = ClaudeHookGroup(events.PRE_TOOL_CALL, hooks, fail_closed=True)
    with pytest.raises(CommandHookError, match="exited with status 3"):
        await group(CALL)
    assert (tmp_path / "a").exists()
    assert (tmp_path / "b").exists()


async def test_an_observers_failing_hook_warns_and_the_others_still_count(
    script: ScriptFactory, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    hooks = [
        CommandHook(
            events.POST_TOOL_CALL,
            touching(script, tmp_path / "a", status=3),
            protocol="claude-code",
        ),
        CommandHook(
            events.POST_TOOL_CALL,
            touching(script, tmp_path / "b", stdout='{"decision": "block", "reason": "lint"}'),
            protocol="claude-code",
        ),
    ]
    group = ClaudeHookGroup(events.POST_TOOL_CALL, hooks, fail_closed=False)
    with caplog.at_level(logging.WARNING, logger="pod.hooks"):
        assert await group(RESULT) == Feedback(text="lint")
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "exited with status 3" in warning
    assert "ignored" in warning
