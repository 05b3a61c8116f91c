"""Control-flow decisions: what a hook (or an interceptor) may answer at a decision point.

Decisions are frozen values, never exceptions. Each event accepts only its own subset,
spelled as a union alias (:data:`PreToolDecision`, ...), so a hook returning ``Skip`` from
``PRE_LLM_REQUEST`` is a type error under any checker. No decision carries items: a hook
can stop or steer the run, never write to its context. The one decision that changes what
runs, :class:`Rewrite`, and the ones that tell the model something, :class:`Feedback` and
:class:`Annotate`, are declared data the engine validates and applies itself.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final, Literal, TypeAlias, final

from pydantic import BaseModel, JsonValue

__all__ = [
    "CONTINUE",
    "Abort",
    "Annotate",
    "Approve",
    "Continue",
    "Feedback",
    "Pause",
    "PostToolDecision",
    "PreRequestDecision",
    "PreToolDecision",
    "PromptSubmitDecision",
    "Rewrite",
    "Skip",
    "TurnEndDecision",
]


@final
class Continue(BaseModel, frozen=True, extra="forbid"):
    """Carry on: the neutral decision. The next hook in registration order is asked."""

    decision: Literal["continue"] = "continue"


CONTINUE: Final = Continue()
"""The shared ``Continue`` (decisions are immutable, so one will do)."""


@final
class Skip(BaseModel, frozen=True, extra="forbid"):
    """Do not run this tool call; the model gets an error result carrying ``reason``.

    At ``POST_TOOL_CALL``: the call ran, but its result does not enter the history; the
    model gets an error result carrying ``reason`` in its place (``tool result withheld:``).
    """

    decision: Literal["skip"] = "skip"
    reason: str


@final
class Abort(BaseModel, frozen=True, extra="forbid"):
    """End the run now with ``reason``; open tool calls are closed with synthetic results."""

    decision: Literal["abort"] = "abort"
    reason: str


@final
class Pause(BaseModel, frozen=True, extra="forbid"):
    """Stop the run resumably (e.g. to ask a human); the caller resumes it later."""

    decision: Literal["pause"] = "pause"
    reason: str = ""


@final
class Rewrite(BaseModel, frozen=True, extra="forbid"):
    """Run this tool call with other arguments (``PRE_TOOL_CALL`` only).

    The engine, not the hook, applies it: ``arguments`` (JSON object text, see
    :meth:`of`) replaces the call's arguments in the history, the trace reports it, the
    hooks after this one are asked about the rewritten call, and a pause that follows
    shows it to the approver. The tool validates the new arguments exactly as it validates
    the model's (invalid ones give the model an error result). Text that is not a JSON
    object fails the hook that wrote it.

    ``then`` is what happens to the rewritten call: ``None`` asks the next hook (and runs
    the call if every hook continues); a ``Skip``, ``Abort`` or ``Pause`` stops there, e.g.
    ``Rewrite.of({...}, reason="pinned the branch", then=Pause(reason="approve?"))``.
    """

    decision: Literal["rewrite"] = "rewrite"
    arguments: str
    """The new arguments as JSON object text."""
    reason: str
    """Why the arguments were rewritten (the trace and the history's readers see it)."""
    then: Skip | Abort | Pause | None = None
    """The decision about the rewritten call; ``None``: ask the next hook."""

    @classmethod
    def of(
        cls,
        arguments: Mapping[str, JsonValue],
        *,
        reason: str,
        then: Skip | Abort | Pause | None = None,
    ) -> Rewrite:
        """A ``Rewrite`` to ``arguments`` (written as compact JSON text)."""
        text = json.dumps(dict(arguments), ensure_ascii=False, separators=(",", ":"))
        return cls(arguments=text, reason=reason, then=then)


@final
class Feedback(BaseModel, frozen=True, extra="forbid"):
    """Tell the model ``text`` and carry on (``PROMPT_SUBMIT``, ``POST_TOOL_CALL`` and
    ``TURN_END`` only).

    The engine, not the hook, writes it, bounded to ``REASON_BYTES`` with a marker: at
    ``PROMPT_SUBMIT`` as a user message right after the prompt (context for it); at
    ``POST_TOOL_CALL`` after the result's content, marked as hook feedback (the model sees it
    with the result it is about); at ``TURN_END`` the turn does not end: ``text`` becomes the
    next user message and the model is asked again (``TurnEndInfo.continued`` counts how
    often in a row; ``max_requests_per_turn`` bounds it). The hooks after this one are not
    asked.
    """

    decision: Literal["feedback"] = "feedback"
    text: str
    """What the model is told."""


@final
class Annotate(BaseModel, frozen=True, extra="forbid"):
    """Tell the model ``text`` next to this tool call's result (``PRE_TOOL_CALL`` only).

    Context about the call from before it runs (Claude Code's ``additionalContext`` at
    ``PreToolUse``). It decides nothing by itself: ``then`` is the decision about the call
    (``None``: ask the next hook, as ``Continue`` does; a ``Rewrite``: as that ``Rewrite``
    does), so an ``Annotate`` never lets a call past a hook after it. The engine, not the
    hook, writes ``text``, bounded to ``REASON_BYTES`` with a marker, after the result the
    model sees, as ``[hook context] ...``: the call's output, or the error result of a
    skipped call (a pause keeps it until the call is decided; an ``Abort`` ends the run
    and the text goes nowhere). Several hooks' texts are joined, one a line, in hook order.
    """

    decision: Literal["annotate"] = "annotate"
    text: str
    """What the model is told with the call's result."""
    then: Skip | Abort | Pause | Rewrite | None = None
    """The decision about the call; ``None``: ask the next hook."""


@final
class Approve(BaseModel, frozen=True, extra="forbid"):
    """Approve a paused tool call on ``resume``, naming the digest the approver was shown.

    ``digest`` is ``PendingCall.digest`` as it stood when the approver saw the call: the
    Worker refuses it (``ApprovalMismatchError``, with both digests, nothing changed) if
    the call's identity (run, turn, id, tool, canonical arguments) has changed since.
    It is the only decision that approves a paused call: ``Continue`` on ``resume`` is
    refused.
    """

    decision: Literal["approve"] = "approve"
    digest: str
    arguments: str | None = None
    """Run the call with these arguments instead (JSON object text), as a ``Rewrite``
    would: the history records them, the tool validates them as it validates the model's;
    ``None``: as it stands. ``digest`` still names the call the approver was shown."""


PromptSubmitDecision: TypeAlias = Continue | Abort | Feedback
"""Legal at ``PROMPT_SUBMIT``."""
PreRequestDecision: TypeAlias = Continue | Abort | Pause
"""Legal at ``PRE_LLM_REQUEST``."""
PreToolDecision: TypeAlias = Continue | Skip | Abort | Pause | Rewrite | Annotate
"""Legal at ``PRE_TOOL_CALL``."""
PostToolDecision: TypeAlias = Continue | Skip | Abort | Pause | Feedback
"""Legal at ``POST_TOOL_CALL``."""
TurnEndDecision: TypeAlias = Continue | Pause | Feedback
"""Legal at ``TURN_END``."""
