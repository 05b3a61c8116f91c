"""Claude Code's hook contract, spoken by ``CommandHook(..., protocol="claude-code")``.

A Claude Code hook script reads one JSON object on stdin and answers with its exit status and,
optionally, JSON on stdout. This module builds what it reads and maps what it answers onto
this project's decisions; the table is in ``docs/security.md``. In short:

- in: ``session_id``, ``transcript_path`` (always ``null``: hooks never see the history),
  ``cwd``, ``permission_mode`` (``"default"``), ``hook_event_name``, plus per event
  ``tool_name``/``tool_input``/``tool_use_id`` (``PreToolUse``), ``tool_response``
  (``PostToolUse``: the tool's own structured response when a ``pod.toolsets`` tool recorded
  one, such as ``Write``'s ``filePath``; otherwise the result's preview), ``prompt``
  (``UserPromptSubmit``), ``stop_hook_active`` (``Stop``);
- out: exit 0 continues (stdout that is not a JSON object is ignored, as Claude Code shows it
  only in its transcript), exit 2 blocks with stderr as the reason, any other status fails the
  hook; JSON ``continue: false``, ``decision: "block"`` and
  ``hookSpecificOutput.permissionDecision`` (allow / deny / ask) map as the table says.

Unlike Claude Code, which fails open, everything that does not map to a decision legal for
the event fails the hook (:class:`CommandHookError`), so the registration's failure policy
applies: an unknown field, ``updatedInput`` (hooks cannot rewrite a call), a decision the
event does not take, malformed JSON.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, Final, Literal, TypeAlias, TypeVar, cast, final

import pydantic_core
from pydantic import BaseModel, Field, JsonValue, ValidationError

from llm_worker import (
    Abort,
    Continue,
    Pause,
    PreCompactInfo,
    PromptSubmitInfo,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
)

from ..hooks import _events as events
from ..hooks._errors import CommandHookError
from ..hooks._events import HookEvent
from ..toolsets._responses import tool_response
from ._protocol import describe_validation

__all__ = [
    "CLAUDE_CODE_EVENTS",
    "REQUEST_MODELS",
    "SESSION_ID",
    "ClaudeCodeOutput",
    "claude_name",
    "claude_output_schema",
    "claude_stdin_schema",
    "encode_claude_request",
    "parse_claude_answer",
]

DecisionT = TypeVar("DecisionT")

CLAUDE_CODE_EVENTS: Final[Mapping[str, HookEvent[Any, Any]]] = {
    "PreToolUse": events.PRE_TOOL_CALL,
    "PostToolUse": events.POST_TOOL_CALL,
    "UserPromptSubmit": events.PROMPT_SUBMIT,
    "Stop": events.TURN_END,
    "PreCompact": events.PRE_COMPACT,
}
"""Claude Code's event names and the events they run on here."""
_NAMES: Final = {event.name: name for name, event in CLAUDE_CODE_EVENTS.items()}

SESSION_ID: Final = str(uuid.uuid4())
"""The ``session_id`` scripts read: one per process (one ``pod run``)."""

BLOCKING_EXIT: Final = 2
"""The exit status with which a script blocks (stderr is the reason)."""
_CONTINUE: Final = Continue()
_PREVIEW: Final = 120


def claude_name(event: HookEvent[Any, Any]) -> str | None:
    """Claude Code's name for ``event``, or ``None`` if Claude Code has no such event."""
    return _NAMES.get(event.name)


class _Request(BaseModel, frozen=True, extra="forbid"):
    """What every Claude Code script reads."""

    session_id: str
    """One id per process (one ``pod run``)."""
    transcript_path: None = None
    """Always ``null``: hooks never see the history."""
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
    tool_input: None = None
    """Always ``null``: the result summary does not carry the call's arguments."""
    tool_response: _ToolResponse | dict[str, JsonValue]
    """The structured response a ``pod.toolsets`` tool recorded for the call (Claude Code's
    shape, e.g. ``Write``'s ``{"type", "filePath", ...}``), else the result's preview."""
    tool_use_id: str


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
    """Always ``false``: a blocked stop pauses the run, so a stop hook is never re-entered."""


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
}
"""What a script reads on stdin, per Claude Code event name."""


def encode_claude_request(
    event: HookEvent[Any, Any], info: BaseModel, *, cwd: str, command: str
) -> bytes:
    """The JSON object a Claude Code script reads on stdin for ``info``.

    Raises:
        CommandHookError: a tool call's arguments are not a JSON object, so the script
            could not judge the call (fail closed).
    """
    common: dict[str, Any] = {"session_id": SESSION_ID, "cwd": cwd}
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
    elif isinstance(info, ToolResultSummary):
        recorded = None if info.is_error else tool_response(info.call_id, info.tool_name)
        response = recorded or _ToolResponse(
            output=info.output_preview, output_length=info.output_length, is_error=info.is_error
        )
        request = PostToolUseRequest(
            **common, tool_name=info.tool_name, tool_response=response, tool_use_id=info.call_id
        )
    elif isinstance(info, PromptSubmitInfo):
        request = UserPromptSubmitRequest(**common, prompt=info.input_text)
    elif isinstance(info, TurnEndInfo):
        request = StopRequest(**common)
    elif isinstance(info, PreCompactInfo):
        request = PreCompactRequest(**common)
    else:  # pragma: no cover  # CommandHook only takes the events of CLAUDE_CODE_EVENTS
        raise CommandHookError(command=command, problem=f"has no Claude Code event for {event}")
    return request.model_dump_json().encode("utf-8")


