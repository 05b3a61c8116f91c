"""The approval prompt, for real: `pod run` in a pseudo-terminal, answered key by key."""

from __future__ import annotations

import os
import signal
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
    chat_reply,
    queue_weather_session,
    run_arguments,
)
from tests.cli.terminal import Terminal

Start: TypeAlias = Callable[..., "Terminal"]
"""Starts `pod run` in a terminal, with extra options."""


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
    terminal.expect("get_weather: approve, skip or abort? [approve/skip/abort]:")
    terminal.type("approve")
    terminal.expect("call_tokyo get_weather")
    terminal.expect("get_weather: approve, skip or abort? [approve/skip/abort]:")
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
    terminal.expect("[approve/skip/abort]:")
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
    terminal.expect("[approve/skip/abort]:")
    time.sleep(0.3)  # waiting for the answer
    terminal.process.send_signal(signal.SIGINT)
    terminal.expect(
        "\nerror: cancelled: the run was interrupted at a pause (4 items); its pending calls "
        "(call_paris, call_tokyo) are saved undecided, for pod resume to decide"
    )
    terminal.expect("continue: pod resume .pod/runs/")
    assert "every tool call has its result" not in terminal.screen
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
        resuming.expect("[approve/skip/abort]:")
        resuming.type("")  # no default: a hook asked for a person's word
        resuming.expect("Please select one of the available options")
        resuming.type("approve")
        resuming.expect("call_tokyo get_weather")
        resuming.expect("[approve/skip/abort]:")
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
    terminal.expect("[approve/skip/abort]:")
    os.write(terminal.controller, b"\x04")  # Ctrl-D: nobody will answer
    terminal.expect("continue: pod resume .pod/runs/")
    assert terminal.finish() == 5
    assert len(list((tmp_path / ".pod" / "runs").iterdir())) == 1


def test_a_turn_end_review_shows_the_answer_before_asking(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    server.reply_json(chat_reply(text=FINAL_TEXT))
    options = [*run_arguments(server, project), f"--hooks={project}/review_hooks.py:review"]
    trusted = [o for o in options if "approval_hooks" not in o] + ["--trust-hooks"]
    argv = [sys.executable, "-m", "pod", "run", PROMPT, *trusted]
    terminal = Terminal(argv, cwd=tmp_path)
    try:
        terminal.expect("paused at turn_end by review_hooks.review_the_answer")
        terminal.expect("the answer, before it is given:")
        terminal.expect(FINAL_TEXT)  # shown before the question, not after
        terminal.expect("continue or abort? [continue/abort]:")
        terminal.type("continue")
        terminal.expect("person      TURN_END        the run -> Continue")
        assert terminal.finish() == 0, terminal.screen
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait()
