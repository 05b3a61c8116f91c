"""The seam between the ``claude-code`` tools and Claude Code's ``PostToolUse`` protocol.

A tool's result in the history is text (what the model reads). Claude Code's hooks read a
structured ``tool_response`` instead (``filePath``, ``structuredPatch``, ``stdout``, ...).
Each ``claude-code`` tool records that object here under the id of the call it answers
(``llm_worker.current_tool_call_id``); the Claude Code command protocol
(``pod.command._claude_code``) looks it up by the call id and tool name of the result it
describes, and falls back to its text preview when there is none (another tool, an error).

What is recorded is plain JSON, a copy: nothing here reaches the history or the run. The
table keeps the last :data:`CAPACITY` responses of the process; a call id is the provider's
(unique within a run), so two Pods of one process whose calls share an id and a tool name
would share a response: the newer one wins.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

from pydantic import JsonValue

__all__ = ["CAPACITY", "record_tool_response", "tool_response"]

CAPACITY: Final = 1024
"""How many responses the process keeps (the oldest is dropped first)."""

_LOCK: Final = threading.Lock()
_RESPONSES: Final[OrderedDict[tuple[str, str], dict[str, JsonValue]]] = OrderedDict()


def record_tool_response(call_id: str, tool_name: str, response: dict[str, JsonValue]) -> None:
    """Keep ``response`` as the ``tool_response`` of call ``call_id`` to ``tool_name``."""
    key = (call_id, tool_name)
    with _LOCK:
        _RESPONSES[key] = response
        _RESPONSES.move_to_end(key)
        while len(_RESPONSES) > CAPACITY:
            _RESPONSES.popitem(last=False)


def tool_response(call_id: str, tool_name: str) -> dict[str, JsonValue] | None:
    """The ``tool_response`` a ``claude-code`` tool recorded for this call, or ``None``."""
    with _LOCK:
        return _RESPONSES.get((call_id, tool_name))
