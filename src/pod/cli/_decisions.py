"""Per-call decisions for a paused run: the options and the terminal prompt.

Shared by every command that continues a paused run (``pod run``, ``pod resume``, and the
durable-run commands). The vocabulary is one: ``--approve CALL_ID`` runs the call,
``--skip CALL_ID[=REASON]`` gives the model a "skipped" result instead, ``--abort`` ends the
run. In a terminal, :func:`ask_decisions` asks the same three questions call by call.

API:
- :func:`add_decision_arguments` adds the three options to a parser;
- :func:`decisions_from_arguments` turns the parsed options and the pause into a
  :class:`Answer` (or the list of problems, for usage errors);
- :func:`ask_decisions` asks a person in the terminal and returns an :class:`Answer`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, final

from rich.console import Console
from rich.json import JSON
from rich.prompt import Prompt
from rich.text import Text

from llm_worker import Abort, Approve, CallResolution, Paused, Skip

from ..runtime._trace import TracedDecision, TraceEvent, traced_decision
from ._terminal import shown

__all__ = [
    "USER_ABORT_REASON",
    "USER_SKIP_REASON",
    "Answer",
    "add_decision_arguments",
    "answered_events",
    "ask_decisions",
    "decisions_from_arguments",
    "decisions_given",
    "describe_pause",
]

USER_ABORT_REASON: Final = "aborted by the user"
USER_SKIP_REASON: Final = "skipped by the user"


@final
@dataclass(frozen=True)
class Answer:
    """What to do with a paused run."""

    decisions: Mapping[str, CallResolution] = field(default_factory=dict[str, CallResolution])
    """By call id, the decision that takes the hooks' place (``Pod.resume(decisions)``)."""
    end_run: bool = False
    """The person chose to abort a pause that has no pending call: there is nothing to
    resume with an ``Abort``, so the caller ends the run itself."""


