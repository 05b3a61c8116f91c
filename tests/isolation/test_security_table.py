"""Every row of the in-process table in docs/security.md names a test that exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).parents[1]
DOC = TESTS.parent / "docs" / "security.md"


def _rows() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### What was tried, in process", 1)[1].split("\n### ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "::" in line]


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test_")
    }


def test_the_table_covers_what_the_issue_asked_for() -> None:
    attacks = {row.split("|")[1].strip() for row in _rows()}
    for required in ("summary mutation", "gc", "frames", "`inspect`", "`ctypes`", "monkeypatching"):
        assert any(required.strip("`") in attack for attack in attacks), required
    assert "registry internals" in attacks
    assert "`Pod.notify` from a global" in attacks


def test_each_row_names_an_existing_test_and_does_not_hold_rows_are_named_so() -> None:
    rows = _rows()
    assert len(rows) >= 14
    for row in rows:
        reference = re.search(r"`([\w/]+\.py)::(\w+)`", row)
        assert reference is not None, row
        path, name = reference.groups()
        assert name in _test_names(TESTS / path), row
        holds = row.split("|")[3]
        assert ("**no**" in holds) == name.startswith("test_does_not_hold"), row
