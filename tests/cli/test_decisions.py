"""The shared decision options and prompt (`pod resume`, and the durable-run commands)."""

from __future__ import annotations

import argparse
import io

import pytest
from rich.console import Console

from llm_worker import Abort, Approve, Paused, PendingCall, Skip
from pod.cli._decisions import (
    Answer,
    add_decision_arguments,
    ask_decisions,
    decisions_from_arguments,
)

PAUSED = Paused(
    point="pre_tool_call",
    reason="needs a human",
    turn=0,
    pending_calls=(
        PendingCall(
            call_id="c1", tool_name="shell", arguments='{"command": "ls"}', digest="jcs-sha256:c1"
        ),
        PendingCall(call_id="c2", tool_name="shell", arguments="not json", digest="jcs-sha256:c2"),
    ),
)
AT_TURN_END = Paused(point="turn_end", reason="review the answer", turn=0)


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_decision_arguments(parser)
    return parser.parse_args(argv)


def test_options_become_decisions() -> None:
    answer = decisions_from_arguments(parse("--approve=c1", "--skip", "c2=not now"), PAUSED)
    # An approval echoes the digest of the call as shown.
    assert answer == Answer({"c1": Approve(digest="jcs-sha256:c1"), "c2": Skip(reason="not now")})
    assert decisions_from_arguments(parse("--skip=c2"), PAUSED) == Answer(
        {"c2": Skip(reason="skipped by the user")}
    )


def test_abort_aborts_at_the_first_pending_call_or_ends_a_pause_without_calls() -> None:
    assert decisions_from_arguments(parse("--abort"), PAUSED) == Answer(
        {"c1": Abort(reason="aborted by the user")}
    )
    assert decisions_from_arguments(parse("--abort"), AT_TURN_END) == Answer(end_run=True)
    assert decisions_from_arguments(parse("--abort", "--approve=c1"), PAUSED) == [
        "--abort ends the run: it cannot be combined with --approve or --skip"
    ]


def scripted(paused: Paused, *answers: str) -> tuple[Answer, str]:
    out = io.StringIO()
    answer = ask_decisions(
        paused,
        decided_by="my_hooks.ask",
        console=Console(file=out, width=200, color_system=None),
        answers=answers,
    )
    return answer, out.getvalue()


def test_the_prompt_asks_per_call_and_stops_at_abort() -> None:
    answer, shown = scripted(PAUSED, "skip", "too risky", "approve")
    assert answer == Answer({"c1": Skip(reason="too risky"), "c2": Approve(digest="jcs-sha256:c2")})
    assert shown.splitlines()[0] == "paused at pre_tool_call by my_hooks.ask: needs a human"
    assert '"command": "ls"' in shown
    assert "not json" in shown  # arguments that are not JSON are shown as written
    answer, _ = scripted(PAUSED, "abort")
    assert answer == Answer({"c1": Abort(reason="aborted by the user")})


def test_no_decision_has_a_default() -> None:
    with pytest.raises(EOFError):  # a script out of answers is not taken as "approve"
        scripted(PAUSED, "skip", "too risky")
    with pytest.raises(EOFError):
        scripted(AT_TURN_END)


def test_a_pause_without_calls_asks_continue_or_abort() -> None:
    answer, shown = scripted(AT_TURN_END, "abort")
    assert answer == Answer(end_run=True)
    assert "continue or abort? abort (scripted)" in shown
    assert scripted(AT_TURN_END, "continue")[0] == Answer()


SHOWN = Paused(
    point="pre_tool_call",
    reason="needs a human",
    turn=0,
    pending_calls=(
        PendingCall(
            call_id="c1", tool_name="shell", arguments='{"command": "ls"}', digest="jcs-sha256:a"
        ),
    ),
)


def test_the_prompt_and_approve_name_the_digest_of_the_call_that_was_shown() -> None:
    console = Console(file=io.StringIO())
    assert ask_decisions(SHOWN, decided_by=None, console=console, answers=["approve"]) == Answer(
        {"c1": Approve(digest="jcs-sha256:a")}
    )
    assert decisions_from_arguments(parse("--approve=c1"), SHOWN) == Answer(
        {"c1": Approve(digest="jcs-sha256:a")}
    )
    assert decisions_from_arguments(parse("--approve=c1=jcs-sha256:a"), SHOWN) == Answer(
        {"c1": Approve(digest="jcs-sha256:a")}
    )
    assert decisions_from_arguments(parse("--approve=c1=jcs-sha256:b"), SHOWN) == [
        "'c1' not approved: the approval names digest jcs-sha256:b, the pending call's is "
        "jcs-sha256:a"
    ]
