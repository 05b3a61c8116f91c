"""CommandHook in persistent mode: one process, one JSON line in and one out per event,
restarted after a crash, a timeout or a broken exchange, and ended by ``aclose``."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pod import (
    AbortInfo,
    CommandHook,
    CommandHookError,
    Continue,
    PreToolDecision,
    Skip,
    ToolCallSummary,
    events,
)

from .conftest import ScriptFactory, wait_until_dead, zombie_children

# Answers each request line with a skip whose reason is "<pid>:<count>:<call id>"; tool
# names steer misbehaviour.
SERVER = """
import json, os, sys, time
count = 0
for line in sys.stdin:
    count += 1
    call = json.loads(line)["input"]
    name = call["tool_name"]
    if name == "crash":
        print("giving up on " + call["call_id"], file=sys.stderr, flush=True)
        sys.exit(4)
    if name == "slow":
        time.sleep(120)
    if name == "garbage":
        print("not json", flush=True)
        continue
    if name == "two_lines":
        print('{"decision": "continue"}\\n{"decision": "continue"}', flush=True)
        continue
    if name == "dawdle":
        time.sleep(0.05)
    reason = f"{os.getpid()}:{count}:{call['call_id']}"
    print(json.dumps({"decision": "skip", "reason": reason}), flush=True)
    if name == "last":
        sys.exit(0)
"""


def call(tool_name: str, call_id: str = "c") -> ToolCallSummary:
    return ToolCallSummary(call_id=call_id, tool_name=tool_name, arguments="{}", turn=0)


def persistent(
    argv: list[str], timeout: float = 30
) -> CommandHook[ToolCallSummary, PreToolDecision]:
    return CommandHook(events.PRE_TOOL_CALL, argv, timeout=timeout, mode="persistent")


def answer(decision: object) -> tuple[int, int, str]:
    assert isinstance(decision, Skip)
    pid, count, call_id = decision.reason.split(":")
    return int(pid), int(count), call_id


async def test_one_process_answers_every_event_in_turn(script: ScriptFactory) -> None:
    async with persistent(script(SERVER)) as hook:
        answers = [answer(await hook(call("read", f"c{n}"))) for n in range(3)]
    pids = {pid for pid, _, _ in answers}
    assert len(pids) == 1
    assert [(count, call_id) for _, count, call_id in answers] == [(1, "c0"), (2, "c1"), (3, "c2")]
    assert wait_until_dead(pids.pop())  # aclose ended it


async def test_concurrent_events_never_interleave(script: ScriptFactory) -> None:
    async with persistent(script(SERVER)) as hook:
        decisions = await asyncio.gather(*(hook(call("dawdle", f"c{n}")) for n in range(6)))
    answers = [answer(decision) for decision in decisions]
    assert [call_id for _, _, call_id in answers] == [f"c{n}" for n in range(6)]
    assert sorted(count for _, count, _ in answers) == [1, 2, 3, 4, 5, 6]


async def test_a_crash_fails_that_event_and_the_next_one_gets_a_new_process(
    script: ScriptFactory,
) -> None:
    async with persistent(script(SERVER)) as hook:
        first, _, _ = answer(await hook(call("read")))
        with pytest.raises(CommandHookError) as failure:
            await hook(call("crash", "c9"))
        assert failure.value.problem == "exited with status 4 before answering"
        assert failure.value.stderr == "giving up on c9"
        second, count, _ = answer(await hook(call("read")))
    assert second != first
    assert count == 1
    assert zombie_children() == []


async def test_a_process_that_exits_between_events_is_restarted(script: ScriptFactory) -> None:
    async with persistent(script(SERVER)) as hook:
        first, _, _ = answer(await hook(call("last")))
        assert wait_until_dead(first)
        second, count, _ = answer(await hook(call("read")))
    assert (second != first, count) == (True, 1)


async def test_a_timeout_kills_the_process_and_the_next_event_restarts_it(
    script: ScriptFactory,
) -> None:
    async with persistent(script(SERVER), timeout=2) as hook:
        first, _, _ = answer(await hook(call("read")))
        with pytest.raises(CommandHookError, match=r"` timed out after 2s$"):
            await hook(call("slow"))
        assert wait_until_dead(first)
        second, count, _ = answer(await hook(call("read")))
    assert (second != first, count) == (True, 1)


async def test_garbage_fails_the_event_but_keeps_the_process(script: ScriptFactory) -> None:
    async with persistent(script(SERVER)) as hook:
        first, _, _ = answer(await hook(call("read")))
        with pytest.raises(CommandHookError, match=r"printed something that is not JSON"):
            await hook(call("garbage"))
        second, count, _ = answer(await hook(call("read")))
    assert (second, count) == (first, 3)


async def test_two_lines_for_one_request_break_the_framing_and_restart_it(
    script: ScriptFactory,
) -> None:
    async with persistent(script(SERVER)) as hook:
        first, _, _ = answer(await hook(call("read")))
        with pytest.raises(CommandHookError, match=r"printed more than one line for one request"):
            await hook(call("two_lines"))
        second, count, _ = answer(await hook(call("read")))
    assert (second != first, count) == (True, 1)


async def test_output_nobody_asked_for_fails_the_next_event(
    script: ScriptFactory, tmp_path: Path
) -> None:
    said_more = tmp_path / "said_more"
    argv = script(
        f"""
        import sys, time
        for line in sys.stdin:
            print('{{"decision": "continue"}}', flush=True)
            time.sleep(0.05)
            print("and another thing", flush=True)
            open({str(said_more)!r}, "w").close()
        """
    )
    async with persistent(argv) as hook:
        assert await hook(call("read")) == Continue()
        while not said_more.exists():  # noqa: ASYNC110  # the stray line is in the pipe
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)  # for the event loop to read it
        # Read between requests, or taken for the answer: either way the event fails.
        with pytest.raises(CommandHookError, match=r"nobody asked for|printed something"):
            await hook(call("read"))


async def test_abort_events_need_an_answer_line_whose_content_is_ignored(
    script: ScriptFactory, tmp_path: Path
) -> None:
    log = tmp_path / "aborts.log"
    argv = script(
        f"""
        import sys
        for line in sys.stdin:
            open({str(log)!r}, "a").write(line)
            print("noted", flush=True)
        """
    )
    async with CommandHook(events.ABORT, argv, mode="persistent") as hook:
        assert await hook(AbortInfo(reason="one", turn=0)) is None  # type: ignore[func-returns-value]
        assert await hook(AbortInfo(reason="two", turn=1)) is None  # type: ignore[func-returns-value]
    assert log.read_text().count('"event":"abort"') == 2


async def test_aclose_lets_the_process_exit_on_end_of_input(
    script: ScriptFactory, tmp_path: Path
) -> None:
    goodbye = tmp_path / "goodbye"
    argv = script(
        f"""
        import sys
        for line in sys.stdin:
            print('{{"decision": "continue"}}', flush=True)
        open({str(goodbye)!r}, "w").write("bye")
        """
    )
    hook = persistent(argv)
    await hook(call("read"))
    await hook.aclose()
    assert goodbye.read_text() == "bye"
    await hook.aclose()  # twice is fine


def test_a_hook_used_under_a_new_event_loop_starts_a_new_process(script: ScriptFactory) -> None:
    hook = persistent(script(SERVER))
    first, _, _ = answer(asyncio.run(hook(call("read"))))

    async def second_run() -> tuple[int, int, str]:
        async with hook:
            return answer(await hook(call("read")))

    second, count, _ = asyncio.run(second_run())
    assert (second != first, count) == (True, 1)
    assert wait_until_dead(first)
    assert os.getpid() not in (first, second)
