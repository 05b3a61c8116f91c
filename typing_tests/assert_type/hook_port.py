"""What the engine's hook port answers, under mypy and pyright: ``ask(point, info)`` is one
method, and each point's key narrows the answer to that point's decisions.

Type-checked, never executed.
"""

from typing import assert_type

from llm_worker import (
    ABORT_POINT,
    NO_HOOKS,
    OUTPUT_POINT,
    POST_LLM_RESPONSE_POINT,
    PRE_COMPACT_POINT,
    PRE_LLM_REQUEST_POINT,
    PRE_TOOL_CALL_POINT,
    RUN_END_POINT,
    RUN_START_POINT,
    TURN_END_POINT,
    Abort,
    AbortInfo,
    Annotate,
    Continue,
    Feedback,
    HookPort,
    OutputInfo,
    Pause,
    PostLlmResponseInfo,
    PreCompactInfo,
    PreRequestInfo,
    PreToolDecision,
    Rewrite,
    RunEndInfo,
    RunStartInfo,
    Skip,
    ToolCallSummary,
    TurnEndInfo,
)
from pod import HookRegistry, events


async def engine_side(  # noqa: PLR0917  # one Input of each kind
    port: HookPort,
    call: ToolCallSummary,
    request: PreRequestInfo,
    reply: PostLlmResponseInfo,
    compact: PreCompactInfo,
    end: TurnEndInfo,
    abort: AbortInfo,
    start: RunStartInfo,
    output: OutputInfo,
    ended: RunEndInfo,
) -> None:
    assert_type(
        await port.ask(PRE_TOOL_CALL_POINT, call),
        Continue | Skip | Abort | Pause | Rewrite | Annotate,
    )
    assert_type(await port.ask(PRE_TOOL_CALL_POINT, call), PreToolDecision)
    assert_type(await port.ask(PRE_LLM_REQUEST_POINT, request), Continue | Abort | Pause)
    assert_type(await port.ask(TURN_END_POINT, end), Continue | Pause | Feedback)
    assert_type(await port.ask(POST_LLM_RESPONSE_POINT, reply), Continue | Abort | Pause)
    assert_type(await port.ask(PRE_COMPACT_POINT, compact), Continue | Pause)
    assert_type(await port.ask(ABORT_POINT, abort), None)
    assert_type(await port.ask(RUN_START_POINT, start), Continue | Abort)
    assert_type(await port.ask(OUTPUT_POINT, output), Continue | Abort)
    assert_type(await port.ask(RUN_END_POINT, ended), None)
    assert_type(await NO_HOOKS.ask(TURN_END_POINT, end), Continue | Pause | Feedback)
    frozen = HookRegistry().freeze()
    assert_type(await frozen.ask(events.PRE_TOOL_CALL.point, call), PreToolDecision)
    assert_type(await frozen.dispatch(events.TURN_END, end), Continue | Pause | Feedback)

    # The Input must be the point's own.
    port.ask(PRE_TOOL_CALL_POINT, end)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
    port.ask(TURN_END_POINT, call)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]


# The registry, the no-op port and the tracing port are all hook ports.
_ports: tuple[HookPort, ...] = (NO_HOOKS, HookRegistry().freeze())
