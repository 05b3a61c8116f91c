"""Frozen where every checker sees it: items, results, summaries, decisions, snapshots.

Type-checked by mypy and pyright with no plugin, never executed. Each assignment must be an
error for both (an unused ignore fails the suite), so a model that declares frozenness in
``model_config`` instead of class keywords is caught here.
"""

from llm_worker import (
    Aborted,
    Finished,
    Message,
    Paused,
    PendingCall,
    ToolCall,
    ToolResult,
    WorkerSnapshot,
)
from pod import (
    Abort,
    AbortInfo,
    Pause,
    PodSnapshot,
    PreRequestInfo,
    PromptSubmitInfo,
    ToolResultSummary,
    TurnEndInfo,
)


def items(message: Message, call: ToolCall, result: ToolResult) -> None:
    message.text = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    call.arguments = "{}"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    result.is_error = True  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]


def results(finished: Finished, paused: Paused, aborted: Aborted, pending: PendingCall) -> None:
    finished.text = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    paused.pending_calls = ()  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    aborted.reason = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    pending.arguments = "{}"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]


def summaries(
    prompt: PromptSubmitInfo,
    request: PreRequestInfo,
    result: ToolResultSummary,
    end: TurnEndInfo,
    abort: AbortInfo,
) -> None:
    prompt.input_text = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    request.item_count = 0  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    result.output_preview = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    end.final_text_preview = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    abort.reason = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]


def decisions(abort: Abort, pause: Pause) -> None:
    abort.reason = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    pause.reason = "x"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]


def snapshots(worker: WorkerSnapshot, saved: PodSnapshot) -> None:
    worker.version = 2  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    saved.worker = worker  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    saved.tool_names = ()  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
