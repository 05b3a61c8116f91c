"""``PRE_COMPACT``: the Pod asks hooks before compaction replaces history items.

A hook observes what is about to be replaced, or pauses for a human before the context is
lost; resuming is the go-ahead, also from a saved snapshot in a fresh Pod.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from llm_worker import Item, Message, ScriptedClient, ScriptedReply, Summary
from llm_worker.testing import assert_well_formed
from pod import (
    Aborted,
    CommandHook,
    Continue,
    Finished,
    HookRegistry,
    Pause,
    Paused,
    Pod,
    PodSettings,
    PodSnapshot,
    SummaryText,
    WorkerStateError,
    events,
)
from pod.events import PreCompactDecision, PreCompactInfo

THRESHOLD = 100
OLD = [Message(role="user" if i % 2 == 0 else "assistant", text=f"old {i} " * 30) for i in range(6)]


class Summariser:
    def __init__(self) -> None:
        self.calls = 0

    async def summarise(self, items: Sequence[Item], /) -> SummaryText:
        self.calls += 1
        return SummaryText(text=f"{len(items)} items")


def pod_with(hook: object, summariser: Summariser, history: Sequence[Item] = OLD) -> Pod:
    registry = HookRegistry()
    registry.on(events.PRE_COMPACT, hook)  # type: ignore[call-overload]
    return Pod(
        ScriptedClient([ScriptedReply("done")]),
        hooks=registry,
        summariser=summariser,
        settings=PodSettings(compaction_threshold_tokens=THRESHOLD, compaction_keep_recent=2),
        history=history,
    )


def summaries(pod: Pod) -> list[Summary]:
    return [item for item in pod.history if isinstance(item, Summary)]


async def test_hooks_observe_what_compaction_is_about_to_replace() -> None:
    seen: list[PreCompactInfo] = []
    summariser = Summariser()

    def observe(info: PreCompactInfo) -> Continue:
        assert summariser.calls == 0  # asked before the summary is written
        seen.append(info)
        return Continue()

    pod = pod_with(observe, summariser)
    result = await pod.run("next")

    assert result == Finished(text="done", turn=0)
    assert len(seen) == 1
    info = seen[0]
    assert (info.turn, info.items_to_replace, info.threshold_tokens) == (0, 5, THRESHOLD)
    assert info.estimated_tokens > THRESHOLD
    assert [s.text for s in summaries(pod)] == ["5 items"]


async def test_a_pause_keeps_the_context_and_resuming_compacts_without_asking_again() -> None:
    asked: list[int] = []

    def ask_first(info: PreCompactInfo) -> PreCompactDecision:
        asked.append(info.items_to_replace)
        return Pause(reason="save the transcript first")

    first = pod_with(ask_first, Summariser())
    paused = await first.run("next")
    assert paused == Paused(point="pre_compact", reason="save the transcript first", turn=0)
    assert first.status == "paused"
    assert summaries(first) == []
    assert len(first.history) == len(OLD) + 1

    summariser = Summariser()
    second = pod_with(ask_first, summariser, history=())
    second.restore(PodSnapshot.from_json(first.snapshot().to_json()))
    result = await second.resume()

    assert result == Finished(text="done", turn=0)
    assert asked == [5]  # the go-ahead is not put to the hooks again
    assert summariser.calls == 1
    assert [s.text for s in summaries(second)] == ["5 items"]
    assert second.status == "idle"


async def test_a_failing_hook_aborts_before_anything_is_replaced() -> None:
    def broken(info: PreCompactInfo) -> Continue:
        raise RuntimeError("no disk")

    summariser = Summariser()
    pod = pod_with(broken, summariser)
    result = await pod.run("next")

    assert isinstance(result, Aborted)
    assert result.error_type == "HookFailedError"
    assert "on PRE_COMPACT failed: raised RuntimeError: no disk" in result.reason
    assert summariser.calls == 0
    assert summaries(pod) == []
    assert pod.status == "idle"
    assert_well_formed(pod.history)


async def test_a_new_prompt_abandons_a_pause_before_compaction() -> None:
    pod = pod_with(lambda info: Pause(reason="wait"), Summariser())
    assert isinstance(await pod.run("next"), Paused)
    # Compaction is still due: the new run asks again.
    assert isinstance(await pod.run("again"), Paused)
    assert pod.turn == 1


async def test_a_command_hook_pauses_before_compaction(tmp_path: Path) -> None:
    path = tmp_path / "ask.py"
    path.write_text(
        "import json, sys\n"
        "info = json.load(sys.stdin)['input']\n"
        "print(json.dumps({'decision': 'pause', "
        "'reason': f\"{info['items_to_replace']} items over {info['threshold_tokens']}\"}))\n",
        encoding="utf-8",
    )
    hook = CommandHook(events.PRE_COMPACT, [sys.executable, str(path)], timeout=10)
    pod = pod_with(hook, Summariser())

    assert await pod.run("next") == Paused(point="pre_compact", reason="5 items over 100", turn=0)


def test_pre_compact_cannot_skip_or_abort() -> None:
    registry = HookRegistry()
    with pytest.raises(Exception, match="only meaningful for PRE_TOOL_CALL"):
        registry.on(events.PRE_COMPACT, lambda info: Continue(), on_error="deny")


async def test_decisions_for_calls_are_refused_at_a_pause_before_compaction() -> None:
    pod = pod_with(lambda info: Pause(reason="wait"), Summariser())
    assert isinstance(await pod.run("next"), Paused)
    before = pod.history

    with pytest.raises(WorkerStateError, match=r"^no pending tool call with id c1$"):
        await pod.resume({"c1": Continue()})

    assert pod.history == before  # nothing was compacted
    assert pod.status == "paused"
    assert await pod.resume() == Finished(text="done", turn=0)
