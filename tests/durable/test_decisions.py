"""``pod approve`` parses decisions with the saved runs' code (``_cli_decisions``) and sends
them as one ``RunDecision``."""

from __future__ import annotations

import pytest

from pod import Abort, Approve, Skip
from pod.cli._decisions import USER_ABORT_REASON, Answer
from pod.cli._durable import run_decision
from pod.durable import RunDecision


def test_no_decision_lets_the_hooks_be_asked_again() -> None:
    assert run_decision(Answer()) == RunDecision()


def test_approvals_and_skips_name_their_calls() -> None:
    answer = Answer({"c1": Approve(digest="jcs-sha256:c1"), "c2": Skip(reason="too risky")})
    decision = run_decision(answer)
    assert decision == RunDecision(
        approve=("c1",), digests={"c1": "jcs-sha256:c1"}, skip={"c2": "too risky"}
    )
    assert decision.named() == {"c1", "c2"}


@pytest.mark.parametrize(
    "answer",
    [
        Answer({"c1": Approve(digest="jcs-sha256:c1"), "c2": Abort(reason="enough")}),
        Answer(end_run=True),
    ],
)
def test_an_abort_ends_the_run(answer: Answer) -> None:
    reason = "enough" if answer.decisions else USER_ABORT_REASON
    assert run_decision(answer) == RunDecision(abort=reason)


def test_an_approval_without_the_digest_it_was_shown_is_no_decision() -> None:
    with pytest.raises(ValueError, match=r"approve names c1 without a digest: give digests="):
        RunDecision(approve=("c1",))
    with pytest.raises(ValueError, match="digests names c2, which approve does not"):
        RunDecision(approve=("c1",), digests={"c1": "jcs-sha256:c1", "c2": "jcs-sha256:c2"})
    with pytest.raises(ValueError, match="approve_rest"):  # no blanket approval any more
        RunDecision.model_validate({"approve_rest": True})


def test_a_decision_message_rejects_unknown_fields() -> None:
    with pytest.raises(ValueError, match="extra"):
        RunDecision.model_validate({"approve": ["c1"], "approve_everything": True})
