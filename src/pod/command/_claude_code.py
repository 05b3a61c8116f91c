"""Claude Code's hook contract, spoken by ``CommandHook(..., protocol="claude-code")``.

A Claude Code hook script reads one JSON object on stdin and answers with its exit status and,
optionally, JSON on stdout. This module builds what it reads and maps what it answers onto
this project's decisions; the table is in ``docs/claude-code.md``. In short:

- in: ``session_id`` and ``transcript_path`` (:class:`ClaudeSession`), ``cwd``,
  ``permission_mode`` (``"default"``), ``hook_event_name``, plus per event
  ``tool_name``/``tool_input``/``tool_use_id`` (``PreToolUse``, ``PostToolUse``),
  ``tool_response`` (``PostToolUse``: the tool's own structured response when a
  ``pod.toolsets`` tool recorded one, such as ``Write``'s ``filePath``), ``prompt``
  (``UserPromptSubmit``),
  ``stop_hook_active``/``last_assistant_message`` (``Stop``), ``trigger``/
  ``custom_instructions`` (``PreCompact``);
- out: exit 0 continues (stdout that is not a JSON object is ignored, as Claude Code shows it
  only in its transcript), exit 2 blocks with stderr as the reason, any other status fails the
  hook; JSON ``continue: false``, ``decision: "block"``, ``hookSpecificOutput``'s
  ``permissionDecision`` (allow / deny / ask / defer), ``updatedInput`` (a ``Rewrite``) and
  ``additionalContext`` (``PreToolUse``: ``Annotate``; ``PostToolUse``, ``Stop``,
  ``UserPromptSubmit``: ``Feedback``) map as the table says;
  ``systemMessage`` is a warning line for the user.

Everything that does not map to a decision legal for the event fails the hook
(:class:`CommandHookError`), so the registration's failure policy applies: an unknown field,
a decision the event does not take, malformed JSON.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias, TypeVar, cast, final

import pydantic_core
from pydantic import BaseModel, Field, JsonValue, ValidationError

from llm_worker import (
    Abort,
    Annotate,
    Continue,
    Feedback,
    Pause,
    PreCompactInfo,
    PromptSubmitInfo,
    Rewrite,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
    bounded,
    visible,
)

from ..hooks import _events as events
from ..hooks._errors import CommandHookError
from ..hooks._events import HookEvent
from ..toolsets._responses import tool_response
from ._protocol import describe_validation

__all__ = [
    "CLAUDE_CODE_EVENTS",
    "DEFAULT_SESSION",
    "REQUEST_MODELS",
    "SESSION_ID",
    "ClaudeCodeOutput",
    "ClaudeSession",
    "claude_name",
    "claude_output_schema",
    "claude_stdin_schema",
    "encode_claude_request",
    "hears_of",
    "parse_claude_answer",
]

DecisionT = TypeVar("DecisionT")
_log = logging.getLogger("pod.hooks")

CLAUDE_CODE_EVENTS: Final[Mapping[str, HookEvent[Any, Any]]] = {
    "PreToolUse": events.PRE_TOOL_CALL,
    "PostToolUse": events.POST_TOOL_CALL,
    "UserPromptSubmit": events.PROMPT_SUBMIT,
    "Stop": events.TURN_END,
    "PreCompact": events.PRE_COMPACT,
    "PostToolUseFailure": events.POST_TOOL_CALL,
}
"""Claude Code's event names and the events they run on here (``PostToolUse`` for the
results that are not errors, ``PostToolUseFailure`` for those that are)."""
_NAMES: Final = {event.name: name for name, event in reversed(list(CLAUDE_CODE_EVENTS.items()))}
"""Each event's first Claude Code name (``POST_TOOL_CALL``: ``PostToolUse``)."""

SESSION_ID: Final = str(uuid.uuid4())
"""The ``session_id`` scripts read: one per process (one ``pod run``)."""

BLOCKING_EXIT: Final = 2
"""The exit status with which a script blocks (stderr is the reason)."""
_CONTINUE: Final = Continue()
_PREVIEW: Final = 120


