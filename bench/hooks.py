"""Hook dispatch: one ``PRE_TOOL_CALL`` event through a frozen registry of 0, 1, 10 and 100
trivial hooks, against calling the same functions directly in a plain loop.

Both sides run in a coroutine without suspending, many events per repeat; the figure is
nanoseconds per event, and per hook per event above the direct loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, final

from llm_worker import PRE_TOOL_CALL_POINT, Continue
from pod import FrozenHookRegistry, HookRegistry, ToolCallSummary, events

from ._measure import Sample, sample
from .floor import ARGUMENTS

__all__ = ["HOOK_COUNTS", "DispatchFigures", "measure_dispatch"]

HOOK_COUNTS: Final = (0, 1, 10, 100)
_HOOK_CALLS_PER_REPEAT: Final = 100_000
_DECISION: Final = Continue()


def _trivial_hook() -> Callable[[ToolCallSummary], Continue]:
    def hook(call: ToolCallSummary) -> Continue:
        del call
        return _DECISION

    return hook  # a distinct function object for each registration


async def _through_registry(
    frozen: FrozenHookRegistry, info: ToolCallSummary, rounds: int
) -> float:
    """Seconds per event through the registry's hook port."""
    start = time.perf_counter()
    for _ in range(rounds):
        await frozen.ask(PRE_TOOL_CALL_POINT, info)
    return (time.perf_counter() - start) / rounds


async def _direct(
    hooks: list[Callable[[ToolCallSummary], Continue]], info: ToolCallSummary, rounds: int
) -> float:
    """Seconds per event calling the same hooks in a plain loop, first non-Continue wins."""
    start = time.perf_counter()
    for _ in range(rounds):
        for hook in hooks:
            decision = hook(info)
            if type(decision) is not Continue:
                break
    return (time.perf_counter() - start) / rounds


@final
@dataclass(frozen=True)
class DispatchFigures:
    """By hook count: seconds per event through the registry and through a direct loop."""

    registry: dict[int, Sample]
    direct: dict[int, Sample]

    def overhead_per_hook(self, hooks: int) -> float:
        """Seconds per hook per event above the direct call (``hooks`` >= 1)."""
        return (self.registry[hooks].best - self.direct[hooks].best) / hooks


async def measure_dispatch(*, quick: bool = False) -> DispatchFigures:
    """Run the hook-dispatch section."""
    info = ToolCallSummary(call_id="call_1", tool_name="echo", arguments=ARGUMENTS, turn=0)
    repeats = 2 if quick else 9
    registry_times: dict[int, Sample] = {}
    direct_times: dict[int, Sample] = {}
    for count in HOOK_COUNTS:
        hooks = [_trivial_hook() for _ in range(count)]
        registry = HookRegistry()
        for hook in hooks:
            registry.on(events.PRE_TOOL_CALL, hook)
        frozen = registry.freeze()
        rounds = _HOOK_CALLS_PER_REPEAT // max(count, 1) // (10 if quick else 1)

        via: list[float] = []
        plain: list[float] = []
        for _ in range(repeats):
            via.append(await _through_registry(frozen, info, rounds))
            plain.append(await _direct(hooks, info, rounds))
        registry_times[count] = sample(via)
        direct_times[count] = sample(plain)
    return DispatchFigures(registry_times, direct_times)
