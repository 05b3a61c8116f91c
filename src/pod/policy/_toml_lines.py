"""Line numbers for TOML structures that ``tomllib`` parses without positions.

``tomllib`` reports positions only for syntax errors. To name the line of a malformed rule,
this module scans the text itself: it tracks multi-line strings and comments, so a
``[[rule]]`` inside a string is not taken for a header. It only locates things in a text
that ``tomllib`` already accepted; callers check that what it finds agrees with the parsed
data (e.g. as many headers as rules) and leave the line out when it does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import final

from pydantic import ValidationError

__all__ = ["TableProblem", "TomlLines"]

_LINE_OF_SYNTAX_ERROR = re.compile(r"\(at line (\d+), column \d+\)")


def _quoted_key(key: str) -> str:
    escaped = re.escape(key)
    return rf"(?:{escaped}|\"{escaped}\"|'{escaped}')"


@final
class TomlLines:
    """The lines of a TOML text that start outside any multi-line string, with numbers."""

    def __init__(self, text: str) -> None:
        self._lines: list[tuple[int, str]] = []
        delimiter: str | None = None
        for number, line in enumerate(text.splitlines(), start=1):
            if delimiter is None:
                self._lines.append((number, line))
            delimiter = _scan(line, delimiter)

    def array_table_headers(self, name: str) -> list[int]:
        """1-based line numbers of every ``[[name]]`` header, in order."""
        header = re.compile(rf"^\s*\[\[\s*{_quoted_key(name)}\s*\]\]\s*(?:#.*)?$")
        return [number for number, line in self._lines if header.match(line)]

    def table_header_line(self, name: str) -> int | None:
        """The line of the first ``[name]`` or ``[[name]]`` header (also ``[name.sub]``)."""
        header = re.compile(rf"^\s*\[\[?\s*{_quoted_key(name)}\s*[\].]")
        return next((number for number, line in self._lines if header.match(line)), None)

    def key_line(self, key: str, *, first: int = 1, stop: int | None = None) -> int | None:
        """The first line in ``[first, stop)`` that assigns ``key`` (``key = ...``)."""
        assignment = re.compile(rf"^\s*{_quoted_key(key)}\s*=")
        for number, line in self._lines:
            if number >= first and (stop is None or number < stop) and assignment.match(line):
                return number
        return None

    def first_table_line(self) -> int | None:
        """The line of the first table header (``[...]`` or ``[[...]]``), if any."""
        return next((n for n, line in self._lines if line.lstrip().startswith("[")), None)

    @staticmethod
    def syntax_error_line(message: str) -> int | None:
        """The line a ``tomllib.TOMLDecodeError`` message names, if it names one."""
        found = _LINE_OF_SYNTAX_ERROR.search(message)
        return int(found.group(1)) if found else None


class TableProblem(Exception):
    """What is wrong with one table, by field, before the loader knows where it was written.

    ``field`` is the first key at fault (its line is reported), ``None`` for the table as a
    whole (its header's line).
    """

    def __init__(self, problem: str, field: str | None = None) -> None:
        self.problem = problem
        self.field = field
        super().__init__(problem)

    @classmethod
    def from_validation(cls, error: ValidationError, known: Iterable[str]) -> TableProblem:
        """Every problem pydantic found in a table, in one line, located at the first."""
        problems: list[str] = []
        first: str | None = None
        for detail in error.errors(include_url=False):
            location = ".".join(str(part) for part in detail["loc"])
            if first is None and detail["loc"]:
                first = str(detail["loc"][0])
            match detail["type"]:
                case "extra_forbidden":
                    problems.append(f"unknown field {location!r} (fields: {', '.join(known)})")
                case "missing":
                    problems.append(f"missing field {location!r}")
                case _:
                    problems.append(f"{location or 'table'}: {detail['msg']}")
        return cls("; ".join(problems), first)


def _scan(line: str, delimiter: str | None) -> str | None:
    """Return the multi-line string delimiter still open at the end of ``line``."""
    index, length = 0, len(line)
    while index < length:
        if delimiter is not None:
            end = _closing(line, index, delimiter)
            if end < 0:
                return delimiter
            index, delimiter = end + 3, None
            continue
        char = line[index]
        if char == "#":
            return None
        if line.startswith(('"""', "'''"), index):
            delimiter = line[index : index + 3]
            index += 3
        elif char == '"':
            index = _after_basic_string(line, index + 1)
        elif char == "'":
            end = line.find("'", index + 1)
            index = length if end < 0 else end + 1
        else:
            index += 1
    return delimiter


def _closing(line: str, index: int, delimiter: str) -> int:
    if delimiter == "'''":
        return line.find("'''", index)
    while index < len(line):
        if line[index] == "\\":
            index += 2
        elif line.startswith('"""', index):
            return index
        else:
            index += 1
    return -1


def _after_basic_string(line: str, index: int) -> int:
    while index < len(line):
        if line[index] == "\\":
            index += 2
        elif line[index] == '"':
            return index + 1
        else:
            index += 1
    return len(line)