def hears_of(info: BaseModel, name: str | None) -> bool:
    """Whether a script of Claude Code's event ``name`` is asked about ``info``: a tool's
    error result only at ``PostToolUseFailure``, its other results only at ``PostToolUse``."""
    if isinstance(info, ToolResultSummary):
        return info.is_error == (name == "PostToolUseFailure")
    return True


def claude_name(event: HookEvent[Any, Any]) -> str | None:
    """Claude Code's name for ``event``, or ``None`` if Claude Code has no such event."""
    return _NAMES.get(event.name)


@final
@dataclass(frozen=True, slots=True)
class ClaudeSession:
    """What every script of one run reads the same: its ``session_id`` and
    ``transcript_path`` (``pod run`` keeps both across ``pod resume``)."""

    session_id: str = SESSION_ID
    transcript_path: str | None = None
    """A JSONL transcript in Claude Code's format that the run keeps up to date, or
    ``None`` (``null``) when the run writes none."""


DEFAULT_SESSION: Final = ClaudeSession()


class _Request(BaseModel, frozen=True, extra="forbid"):
    """What every Claude Code script reads."""

    session_id: str
    """One id per run (kept across ``pod resume``)."""
    transcript_path: str | None = None
    """The run's JSONL transcript in Claude Code's format, or ``null`` if it writes none."""
    cwd: str
    """The folder the command runs in."""
    permission_mode: Literal["default"] = "default"


@final
class PreToolUseRequest(_Request, frozen=True, extra="forbid"):
    """Read by a ``PreToolUse`` script (``PRE_TOOL_CALL``)."""

    hook_event_name: Literal["PreToolUse"] = "PreToolUse"
    tool_name: str
    tool_input: dict[str, JsonValue]
    """The call's arguments, parsed."""
    tool_use_id: str


@final
class _ToolResponse(BaseModel, frozen=True, extra="forbid"):
    output: str
    """The start of the result (at most ``PREVIEW_BYTES`` UTF-8 bytes)."""
    output_length: int
    """Length of the whole result in UTF-8 bytes."""
    is_error: bool


@final
class PostToolUseRequest(_Request, frozen=True, extra="forbid"):
    """Read by a ``PostToolUse`` script (``POST_TOOL_CALL``)."""

    hook_event_name: Literal["PostToolUse"] = "PostToolUse"
    tool_name: str
    tool_input: dict[str, JsonValue] | None
    """The arguments the tool ran with, parsed (``null`` if they are not a JSON object)."""
    tool_response: dict[str, JsonValue] | _ToolResponse
    """The structured response a ``pod.toolsets`` tool recorded for the call (Claude Code's
    shape, e.g. ``Write``'s ``{"type", "filePath", ...}``); else the tool's result itself
    when it is a whole JSON object (as Claude Code's tools answer); else
    ``{output, output_length, is_error}``."""
    tool_use_id: str


@final
class PostToolUseFailureRequest(_Request, frozen=True, extra="forbid"):
    """Read by a ``PostToolUseFailure`` script (``POST_TOOL_CALL``, an error result)."""

    hook_event_name: Literal["PostToolUseFailure"] = "PostToolUseFailure"
    tool_name: str
    tool_input: dict[str, JsonValue] | None
    """The arguments the tool was called with, parsed (``null`` if not a JSON object)."""
    tool_use_id: str
    error: str
    """The start of the error the model sees (at most ``PREVIEW_BYTES`` UTF-8 bytes)."""
    is_interrupt: bool = False
    """Always ``false``: a cancelled run asks no hooks."""


@final
class UserPromptSubmitRequest(_Request, frozen=True, extra="forbid"):
    """Read by a ``UserPromptSubmit`` script (``PROMPT_SUBMIT``)."""

    hook_event_name: Literal["UserPromptSubmit"] = "UserPromptSubmit"
    prompt: str


