"""Text leaving the engine: UTF-8-safe cutting (previews, truncation), the bound on hook
reasons, and control characters made visible for terminals and logs (docs/security.md, "Hook
and model text")."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["REASON_BYTES", "bounded", "utf8_len", "utf8_prefix", "visible"]


def utf8_len(text: str) -> int:
    """Return the length of ``text`` in UTF-8 bytes."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8"))


def utf8_prefix(text: str, max_bytes: int) -> str:
    """Return the longest prefix of ``text`` whose UTF-8 encoding fits in ``max_bytes``.

    Never splits a character: the cut falls on a code point boundary.
    """
    if max_bytes < 0:
        raise ValueError("max_bytes must be >= 0")
    if text.isascii():
        return text[:max_bytes]
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    # errors="ignore" drops only the trailing partial code point of the cut.
    return encoded[:max_bytes].decode("utf-8", errors="ignore")


REASON_BYTES: Final = 4096
"""Most of a hook's reason (``Skip``, ``Abort``, a failure) that the model is sent or a
terminal shows; the rest is cut with :func:`bounded`'s marker."""


def bounded(text: str, max_bytes: int = REASON_BYTES) -> str:
    """``text`` if it fits in ``max_bytes`` UTF-8 bytes, else its longest prefix that fits
    with ``" [... N bytes cut]"`` after it (the marker is not counted)."""
    size = utf8_len(text)
    if size <= max_bytes:
        return text
    kept = utf8_prefix(text, max_bytes)
    return f"{kept} [... {size - utf8_len(kept):,} bytes cut]"


# C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a reader sees.
_HIDDEN_ONE_LINE: Final = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_HIDDEN_MULTILINE: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every control character (escape sequences' ESC included) and bidi
    override written out as ``\\x1b``/``\\u202e``, so a terminal or a log shows it rather
    than obeys it. ``multiline`` keeps newlines and tabs (an answer); otherwise they are
    written out too (one trace line stays one line)."""
    hidden = _HIDDEN_MULTILINE if multiline else _HIDDEN_ONE_LINE
    return hidden.sub(_escaped, text)
