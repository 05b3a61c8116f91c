"""Every table of the CLI keeps every cell whole: at 60, 80 and 200 columns on a terminal, and
off a terminal, where no line is wrapped at all (issue 27)."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.console import Console

from llm_worker import Message, ToolCall, ToolResult
from pod.cli._demo import history_records
from pod.cli._durable import runs_records
from pod.cli._main import events_records
from pod.cli._tables import Records, print_records
from pod.durable import RunInfo
from tests.cli.terminal import Terminal


def _runs() -> Records:
    started = datetime(2026, 11, 30, 21, 26, 13, tzinfo=UTC)
    return runs_records(
        [
            RunInfo(
                run_id="run-4e78a1b2c3d4",
                agent="weather-assistant",
                status="paused",
                started=started,
                last_step="pod.hook/PRE_TOOL_CALL#3",
                pending_calls=("call_paris_forecast", "call_tokyo_forecast"),
                executor="build-host-7-3f9a2c1d",
            ),
            RunInfo(
                run_id="run-0123456789ab",
                agent="a",
                status="queued",
                started=None,
                last_step=None,
            ),
        ]
    )


def _history() -> Records:
    return history_records(
        (
            Message(role="user", text="What does this project do? Read the README and tell me."),
            ToolCall(call_id="call_1", name="read_file", arguments='{"path": "README.md"}'),
            ToolResult(
                call_id="call_1",
                name="read_file",
                content="# llm-pod " + "word " * 60,
                is_error=False,
            ),
            Message(role="assistant", text="It is a runtime for LLM agents with read-only hooks."),
        )
    )


TABLES: dict[str, Callable[[], Records]] = {
    "pod events": events_records,
    "pod runs": _runs,
    "pod demo history": _history,
}


def _render(records: Records, *, width: int, terminal: bool) -> str:
    out = io.StringIO()
    console = Console(
        file=out, width=width, force_terminal=terminal, color_system=None, soft_wrap=not terminal
    )
    print_records(console, records)
    return out.getvalue()


def _words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("width", [60, 80, 200])
@pytest.mark.parametrize("name", TABLES)
def test_on_a_terminal_every_cell_is_shown_whole_and_ids_never_wrap(name: str, width: int) -> None:
    records = TABLES[name]()
    shown = _render(records, width=width, terminal=True)
    lines = shown.splitlines()
    assert all(len(line) <= width for line in lines if "│" in line)  # a table fits
    for row in records.rows:
        assert any(row[0] in line for line in lines), f"{row[0]!r} is wrapped:\n{shown}"
        for cell in row:  # a long value may wrap at a word, under its field: no word is lost
            for cell_line in cell.splitlines():
                assert _words(cell_line) in _words(shown), f"{cell_line!r} is lost:\n{shown}"


@pytest.mark.parametrize("name", TABLES)
def test_off_a_terminal_no_line_is_wrapped(name: str) -> None:
    records = TABLES[name]()
    lines = _render(records, width=80, terminal=False).splitlines()
    for row in records.rows:
        for cell in row:
            for cell_line in cell.splitlines():
                assert any(cell_line.strip() in line for line in lines), cell_line
    assert all(line == line.rstrip() for line in lines if "│" not in line)  # no padding


def test_pod_events_in_an_80_column_terminal(tmp_path: Path) -> None:
    terminal = Terminal([sys.executable, "-m", "pod", "events"], cwd=tmp_path, columns=80)
    terminal.expect("PRE_TOOL_CALL")
    assert terminal.finish() == 0
    screen = terminal.screen
    assert max(len(line) for line in screen.splitlines()) <= 80
    for event in events_records().rows:
        assert event[0] in screen.splitlines()
        assert _words(event[2]) in _words(screen)  # the decisions column does not vanish
        assert _words(event[3]) in _words(screen)  # nor the "when" column


def test_pod_events_in_a_pipe_keeps_whole_lines() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pod", "events"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    for event in events_records().rows:
        assert f"  when       {event[3]}" in lines  # one line however long


def test_a_closed_pipe_ends_quietly() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "pod", "schema"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as reader:
        assert reader.stdout is not None
        assert reader.stderr is not None
        reader.stdout.close()  # the reader left before pod wrote anything (`pod schema | true`)
        assert reader.wait(timeout=60) == 141
        assert reader.stderr.read() == b""
