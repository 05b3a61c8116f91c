"""``Glob`` and ``Grep``: Claude Code's search tools, confined to the workspace.

- ``Glob`` matches ``pattern`` (``**`` for any folders, ``{a,b}`` for alternatives) under
  ``path`` (default: the workspace); at most :data:`MAX_GLOB_FILES` files, the most recently
  modified first, as absolute paths. Its ``tool_response`` has the fields of Claude Code's
  ``GlobOutput``.
- ``Grep`` searches file contents with a Python regular expression (Claude Code's is
  ripgrep's; the common syntax is the same). Parameters, a subset of Claude Code's:
  ``pattern``, ``path``, ``glob``, ``type``, ``output_mode`` (``files_with_matches``, the
  default, ``content``, ``count``), ``-i``, ``-n`` (default true), ``-A``, ``-B``, ``-C`` /
  ``context``, ``multiline``, ``head_limit`` (default :data:`DEFAULT_HEAD_LIMIT`; 0 for no
  limit), ``offset``. Not supported (refused as unknown): ``-o``. A folder is walked as
  ripgrep walks it without ``--hidden``: hidden files and folders (a name starting with
  ``.``) and binary files are skipped, unless the ``path`` names them; ``.gitignore`` is not
  read. Its ``tool_response`` has the fields of Claude Code's ``GrepOutput``.

Every file found is resolved; one that resolves outside the workspace (a symlink out) is
never listed nor read.
"""

from __future__ import annotations

import bisect
import fnmatch
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final, Literal, TypeVar, final

from pydantic import BaseModel, Field, JsonValue

from ._base import ThreadedTool, ToolError
from ._files import looks_binary
from ._workspace import Workspace

__all__ = ["GlobTool", "GrepTool", "expand_braces"]

ArgumentsT = TypeVar("ArgumentsT", bound=BaseModel)

MAX_GLOB_FILES: Final = 100
DEFAULT_HEAD_LIMIT: Final = 250
MAX_GREP_LINE_CHARS: Final = 500
MAX_SEARCH_CHARS: Final = 30_000
"""The most text one ``Grep`` returns; the rest is cut with a note."""

FILE_TYPES: Final = {
    "py": ("*.py", "*.pyi"),
    "js": ("*.js", "*.mjs", "*.cjs", "*.jsx"),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "rust": ("*.rs",),
    "go": ("*.go",),
    "java": ("*.java",),
    "c": ("*.c", "*.h"),
    "cpp": ("*.cpp", "*.cc", "*.cxx", "*.hpp", "*.hh", "*.h"),
    "md": ("*.md", "*.markdown"),
    "json": ("*.json",),
    "yaml": ("*.yaml", "*.yml"),
    "toml": ("*.toml",),
    "html": ("*.html", "*.htm"),
    "css": ("*.css",),
    "sh": ("*.sh", "*.bash"),
}
"""``Grep``'s ``type`` values (ripgrep's names, a subset)."""


def expand_braces(pattern: str) -> list[str]:
    """``src/*.{ts,tsx}`` -> ``src/*.ts``, ``src/*.tsx`` (nested braces too)."""
    start = pattern.find("{")
    if start < 0:
        return [pattern]
    depth = 0
    for end in range(start, len(pattern)):
        if pattern[end] == "{":
            depth += 1
        elif pattern[end] == "}":
            depth -= 1
            if depth == 0:
                break
    else:
        return [pattern]  # an unclosed brace is literal
    inner, depth, last = pattern[start + 1 : end], 0, 0
    parts: list[str] = []
    for index, char in enumerate(inner):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(inner[last:index])
            last = index + 1
    parts.append(inner[last:])
    head, tail = pattern[:start], pattern[end + 1 :]
    return [expanded for part in parts for expanded in expand_braces(head + part + tail)]


def _search_root(workspace: Workspace, path: str | None) -> Path:
    root = workspace.resolve(path or ".")
    if not root.exists():
        raise ToolError(f"Path does not exist: {path}")
    return root


def _inside(workspace: Workspace, candidate: Path) -> Path | None:
    try:
        resolved = candidate.resolve()
    except OSError:
        return None
    return resolved if workspace.contains(resolved) else None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class _SearchTool(ThreadedTool[ArgumentsT]):
    """A search tool: it walks the workspace."""

    def __init__(self, workspace: Workspace) -> None:
        self._workspace = workspace


# -- Glob --------------------------------------------------------------------------------


@final
class GlobArguments(BaseModel, frozen=True, extra="forbid"):
    pattern: str = Field(min_length=1, description="The glob pattern, e.g. **/*.py")
    path: str | None = Field(
        default=None, description="The folder to search in (default: the workspace)"
    )


