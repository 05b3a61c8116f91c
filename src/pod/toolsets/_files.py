"""``Read``, ``Write`` and ``Edit``: Claude Code's file tools, confined to the workspace.

As in Claude Code:
- ``Read`` gives ``cat -n`` text (the line number right-aligned in six columns, a tab, the
  line), from line ``offset`` (1-based, default 1), at most ``limit`` lines (default 2000),
  each line cut at 2000 characters. A binary file (a NUL byte in its first 8 KB) is refused.
- ``Write`` and ``Edit`` refuse an existing file that was not ``Read`` first through this
  toolset, or that changed on disk since (``File has not been read yet``); ``Write`` creates
  missing parent folders.
- ``Edit`` replaces ``old_string`` by ``new_string``: a missing ``old_string`` is refused, a
  non-unique one too unless ``replace_all``; an empty ``old_string`` creates a file that does
  not exist yet.

Their ``tool_response`` objects have the fields of Claude Code's ``FileReadOutput`` (type
``text``), ``FileWriteOutput`` and ``FileEditOutput`` (``structuredPatch`` as unified-diff
hunks with three lines of context; no ``gitDiff``).
"""

from __future__ import annotations

import difflib
import threading
from pathlib import Path
from typing import Final, TypeVar, final

from pydantic import BaseModel, Field, JsonValue

from ._base import ThreadedTool, ToolError
from ._workspace import Workspace

__all__ = ["EditTool", "ReadFiles", "ReadTool", "WriteTool", "looks_binary", "structured_patch"]

ArgumentsT = TypeVar("ArgumentsT", bound=BaseModel)

DEFAULT_READ_LINES: Final = 2000
MAX_LINE_CHARS: Final = 2000
MAX_READ_CHARS: Final = 256_000
"""The most text one ``Read`` returns; a longer window is refused (read less with
``offset`` and ``limit``)."""
_SNIFF_BYTES: Final = 8192


@final
class ReadFiles:
    """The files ``Read`` read, with their modification time then: ``Write`` and ``Edit``
    may change an existing file only if it is here and unchanged since."""

    __slots__ = ("_lock", "_seen")

    def __init__(self) -> None:
        self._seen: dict[Path, int] = {}
        self._lock = threading.Lock()

    def saw(self, path: Path) -> None:
        """``path`` was just read (or written) by the model: remember its state."""
        with self._lock:
            self._seen[path] = path.stat().st_mtime_ns

    def check_unchanged(self, path: Path) -> None:
        """Refuse to change ``path`` unless the model has read it as it now is.

        Raises:
            ToolError: it was never read, or it changed since.
        """
        with self._lock:
            seen = self._seen.get(path)
        if seen is None:
            raise ToolError("File has not been read yet. Read it first before writing to it.")
        if path.stat().st_mtime_ns != seen:
            raise ToolError(
                "File has been modified since read, either by the user or by a linter. "
                "Read it again before attempting to write it."
            )


def structured_patch(old: str, new: str) -> list[JsonValue]:
    """Claude Code's ``structuredPatch``: the unified-diff hunks turning ``old`` into ``new``."""
    hunks: list[JsonValue] = []
    current: dict[str, JsonValue] | None = None
    lines: list[JsonValue] = []
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
    for line in diff:
        if line.startswith(("---", "+++")) and current is None:
            continue
        if line.startswith("@@"):
            old_part, new_part = line.split()[1:3]
            old_start, old_lines = _range(old_part)
            new_start, new_lines = _range(new_part)
            lines = []
            current = {
                "oldStart": old_start,
                "oldLines": old_lines,
                "newStart": new_start,
                "newLines": new_lines,
                "lines": lines,
            }
            hunks.append(current)
        else:
            lines.append(line)
    return hunks


def _range(part: str) -> tuple[int, int]:
    start, _, count = part[1:].partition(",")
    return int(start), int(count) if count else 1


def looks_binary(data: bytes) -> bool:
    """A file is binary if a NUL byte is in its first 8 KB (as ripgrep and git judge)."""
    return b"\0" in data[:_SNIFF_BYTES]


def _is_binary(path: Path) -> bool:
    with path.open("rb") as file:
        return looks_binary(file.read(_SNIFF_BYTES))


def _existing_file(workspace: Workspace, file_path: str) -> Path:
    path = workspace.resolve(file_path)
    if path.is_dir():
        raise ToolError(f"{file_path} is a directory, not a file.")
    if not path.is_file():
        raise ToolError(f"File does not exist: {file_path}")
    return path


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(lines, first))


class _FileTool(ThreadedTool[ArgumentsT]):
    """A file tool: the workspace, and the files ``Read`` read (shared by the three)."""

    def __init__(self, workspace: Workspace, read_files: ReadFiles) -> None:
        self._workspace = workspace
        self._read_files = read_files


# -- Read --------------------------------------------------------------------------------


@final
class ReadArguments(BaseModel, frozen=True, extra="forbid"):
    file_path: str = Field(description="The file to read (relative to the workspace, or absolute)")
    offset: int | None = Field(
        default=None, ge=0, description="The line number to start reading from (1-based)"
    )
    limit: int | None = Field(default=None, ge=1, description="The number of lines to read")


