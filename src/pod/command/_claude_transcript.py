"""The run's transcript in Claude Code's JSONL format, for the ``transcript_path`` that
Claude Code hooks read.

One JSON object a line, as Claude Code writes them: ``{"type": "user" | "assistant",
"message": {"role": ..., "content": [...]}, "sessionId", "uuid", "parentUuid", "timestamp",
"cwd"}``; the content blocks are ``text``, ``tool_use`` (``id``, ``name``, ``input``) and
``tool_result`` (``tool_use_id``, ``content``, ``is_error``). A compaction that replaced
older items writes a ``{"type": "system", "subtype": "compact_boundary"}`` line, then the
history as it stands.

:class:`TranscriptPort` keeps the file up to date: it wraps the Pod's hook port
(``Pod(wrap_hooks=...)``) and appends what the history gained before any hook is asked, so
a script always reads the history up to the point it is asked about. The history is read
by the run's owner, never handed to a hook: the script reads a file.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, assert_never, cast, final

from pydantic import BaseModel, JsonValue

from llm_worker import (
    HookPoint,
    HookPort,
    Item,
    Message,
    Reasoning,
    SelectiveHookPort,
    Summary,
    ToolCall,
    ToolResult,
)

__all__ = ["ClaudeTranscript", "TranscriptPort"]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")


@final
class ClaudeTranscript:
    """Appends history items to a JSONL file in Claude Code's transcript format."""

    def __init__(self, path: str | os.PathLike[str], *, session_id: str, cwd: str) -> None:
        self.path = Path(path)
        self._session_id = session_id
        self._cwd = cwd
        self._written: list[Item] = []
        self._parent: str | None = None
        self._on_file = self._entries_on_file()

    def _entries_on_file(self) -> list[object]:
        """The ``(type, message)`` of each item the file holds since its last compaction
        boundary (a resumed run's transcript: its history up to the pause is there)."""
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        entries: list[object] = []
        for text in lines:
            try:
                line = json.loads(text)
            except ValueError:
                continue
            if isinstance(line, dict):
                entry = cast(dict[str, object], line)
                last = entry.get("uuid")
                self._parent = last if isinstance(last, str) else self._parent
                if entry.get("subtype") == "compact_boundary":
                    entries = []
                else:
                    entries.append([entry.get("type"), entry.get("message")])
        return entries

    def update(self, history: Sequence[Item]) -> None:
        """Append the items of ``history`` not written yet (after a compaction, or when the
        history is not what the file holds: a boundary line, then the whole history)."""
        differs = False
        if self._on_file and not self._written:
            on_file = self._on_file
            shared = min(len(on_file), len(history))
            rendered = json.loads(json.dumps([_entry(item) for item in history[:shared]]))
            if rendered != on_file[:shared]:
                differs = True  # e.g. a recovered durable run whose model answered otherwise
            elif len(history) < len(on_file):
                return  # still short of what the file holds (a recovered run redoing steps)
            else:
                self._written = list(history[: len(on_file)])  # written before the resume
        self._on_file = []
        known = len(self._written)
        unchanged = not differs and (
            known <= len(history)
            and all(a is b for a, b in zip(self._written, history[:known], strict=True))
        )
        lines: list[dict[str, Any]] = []
        if not unchanged:
            lines.append(self._line("system", None, subtype="compact_boundary"))
            known = 0
        lines += [self._line(*_entry(item)) for item in history[known:]]
        if not lines:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as file:
            file.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        self._written = list(history)

    def _line(
        self, kind: str, message: dict[str, JsonValue] | None, **extra: str
    ) -> dict[str, Any]:
        line_id = str(uuid.uuid4())
        line: dict[str, Any] = {
            "type": kind,
            "uuid": line_id,
            "parentUuid": self._parent,
            "sessionId": self._session_id,
            "timestamp": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "cwd": self._cwd,
            **extra,
        }
        if message is not None:
            line["message"] = message
        self._parent = line_id
        return line


def _entry(item: Item) -> tuple[str, dict[str, JsonValue]]:
    """The line type and ``message`` of one history item."""
    match item:
        case Message(role="assistant", text=text):
            return "assistant", {"role": "assistant", "content": [{"type": "text", "text": text}]}
        case Message(role="user", text=text):
            return "user", {"role": "user", "content": text}
        case Message(text=text):  # a system message (e.g. a compaction summary)
            return "system", {"role": "system", "content": text}
        case ToolCall(call_id=call_id, name=name, arguments=arguments):
            try:
                parsed: JsonValue = json.loads(arguments or "{}")
            except ValueError:
                parsed = arguments
            block: dict[str, JsonValue] = {
                "type": "tool_use",
                "id": call_id,
                "name": name,
                "input": parsed,
            }
            return "assistant", {"role": "assistant", "content": [block]}
        case ToolResult(call_id=call_id, content=content, is_error=is_error):
            result: dict[str, JsonValue] = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": content,
                "is_error": is_error,
            }
            return "user", {"role": "user", "content": [result]}
        case Reasoning():
            return "assistant", {"role": "assistant", "content": [{"type": "thinking"}]}
        case Summary(text=text):  # what compaction left in place of older items
            return "user", {"role": "user", "content": text}
        case _:
            assert_never(item)


@final
class TranscriptPort:
    """A hook port that brings the transcript up to date, then asks the port it wraps."""

    def __init__(
        self,
        port: HookPort,
        transcript: ClaudeTranscript,
        history: Callable[[], Sequence[Item]],
        *,
        hold: Callable[[], bool] | None = None,
    ) -> None:
        self._port = port
        self._transcript = transcript
        self._history = history
        self._hold = hold
        """While it says so, nothing is written (a recovered durable run replaying steps
        rebuilds a history the file holds already)."""

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool:
        """What the wrapped port listens to (every point, if it does not say)."""
        port = self._port
        return not isinstance(port, SelectiveHookPort) or port.listens_to(point)

    def ask(self, point: HookPoint[InputT, DecisionT], info: InputT, /) -> Awaitable[DecisionT]:
        """Write what the history gained, then ask the wrapped port."""
        if self._hold is None or not self._hold():
            self._transcript.update(self._history())
        return self._port.ask(point, info)