def add_decision_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--approve CALL_ID``, ``--skip CALL_ID[=REASON]`` and ``--abort`` to ``parser``."""
    group = parser.add_argument_group("decisions for the pending tool calls")
    group.add_argument(
        "--approve",
        action="append",
        default=[],
        metavar="CALL_ID[=DIGEST]",
        help="run this pending call, as it was shown (repeatable); with =DIGEST, only if it "
        "is still the call of that digest (the pending call's `digest` in --json)",
    )
    group.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="CALL_ID[=REASON]",
        help="do not run this call; the model is told REASON (repeatable)",
    )
    group.add_argument("--abort", action="store_true", help="end the run")


def decisions_given(args: argparse.Namespace) -> bool:
    """Whether any of the decision options was used."""
    return bool(args.approve or args.skip or args.abort)


def decisions_from_arguments(args: argparse.Namespace, paused: Paused) -> Answer | list[str]:
    """The decisions the options give for ``paused``, or the problems with them.

    Every named call must be pending, and named once. ``--abort`` aborts at the first
    pending call (or ends the run if none is pending) and takes no other decision.
    """
    problems: list[str] = []
    pending = {call.call_id for call in paused.pending_calls}
    decisions: dict[str, CallResolution] = {}
    shown_calls = {call.call_id: call for call in paused.pending_calls}
    named: list[tuple[str, CallResolution]] = []
    for spec in args.approve:
        call_id, _, digest = str(spec).partition("=")
        call = shown_calls.get(call_id)
        if call is not None and digest and digest != call.digest:
            problems.append(
                f"{call_id!r} not approved: the approval names digest {digest}, the pending "
                f"call's is {call.digest}"
            )
            continue
        named.append((call_id, call.approve() if call is not None else Approve(digest=digest)))
    for spec in args.skip:
        call_id, _, reason = str(spec).partition("=")
        named.append((call_id, Skip(reason=reason.strip() or USER_SKIP_REASON)))
    if args.abort and named:
        problems.append("--abort ends the run: it cannot be combined with --approve or --skip")
    for call_id, decision in named:
        if call_id not in pending:
            problems.append(f"no pending tool call {call_id!r} ({_pending_list(paused)})")
        elif call_id in decisions:
            problems.append(f"{call_id!r} is given two decisions")
        else:
            decisions[call_id] = decision
    if problems:
        return problems
    if args.abort:
        if not paused.pending_calls:
            return Answer(end_run=True)
        return Answer({paused.pending_calls[0].call_id: Abort(reason=USER_ABORT_REASON)})
    return Answer(decisions)


def describe_pause(paused: Paused, decided_by: str | None) -> str:
    """``paused at pre_tool_call by my_hooks.ask: needs a human``."""
    by = f" by {decided_by}" if decided_by else ""
    return shown(f"paused at {paused.point}{by}: {paused.reason or '(no reason given)'}")


def ask_decisions(
    paused: Paused,
    *,
    decided_by: str | None,
    console: Console,
    answers: Sequence[str] | None = None,
    under_review: str | None = None,
) -> Answer:
    """Show the pause and ask, call by call, approve / skip (with a reason) / abort.

    What is decided is shown first: each pending call and its arguments, or at a pause with
    no call (a ``TURN_END`` review) ``under_review``, the answer the run would give. No
    decision has a default: Enter asks again, as a hook asked for a person's word.

    ``console`` is where the questions go (stderr: stdout holds only results); answers are
    read from the terminal, or taken from ``answers`` in order (a scripted session, e.g.
    the demo, which then echoes them).

    Raises:
        EOFError: stdin closed before every question was answered.
    """
    scripted = list(answers) if answers is not None else None

    def ask(question: str, choices: list[str] | None, default: str | None = None) -> str:
        if scripted is None:
            if default is None:
                return Prompt.ask(question, console=console, choices=choices)
            return Prompt.ask(question, console=console, choices=choices, default=default)
        reply = scripted.pop(0) if scripted else default
        if reply is None:
            raise EOFError("the script has no answer left")
        console.print(Text.assemble(question, " ", (f"{reply} (scripted)", "bold")))
        return reply

    console.print(Text(describe_pause(paused, decided_by), style="bold yellow"))
    if not paused.pending_calls:
        if under_review is not None:
            console.print(Text("  the answer, before it is given:", style="dim"))
            console.print(Text(under_review), soft_wrap=True)
        choice = ask("continue or abort?", ["continue", "abort"])
        return Answer(end_run=choice == "abort")
    decisions: dict[str, CallResolution] = {}
    for call in paused.pending_calls:
        console.print(
            Text.assemble("  ", (call.call_id, "bold"), " ", (shown(call.tool_name), "cyan"))
        )
        console.print(_pretty_arguments(call.arguments))
        choice = ask(f"  {shown(call.tool_name)}: approve, skip or abort?", _CHOICES)
        if choice == "abort":
            decisions[call.call_id] = Abort(reason=USER_ABORT_REASON)
            break
        if choice == "skip":
            reason = ask("  reason for skipping (the model sees it)", None, USER_SKIP_REASON)
            decisions[call.call_id] = Skip(reason=reason.strip() or USER_SKIP_REASON)
        else:
            decisions[call.call_id] = call.approve()
    return Answer(decisions)


def answered_events(paused: Paused, answer: Answer) -> list[TraceEvent]:
    """A person's answer to ``paused`` as trace events, one per decided call (or one for
    the run, at a pause with no call)."""
    actor = paused.point.upper()
    if answer.end_run or not paused.pending_calls:
        decided = (
            TracedDecision(kind="Abort", reason=USER_ABORT_REASON)
            if answer.end_run
            else TracedDecision(kind="Continue")
        )
        return [_person(actor, "the run", decided)]
    return [
        _person(actor, f"{call.call_id} {call.tool_name}", traced_decision(decision))
        for call in paused.pending_calls
        if (decision := answer.decisions.get(call.call_id)) is not None
    ]


def _person(actor: str, message: str, decided: TracedDecision) -> TraceEvent:
    return TraceEvent(
        source="person", actor=actor, message=message, decision=decided.display(), decided=decided
    )


_CHOICES: Final = ["approve", "skip", "abort"]


def _pretty_arguments(arguments: str) -> JSON | Text:
    try:
        json.loads(arguments)
    except ValueError:
        return Text(arguments)  # not JSON: shown as the model wrote it
    return JSON(arguments, indent=2)


def _pending_list(paused: Paused) -> str:
    if not paused.pending_calls:
        return "no call is pending"
    calls = ", ".join(f"{c.call_id} {c.tool_name}" for c in paused.pending_calls)
    return f"pending: {calls}"
