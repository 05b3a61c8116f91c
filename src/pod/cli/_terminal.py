"""Hook and model text on the terminal: one rule for every line the CLI prints of it."""

from __future__ import annotations

from llm_worker import bounded, visible

__all__ = ["shown"]


def shown(text: str, *, multiline: bool = False) -> str:
    """``text`` as a terminal shows it: bounded (``llm_worker.REASON_BYTES``, with a marker),
    its control characters and escape sequences written out, never obeyed."""
    return visible(bounded(text), multiline=multiline)
