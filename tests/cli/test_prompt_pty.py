"""The approval prompt, for real: `pod run` in a pseudo-terminal, answered key by key."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeAlias

import pytest

from tests.cli.conftest import (
    FINAL_TEXT,
    PROMPT,
    ReplayServer,
    queue_weather_session,
    run_arguments,
)

Start: TypeAlias = Callable[..., "Terminal"]
"""Starts `pod run` in a terminal, with extra options."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """A process whose stdin, stdout and stderr are one pseudo-terminal."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
        env.update(NO_COLOR="1", TERM="xterm", COLUMNS="200")
        controller, terminal = pty.openpty()
        self.process = subprocess.Popen(
            argv, stdin=terminal, stdout=terminal, stderr=terminal, cwd=cwd, env=env
        )
        os.close(terminal)
        self.controller = controller
        self._raw = b""
        self._read_up_to = 0

    @property
    def screen(self) -> str:
        return _ANSI.sub("", self._raw.decode(errors="replace")).replace("\r", "")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.controller], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.controller, 4096)
        except OSError:  # EIO: the process closed the terminal
            data = b""
        self._raw += data
        return bool(data)

    def expect(self, text: str, timeout: float = 30) -> None:
        """Wait until ``text`` appears after what was already expected."""
        deadline = time.monotonic() + timeout
        while text not in self.screen[self._read_up_to :]:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._read(min(remaining, 0.5)):
                raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen}")
        self._read_up_to = self.screen.index(text, self._read_up_to) + len(text)

    def type(self, line: str) -> None:
        os.write(self.controller, line.encode() + b"\r")

    def finish(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while self._read(max(0.0, deadline - time.monotonic())) and time.monotonic() < deadline:
            pass
        code = self.process.wait(timeout=max(1.0, deadline - time.monotonic()))
        os.close(self.controller)
        return code


@pytest.fixture
def pod_in_terminal(server: ReplayServer, project: Path, tmp_path: Path) -> Iterator[Start]:
    started: list[Terminal] = []

    def start(*extra: str) -> Terminal:
        argv = [sys.executable, "-m", "pod", "run", PROMPT, *run_arguments(server, project), *extra]
        terminal = Terminal(argv, cwd=tmp_path)
        started.append(terminal)
        return terminal

    yield start
    for terminal in started:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait()


def test_the_prompt_shows_each_call_and_resumes_in_the_same_process(
    pod_in_terminal: Start,
    server: ReplayServer,
    tmp_path: Path,
) -> None:
    queue_weather_session(server)
    terminal = pod_in_terminal()
    terminal.expect(
        "paused at pre_tool_call by approval_hooks.ask_first: get_weather needs a human"
    )
    terminal.expect("call_paris get_weather")
    terminal.expect('"city": "Paris"')
    terminal.expect("get_weather: approve, skip or abort? [approve/skip/abort] (approve):")
    terminal.type("approve")
    terminal.expect("call_tokyo get_weather")
    terminal.expect("get_weather: approve, skip or abort? [approve/skip/abort] (approve):")
    terminal.type("skip")
    terminal.expect("reason for skipping (the model sees it) (skipped by the user):")
    terminal.type("not today")
    terminal.expect(FINAL_TEXT)
    assert terminal.finish() == 0, terminal.screen
    tool_messages = [m for m in server.requests[1].body["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_paris", "call_tokyo"]
    assert tool_messages[0]["content"] == "sunny, 21 °C"
    assert "not today" in tool_messages[1]["content"]
    assert not (tmp_path / ".pod").exists()  # answered here: nothing to save


def test_abort_at_the_prompt_ends_the_run(
    pod_in_terminal: Start,
    server: ReplayServer,
) -> None:
    queue_weather_session(server)
    terminal = pod_in_terminal()
    terminal.expect("(approve):")
    terminal.type("abort")
    terminal.expect("aborted: aborted by the user")
    assert terminal.finish() == 1
    assert len(server.requests) == 1


def test_no_input_saves_instead_of_asking(
    pod_in_terminal: Start,
    server: ReplayServer,
    tmp_path: Path,
) -> None:
    queue_weather_session(server)
    terminal = pod_in_terminal("--no-input")
    terminal.expect("saved: .pod/runs/")
    assert terminal.finish() == 5
    assert "approve, skip or abort?" not in terminal.screen
    assert len(list((tmp_path / ".pod" / "runs").iterdir())) == 1


def test_ctrl_c_at_the_prompt_saves_the_paused_run(
    pod_in_terminal: Start,
    server: ReplayServer,
    tmp_path: Path,
) -> None:
    queue_weather_session(server)
    terminal = pod_in_terminal()
    terminal.expect("(approve):")
    time.sleep(0.3)  # waiting for the answer
    terminal.process.send_signal(signal.SIGINT)
    terminal.expect("continue: pod resume .pod/runs/")
    assert terminal.finish() == 130
    [saved] = (tmp_path / ".pod" / "runs").iterdir()
    assert '"pending_calls"' in saved.read_text()


def test_pod_resume_asks_in_a_terminal_when_given_no_decision(
    pod_in_terminal: Start, server: ReplayServer, tmp_path: Path
) -> None:
    queue_weather_session(server)
    saving = pod_in_terminal("--no-input")
    saving.expect("saved: ")
    assert saving.finish() == 5
    [saved] = (tmp_path / ".pod" / "runs").iterdir()

    resuming = Terminal(
        [sys.executable, "-m", "pod", "resume", str(saved), "--api-key=k"], cwd=tmp_path
    )
    try:
        resuming.expect("paused at pre_tool_call by approval_hooks.ask_first")
        resuming.expect("call_paris get_weather")
        resuming.expect("(approve):")
        resuming.type("")  # the default: approve
        resuming.expect("call_tokyo get_weather")
        resuming.expect("(approve):")
        resuming.type("approve")
        resuming.expect(FINAL_TEXT)
        assert resuming.finish() == 0, resuming.screen
    finally:
        if resuming.process.poll() is None:
            resuming.process.kill()
            resuming.process.wait()


def test_end_of_input_at_the_prompt_saves_the_run(
    pod_in_terminal: Start, server: ReplayServer, tmp_path: Path
) -> None:
    queue_weather_session(server)
    terminal = pod_in_terminal()
    terminal.expect("(approve):")
    os.write(terminal.controller, b"\x04")  # Ctrl-D: nobody will answer
    terminal.expect("continue: pod resume .pod/runs/")
    assert terminal.finish() == 5
    assert len(list((tmp_path / ".pod" / "runs").iterdir())) == 1