@final
class GlobTool(_SearchTool[GlobArguments]):
    name = "Glob"
    description = (
        "Find files of the workspace by name pattern (e.g. **/*.py, src/**/*.{ts,tsx}); "
        f"at most {MAX_GLOB_FILES} paths, the most recently modified first."
    )
    arguments = GlobArguments

    def run_in_thread(self, arguments: GlobArguments) -> tuple[str, dict[str, JsonValue]]:
        started = time.monotonic()
        if arguments.pattern.startswith("/"):
            raise ToolError("pattern must be relative to path (give the folder as path).")
        root = _search_root(self._workspace, arguments.path)
        if not root.is_dir():
            raise ToolError(f"{arguments.path} is not a directory.")
        found: dict[Path, None] = {}
        for pattern in expand_braces(arguments.pattern):
            for match in root.glob(pattern):
                resolved = _inside(self._workspace, match)
                if resolved is not None and resolved.is_file():
                    found[match] = None
        ordered = sorted(found, key=lambda p: (-_mtime(p), str(p)))
        truncated = len(ordered) > MAX_GLOB_FILES
        filenames = [str(p) for p in ordered[:MAX_GLOB_FILES]]
        response: dict[str, JsonValue] = {
            "durationMs": int((time.monotonic() - started) * 1000),
            "numFiles": len(filenames),
            "filenames": list[JsonValue](filenames),
            "truncated": truncated,
        }
        if not filenames:
            return "No files found", response
        text = "\n".join(filenames)
        if truncated:
            text += "\n(Results are truncated. Consider using a more specific path or pattern.)"
        return text, response


# -- Grep --------------------------------------------------------------------------------


@final
class GrepArguments(BaseModel, frozen=True, extra="forbid"):
    pattern: str = Field(description="The regular expression to search for")
    path: str | None = Field(
        default=None, description="The file or folder to search (default: the workspace)"
    )
    glob: str | None = Field(default=None, description='Only files matching this glob, e.g. "*.py"')
    type: str | None = Field(default=None, description="Only files of this type, e.g. py, js, rust")
    output_mode: Literal["content", "files_with_matches", "count"] = Field(
        default="files_with_matches",
        description="content: matching lines; files_with_matches: file paths; count: per file",
    )
    ignore_case: bool = Field(default=False, alias="-i", description="Case-insensitive search")
    line_numbers: bool = Field(default=True, alias="-n", description="Line numbers in content mode")
    after: int | None = Field(default=None, ge=0, alias="-A", description="Lines after a match")
    before: int | None = Field(default=None, ge=0, alias="-B", description="Lines before a match")
    around: int | None = Field(
        default=None, ge=0, alias="-C", description="Lines before and after a match"
    )
    context: int | None = Field(default=None, ge=0, description="Same as -C")
    multiline: bool = Field(
        default=False, description="Let . match newlines and patterns span lines"
    )
    head_limit: int | None = Field(
        default=None,
        ge=0,
        description=f"At most this many lines or files (default {DEFAULT_HEAD_LIMIT}; 0: all)",
    )
    offset: int = Field(default=0, ge=0, description="Skip this many lines or files first")


@final
class GrepTool(_SearchTool[GrepArguments]):
    name = "Grep"
    description = (
        "Search the contents of the workspace's files with a regular expression. "
        "output_mode: files_with_matches (default), content (with -n, -A, -B, -C), count. "
        "Filter with glob or type. Hidden files are searched only when path names them."
    )
    arguments = GrepArguments

    def _files(self, root: Path, arguments: GrepArguments) -> Iterator[Path]:
        globs = [g for raw in (arguments.glob,) if raw for g in expand_braces(raw)]
        if arguments.type is not None and arguments.type not in FILE_TYPES:
            known = ", ".join(sorted(FILE_TYPES))
            raise ToolError(f"unknown file type {arguments.type!r} (known: {known})")
        types = FILE_TYPES.get(arguments.type or "", ())

        def wanted(path: Path) -> bool:
            relative = path.relative_to(root).as_posix() if path != root else path.name
            if globs and not any(_glob_matches(g, relative, path.name) for g in globs):
                return False
            return not types or any(fnmatch.fnmatchcase(path.name, t) for t in types)

        if root.is_file():
            if wanted(root):
                yield root
            return
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.startswith("."):
                    continue
                path = Path(folder, name)
                if wanted(path) and _inside(self._workspace, path) is not None:
                    yield path

    def run_in_thread(self, arguments: GrepArguments) -> tuple[str, dict[str, JsonValue]]:
        flags = re.IGNORECASE if arguments.ignore_case else 0
        if arguments.multiline:
            flags |= re.MULTILINE | re.DOTALL
        try:
            regex = re.compile(arguments.pattern, flags)
        except re.error as exc:
            raise ToolError(f"invalid regular expression {arguments.pattern!r}: {exc}") from None
        root = _search_root(self._workspace, arguments.path)
        around = arguments.around if arguments.around is not None else arguments.context
        before = arguments.before if arguments.before is not None else around or 0
        after = arguments.after if arguments.after is not None else around or 0
        matched_files: list[Path] = []
        counts: dict[Path, int] = {}
        content_lines: list[str] = []
        for path in self._files(root, arguments):
            text = _text_of(path)
            if text is None:
                continue
            lines = text.split("\n")
            if text.endswith("\n"):
                lines.pop()  # the end of the last line, not an empty line
            hit_lines = _matching_lines(regex, text, lines, multiline=arguments.multiline)
            if not hit_lines:
                continue
            matched_files.append(path)
            counts[path] = len(hit_lines)
            if arguments.output_mode == "content":
                content_lines.extend(
                    _content(
                        path, lines, hit_lines, (before, after), numbers=arguments.line_numbers
                    )
                )
        return _grep_result(arguments, matched_files, counts, content_lines)


