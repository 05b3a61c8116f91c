"""What ``registry.on`` accepts, under mypy and pyright: the event fixes the Input a hook
takes and the decisions it may return.

Type-checked, never executed.
"""

from collections.abc import Awaitable, Callable
from typing import assert_type

from pod import (
    Abort,
    AbortInfo,
    Annotate,
    Continue,
    Feedback,
    Hook,
    HookFunction,
    HookRegistry,
    Pause,
    PreToolDecision,
    PromptSubmitInfo,
    Rewrite,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
    events,
    hook,
)
from pod.events import OutputInfo, PostLlmResponseInfo, PreCompactInfo, RunEndInfo, RunStartInfo

registry = HookRegistry()


def guard(call: ToolCallSummary) -> Continue | Skip:
    return Continue()


async def review(info: TurnEndInfo) -> Pause:
    return Pause(reason="review")


def on_prompt(prompt: PromptSubmitInfo) -> Continue:
    return Continue()


def observe(info: AbortInfo) -> None:
    return None


def guard_reply(reply: PostLlmResponseInfo) -> Continue | Abort:
    return Continue()


async def before_compaction(info: PreCompactInfo) -> Pause:
    return Pause(reason="save the transcript")


def abort_compaction(info: PreCompactInfo) -> Abort:
    return Abort(reason="PRE_COMPACT cannot abort")


def refuse_start(start: RunStartInfo) -> Abort:
    return Abort(reason="closed")


def pause_start(start: RunStartInfo) -> Pause:
    return Pause(reason="RUN_START cannot pause")


async def withhold(output: OutputInfo) -> Continue | Abort:
    return Continue()


def pause_output(output: OutputInfo) -> Pause:
    return Pause(reason="OUTPUT cannot pause: TURN_END can")


def withhold_result(result: ToolResultSummary) -> Skip:
    return Skip(reason="the result holds a secret")


def audit(end: RunEndInfo) -> None:
    return None


def decide_end(end: RunEndInfo) -> Abort:
    return Abort(reason="RUN_END observes only")


def skip_reply(reply: PostLlmResponseInfo) -> Skip:
    return Skip(reason="a reply is not a tool call")


class DenyAll(Hook[ToolCallSummary, PreToolDecision]):
    def __call__(self, call: ToolCallSummary) -> PreToolDecision:
        return Skip(reason="denied")


@hook(events.PRE_TOOL_CALL)
def declared(call: ToolCallSummary) -> PreToolDecision:
    return Continue()


# The Input and the decisions come from the event; the hook is given back unchanged.
assert_type(
    registry.on(events.PRE_TOOL_CALL, guard),
    Callable[[ToolCallSummary], Continue | Skip | Abort | Pause | Rewrite | Annotate],
)
assert_type(
    registry.on(events.TURN_END, review),
    Callable[[TurnEndInfo], Awaitable[Continue | Pause | Feedback]],
)
assert_type(registry.on(events.ABORT, observe), Callable[[AbortInfo], None])
assert_type(
    registry.on(events.POST_LLM_RESPONSE, guard_reply),
    Callable[[PostLlmResponseInfo], Continue | Abort | Pause],
)
assert_type(
    registry.on(events.PRE_COMPACT, before_compaction),
    Callable[[PreCompactInfo], Awaitable[Continue | Pause]],
)
assert_type(registry.on(events.RUN_START, refuse_start), Callable[[RunStartInfo], Continue | Abort])
assert_type(
    registry.on(events.OUTPUT, withhold), Callable[[OutputInfo], Awaitable[Continue | Abort]]
)
assert_type(registry.on(events.RUN_END, audit), Callable[[RunEndInfo], None])
assert_type(
    registry.on(events.POST_TOOL_CALL, withhold_result),
    Callable[[ToolResultSummary], Continue | Skip | Abort | Pause | Feedback],
)
assert_type(
    declared, HookFunction[ToolCallSummary, Continue | Skip | Abort | Pause | Rewrite | Annotate]
)
registry.on(events.PRE_TOOL_CALL, DenyAll())
registry.on(events.PRE_TOOL_CALL, declared)
registry.on(events.PROMPT_SUBMIT)(on_prompt)

# A hook for another event's Input, or returning a decision its event forbids.
registry.on(events.PRE_TOOL_CALL, on_prompt)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.PROMPT_SUBMIT, guard)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.TURN_END, guard)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.ABORT, on_prompt)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.PRE_TOOL_CALL, review)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.POST_LLM_RESPONSE, skip_reply)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.POST_LLM_RESPONSE, guard)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.PRE_COMPACT, abort_compaction)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.RUN_START, pause_start)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.OUTPUT, pause_output)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.RUN_END, decide_end)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
registry.on(events.OUTPUT, on_prompt)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType, reportCallIssue]
