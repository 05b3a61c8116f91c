"""Hook files are checked against the taming database before any of them runs: ``pod run
--hooks`` and ``pod resume`` refuse with ``file:line: rule: fix`` and exit 2."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pod.hooks._hook_files import taming_database
from pod_mypy._database import load
from tests.cli.conftest import ReplayServer, chat_reply, pod_command

BAD = """
open("ran", "w").write("the hook file ran")

from typing import TYPE_CHECKING

from pod import Continue, HookRegistry, ToolCallSummary, events
from json import *
from sibling import HELP

registry = HookRegistry()


class Sneaky(HookRegistry, metaclass=type):
    pass


if TYPE_CHECKING:
    pass


@registry.on(events.PRE_TOOL_CALL)
def look(call: ToolCallSummary) -> Continue:
    eval("1")
    return Continue() if call.__class__ else Continue()
"""

SIBLING = """
try:
    import os
except ImportError:
    os = None
HELP = 1
"""


def _run(folder: Path, *options: str) -> tuple[int, str]:
    done = pod_command(
        "run", "go", "--model=openai:m", "--base-url=http://127.0.0.1:9/v1", "--api-key=k",
        *options, cwd=folder,
    )  # fmt: skip
    return done.returncode, done.stderr


def test_a_hook_file_and_its_local_import_are_refused_with_every_problem_before_running(
    tmp_path: Path,
) -> None:
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "sibling.py").write_text(SIBLING)
    code, stderr = _run(tmp_path, "--hooks=bad.py:registry")
    assert code == 2
    bad, sibling = tmp_path / "bad.py", tmp_path / "sibling.py"
    errors = [line for line in stderr.splitlines() if line.startswith("pod run: error: ")]
    shown = [line.removeprefix("pod run: error: ").partition(": ")[::2] for line in errors]
    assert [(where, text.partition(":")[0]) for where, text in shown] == [
        (f"{bad}:2", "hook-builtin"),
        (f"{bad}:4", "hook-import"),
        (f"{bad}:7", "hook-star-import"),
        (f"{bad}:13", "hook-class-base"),
        (f"{bad}:13", "hook-metaclass"),
        (f"{bad}:13", "hook-builtin"),
        (f"{bad}:17", "hook-type-checking"),
        (f"{bad}:23", "hook-builtin"),
        (f"{bad}:24", "hook-dunder"),
        (f"{sibling}:3", "hook-import-in-try"),
        (f"{sibling}:4", "hook-builtin"),
    ]
    assert "reading or writing files is I/O" in errors[0]  # the fix, from the database
    assert not (tmp_path / "ran").exists()


def test_trust_hooks_runs_the_file_unchecked(server: ReplayServer, tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "sibling.py").write_text(SIBLING)
    server.reply_json(chat_reply(text="done"))
    done = pod_command(
        "run", "go", "--model=openai:m", f"--base-url={server.url}/v1", "--api-key=k",
        "--hooks=bad.py:registry", "--trust-hooks", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "ran").read_text() == "the hook file ran"


def test_pod_resume_checks_the_saved_runs_hook_files_again(
    server: ReplayServer, tmp_path: Path
) -> None:
    hooks = tmp_path / "ask.py"
    hooks.write_text(
        textwrap.dedent(
            """
            from pod import HookRegistry, Pause, ToolCallSummary, events

            registry = HookRegistry()


            @registry.on(events.PRE_TOOL_CALL)
            def ask(call: ToolCallSummary) -> Pause:
                return Pause(reason="a human decides")
            """
        )
    )
    server.reply_json(chat_reply(calls=(("call_1", "read_file", {"path": "x"}),)))
    paused = pod_command(
        "run", "go", "--model=openai:m", f"--base-url={server.url}/v1", "--api-key=k",
        "--hooks=ask.py:registry", cwd=tmp_path,
    )  # fmt: skip
    assert paused.returncode == 5, paused.stderr
    [saved] = (tmp_path / ".pod" / "runs").iterdir()
    hooks.write_text(hooks.read_text() + "\nimport subprocess\n")
    refused = pod_command("resume", str(saved), "--approve=call_1", "--api-key=k", cwd=tmp_path)
    assert refused.returncode == 2
    assert f"pod resume: error: {hooks}:11: hook-import: `subprocess`" in refused.stderr


def test_the_plugin_and_the_loader_read_the_same_taming_database() -> None:
    plugin = {(entry.table, entry.name, entry.text) for entry in load().entries}
    loader = {
        (table, name, text)
        for table, entries in taming_database().tables.items()
        for name, text in entries.items()
    }
    assert loader == plugin
    assert len(loader) > 500


QUOTED = """
import functools
import os
import typing
from typing import Literal, TypeAlias

from pod import Continue, HookRegistry, ToolCallSummary, events

