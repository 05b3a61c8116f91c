"""The identity digest of a pending tool call: what an approver was shown, as one string.

``call_digest`` hashes (run id, turn, call id, tool, canonical arguments) with SHA-256 over their
RFC 8785 (JCS) canonical JSON, written ``jcs-sha256:<hex>``: AGENT-HOOKS-0.1's default
identity provider (§10.1) uses the same form. Arguments are canonicalised from their
parse, so two spellings of one object (key order, spacing) have one digest, and any change
of value has another. Arguments that do not parse are hashed as their text. The run id
(``Worker.run_id``) makes an approval of one run no approval of the same call in another.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Final

from pydantic import JsonValue

from ._arguments import parse_arguments

__all__ = ["DIGEST_PREFIX", "call_digest", "canonical_json"]

DIGEST_PREFIX: Final = "jcs-sha256:"


def canonical_json(value: JsonValue) -> str:
    """RFC 8785 canonical JSON: sorted keys (by UTF-16 code units), no spaces, ECMAScript
    numbers.

    Raises:
        ValueError: a float that is not finite (not JSON).
    """
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
        return "{" + ",".join(f"{_string(k)}:{canonical_json(value[k])}" for k in keys) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, str):
        return _string(value)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    return _number(value)


def _string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _number(value: float) -> str:
    if not math.isfinite(value):
        raise ValueError(f"{value!r} is not a JSON number")
    if value == 0:
        return "0"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    sign = "-" if exponent.startswith("-") else "+"
    return f"{mantissa.removesuffix('.0')}e{sign}{exponent.lstrip('+-').lstrip('0')}"


def call_digest(*, run_id: str, turn: int, call_id: str, tool_name: str, arguments: str) -> str:
    """The ``jcs-sha256:`` digest of a tool call of run ``run_id`` as an approver sees it."""
    parsed = parse_arguments(arguments)
    identity: JsonValue = {
        "run": run_id,
        "turn": turn,
        "call_id": call_id,
        "tool": tool_name,
        "arguments": arguments if parsed is None else parsed,
    }
    return DIGEST_PREFIX + hashlib.sha256(canonical_json(identity).encode()).hexdigest()
