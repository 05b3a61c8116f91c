"""AGENT-HOOKS-0.1 interceptors next to native hooks, and the messages view's flatness.

1. At every llm-pod event ``pod.agent_hooks`` maps a point onto, one event is dispatched
   through a frozen registry holding either one native hook (a function returning
   ``Continue()``) or ``AgentHooks`` with one AGENT-HOOKS interceptor (returning
   ``allow``), side by side in the same repeats; the ratio is the cost of the contract's
   context, emission, composition and record next to the native hook.
2. ``PreRequestInfo`` as the Worker builds it at ``PRE_LLM_REQUEST``, with and without the
   messages view (``recent_items``: the last 16 items, each cut to 512 bytes), over histories
   of 10, 1,000 and 10,000 items. The view must cost the same at every length.

``python -m bench.agent_hooks [--quick]``; ``python -m bench`` runs it too.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, final

from agent_hooks import InterceptionEmitter, Verdict
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from llm_worker import (
    PREVIEW_BYTES,
    RECENT_ITEMS,
    Item,
    Message,
    OutputInfo,
    PostLlmResponseInfo,
    PreRequestInfo,
    PromptSubmitInfo,
    RunEndInfo,
    RunStartInfo,
    ToolCall,
    ToolCallSummary,
    ToolResult,
    ToolResultSummary,
)
from llm_worker._history import History, recent_items
from llm_worker._validated import validated
from pod import FrozenHookRegistry, HookRegistry, events
from pod.agent_hooks import AgentHooks

from ._measure import Sample, sample

__all__ = ["AgentHooksFigures", "measure_agent_hooks", "print_agent_hooks"]

HISTORY_LENGTHS: Final = (10, 1_000, 10_000)

_INPUTS: Final[tuple[tuple[events.HookEvent[Any, Any], BaseModel], ...]] = (
    (events.RUN_START, RunStartInfo(turn=0, tool_names=("read_file", "shell"))),
    (events.PROMPT_SUBMIT, PromptSubmitInfo(input_text="Summarise README.md", turn=0)),
    (
        events.PRE_LLM_REQUEST,
        PreRequestInfo(
            turn=0,
            request_index=1,
            item_count=16,
            estimated_tokens=900,
            tool_calls_this_turn=1,
            recent_items=tuple(("user", "x" * 200) for _ in range(RECENT_ITEMS)),
        ),
    ),
    (
        events.POST_LLM_RESPONSE,
        PostLlmResponseInfo(
            turn=0,
            request_index=0,
            text_preview="",
            tool_call_count=1,
            tool_names=("read_file",),
            tool_arguments=('{"path": "README.md"}',),
            stop_reason="tool_calls",
            input_tokens=100,
            output_tokens=20,
        ),
    ),
    (
        events.PRE_TOOL_CALL,
        ToolCallSummary(
            call_id="call_1", tool_name="read_file", arguments='{"path": "README.md"}', turn=0
        ),
    ),
    (
        events.POST_TOOL_CALL,
        ToolResultSummary(
            call_id="call_1",
            tool_name="read_file",
            is_error=False,
            output_preview="# llm-pod",
            output_length=9,
            turn=0,
        ),
    ),
    (events.OUTPUT, OutputInfo(turn=0, text="README.md describes llm-pod.", text_length=28)),
    (events.RUN_END, RunEndInfo(turn=0, outcome="finished", reason="")),
)


class _Allow:
    """One AGENT-HOOKS interceptor that allows everything."""

    def intercept(self, context: dict[str, Any]) -> Verdict:
        del context
        return Verdict.allow()


def _native(event: events.HookEvent[Any, Any]) -> FrozenHookRegistry:
    registry = HookRegistry()
    neutral = event.neutral

    def hook(info: BaseModel) -> object:
        del info
        return neutral

    registry.on(event, hook)
    return registry.freeze()


def _agent_hooks() -> FrozenHookRegistry:
    registry = HookRegistry()
    AgentHooks(InterceptionEmitter().register(_Allow())).register(registry)
    return registry.freeze()


async def _per_event(frozen: FrozenHookRegistry, event: Any, info: BaseModel, rounds: int) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        await frozen.dispatch(event, info)
    return (time.perf_counter() - start) / rounds


def _history(length: int) -> History:
    items: list[Item] = []
    for index in range(length):
        match index % 4:
            case 0:
                items.append(Message(role="user", text=f"question {index} " * 20))
            case 1:
                items.append(
                    ToolCall(call_id=f"c{index}", name="read_file", arguments='{"path": "a.md"}')
                )
            case 2:
                items.append(
                    ToolResult(call_id=f"c{index - 1}", name="read_file", content="x" * 800)
                )
            case _:
                items.append(Message(role="assistant", text=f"answer {index} " * 20))
    return History(items)


def _summary(history: History, *, view: bool) -> PreRequestInfo:
    """``PreRequestInfo`` exactly as the Worker builds it (``view=False``: as it was before
    the messages view)."""
    fields: dict[str, object] = {
        "turn": 0,
        "request_index": 3,
        "item_count": len(history),
        "estimated_tokens": history.estimated_tokens(),
        "tool_calls_this_turn": 2,
    }
    if view:
        fields["recent_items"] = recent_items(history, RECENT_ITEMS, PREVIEW_BYTES)
    return validated(PreRequestInfo, **fields)


def _time(build: Callable[[], object], rounds: int) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        build()
    return (time.perf_counter() - start) / rounds


@final
@dataclass(frozen=True)
class AgentHooksFigures:
    """Seconds per event by event name; seconds per summary by history length."""

    native: dict[str, Sample]
    agent_hooks: dict[str, Sample]
    with_view: dict[int, Sample]
    without_view: dict[int, Sample]


async def measure_agent_hooks(*, quick: bool = False) -> AgentHooksFigures:
    """Run both parts, each side by side in the same repeats."""
    repeats = 2 if quick else 7
    rounds = 200 if quick else 2_000
    adapter = _agent_hooks()
    native: dict[str, Sample] = {}
    agent: dict[str, Sample] = {}
    for event, info in _INPUTS:
        plain = _native(event)
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(repeats):
            ours.append(await _per_event(plain, event, info, rounds * 10))
            theirs.append(await _per_event(adapter, event, info, rounds))
        native[event.name] = sample(ours)
        agent[event.name] = sample(theirs)
    # The lengths take turns within each repeat, so a noisy moment is not charged to one.
    histories = {length: _history(length) for length in HISTORY_LENGTHS}
    viewed: dict[int, list[float]] = {length: [] for length in HISTORY_LENGTHS}
    bare: dict[int, list[float]] = {length: [] for length in HISTORY_LENGTHS}
    for _ in range(repeats * 2):
        for length, history in histories.items():
            viewed[length].append(_time(lambda h=history: _summary(h, view=True), rounds * 5))
            bare[length].append(_time(lambda h=history: _summary(h, view=False), rounds * 5))
    with_view = {length: sample(times) for length, times in viewed.items()}
    without_view = {length: sample(times) for length, times in bare.items()}
    return AgentHooksFigures(native, agent, with_view, without_view)


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.2f} µs"


def print_agent_hooks(figures: AgentHooksFigures, console: Console) -> None:
    """Both tables: per event, and the messages view by history length."""
    table = Table(title="one AGENT-HOOKS interceptor next to one native hook, per event (best)")
    for column in ("event", "native hook", "AGENT-HOOKS interceptor", "ratio"):
        table.add_column(column)
    for name, native in figures.native.items():
        agent = figures.agent_hooks[name]
        table.add_row(
            name.upper(), _us(native.best), _us(agent.best), f"{agent.best / native.best:,.0f}x"
        )
    console.print(table)
    view = Table(title="PreRequestInfo at PRE_LLM_REQUEST, with and without the messages view")
    for column in ("history items", "without the view", "with the view", "view's cost"):
        view.add_column(column)
    for length, viewed in figures.with_view.items():
        bare = figures.without_view[length]
        view.add_row(f"{length:,}", _us(bare.best), _us(viewed.best), _us(viewed.best - bare.best))
    console.print(view)
    # From 16 items on the view always holds 16: 10,000 against 1,000 is the flatness figure
    # (at 10 items it holds 10, so it costs less).
    flat = figures.with_view[10_000].best / figures.with_view[1_000].best
    console.print(f"with the view, 10,000 items against 1,000: {flat:.2f}x (flat: about 1)")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.agent_hooks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="few repeats (smoke test)")
    arguments = parser.parse_args()
    console = Console(width=None if sys.stdout.isatty() else 120)
    print_agent_hooks(asyncio.run(measure_agent_hooks(quick=arguments.quick)), console)


if __name__ == "__main__":
    main()
