"""Tool-output truncation, at ``post_tool_call``.

Contract: a tool output longer than ``max_bytes`` UTF-8 bytes is replaced by its longest
prefix that fits, followed by a marker telling the model how many bytes were cut; the whole
(prefix plus marker) fits in ``max_bytes``, so truncation never grows an output. The cut
falls on a character boundary; ``is_error`` is kept. Outputs within the limit are left as
they are. Hooks on ``POST_TOOL_CALL`` see the truncated result: interceptors run
first.
"""

from __future__ import annotations

from typing import Final, final

from typing_extensions import override

from llm_worker import Abort, Continue, ToolResult, utf8_len, utf8_prefix
from llm_worker.interceptor import CONTINUE, Interceptor, ToolResultInfo

from .._trace import TraceEvent, Tracer

__all__ = ["MIN_TRUNCATION_BYTES", "TruncationInterceptor", "truncate_output", "truncation_marker"]

MIN_TRUNCATION_BYTES: Final = 128
"""The smallest limit accepted: room for the marker and some output."""


def truncation_marker(cut_bytes: int, total_bytes: int) -> str:
    """Return the note appended to a truncated output (ASCII, so its length is its size)."""
    return f"\n[output truncated: {cut_bytes} of {total_bytes} bytes cut]"


def truncate_output(content: str, max_bytes: int) -> str:
    """Return ``content`` cut to at most ``max_bytes`` UTF-8 bytes, marker included.

    Raises:
        ValueError: ``max_bytes`` is below :data:`MIN_TRUNCATION_BYTES`.
    """
    if max_bytes < MIN_TRUNCATION_BYTES:
        raise ValueError(f"max_bytes must be at least {MIN_TRUNCATION_BYTES}, not {max_bytes}")
    total = utf8_len(content)
    if total <= max_bytes:
        return content
    # The marker for a cut of `total` bytes is the longest it can be (most digits), so the
    # real marker fits in the room reserved for it.
    budget = max(0, max_bytes - len(truncation_marker(total, total)))
    kept = utf8_prefix(content, budget)
    return kept + truncation_marker(total - utf8_len(kept), total)


@final
class TruncationInterceptor(Interceptor):
    """Cuts tool outputs over ``max_bytes`` before they enter the history."""

    def __init__(self, max_bytes: int, *, trace: Tracer | None = None) -> None:
        if max_bytes < MIN_TRUNCATION_BYTES:
            raise ValueError(f"max_bytes must be at least {MIN_TRUNCATION_BYTES}, not {max_bytes}")
        self._max_bytes = max_bytes
        self._trace = trace

    @property
    def max_bytes(self) -> int:
        """The limit, in UTF-8 bytes, marker included."""
        return self._max_bytes

    @override
    def post_tool_call(self, info: ToolResultInfo) -> Continue | Abort:
        result = info.result
        cut = truncate_output(result.content, self._max_bytes)
        if cut is result.content:
            return CONTINUE
        info.result = ToolResult(
            call_id=result.call_id, name=result.name, content=cut, is_error=result.is_error
        )
        if self._trace is not None:
            self._trace(
                TraceEvent(
                    source="interceptor",
                    actor="truncation",
                    message=(
                        f"{result.call_id} {result.name}: output of {utf8_len(result.content)} "
                        f"bytes cut to {utf8_len(cut)} bytes"
                    ),
                )
            )
        return CONTINUE
