"""The taming database: every entry resolves in the supported mypy and Python, its tables are
consistent, and ``docs/plugin.md`` shows exactly what the file holds."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mypy import build
from mypy.modulefinder import BuildSource
from mypy.nodes import MypyFile, TypeInfo
from mypy.options import Options

from pod_mypy._cli import main
from pod_mypy._database import Tamed, load, render_markdown, resolve

ROOT = Path(__file__).resolve().parents[2]
START = "<!-- taming-database:start -->"
END = "<!-- taming-database:end -->"


def _modules_named() -> list[str]:
    """Every module the database names something of (the longest importable prefix)."""
    import importlib.util

    found: set[str] = set()
    for entry in load().entries:
        parts = entry.name.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            try:
                spec = importlib.util.find_spec(module)
            except (ImportError, ValueError):
                spec = None
            if spec is not None:
                found.add(module)
                break
    return sorted(found)


@pytest.fixture(scope="module")
def files() -> dict[str, MypyFile]:
    """A mypy build that imports every module the database names."""
    modules = _modules_named()
    text = "".join(f"import {module}\n" for module in modules if module != "builtins")
    options = Options()
    options.incremental = False
    options.python_version = sys.version_info[:2]
    result = build.build([BuildSource("probe.py", "probe", text)], options)
    return result.files


def test_every_entry_resolves_in_this_mypy_and_python(files: dict[str, MypyFile]) -> None:
    tamed = Tamed(load(), files)
    assert [f"[{entry.table}] {entry.name}" for entry in tamed.unresolved] == []
    missing = [
        f"[{entry.table}] {entry.name}"
        for entry in load().entries
        if entry.table not in {"refused", "members", "reflective"}
        and resolve(entry.name, files) is None
    ]
    assert missing == []


def test_tables_are_consistent() -> None:
    raw = load()
    types = {entry.name for entry in raw.table("types")}
    functions = {entry.name for entry in raw.table("functions")}
    bad_members = [e.name for e in raw.table("members") if e.name.rpartition(".")[0] not in types]
    assert bad_members == []
    assert [e.name for e in raw.table("json") if e.name not in functions] == []
    seen: dict[str, str] = {}
    twice: list[str] = []
    for entry in raw.entries:
        if entry.table == "json":
            continue
        if entry.name in seen:
            twice.append(f"{entry.name}: [{seen[entry.name]}] and [{entry.table}]")
        seen[entry.name] = entry.table
    assert twice == []


def test_reflective_names_are_member_names_the_build_defines(
    files: dict[str, MypyFile],
) -> None:
    # [reflective] holds member names, not dotted ones; each is a member of a class typeshed
    # defines (a name no class has would be a typo that refuses nothing)
    names = {entry.name for entry in load().table("reflective")}
    assert names
    assert all(name.isidentifier() for name in names)
    defined = {
        name
        for file in files.values()
        for symbol in file.names.values()
        if isinstance(symbol.node, TypeInfo)
        for name in symbol.node.names
    }
    assert sorted(names - defined - {"f_generator"}) == []  # 3.14's: not in older stubs


def test_docs_render_the_database() -> None:
    text = (ROOT / "docs" / "plugin.md").read_text()
    assert START in text, "docs/plugin.md lost the database markers"
    assert END in text, "docs/plugin.md lost the database markers"
    shown = text.split(START, 1)[1].split(END, 1)[0].strip()
    assert shown == render_markdown(load()).strip(), (
        "docs/plugin.md's database table is stale: "
        "run python -m pod_mypy database --into docs/plugin.md"
    )


def test_the_database_command_prints_every_entry_as_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["database", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    database = load()
    assert document["digest"] == database.digest
    assert [(e["table"], e["name"], e["text"]) for e in document["entries"]] == [
        tuple(entry) for entry in database.entries
    ]
    refused = {e["name"]: e["text"] for e in document["entries"] if e["table"] == "refused"}
    assert refused["typing.Annotated"].startswith("Annotated metadata is an expression")
