"""Provider payload building: the OpenAI and Anthropic request bodies, no network.

Items are immutable, so each adapter converts an item once and keeps its provider form;
a turn should then cost what is new, not the whole history again. For histories of 10,
1,000 and 10,000 items whose earlier requests were already built, each repeat appends one
new tool call and its result (what a turn adds) to the same ``History`` the Worker would
hand the client, then builds the payload. The builds are timed twice: one after the other
(the builder's own cost), and each after encoding the previous body as JSON (as in a run,
where the encoding's cache evictions make the next build slower on long histories).
The build (every step but the JSON text) and the final JSON encoding are timed apart,
since encoding the whole body is unavoidable on every request.

Skipped, with a line saying so, when ``llm_worker.providers`` is not installed.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, final

from llm_worker import LlmRequest, Message, ToolCall, ToolDefinition, ToolResult
from llm_worker.interceptor import History

from ._measure import Sample, sample
from .floor import ARGUMENTS
from .workload import echo

__all__ = ["HISTORY_LENGTHS", "PayloadFigures", "find_builders", "measure_payload"]

HISTORY_LENGTHS: Final = (10, 1_000, 10_000)
_BUILDER_NAMES: Final = {
    "openai": "build_openai_payload",
    "anthropic": "build_anthropic_payload",
}
_REPEATS: Final = 60
"""Turns appended and built per history length (10 items grow to 130 as they are added)."""

Builder = Callable[[LlmRequest], Mapping[str, Any]]


@final
@dataclass(frozen=True)
class PayloadFigures:
    """By provider, then history length: seconds per turn to build, and to encode."""

    build: dict[str, dict[int, Sample]]
    """Seconds to build the payload of one turn, turn after turn (the builder's own cost)."""
    build_in_sequence: dict[str, dict[int, Sample]]
    """The same, when each build follows the JSON encoding of the previous body, as in a
    run: encoding a large body evicts the CPU caches the next build then misses in."""
    encode: dict[str, dict[int, Sample]]
    cold_build: dict[str, dict[int, float]]
    """Seconds to build a payload whose items were all never seen (first request)."""
    skipped: dict[str, str]
    """Provider -> why it was not measured."""


def find_builders() -> tuple[dict[str, Builder], dict[str, str]]:
    """Return the payload builders ``llm_worker.providers`` offers, and why others are missing."""
    try:
        providers = importlib.import_module("llm_worker.providers")
    except ImportError as exc:
        reason = f"providers not available ({exc.name or exc})"
        return {}, {name: reason for name in _BUILDER_NAMES}
    found: dict[str, Builder] = {}
    missing: dict[str, str] = {}
    for provider, name in _BUILDER_NAMES.items():
        builder = getattr(providers, name, None)
        if callable(builder):
            found[provider] = builder
        else:
            missing[provider] = f"llm_worker.providers has no {name}"
    return found, missing


def _turn(index: int) -> tuple[ToolCall, ToolResult]:
    call_id = f"call_{index}"
    return (
        ToolCall(call_id=call_id, name="echo", arguments=ARGUMENTS),
        ToolResult(call_id=call_id, name="echo", content=f"ok {index}"),
    )


def _history(length: int) -> History:
    items = History([Message(role="user", text="go")])
    index = 0
    while len(items) < length:
        items.extend(_turn(index))
        index += 1
    del items[length:]
    return items


def _request(items: History) -> LlmRequest:
    return LlmRequest(
        items=items, tools=(ToolDefinition.of(echo),), system_prompt="You are a benchmark."
    )


async def measure_payload(*, quick: bool = False) -> PayloadFigures:
    """Run the payload section (synchronous work; async only to match the other sections)."""
    builders, skipped = find_builders()
    build: dict[str, dict[int, Sample]] = {}
    in_sequence: dict[str, dict[int, Sample]] = {}
    encode: dict[str, dict[int, Sample]] = {}
    cold: dict[str, dict[int, float]] = {}
    repeats = 5 if quick else _REPEATS
    for provider, builder in builders.items():
        build[provider], in_sequence[provider], encode[provider] = {}, {}, {}
        cold[provider] = {}
        for length in HISTORY_LENGTHS:
            items = _history(length)
            start = time.perf_counter()
            builder(_request(items))  # the first request converts every item
            cold[provider][length] = time.perf_counter() - start
            alone: list[float] = []
            for repeat in range(repeats):
                items.extend(_turn(length + repeat))  # what one turn adds: new objects
                request = _request(items)
                start = time.perf_counter()
                builder(request)
                alone.append(time.perf_counter() - start)
            items = _history(length)
            builder(_request(items))
            builds: list[float] = []
            encodes: list[float] = []
            for repeat in range(repeats):
                items.extend(_turn(length + repeat))
                request = _request(items)
                start = time.perf_counter()
                payload = builder(request)
                built = time.perf_counter()
                json.dumps(payload)
                encoded = time.perf_counter()
                builds.append(built - start)
                encodes.append(encoded - built)
            build[provider][length] = sample(alone)
            in_sequence[provider][length] = sample(builds)
            encode[provider][length] = sample(encodes)
    return PayloadFigures(build, in_sequence, encode, cold, skipped)