registry = HookRegistry()
Quiet: TypeAlias = "typing.Annotated[str, os.system('touch ran')]"
Mode: TypeAlias = Literal["read", "write"]


@functools.singledispatch
def describe(value: object) -> str:
    return "value"


@describe.register
def _(value: "typing.Annotated[bytes, os.system('touch ran')]") -> str:
    return "bytes"


@describe.register
def _(value: list["typing.Annotated[int, os.system('touch ran')]"]) -> str:
    return "list"


def mode(value: "Mode") -> Literal["read", "write"]:
    return value


@registry.on(events.PRE_TOOL_CALL)
def look(call: ToolCallSummary) -> Continue:
    return Continue()


def odd(value: "not a type!") -> None:
    return None
"""


def test_quoted_annotations_are_checked_as_the_code_get_type_hints_runs(tmp_path: Path) -> None:
    # singledispatch's register evaluates a quoted annotation (and an alias string it names)
    # when the module is imported: the check reads them as code, Literal's strings as text.
    (tmp_path / "quoted.py").write_text(QUOTED)
    code, stderr = _run(tmp_path, "--hooks=quoted.py:registry")
    assert code == 2, stderr
    quoted = tmp_path / "quoted.py"
    errors = [line for line in stderr.splitlines() if line.startswith("pod run: error: ")]
    where = [line.removeprefix("pod run: error: ").partition(": ")[0] for line in errors]
    assert where == [f"{quoted}:{line}" for line in (10, 10, 20, 20, 25, 25, 38)], stderr
    assert all("Annotated" in line or "process I/O" in line for line in errors[:-1]), stderr
    assert "hook-annotation: a quoted annotation must be a type" in errors[-1], stderr
    assert not (tmp_path / "ran").exists()


FRAMES = """
from pod import Continue, HookRegistry, ToolCallSummary, events

registry = HookRegistry()


class View:
    name = "view"


@registry.on(events.PRE_TOOL_CALL)
def look(call: ToolCallSummary) -> Continue:
    view = View()
    print(view.tb_frame.f_back)
    print(getattr(view, "f_globals"), getattr(view, "name"))
    match view:
        case View(gi_frame=frame):
            print(frame)
    return Continue()
"""


def test_members_that_lead_to_frames_are_refused_on_any_receiver(tmp_path: Path) -> None:
    # the loader sees no types: a [reflective] name is refused whatever holds it, as the
    # plugin refuses it whatever type mypy was made to believe (docs/plugin.md, "Soundness")
    (tmp_path / "frames.py").write_text(FRAMES)
    code, stderr = _run(tmp_path, "--hooks=frames.py:registry")
    assert code == 2, stderr
    frames = tmp_path / "frames.py"
    errors = [line for line in stderr.splitlines() if line.startswith("pod run: error: ")]
    shown = [line.removeprefix("pod run: error: ") for line in errors]
    assert [line.partition(": hook-escape: ")[0] for line in shown] == [
        f"{frames}:14",
        f"{frames}:14",
        f"{frames}:15",
        f"{frames}:17",
    ], stderr
    assert "`.f_back` is refused: a frame's caller" in stderr
    assert "`.f_globals` is refused: a frame's globals" in stderr


MODULE_VALUES = """\
import logging
import os.path
from os import path

import helpers
from pod import Continue, HookRegistry, PreToolDecision, ToolCallSummary, events

registry = HookRegistry()
HELD = [os.path, logging]


@registry.on(events.PRE_TOOL_CALL)
def audit(call: ToolCallSummary) -> PreToolDecision:
    print(os.path.join("a", "b"), path.basename("x"), logging.getLogger("x"), helpers.LIMIT)
    print(path, helpers)
    return Continue()
"""


def test_modules_held_as_values_are_refused(tmp_path: Path) -> None:
    # a module's attributes lead to every module (posixpath.os): the third red team re-typed
    # os.path as a hook class this way; naming a member (os.path.join) passes
    (tmp_path / "values.py").write_text(MODULE_VALUES)
    (tmp_path / "helpers.py").write_text("LIMIT = 3\n")
    code, stderr = _run(tmp_path, "--hooks=values.py:registry")
    assert code == 2, stderr
    values = tmp_path / "values.py"
    shown = [
        line.removeprefix("pod run: error: ")
        for line in stderr.splitlines()
        if line.startswith("pod run: error: ")
    ]
    assert shown == [
        f"{values}:9: hook-module-value: `os.path` is a module used as a value: name the member "
        "you use",
        f"{values}:9: hook-module-value: `logging` is a module used as a value: name the member "
        "you use",
        f"{values}:15: hook-module-value: `path` is a module used as a value: name the member "
        "you use",
        f"{values}:15: hook-module-value: `helpers` is a module used as a value: name the member "
        "you use",
    ], stderr
