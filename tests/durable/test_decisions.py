"""``pod approve``'s options become one ``RunDecision`` (the saved-runs vocabulary)."""

from __future__ import annotations

import re

import pytest

from pod import PodUsageError
from pod._cli_durable import parse_decision
from pod.durable import RunDecision


def test_no_option_approves_every_pending_call() -> None:
    assert parse_decision([], [], None) == RunDecision(approve_rest=True)


def test_approve_and_skip_name_calls_the_rest_go_back_to_the_hooks() -> None:
    decision = parse_decision(["c1"], ["c2=too risky", "c3"], None)
    assert decision == RunDecision(
        approve=("c1",), skip={"c2": "too risky", "c3": "skipped by the approver"}
    )
    assert decision.named() == {"c1", "c2", "c3"}


def test_abort_alone() -> None:
    assert parse_decision([], [], "enough") == RunDecision(abort="enough")


@pytest.mark.parametrize(
    ("approve", "skip", "abort", "message"),
    [
        (["c1"], ["c1=no"], None, "call c1 is both approved and skipped"),
        ([], ["=no"], None, "--skip '=no': expected CALL_ID[=REASON]"),
        (["c1"], [], "stop", "--abort decides every pending call: give it alone"),
    ],
)
def test_contradictions_are_usage_errors(
    approve: list[str], skip: list[str], abort: str | None, message: str
) -> None:
    with pytest.raises(PodUsageError, match=rf"^{re.escape(message)}$"):
        parse_decision(approve, skip, abort)


def test_a_decision_message_rejects_unknown_fields() -> None:
    with pytest.raises(ValueError, match="extra"):
        RunDecision.model_validate({"approve": ["c1"], "approve_everything": True})
