"""Tracing and MCP: what OpenTelemetry spans cost a run, and what an MCP stdio tool costs a
call above its server's own time.

**Tracing.** The loop workload (``bench.workload``: one tool call per turn, two trivial
hooks, idle interceptors) at 100 and 1,000 turns, four ways, alternating repeats on fresh
Pods so drifts in load hit all four: no ``telemetry=`` (off); ``Telemetry`` on the API's
no-op provider (the library installed, no SDK configured); the SDK's ``TracerProvider`` with
no processor (spans made and dropped: "no exporter"); and the SDK with an in-memory exporter
behind a ``SimpleSpanProcessor``. CPU time of the process per turn, best of repeats; each
traced way as a ratio to off.

**MCP stdio.** The SDK-written test server (``tests/mcp/servers/tools_server.py``), its
``echo`` tool (whose body does nothing), over stdio. Three things alternate, call for call:
the SDK's own ``Client.call_tool`` (the round trip: the server's own time with the pipe and
JSON-RPC both ways); ``McpTool.call``, pod's adapter, on the same connection to the same
server process (so only the adapter differs), in turns ABBA (the second call of a pair
finds the server awake); and one Pod turn calling the MCP tool minus one calling a native
``@tool`` of the same body (what the whole MCP path adds to a turn). Wall time (the server
is another process), median of the calls.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, final

from rich.console import Console
from rich.table import Table

from llm_worker import Finished, LlmRequest, ScriptedCall, ScriptedClient, ScriptedReply, Tool, tool
from pod import HookRegistry, Pod, PodSettings, events
from pod.telemetry import Telemetry

from ._measure import Sample, sample, timed
from .workload import _scripted_model, allow_tool, echo, watch_request

__all__ = ["McpFigures", "TracingFigures", "measure_mcp", "measure_tracing", "print_tracing"]

TURNS: Final = (100, 1_000)
_REPEATS: Final = {100: 100, 1_000: 20}
WAYS: Final = ("off", "API, no SDK", "SDK, no exporter", "SDK, in-memory exporter")
SERVER: Final = (
    Path(__file__).resolve().parents[1] / "tests" / "mcp" / "servers" / "tools_server.py"
)
_CALLS: Final = 400


def _telemetry(way: str) -> tuple[Telemetry | None, Callable[[], int]]:
    """The ``telemetry=`` of ``way`` and a count of the spans it exported."""
    if way == "off":
        return None, lambda: 0
    if way == "API, no SDK":
        from opentelemetry.trace import NoOpTracerProvider

        return Telemetry(tracer_provider=NoOpTracerProvider()), lambda: 0
    from opentelemetry.sdk.trace import TracerProvider

    # No exit hook: it would keep every provider (and its exported spans) alive to the end.
    provider = TracerProvider(shutdown_on_exit=False)
    if way == "SDK, no exporter":
        return Telemetry(tracer_provider=provider), lambda: 0
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Telemetry(tracer_provider=provider), lambda: len(exporter.get_finished_spans())


def _pod(turns: int, way: str) -> tuple[Pod, Callable[[], int]]:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, allow_tool)
    registry.on(events.PRE_LLM_REQUEST, watch_request)
    telemetry, exported = _telemetry(way)
    pod = Pod(
        ScriptedClient(then=_scripted_model(turns), record=False),
        tools=[echo],
        hooks=registry,
        settings=PodSettings(max_requests_per_turn=turns + 1, compaction_threshold_tokens=10**9),
        telemetry=telemetry,
    )
    return pod, exported


async def _per_turn(turns: int, way: str) -> float:
    pod, exported = _pod(turns, way)
    result: list[object] = []

    async def run() -> None:
        result.append(await pod.run("go"))

    seconds = await timed(run)
    assert isinstance(result[0], Finished), result[0]
    if way == "SDK, in-memory exporter":
        # per turn: a chat and an execute_tool span, two hook dispatches; plus the run's
        assert exported() == 4 * turns + 3, exported()
    return seconds / turns


@final
@dataclass(frozen=True)
class TracingFigures:
    per_turn: dict[int, dict[str, Sample]]
    """By N, by way: seconds per turn."""


async def measure_tracing(*, quick: bool = False) -> TracingFigures:
    per_turn: dict[int, dict[str, Sample]] = {}
    for turns in TURNS:
        repeats = 2 if quick else _REPEATS[turns]
        times: dict[str, list[float]] = {way: [] for way in WAYS}
        for way in WAYS:
            await _per_turn(turns, way)  # warm-up
        for _ in range(repeats):
            for way in WAYS:
                times[way].append(await _per_turn(turns, way))
        per_turn[turns] = {way: sample(values) for way, values in times.items()}
    return TracingFigures(per_turn)


# -- MCP over stdio -------------------------------------------------------------------------


@final
@dataclass(frozen=True)
class Timing:
    """One call's (or turn's) medians: wall time, and this process's CPU time (the server's
    work is another process's; what pod adds is this one's)."""

    wall: float
    cpu: float


@final
@dataclass(frozen=True)
class McpFigures:
    bare: Timing
    """Per call: the SDK's ``call_tool`` under the adapter (the server's own round trip)."""
    adapter: Timing
    """Per call: ``McpTool.call``."""
    pod_mcp: Timing
    """Per Pod turn calling the MCP tool."""
    pod_native: Timing
    """Per Pod turn calling a native tool of the same body."""


@tool(name="echo")
def _native_echo(text: str) -> str:
    """Return the text unchanged."""
    return text


def _turns_of(name: str, turns: int) -> Callable[[LlmRequest], ScriptedReply]:
    call = ScriptedReply(calls=(ScriptedCall(name=name, arguments={"text": "hi"}),))
    done = ScriptedReply(text="done")
    requests = 0

    def reply(request: LlmRequest) -> ScriptedReply:
        nonlocal requests
        del request
        requests += 1
        return call if requests <= turns else done

    return reply


async def _both_clocks(run: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    await run()
    return time.perf_counter() - wall, time.process_time() - cpu


def _median(values: list[tuple[float, float]], per: int = 1) -> Timing:
    return Timing(
        statistics.median(v[0] for v in values) / per,
        statistics.median(v[1] for v in values) / per,
    )


def _calling_pod(tools: list[Tool], name: str, turns: int) -> Pod:
    return Pod(
        ScriptedClient(then=_turns_of(name, turns), record=False),
        tools=tools,
        settings=PodSettings(max_requests_per_turn=turns + 1),
    )


async def measure_mcp(*, quick: bool = False) -> McpFigures:
    from pod.mcp import McpServer

    calls = 20 if quick else _CALLS
    bare: list[tuple[float, float]] = []
    adapter: list[tuple[float, float]] = []
    pod_mcp: list[tuple[float, float]] = []
    pod_native: list[tuple[float, float]] = []
    turns = 20
    async with McpServer("tools", command=sys.executable, args=[str(SERVER)]) as server:
        (mcp_echo,) = [t for t in server.tools if t.name == "mcp__tools__echo"]
        client = server._client  # the SDK client under the adapter: one server process
        assert client is not None
        for _ in range(10):  # warm-up
            await client.call_tool("echo", {"text": "hi"})
            await mcp_echo.call({"text": "hi"})
        for i in range(calls):
            pair = [
                (bare, lambda: client.call_tool("echo", {"text": "hi"})),
                (adapter, lambda: mcp_echo.call({"text": "hi"})),
            ]
            for values, call in pair if i % 2 == 0 else reversed(pair):
                values.append(await _both_clocks(call))
        for _ in range(4 if quick else 20):
            mcp_pod = _calling_pod([mcp_echo], "mcp__tools__echo", turns)
            native_pod = _calling_pod([_native_echo], "echo", turns)
            pod_mcp.append(await _both_clocks(functools.partial(mcp_pod.run, "go")))
            pod_native.append(await _both_clocks(functools.partial(native_pod.run, "go")))
    return McpFigures(
        bare=_median(bare),
        adapter=_median(adapter),
        pod_mcp=_median(pod_mcp, turns),
        pod_native=_median(pod_native, turns),
    )


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"


def print_tracing(tracing: TracingFigures, mcp: McpFigures | None, console: Console) -> None:
    table = Table(title="OpenTelemetry spans (CPU time per turn, best of repeats)")
    for column in ("N", "way", "per turn", "ratio to off"):
        table.add_column(column)
    for turns, ways in tracing.per_turn.items():
        off = ways["off"].best
        for way, figures in ways.items():
            table.add_row(f"{turns:,}", way, _us(figures.best), f"{figures.best / off:.2f}x")
    console.print(table)
    if mcp is None:
        return
    table = Table(title="an MCP stdio tool (medians; CPU: this process only, not the server's)")
    for column in ("measure", "wall", "CPU", "CPU above the SDK's call"):
        table.add_column(column)
    table.add_row(
        "SDK call_tool (the server's round trip)", _us(mcp.bare.wall), _us(mcp.bare.cpu), ""
    )
    table.add_row(
        "McpTool.call (pod's adapter)", _us(mcp.adapter.wall), _us(mcp.adapter.cpu),
        f"{_us(mcp.adapter.cpu - mcp.bare.cpu)} ({mcp.adapter.cpu / mcp.bare.cpu:.2f}x)",
    )  # fmt: skip
    table.add_row("Pod turn, native @tool", _us(mcp.pod_native.wall), _us(mcp.pod_native.cpu), "")
    extra = mcp.pod_mcp.cpu - mcp.pod_native.cpu - mcp.bare.cpu
    table.add_row(
        "Pod turn, MCP tool", _us(mcp.pod_mcp.wall), _us(mcp.pod_mcp.cpu),
        f"{_us(extra)} beyond a native turn + the SDK's call",
    )  # fmt: skip
    console.print(table)


async def _both(*, quick: bool) -> tuple[TracingFigures, McpFigures]:
    return await measure_tracing(quick=quick), await measure_mcp(quick=quick)


if __name__ == "__main__":  # python -m bench.tracing [--quick]: this section alone
    import asyncio

    tracing, mcp = asyncio.run(_both(quick="--quick" in sys.argv))
    print_tracing(tracing, mcp, Console(width=None if sys.stdout.isatty() else 120))
