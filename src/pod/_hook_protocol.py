"""The JSON protocol between the Pod and a hook command: the request a command reads, and the
decision it prints, checked against its event (see ``CommandHook`` for the whole protocol).

Kept apart from ``CommandHook`` (which is hook code the ``pod_mypy`` plugin checks) because
decoding untrusted JSON is typed ``Any`` until it is validated; every path out of here is a
validated decision or a :class:`CommandHookError`.
"""

from __future__ import annotations

import json
from typing import Any, Final, TypeVar, cast

import pydantic_core
from pydantic import BaseModel, ValidationError

from ._errors import CommandHookError
from .events import HookEvent

__all__ = ["encode_request", "parse_decision"]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")

_PREVIEW_BYTES: Final = 120


def encode_request(event: HookEvent[InputT, Any], info: InputT) -> bytes:
    """Return the request a command gets for ``info``: one line of ASCII JSON, no newline."""
    envelope = {"event": event.name, "input": info.model_dump(mode="json")}
    return json.dumps(envelope, separators=(",", ":")).encode("ascii")


def _preview(data: bytes) -> str:
    cut = data[:_PREVIEW_BYTES]
    return repr(cut) + ("..." if len(data) > _PREVIEW_BYTES else "")


def _tag(decision_type: type[BaseModel]) -> str:
    return str(decision_type.model_fields["decision"].default)


def _describe(error: ValidationError) -> str:
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
        raise fail(f"printed an invalid {tag!r} decision: {_describe(exc)}") from None