@final
class StopRequest(_Request, frozen=True, extra="forbid"):
    """Read by a ``Stop`` script (``TURN_END``)."""

    hook_event_name: Literal["Stop"] = "Stop"
    stop_hook_active: bool = False
    """``true`` when a Stop hook's block is why the model is still going (a script that
    blocks whenever it runs should let it stop then)."""
    last_assistant_message: str = ""
    """The start of the model's final answer (at most ``PREVIEW_BYTES`` UTF-8 bytes)."""


@final
class PreCompactRequest(_Request, frozen=True, extra="forbid"):
    """Read by a ``PreCompact`` script (``PRE_COMPACT``)."""

    hook_event_name: Literal["PreCompact"] = "PreCompact"
    trigger: Literal["auto"] = "auto"
    """Always ``auto``: the Pod compacts when the context passes its threshold."""
    custom_instructions: str = ""
    """Always empty (there is no ``/compact`` command here)."""


REQUEST_MODELS: Final[Mapping[str, type[_Request]]] = {
    "PreToolUse": PreToolUseRequest,
    "PostToolUse": PostToolUseRequest,
    "UserPromptSubmit": UserPromptSubmitRequest,
    "Stop": StopRequest,
    "PreCompact": PreCompactRequest,
    "PostToolUseFailure": PostToolUseFailureRequest,
}
"""What a script reads on stdin, per Claude Code event name."""


def _tool_response(info: ToolResultSummary) -> dict[str, JsonValue] | _ToolResponse:
    recorded = None if info.is_error else tool_response(info.call_id, info.tool_name)
    if recorded is not None:
        return recorded
    whole = len(info.output_preview.encode("utf-8")) == info.output_length
    if whole and info.output_preview.lstrip().startswith("{"):
        try:  # at most PREVIEW_BYTES: a small parse
            parsed: object = pydantic_core.from_json(info.output_preview, allow_inf_nan=False)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            return cast(dict[str, JsonValue], parsed)
    return _ToolResponse(
        output=info.output_preview, output_length=info.output_length, is_error=info.is_error
    )


def encode_claude_request(
    event: HookEvent[Any, Any],
    info: BaseModel,
    *,
    cwd: str,
    command: str,
    session: ClaudeSession = DEFAULT_SESSION,
    name: str | None = None,
) -> bytes:
    """The JSON object a Claude Code script reads on stdin for ``info``.

    Raises:
        CommandHookError: a tool call's arguments are not a JSON object, so the script
            could not judge the call (fail closed).
    """
    common: dict[str, Any] = {
        "session_id": session.session_id,
        "transcript_path": session.transcript_path,
        "cwd": cwd,
    }
    request: _Request
    if isinstance(info, ToolCallSummary):
        arguments = info.parsed_arguments()
        if arguments is None:
            raise CommandHookError(
                command=command,
                problem="was not asked: the call's arguments are not a JSON object, so a "
                "Claude Code hook cannot read tool_input",
            )
        request = PreToolUseRequest(
            **common, tool_name=info.tool_name, tool_input=arguments, tool_use_id=info.call_id
        )
    elif isinstance(info, ToolResultSummary) and name == "PostToolUseFailure":
        request = PostToolUseFailureRequest(
            **common,
            tool_name=info.tool_name,
            tool_input=info.parsed_arguments(),
            tool_use_id=info.call_id,
            error=info.output_preview,
        )
    elif isinstance(info, ToolResultSummary):
        request = PostToolUseRequest(
            **common,
            tool_name=info.tool_name,
            tool_input=info.parsed_arguments(),
            tool_response=_tool_response(info),
            tool_use_id=info.call_id,
        )
    elif isinstance(info, PromptSubmitInfo):
        request = UserPromptSubmitRequest(**common, prompt=info.input_text)
    elif isinstance(info, TurnEndInfo):
        request = StopRequest(
            **common,
            stop_hook_active=info.continued > 0,
            last_assistant_message=info.final_text_preview,
        )
    elif isinstance(info, PreCompactInfo):
        request = PreCompactRequest(**common)
    else:  # pragma: no cover  # CommandHook only takes the events of CLAUDE_CODE_EVENTS
        raise CommandHookError(command=command, problem=f"has no Claude Code event for {event}")
    return request.model_dump_json().encode("utf-8")