def claude_stdin_schema(event: HookEvent[Any, Any]) -> dict[str, Any]:
    """JSON Schema of what a Claude Code script reads on stdin at ``event``."""
    return REQUEST_MODELS[_NAMES[event.name]].model_json_schema(mode="serialization")


@final
class _Specific(BaseModel, frozen=True, extra="forbid", strict=True):
    hookEventName: str | None = None  # Claude Code's spelling
    permissionDecision: Literal["allow", "deny", "ask"] | None = None
    permissionDecisionReason: str = ""
    additionalContext: str | None = None  # not delivered: hooks cannot write


@final
class ClaudeCodeOutput(BaseModel, frozen=True, extra="forbid", strict=True):
    """The JSON object a Claude Code script may print on stdout (exit status 0)."""

    continue_: bool = Field(default=True, alias="continue")
    """``false``: stop (``Abort`` with ``stopReason``; at ``Stop`` the turn just ends)."""
    stopReason: str = ""
    suppressOutput: bool = False
    systemMessage: str = ""
    decision: Literal["block", "approve"] | None = None
    """``block``: see the mapping table; ``approve`` (older ``PreToolUse`` spelling): allow."""
    reason: str = ""
    hookSpecificOutput: _Specific | None = None


Decision: TypeAlias = Continue | Skip | Abort | Pause


def _blocked(event: HookEvent[Any, Any], reason: str) -> Decision:
    """What blocking means at ``event``."""
    if event is events.PRE_TOOL_CALL:
        return Skip(reason=reason)
    if event is events.PROMPT_SUBMIT:
        return Abort(reason=reason)
    return Pause(reason=reason)  # PostToolUse, Stop, PreCompact: a human reads the reason


def _stopped(event: HookEvent[Any, Any], reason: str) -> Decision:
    if event is events.TURN_END:
        return _CONTINUE  # the turn is ending: stopping is what happens anyway
    if event is events.PRE_COMPACT:
        return Pause(reason=reason)  # PRE_COMPACT cannot abort: stop for a human
    return Abort(reason=reason)


def parse_claude_answer(
    event: HookEvent[Any, DecisionT], status: int, stdout: bytes, stderr: str, *, command: str
) -> DecisionT:
    """Map a Claude Code script's answer (exit status, stdout, stderr) onto a decision legal
    at ``event``.

    Raises:
        CommandHookError: the answer maps to nothing legal there, or is malformed.
    """

    def fail(problem: str) -> CommandHookError:
        return CommandHookError(command=command, problem=problem, stderr=stderr)

    name = _NAMES[event.name]
    if status == BLOCKING_EXIT:
        decision = _blocked(event, stderr or f"blocked by a {name} hook (exit status 2)")
    else:
        text = stdout.strip()
        if not text.startswith(b"{"):
            return cast(DecisionT, _CONTINUE)  # plain text: Claude Code only shows it
        try:
            value: object = pydantic_core.from_json(text, allow_inf_nan=False)
            output = ClaudeCodeOutput.model_validate(value)
        except ValueError as exc:  # ValidationError is a ValueError
            detail = describe_validation(exc) if isinstance(exc, ValidationError) else str(exc)
            raise fail(
                f"printed an invalid Claude Code answer ({detail}): {text[:_PREVIEW]!r}"
            ) from None
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
    specific = output.hookSpecificOutput
    if specific is not None and specific.hookEventName not in (None, name):
        raise fail(f"answered for {specific.hookEventName!r} while asked about {name!r}")
    if not output.continue_:
        return _stopped(event, output.stopReason or f"stopped by a {name} hook")
    if specific is not None and specific.permissionDecision is not None:
        if event is not events.PRE_TOOL_CALL:
            raise fail(f"printed a permissionDecision, which only PreToolUse takes, at {name}")
        reason = specific.permissionDecisionReason
        match specific.permissionDecision:
            case "deny":
                return Skip(reason=reason or f"denied by a {name} hook")
            case "ask":
                return Pause(reason=reason or f"a {name} hook asks for confirmation")
            case "allow":
                return _CONTINUE
    if output.decision == "block":
        return _blocked(event, output.reason or f"blocked by a {name} hook")
    if output.decision == "approve" and event is not events.PRE_TOOL_CALL:
        raise fail(f'printed decision "approve", which only PreToolUse takes, at {name}')
    return _CONTINUE


def claude_output_schema() -> dict[str, Any]:
    """JSON Schema of what a Claude Code script may print (by alias, as written)."""
    return ClaudeCodeOutput.model_json_schema(by_alias=True)
