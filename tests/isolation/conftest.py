"""Shared pieces for CommandHook tests: real policy scripts and process checks."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pod import PreRequestInfo, ToolCallSummary, ToolResultSummary

CALL = ToolCallSummary(call_id="c1", tool_name="shell", arguments='{"command": "ls"}', turn=0)
RESULT = ToolResultSummary(
    call_id="c1",
    tool_name="shell",
    arguments='{"command": "ls"}',
    is_error=False,
    output_preview="ok",
    output_length=2,
    turn=0,
)
"""The result of ``CALL``."""
REQUEST = PreRequestInfo(
    turn=0, request_index=0, item_count=1, estimated_tokens=1, tool_calls_this_turn=0
)

ScriptFactory = Callable[[str], list[str]]
"""Writes a Python script to a temporary file; returns the argv that runs it."""


@pytest.fixture
def script(tmp_path: Path) -> ScriptFactory:
    counter = iter(range(1_000_000))

    def write(source: str) -> list[str]:
        path = tmp_path / f"hook_{next(counter)}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return [sys.executable, str(path)]

    return write


def is_dead(pid: int) -> bool:
    """Whether ``pid`` is gone or a zombie (killed, waiting for its new parent to reap it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rpartition(")")[2].split()[0] == "Z"


def wait_until_dead(pid: int, within: float = 10.0) -> bool:
    """Poll until ``pid`` is dead; SIGKILL is delivered asynchronously. Not a timing test:
    ``within`` only stops a broken kill from hanging the suite."""
    deadline = time.monotonic() + within
    while not is_dead(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def read_pid(path: Path, within: float = 10.0) -> int:
    """Read a pid a script wrote with ``write_pid`` (waiting for it to appear, bounded)."""
    deadline = time.monotonic() + within
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        time.sleep(0.01)
    return int(path.read_text().strip())


WRITE_PID = """
import os
def write_pid(path, pid):
    with open(path + ".tmp", "w") as f:
        f.write(str(pid))
    os.replace(path + ".tmp", path)  # atomic: a reader never sees half a pid
"""
"""Source of a ``write_pid(path, pid)`` helper for scripts."""


def zombie_children() -> list[int]:
    """Children of this process that exited and were never reaped."""
    me = os.getpid()
    zombies: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == me:
            zombies.append(int(entry.name))
    return zombies