def claude_stdin_schema(event: HookEvent[Any, Any], name: str | None = None) -> dict[str, Any]:
    """JSON Schema of what a Claude Code script reads on stdin at ``event`` (as Claude
    Code's event ``name``; default the event's first name)."""
    return REQUEST_MODELS[name or _NAMES[event.name]].model_json_schema(mode="serialization")


@final
class _Specific(BaseModel, frozen=True, extra="forbid", strict=True):
    hookEventName: str | None = None  # Claude Code's spelling
    permissionDecision: Literal["allow", "deny", "ask", "defer"] | None = None
    permissionDecisionReason: str = ""
    updatedInput: dict[str, JsonValue] | None = None
    """``PreToolUse``: the arguments the call runs with instead (a ``Rewrite``)."""
    additionalContext: str | None = None
    """Told to the model: ``PreToolUse`` with the call's result (``Annotate``);
    ``PostToolUse`` with the result, ``UserPromptSubmit`` after the prompt, ``Stop`` as the
    next message, the turn going on (``Feedback``); ``PreCompact``: not delivered (Claude
    Code defines none there)."""


@final
class ClaudeCodeOutput(BaseModel, frozen=True, extra="forbid", strict=True):
    """The JSON object a Claude Code script may print on stdout (exit status 0)."""

    continue_: bool = Field(default=True, alias="continue")
    """``false``: stop (``Abort`` with ``stopReason``; at ``Stop`` the turn just ends)."""
    stopReason: str = ""
    suppressOutput: bool = False
    systemMessage: str = ""
    """Shown to the user: a warning line on the ``pod.hooks`` logger (stderr in ``pod run``)."""
    decision: Literal["block", "approve"] | None = None
    """``block``: see the mapping table; ``approve`` (older ``PreToolUse`` spelling): allow."""
    reason: str = ""
    hookSpecificOutput: _Specific | None = None


Decision: TypeAlias = Continue | Skip | Abort | Pause | Rewrite | Feedback | Annotate


def _blocked(event: HookEvent[Any, Any], reason: str) -> Decision:
    """What blocking means at ``event`` (Claude Code's exit status 2 or ``decision: block``)."""
    if event is events.PRE_TOOL_CALL:
        return Skip(reason=reason)
    if event is events.PROMPT_SUBMIT:
        return Abort(reason=reason)
    if event is events.POST_TOOL_CALL or event is events.TURN_END:
        return Feedback(text=reason)  # the model is told, and goes on
    return Pause(reason=reason)  # PreCompact: a human reads the reason


def _stopped(event: HookEvent[Any, Any], reason: str) -> Decision:
    if event is events.TURN_END:
        return _CONTINUE  # the turn is ending: stopping is what happens anyway
    if event is events.PRE_COMPACT:
        return Pause(reason=reason)  # PRE_COMPACT cannot abort: stop for a human
    return Abort(reason=reason)


