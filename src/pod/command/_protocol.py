"""The JSON protocol between the Pod and a hook command: the request a command reads, and the
decision it prints, checked against its event (see ``CommandHook`` for the whole protocol).

Kept apart from ``CommandHook`` (which is hook code the ``pod_mypy`` plugin checks) because
decoding untrusted JSON is typed ``Any`` until it is validated; every path out of here is a
validated decision or a :class:`CommandHookError`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final, TypeVar, cast

import pydantic_core
from pydantic import BaseModel, ValidationError

from llm_worker import ToolCallSummary

from ..hooks._errors import CommandHookError
from ..hooks._events import HookEvent

__all__ = [
    "describe_validation",
    "encode_request",
    "matcher_selects",
    "parse_decision",
    "stdin_schema",
    "stdout_schema",
    "tool_name_of",
]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")

_PREVIEW_BYTES: Final = 120


def encode_request(event: HookEvent[InputT, Any], info: InputT) -> bytes:
    """Return the request a command gets for ``info``: one line of ASCII JSON, no newline.

    A tool call's request also carries ``arguments``: the arguments parsed (``null`` when
    they are not a JSON object), so a command need not decode JSON inside JSON.
    """
    envelope: dict[str, object] = {"event": event.name, "input": info.model_dump(mode="json")}
    if isinstance(info, ToolCallSummary):
        envelope["arguments"] = info.parsed_arguments()
    return json.dumps(envelope, separators=(",", ":")).encode("ascii")


def matcher_selects(matcher: re.Pattern[str] | None, tool_name: str) -> bool:
    """Whether a hook of ``matcher`` is put a call of ``tool_name`` (every call without one)."""
    return matcher is None or matcher.fullmatch(tool_name) is not None


def tool_name_of(info: BaseModel) -> str:
    """The tool an Input is about (``""`` for an Input that names none)."""
    name: object = getattr(info, "tool_name", "")
    return name if isinstance(name, str) else ""


def stdin_schema(event: HookEvent[Any, Any]) -> dict[str, Any]:
    """JSON Schema of exactly what a native command reads on stdin for ``event``."""
    properties: dict[str, Any] = {
        "event": {"const": event.name, "type": "string"},
        "input": event.input_schema(),
    }
    if event.input_type is ToolCallSummary:
        properties["arguments"] = {
            "anyOf": [{"type": "object"}, {"type": "null"}],
            "description": "The call's arguments, parsed; null if they are not a JSON object.",
        }
    return {
        "title": f"{event.name} request",
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def stdout_schema(event: HookEvent[Any, Any]) -> dict[str, Any]:
    """JSON Schema of exactly what a native command may print for ``event``: one decision
    object with its ``decision`` tag written out (``{}`` is refused, as the run refuses it);
    anything at all for an observe-only event (its output is ignored)."""
    if event.observe_only:
        return {"description": f"ignored: {event.name} is observe-only"}
    return event.output_schema()


def _preview(data: bytes) -> str:
    cut = data[:_PREVIEW_BYTES]
    return repr(cut) + ("..." if len(data) > _PREVIEW_BYTES else "")


def _tag(decision_type: type[BaseModel]) -> str:
    return str(decision_type.model_fields["decision"].default)


def describe_validation(error: ValidationError) -> str:
    """Every problem pydantic found, in one line (``field: message; ...``)."""
    return "; ".join(
        f"{'.'.join(str(part) for part in detail['loc']) or 'decision'}: {detail['msg']}"
        for detail in error.errors(include_url=False)
    )


def parse_decision(
    event: HookEvent[Any, DecisionT], output: bytes, *, command: str, stderr: str = ""
) -> DecisionT:
    """Read the decision a command printed for ``event``.

    Returns ``None`` for an observe-only event (its output is ignored), else an instance of
    one of ``event.decision_types``.

    Raises:
        CommandHookError: the output is empty, not UTF-8 JSON, not a decision object, a
            decision ``event`` does not allow, or a malformed one. Nothing else.
    """

    def fail(problem: str) -> CommandHookError:
        return CommandHookError(command=command, problem=problem, stderr=stderr)

    if not event.decision_types:
        return cast(DecisionT, None)  # observe-only: the event's decision type is None
    text = output.strip()
    if not text:
        raise fail("printed no decision (stdout was empty)")
    try:
        # Strict: rejects invalid UTF-8, NaN, lone surrogate escapes (which could not be
        # written back out in a snapshot) and absurd nesting, all as ValueError.
        value: object = pydantic_core.from_json(text, allow_inf_nan=False)
    except ValueError as exc:
        raise fail(f"printed something that is not JSON ({exc}): {_preview(text)}") from None
    tag: object = value.get("decision") if isinstance(value, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(tag, str):
        raise fail(
            'printed JSON that is not a decision object like {"decision": "continue"}: '
            + _preview(text)
        )
    legal = {_tag(decision_type): decision_type for decision_type in event.decision_types}
    decision_type = legal.get(tag)
    if decision_type is None:
        raise fail(
            f"printed the decision {tag[:_PREVIEW_BYTES]!r}, which {event.name.upper()} "
            f"does not allow (allowed: {', '.join(legal)})"
        )
    try:
        # One of the event's decision types: what DecisionT stands for.
        return cast(DecisionT, decision_type.model_validate(value, strict=True))
    except ValidationError as exc:
        raise fail(f"printed an invalid {tag!r} decision: {describe_validation(exc)}") from None
