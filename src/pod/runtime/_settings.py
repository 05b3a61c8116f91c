"""``PodSettings``: the Pod's limits and thresholds, one frozen, validated model."""

from __future__ import annotations

from typing import final

from pydantic import BaseModel, Field

from ._interceptors.truncation import MIN_TRUNCATION_BYTES

__all__ = ["PodSettings"]


@final
class PodSettings(BaseModel, frozen=True, extra="forbid"):
    """How a Pod compacts, truncates and bounds its runs. Every field has a default."""

    compaction_threshold_tokens: int | None = Field(default=100_000, ge=1)
    """Compact before a model request whose estimated input tokens exceed this;
    ``None``: never compact."""
    compaction_keep_recent: int = Field(default=8, ge=1)
    """Items at the end of the history that compaction keeps verbatim (more when needed to
    keep a tool call with its result)."""
    max_tool_output_bytes: int | None = Field(default=32_768, ge=MIN_TRUNCATION_BYTES)
    """Tool outputs are cut to this many UTF-8 bytes, marker included; ``None``: no limit."""
    max_requests_per_turn: int = Field(default=50, ge=1)
    """Model requests allowed in one turn before the run ends ``LimitReached``."""
    tool_timeout: float | None = Field(default=None, gt=0)
    """Seconds a tool may run before it gets an error result; ``None``: no limit."""