@final
class ReadTool(_FileTool[ReadArguments]):
    name = "Read"
    description = (
        "Read a text file of the workspace. The result is numbered like `cat -n`; by default "
        f"up to {DEFAULT_READ_LINES} lines from the start; use offset and limit for a part."
    )
    arguments = ReadArguments

    def run_in_thread(self, arguments: ReadArguments) -> tuple[str, dict[str, JsonValue]]:
        path = _existing_file(self._workspace, arguments.file_path)
        if _is_binary(path):
            raise ToolError(f"{arguments.file_path} is a binary file; Read reads text files.")
        first = max(arguments.offset or 1, 1)
        limit = arguments.limit or DEFAULT_READ_LINES
        window: list[str] = []
        total = 0
        size = 0
        with path.open(encoding="utf-8", errors="replace", newline=None) as file:
            for total, line in enumerate(file, 1):
                if first <= total < first + limit:
                    text = line.rstrip("\n")
                    if len(text) > MAX_LINE_CHARS:
                        text = text[:MAX_LINE_CHARS]
                    size += len(text) + 8
                    if size > MAX_READ_CHARS:
                        raise ToolError(
                            f"{arguments.file_path}: the lines asked for exceed {MAX_READ_CHARS} "
                            "characters; read a part with offset and limit."
                        )
                    window.append(text)
        self._read_files.saw(path)
        response: dict[str, JsonValue] = {
            "type": "text",
            "file": {
                "filePath": str(path),
                "content": "\n".join(window),
                "numLines": len(window),
                "startLine": first,
                "totalLines": total,
            },
        }
        if total == 0:
            text = (
                "<system-reminder>Warning: the file exists but the contents are empty."
                "</system-reminder>"
            )
        elif not window:
            text = (
                f"<system-reminder>Warning: the file exists but is shorter than the provided "
                f"offset ({first}). The file has {total} lines.</system-reminder>"
            )
        else:
            text = _numbered(window, first)
        return text, response


# -- Write -------------------------------------------------------------------------------


@final
class WriteArguments(BaseModel, frozen=True, extra="forbid"):
    file_path: str = Field(description="The file to write (relative to the workspace, or absolute)")
    content: str = Field(description="The content to write to the file")


@final
class WriteTool(_FileTool[WriteArguments]):
    name = "Write"
    description = (
        "Write a file of the workspace, creating it or replacing all of it. An existing file "
        "must be Read first. Prefer Edit to change part of a file."
    )
    arguments = WriteArguments

    def run_in_thread(self, arguments: WriteArguments) -> tuple[str, dict[str, JsonValue]]:
        path = self._workspace.resolve(arguments.file_path)
        if path.is_dir():
            raise ToolError(f"{arguments.file_path} is a directory, not a file.")
        original: str | None = None
        if path.exists():
            self._read_files.check_unchanged(path)
            original = path.read_text(encoding="utf-8", errors="replace")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(arguments.content, encoding="utf-8")
        self._read_files.saw(path)
        response: dict[str, JsonValue] = {
            "type": "create" if original is None else "update",
            "filePath": str(path),
            "content": arguments.content,
            "structuredPatch": structured_patch(original or "", arguments.content),
            "originalFile": original,
        }
        if original is None:
            return f"File created successfully at: {path}", response
        return f"The file {path} has been updated.", response


# -- Edit --------------------------------------------------------------------------------


@final
class EditArguments(BaseModel, frozen=True, extra="forbid"):
    file_path: str = Field(
        description="The file to change (relative to the workspace, or absolute)"
    )
    old_string: str = Field(description="The text to replace (exactly as in the file)")
    new_string: str = Field(description="The text to replace it with (must differ)")
    replace_all: bool = Field(default=False, description="Replace every occurrence of old_string")


@final
class EditTool(_FileTool[EditArguments]):
    name = "Edit"
    description = (
        "Replace exact text in a file of the workspace, which must be Read first. old_string "
        "must occur exactly once unless replace_all is true; an empty old_string creates a new "
        "file."
    )
    arguments = EditArguments

    def run_in_thread(self, arguments: EditArguments) -> tuple[str, dict[str, JsonValue]]:
        old, new = arguments.old_string, arguments.new_string
        if old == new:
            raise ToolError("No changes to make: old_string and new_string are exactly the same.")
        path = self._workspace.resolve(arguments.file_path)
        original: str | None
        if old == "":
            if path.exists():
                raise ToolError("Cannot create new file - file already exists.")
            original, updated, count = None, new, 1
        else:
            path = _existing_file(self._workspace, arguments.file_path)
            self._read_files.check_unchanged(path)
            original = path.read_text(encoding="utf-8", errors="replace")
            count = original.count(old)
            if count == 0:
                raise ToolError(f"String to replace not found in file.\nString: {old}")
            if count > 1 and not arguments.replace_all:
                raise ToolError(
                    f"Found {count} matches of the string to replace, but replace_all is "
                    "false. To replace all occurrences, set replace_all to true. To replace "
                    "only one occurrence, please provide more context to uniquely identify "
                    f"the instance.\nString: {old}"
                )
            updated = original.replace(old, new)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(updated, encoding="utf-8")
        self._read_files.saw(path)
        response: dict[str, JsonValue] = {
            "filePath": str(path),
            "oldString": old,
            "newString": new,
            "originalFile": original,
            "structuredPatch": structured_patch(original or "", updated),
            "userModified": False,
            "replaceAll": arguments.replace_all,
        }
        if original is None:
            return f"File created successfully at: {path}", response
        if arguments.replace_all:
            return (
                f"The file {path} has been updated. All {count} occurrences of the string "
                "were replaced.",
                response,
            )
        return f"The file {path} has been updated.", response
