"""Warm = cold: after an edit between two incremental runs, mypy with pod_mypy prints what a
cold run of the edited project prints, for every rule family.

A module's verdict depends only on itself, the types of what it imports, the taming database
and the configuration (docs/plugin.md, "The guarantee"); each case edits one module other than
the hook module under test and compares a warm run with a cold one.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFIG = """\
[mypy]
plugins = pod_mypy
strict = true

[pod_mypy]
hook_modules = helpers, boxes
"""
HOOKS = """\
from pod import Continue, HookRegistry, PreToolDecision, ToolCallSummary, events

import helpers
import sibling
from boxes import Box

registry = HookRegistry()


@registry.on(events.PRE_TOOL_CALL)
def audit(call: ToolCallSummary) -> PreToolDecision:
    box: Box = helpers.make(call.tool_name)
    print(box.label, sibling.declared)
    return Continue()
"""
HELPERS = """\
from boxes import Box


def make(label: str) -> Box:
    return Box(label)
"""
BOXES = """\
class Box:
    def __init__(self, label: str) -> None:
        self.label = label
"""
SIBLING = """\
from pod import Continue, PreToolDecision, ToolCallSummary, events, hook


@hook(events.PRE_TOOL_CALL)
def declared(call: ToolCallSummary) -> PreToolDecision:
    return Continue()
"""
PROJECT = {
    "mypy.ini": CONFIG,
    "hooks.py": HOOKS,
    "helpers.py": HELPERS,
    "boxes.py": BOXES,
    "sibling.py": SIBLING,
}

EDITS = {
    # the import rule: a listed hook module gains an untamed import inside a function
    "names": (
        "helpers.py",
        HELPERS + "\n\ndef peek() -> None:\n    import gc\n\n    gc.collect()\n",
    ),
    # the member rule: a tamed class's untamed member, in a body no interface shows
    "members": (
        "helpers.py",
        "import logging\n" + HELPERS + "\n\ndef quiet() -> None:\n"
        "    logging.getLogger().addHandler(logging.NullHandler())\n",
    ),
    # the type rule: a class another hook module returns now holds a privileged object
    "types": (
        "boxes.py",
        "from llm_worker import ScriptedClient, Worker\n\n\n"
        + BOXES
        + "        self.worker = Worker(ScriptedClient([]))\n",
    ),
    # the syntax rule: a TYPE_CHECKING branch in a listed hook module
    "syntax": (
        "helpers.py",
        "from typing import TYPE_CHECKING\n\n"
        + HELPERS
        + "\n\nif TYPE_CHECKING:\n    LIMIT = 1\nelse:\n    LIMIT = 2\n",
    ),
    # the soundness rules: an __exit__ whose parameters are another hook module's class
    "soundness": (
        "helpers.py",
        HELPERS + "\n\nclass Grab:\n    def __exit__(self, *exc: Box) -> None:\n        pass\n",
    ),
    # the narrowing rules: `in` narrows an object to another hook module's class
    "narrowing": (
        "helpers.py",
        HELPERS + "\n\nBOXES = [Box('a')]\n\n\ndef known(value: object) -> bool:\n"
        "    if value in BOXES:\n        return True\n    return False\n",
    ),
    # the conversion rules: a generic default shared by every call, and a module as a value
    "conversions": (
        "helpers.py",
        HELPERS + "\n\nimport json\nfrom typing import TypeVar\n\nT = TypeVar('T')\n"
        "HELD = [json]\n\n\ndef stash(value: T, box: list[T] = []) -> list[T]:\n"
        "    return box\n",
    ),
    # the callback rules: a hand-written __eq__ that library comparisons would trust
    "callbacks": (
        "helpers.py",
        HELPERS + "\n\nclass Same:\n    def __eq__(self, other: object) -> bool:\n"
        "        return True\n\n    def __hash__(self) -> int:\n        return 0\n",
    ),
    # the pattern and mixin rules: a hook mixin's comparison lands over int's
    "patterns": (
        "boxes.py",
        BOXES + "\n\nclass Never:\n    def __ge__(self, value: int) -> bool:\n"
        "        return False\n\n\nclass Quiet(Never, int):\n    pass\n",
    ),
    # the narrowing and constructor rules: an isinstance that invents a list's item type, a
    # constructor inherited from another base narrowing what type[Base] passes
    "invented arguments": (
        "boxes.py",
        BOXES + "\n\ndef peek(value: object) -> bool:\n    return isinstance(value, list)\n",
    ),
    "constructors": (
        "boxes.py",
        BOXES + "\n\nclass Wants:\n    def __init__(self, box: Box) -> None:\n"
        "        self.box = box\n\n\nclass Takes:\n    def __init__(self, thing: object) -> None:\n"
        "        self.thing = thing\n\n\nclass Both(Wants, Takes):\n    pass\n",
    ),
    # the flow rules: an attribute assigned through a union whose classes type it differently
    "flow": (
        "boxes.py",
        BOXES + "\n\nclass Other:\n    def __init__(self) -> None:\n"
        "        self.label: object = None\n\n\n"
        "def relabel(box: Box | Other, label: str) -> None:\n    box.label = label\n",
    ),
    # what a hook module is: the sibling stops declaring its hook, so importing it is refused
    "hook module": ("sibling.py", "def declared(value: object) -> None:\n    pass\n"),
}


def _mypy(project: Path, cache: str) -> list[str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "mypy.ini",
            "--cache-dir",
            cache,
            "hooks.py",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "INTERNAL ERROR" not in done.stdout + done.stderr, done.stdout + done.stderr
    return sorted(line for line in done.stdout.splitlines() if ": error:" in line)


def _write(project: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (project / name).write_text(text)


def test_the_project_is_clean_before_any_edit(tmp_path: Path) -> None:
    _write(tmp_path, PROJECT)
    assert _mypy(tmp_path, ".cache") == []


@pytest.mark.parametrize("family", sorted(EDITS))
def test_a_warm_run_after_an_edit_answers_as_a_cold_one(tmp_path: Path, family: str) -> None:
    _write(tmp_path, PROJECT)
    assert _mypy(tmp_path, ".cache") == []  # fills the cache
    name, text = EDITS[family]
    (tmp_path / name).write_text(text)

    warm = _mypy(tmp_path, ".cache")
    shutil.rmtree(tmp_path / ".cache")
    cold = _mypy(tmp_path, ".cache")

    assert cold, f"the {family} edit must be refused"
    assert warm == cold
