"""The floor: a minimal hand-written asyncio agent loop, standard library only.

It does the bookkeeping every agent loop does, and nothing else: call the pre-request hook,
ask the fake model, append its reply, call the tool hook, parse the arguments, call the
tool, append the result. It imports nothing outside the standard library, so the peers'
drivers run it in their own environments, side by side with each peer.

The tool body stamps :data:`CLOCK`; the gaps between stamps are per-turn costs.
"""

from __future__ import annotations

import itertools
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, final

__all__ = [
    "ARGUMENTS",
    "CLOCK",
    "CURVE_EDGES",
    "FINAL_TEXT",
    "HandWrittenLoop",
    "TurnClock",
    "curve",
    "echo_body",
]

ARGUMENTS: Final = '{"text": "ok"}'
"""The arguments of every scripted tool call (JSON text, as a model sends them)."""
FINAL_TEXT: Final = "done"


@final
class TurnClock:
    """Collects one ``perf_counter_ns`` stamp per tool call (one per turn)."""

    def __init__(self) -> None:
        self.stamps: list[int] = []

    def reset(self) -> None:
        self.stamps = []

    def tick(self) -> None:
        self.stamps.append(time.perf_counter_ns())


CLOCK: Final = TurnClock()

CURVE_EDGES: Final = (
    1, 2, 3, 5, 8, 13, 20, 32, 50, 80, 126, 200, 316, 500, 800,
    1_260, 2_000, 3_160, 5_000, 7_000, 10_000,
)  # fmt: skip
"""Turn windows ``[a, b)`` of the per-turn curve, about evenly spaced on a log scale."""


def curve(stamps: Sequence[int], edges: Sequence[int] = CURVE_EDGES) -> dict[int, float]:
    """Median seconds per turn in each window ``[a, b)`` of turns, keyed by ``a``.

    ``stamps[i]`` is the clock at turn ``i``'s tool call, so ``stamps[t] - stamps[t - 1]`` is
    the cost of turn ``t``. The last window is cut at the last turn the stamps cover.
    """
    gaps = [(b - a) / 1e9 for a, b in itertools.pairwise(stamps)]
    return {
        start: statistics.median(gaps[start - 1 : min(stop, len(stamps)) - 1])
        for start, stop in itertools.pairwise(edges)
        if start < len(stamps) - 1
    }


async def echo_body(text: str) -> str:
    """The benchmark tool: stamps the clock and returns its argument."""
    CLOCK.tick()
    return text


@dataclass(slots=True)
class _Call:
    call_id: str
    name: str
    arguments: str


@dataclass(slots=True)
class _Result:
    call_id: str
    content: str


@dataclass(slots=True)
class _Text:
    role: str
    text: str


_PROCEED: Final = object()


def _trivial_hook(subject: object) -> object:
    del subject
    return _PROCEED


@final
class HandWrittenLoop:
    """The least any loop doing this work could cost, for ``turns`` tool-calling turns."""

    def __init__(self, turns: int) -> None:
        self.turns = turns
        self.history: list[_Call | _Result | _Text] = []
        self._requests = 0
        self._tools = {"echo": echo_body}
        self._pre_request_hook = _trivial_hook
        self._pre_tool_hook = _trivial_hook

    async def _model(self, history: list[_Call | _Result | _Text]) -> _Call | _Text:
        del history
        self._requests += 1
        if self._requests <= self.turns:
            return _Call(f"call_{self._requests}", "echo", ARGUMENTS)
        return _Text("assistant", FINAL_TEXT)

    async def run(self) -> None:
        history = self.history
        history.append(_Text("user", "go"))
        while True:
            if self._pre_request_hook(len(history)) is not _PROCEED:
                return
            reply = await self._model(history)
            history.append(reply)
            if not isinstance(reply, _Call):
                return
            if self._pre_tool_hook(reply) is not _PROCEED:
                history.append(_Result(reply.call_id, "skipped"))
                continue
            content = await self._tools[reply.name](**json.loads(reply.arguments))
            history.append(_Result(reply.call_id, content))

    def check(self) -> None:
        assert len(self.history) == 2 * self.turns + 2, len(self.history)