def _grep_result(
    arguments: GrepArguments,
    matched_files: list[Path],
    counts: dict[Path, int],
    content_lines: list[str],
) -> tuple[str, dict[str, JsonValue]]:
    """What ``Grep`` says of what it found, in its ``output_mode``, windowed and bounded."""
    limit = DEFAULT_HEAD_LIMIT if arguments.head_limit is None else arguments.head_limit
    response: dict[str, JsonValue] = {"mode": arguments.output_mode}
    if arguments.output_mode == "files_with_matches":
        ordered = sorted(matched_files, key=lambda p: (-_mtime(p), str(p)))
        entries = [str(p) for p in ordered]
        shown, applied = _window(entries, arguments.offset, limit)
        response |= {"numFiles": len(shown), "filenames": list[JsonValue](shown)}
        text = (
            f"Found {len(shown)} file{'s' if len(shown) != 1 else ''}\n" + "\n".join(shown)
            if shown
            else "No files found"
        )
    elif arguments.output_mode == "count":
        entries = [f"{p}:{counts[p]}" for p in matched_files]
        shown, applied = _window(entries, arguments.offset, limit)
        total = sum(counts.values())
        response |= {
            "numFiles": len(matched_files),
            "filenames": list[JsonValue]([str(p) for p in matched_files]),
            "numMatches": total,
        }
        text = (
            "\n".join(shown)
            + f"\n\nFound {total} total occurrence{'s' if total != 1 else ''} across "
            f"{len(matched_files)} file{'s' if len(matched_files) != 1 else ''}."
            if shown
            else "No matches found"
        )
    else:
        shown, applied = _window(content_lines, arguments.offset, limit)
        response |= {
            "numFiles": len(matched_files),
            "filenames": list[JsonValue]([str(p) for p in matched_files]),
            "content": "\n".join(shown),
            "numLines": len(shown),
        }
        text = "\n".join(shown) if shown else "No matches found"
    if applied is not None:
        response["appliedLimit"] = applied
    if arguments.offset:
        response["appliedOffset"] = arguments.offset
    if len(text) > MAX_SEARCH_CHARS:
        cut = len(text) - MAX_SEARCH_CHARS
        text = text[:MAX_SEARCH_CHARS] + f"\n... [{cut} characters cut; narrow the search]"
    return text, response


def _glob_matches(glob: str, relative: str, name: str) -> bool:
    """ripgrep's rule: a glob without ``/`` matches the file name anywhere, one with ``/``
    the path relative to the searched folder (``**/`` also matching no folder)."""
    if "/" not in glob:
        return fnmatch.fnmatchcase(name, glob)
    if glob.startswith("**/") and fnmatch.fnmatchcase(relative, glob[3:]):
        return True
    return fnmatch.fnmatchcase(relative, glob)


def _text_of(path: Path) -> str | None:
    """The file's text, or ``None`` for a binary or unreadable file (skipped, as ripgrep
    does)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if looks_binary(data):
        return None
    return data.decode("utf-8", errors="replace")


def _matching_lines(
    regex: re.Pattern[str], text: str, lines: list[str], *, multiline: bool
) -> list[int]:
    """The 0-based indexes of the lines a match touches, in order."""
    if not multiline:
        return [index for index, line in enumerate(lines) if regex.search(line)]
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    touched: set[int] = set()
    for match in regex.finditer(text):
        first = bisect.bisect_right(starts, match.start()) - 1
        last = bisect.bisect_right(starts, max(match.end() - 1, match.start())) - 1
        touched.update(range(first, last + 1))
    return sorted(touched)


def _content(
    path: Path, lines: list[str], hits: list[int], around: tuple[int, int], *, numbers: bool
) -> Iterator[str]:
    """ripgrep's content lines: ``path:N:line`` for a match, ``path-N-line`` for context
    (``around``: lines before and after), ``--`` between groups that do not touch."""
    before, after = around
    hit_set = set(hits)
    shown: list[int] = []
    for hit in hits:
        shown.extend(range(max(hit - before, 0), min(hit + after, len(lines) - 1) + 1))
    previous = -2
    for index in sorted(set(shown)):
        if previous >= 0 and index > previous + 1:
            yield "--"
        previous = index
        separator = ":" if index in hit_set else "-"
        line = lines[index]
        if len(line) > MAX_GREP_LINE_CHARS:
            line = line[:MAX_GREP_LINE_CHARS] + " [...]"
        number = f"{index + 1}{separator}" if numbers else ""
        yield f"{path}{separator}{number}{line}"


def _window(entries: list[str], offset: int, limit: int) -> tuple[list[str], int | None]:
    """``entries`` from ``offset``, at most ``limit`` (0: all); the limit if it cut any."""
    rest = entries[offset:]
    if limit and len(rest) > limit:
        return rest[:limit], limit
    return rest, None
