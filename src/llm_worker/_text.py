"""UTF-8-safe cutting of text, shared by previews (summaries) and truncation (interceptors)."""

from __future__ import annotations

__all__ = ["utf8_len", "utf8_prefix"]


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
