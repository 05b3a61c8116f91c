"""Hundreds of command hooks timing out and crashing in a row: every one is reaped by the event
loop's child watcher alone (no "Unknown child process pid" race), and none leaves a zombie or
an open descriptor behind."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
from typing import Any

import pytest

import pod.command._process
from pod import CommandHook, CommandHookError, events

from .conftest import CALL, zombie_children

_ROUNDS = 12
_PER_ROUND = 24  # 288 commands: half time out (some mid-start), half crash


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_hundreds_of_timeouts_and_crashes_leave_no_trace(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A timeout short enough that some fire while the process is still being started: that
    # is where asyncio used to reap the child behind its watcher's back.
    sleeper = CommandHook(events.PRE_TOOL_CALL, ["sleep", "30"], timeout=0.01)
    crasher = CommandHook(events.PRE_TOOL_CALL, ["sh", "-c", "exit 3"], timeout=5)
    killed = CommandHook(events.PRE_TOOL_CALL, ["sh", "-c", "kill -9 $$"], timeout=5)
    hooks = (sleeper, crasher, sleeper, killed)

    async def ask(hook: CommandHook[Any, Any]) -> str:
        with pytest.raises(CommandHookError) as caught:
            await hook(CALL)
        return caught.value.problem

    await ask(crasher)  # let the loop's child watcher and pipes settle before counting
    descriptors = _open_descriptors()
    problems: list[str] = []
    with caplog.at_level(logging.DEBUG, logger="asyncio"):
        for _ in range(_ROUNDS):
            problems += await asyncio.gather(
                *(ask(hooks[i % len(hooks)]) for i in range(_PER_ROUND))
            )
        await asyncio.sleep(0.1)  # the watcher thread logs after the loop has moved on
    assert {p.split(" after")[0] for p in problems} == {
        "timed out",
        "exited with status 3",
        "was killed by SIGKILL",
    }
    assert [r.getMessage() for r in caplog.records if "child process" in r.getMessage()] == []
    assert zombie_children() == []
    assert _open_descriptors() == descriptors


@pytest.mark.skipif(not hasattr(os, "waitid"), reason="needs waitid")
async def test_a_timed_out_command_is_left_to_the_child_watcher_even_when_it_is_slow(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The race, made certain: the killed command is dead before we go on, and the event
    # loop's child watcher (a thread blocked in os.waitpid) hears of it late, so closing the
    # transport now would reap it behind the watcher's back. (subprocess binds its own
    # waitpid at import: only the watcher is slowed.)
    waitpid, kill = os.waitpid, pod.command._process._kill_group  # pyright: ignore[reportPrivateUsage]

    def kill_and_wait_for_death(pgid: int) -> None:
        kill(pgid)
        with contextlib.suppress(ChildProcessError):
            os.waitid(os.P_PID, pgid, os.WEXITED | os.WNOWAIT)

    def slow_waitpid(pid: int, options: int) -> tuple[int, int]:
        if options == 0:
            with contextlib.suppress(ChildProcessError):
                os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # dead, not reaped
            time.sleep(0.05)
        return waitpid(pid, options)

    monkeypatch.setattr(os, "waitpid", slow_waitpid)
    monkeypatch.setattr(pod.command._process, "_kill_group", kill_and_wait_for_death)
    sleeper = CommandHook(events.PRE_TOOL_CALL, ["sleep", "30"], timeout=0.05)
    with caplog.at_level(logging.DEBUG, logger="asyncio"):
        for _ in range(5):
            with pytest.raises(CommandHookError, match=r"timed out after 0\.05s"):
                await sleeper(CALL)
        await asyncio.sleep(0.1)
    assert [r.getMessage() for r in caplog.records if "child process" in r.getMessage()] == []
    assert zombie_children() == []