def parse_claude_answer(
    event: HookEvent[Any, DecisionT],
    status: int,
    stdout: bytes,
    stderr: str,
    *,
    command: str,
    name: str | None = None,
) -> DecisionT:
    """Map a Claude Code script's answer (exit status, stdout, stderr) onto a decision legal
    at ``event``.

    Raises:
        CommandHookError: the answer maps to nothing legal there, or is malformed.
    """

    def fail(problem: str) -> CommandHookError:
        return CommandHookError(command=command, problem=problem, stderr=stderr)

    name = name or _NAMES[event.name]
    if status == BLOCKING_EXIT:
        decision = _blocked(event, stderr or f"blocked by a {name} hook (exit status 2)")
    else:
        text = stdout.strip()
        if not text.startswith(b"{"):
            if event is events.PROMPT_SUBMIT and text:  # Claude Code adds it as context
                return cast(DecisionT, Feedback(text=text.decode("utf-8", "replace")))
            return cast(DecisionT, _CONTINUE)  # plain text elsewhere: Claude Code only shows it
        try:
            value: object = pydantic_core.from_json(text, allow_inf_nan=False)
            output = ClaudeCodeOutput.model_validate(value)
        except ValueError as exc:  # ValidationError is a ValueError
            detail = describe_validation(exc) if isinstance(exc, ValidationError) else str(exc)
            raise fail(
                f"printed an invalid Claude Code answer ({detail}): {text[:_PREVIEW]!r}"
            ) from None
        if output.systemMessage:
            _log.warning("%s: %s", command, visible(bounded(output.systemMessage)))
        decision = _decide(event, name, output, fail)
    if not isinstance(decision, event.decision_types):
        raise fail(f"answered {type(decision).__name__}, which {event.name.upper()} does not allow")
    return cast(DecisionT, decision)  # checked just above: legal at the event


def _decide(
    event: HookEvent[Any, Any],
    name: str,
    output: ClaudeCodeOutput,
    fail: Any,
) -> Decision:
    specific = output.hookSpecificOutput or _Specific()
    if specific.hookEventName not in (None, name):
        raise fail(f"answered for {specific.hookEventName!r} while asked about {name!r}")
    if not output.continue_:
        return _stopped(event, output.stopReason or f"stopped by a {name} hook")
    if event is not events.PRE_TOOL_CALL:
        if specific.permissionDecision is not None or specific.updatedInput is not None:
            field = "permissionDecision" if specific.permissionDecision else "updatedInput"
            raise fail(f"printed {field}, which only PreToolUse takes, at {name}")
        if output.decision == "approve":
            raise fail(f'printed decision "approve", which only PreToolUse takes, at {name}')
    if event is events.POST_TOOL_CALL or event is events.TURN_END:
        # Both tell the model and go on: after the result; at Stop, as its next message.
        told = [output.reason if output.decision == "block" else "", specific.additionalContext]
        text = "\n".join(part for part in told if part)
        if output.decision == "block" or text:
            return Feedback(text=text or f"blocked by a {name} hook")
        return _CONTINUE
    if event is events.PRE_TOOL_CALL:
        decided = _pre_tool_use(name, output, specific)
        if not specific.additionalContext:
            return decided
        # Context the model sees with the call's result, whatever is decided about it.
        then = None if isinstance(decided, Continue) else decided
        assert isinstance(then, Skip | Pause | Rewrite | None)  # what _pre_tool_use decides
        return Annotate(text=specific.additionalContext, then=then)
    if output.decision == "block":
        return _blocked(event, output.reason or f"blocked by a {name} hook")
    if event is events.PROMPT_SUBMIT and specific.additionalContext:
        return Feedback(text=specific.additionalContext)  # context for the prompt
    return _CONTINUE


def _pre_tool_use(name: str, output: ClaudeCodeOutput, specific: _Specific) -> Decision:
    reason = specific.permissionDecisionReason
    then: Skip | Pause | None = None
    match specific.permissionDecision:
        case "deny":
            return Skip(reason=reason or f"denied by a {name} hook")
        case "ask":
            then = Pause(reason=reason or f"a {name} hook asks for confirmation")
        case "defer":
            # Claude Code (headless): the call waits for its caller to resume the session.
            then = Pause(reason=reason or f"deferred by a {name} hook")
        case "allow" | None:
            if output.decision == "block":
                return Skip(reason=output.reason or f"blocked by a {name} hook")
    if specific.updatedInput is not None:
        return Rewrite.of(
            specific.updatedInput, reason=reason or f"updatedInput of a {name} hook", then=then
        )
    return then if then is not None else _CONTINUE


def claude_output_schema() -> dict[str, Any]:
    """JSON Schema of what a Claude Code script may print (by alias, as written)."""
    return ClaudeCodeOutput.model_json_schema(by_alias=True)
