"""The tool-calls point of the loop: the calls of one reply are decided in call order
(interceptors, then hooks), the approved ones run together, and their results are recorded
in call order (interceptors, then hooks).

Every step is resumable: a ``ToolBatch`` says how far deciding, running and recording got,
so a run paused at any call continues exactly there. A stop (an ``Abort``, or a pause at
``pre_tool_call``/``post_tool_call``) is handed back to the Worker, which acts on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, TypeAlias, assert_never, final

from ._arguments import parse_arguments
from ._decisions import (
    CONTINUE,
    Abort,
    Annotate,
    Approve,
    Continue,
    Feedback,
    Pause,
    Rewrite,
    Skip,
)
from ._errors import HookFailedError, UsageError
from ._history import History
from ._hook_port import HookPoint, HookPort
from ._interceptor_chain import first_action, overrides
from ._items import ToolCall, ToolResult
from ._results import PausePoint
from ._run_state import CallState, RunState
from ._summaries import (
    POST_TOOL_CALL_POINT,
    PRE_TOOL_CALL_POINT,
    PREVIEW_BYTES,
    ToolCallSummary,
    ToolResultSummary,
)
from ._text import bounded, utf8_len, utf8_prefix
from ._tool_runner import ToolRunner, error_result
from ._tools import PrivilegedTool
from ._validated import validated
from .interceptor import Interceptor, ToolCallInfo, ToolMeta, ToolResultInfo

__all__ = ["CallResolution", "PauseAt", "Stop", "ToolCalls"]

CallResolution: TypeAlias = Approve | Skip | Abort
"""A caller's decision for a pending tool call on ``resume``: approve (``Approve`` names the
digest the approver was shown: there is no approval without one), skip or abort."""


@final
class PauseAt(NamedTuple):
    """Pause the run at ``point`` with ``reason``."""

    point: PausePoint
    reason: str


Stop: TypeAlias = Abort | PauseAt
"""Why a step stopped the run: the Worker aborts or pauses it."""


@final
class ToolCalls:
    """Decides, runs and records the tool calls of a reply (one per Worker)."""

    def __init__(
        self,
        *,
        tools: Mapping[str, PrivilegedTool],
        runner: ToolRunner,
        interceptors: Sequence[Interceptor],
        hooks: HookPort,
        asked: frozenset[HookPoint[Any, Any]],
    ) -> None:
        self._tools = tools
        self._runner = runner
        self._pre_chain = tuple(
            i.pre_tool_call for i in interceptors if overrides(i, "pre_tool_call")
        )
        self._post_chain = tuple(
            i.post_tool_call for i in interceptors if overrides(i, "post_tool_call")
        )
        self._hooks = hooks
        self._ask_pre = PRE_TOOL_CALL_POINT in asked
        self._ask_post = POST_TOOL_CALL_POINT in asked

    async def step(
        self, state: RunState, history: History, resolutions: Mapping[str, CallResolution]
    ) -> Stop | None:
        """Take the batch as far as it goes; ``None`` once every call has its result."""
        batch = state.batch
        assert batch is not None
        calls = batch.calls
        while batch.next_decision < len(calls):
            stop = await self._decide(state, history, calls[batch.next_decision], resolutions)
            if stop is not None:
                return stop
            batch.next_decision += 1
        if not batch.executed:
            await self._runner.run_batch(batch)
            batch.executed = True
        while batch.next_record < len(calls):
            stop = await self._record(state, history, calls[batch.next_record])
            batch.next_record += 1
            if stop is not None:
                return stop
        state.batch = None
        return None

    async def _decide(
        self,
        state: RunState,
        history: History,
        call_state: CallState,
        resolutions: Mapping[str, CallResolution],
    ) -> Stop | None:
        if not call_state.pre_intercepted:
            action: Continue | Skip | Abort | Pause = CONTINUE
            info: ToolCallInfo | None = None
            if self._pre_chain:
                info = ToolCallInfo(
                    call=call_state.call,
                    meta=_meta(state, call_state),
                    tool=self._tools.get(call_state.call.name),
                )
                action = first_action(self._pre_chain, info)
            call_state.pre_intercepted = True
            if info is not None and info.call is not call_state.call:
                _rewrite_call(history, call_state, info.call)
            if not isinstance(action, Continue):
                return _decided(call_state, action)
        resolution = resolutions.get(call_state.call.call_id) if resolutions else None
        decision: Continue | Skip | Abort | Pause | Rewrite | Annotate
        if isinstance(resolution, Approve):
            decision = CONTINUE  # the Worker checked its digest on ``resume``
            if resolution.arguments is not None:  # approved as the approver rewrote it
                rewrite = Rewrite(arguments=resolution.arguments, reason="approved rewritten")
                _apply_rewrite(history, call_state, rewrite)
        elif resolution is not None:
            decision = resolution
        elif not self._ask_pre:
            decision = CONTINUE
        else:
            call = call_state.call
            decision = await self._hooks.ask(
                PRE_TOOL_CALL_POINT,
                validated(
                    ToolCallSummary,
                    call_id=call.call_id,
                    tool_name=call.name,
                    arguments=call.arguments,
                    turn=state.turn,
                ),
            )
            if isinstance(decision, Annotate):
                call_state.context = decision.text  # written with the result, below
                decision = CONTINUE if decision.then is None else decision.then
            if isinstance(decision, Rewrite):
                _apply_rewrite(history, call_state, decision)
                decision = CONTINUE if decision.then is None else decision.then
        return _decided(call_state, decision)

    async def _record(
        self, state: RunState, history: History, call_state: CallState
    ) -> Stop | None:
        """Post-process one result (interceptors, then hooks) and append it, in call order."""
        if call_state.decision == "skipped":
            _append_result(history, call_state, _skipped_result(call_state))
            return None
        action = self.post_intercept(state, call_state)
        result = call_state.result
        assert result is not None
        match action:
            case Continue():
                pass
            case Abort():
                _append_result(history, call_state, result)
                return action
            case _:
                assert_never(action)
        if not self._ask_post:
            _append_result(history, call_state, result)
            return None
        decision = await self._hooks.ask(
            POST_TOOL_CALL_POINT,
            validated(
                ToolResultSummary,
                call_id=result.call_id,
                tool_name=result.name,
                arguments=call_state.call.arguments,
                is_error=result.is_error,
                output_preview=utf8_prefix(result.content, PREVIEW_BYTES),
                output_length=utf8_len(result.content),
                turn=state.turn,
            ),
        )
        if isinstance(decision, Feedback):
            # The model sees the hook's text with the result it is about (bounded, marked).
            content = f"{result.content}\n\n[hook feedback] {bounded(decision.text)}"
            result = ToolResult(
                call_id=result.call_id, name=result.name, content=content, is_error=result.is_error
            )
            call_state.result = result
        elif isinstance(decision, Skip):  # the result is withheld: the model gets the reason
            result = error_result(
                call_state.call, f"tool result withheld: {bounded(decision.reason)}"
            )
            call_state.result = result
        _append_result(history, call_state, result)
        match decision:
            case Continue() | Skip() | Feedback():
                return None
            case Abort():
                return decision
            case Pause(reason=reason):
                return PauseAt("post_tool_call", reason)
            case _:
                assert_never(decision)

    def post_intercept(self, state: RunState, call_state: CallState) -> Continue | Abort:
        """Run the ``post_tool_call`` interceptors on a call's result, once."""
        if call_state.post_intercepted:
            return CONTINUE
        assert call_state.result is not None
        if not self._post_chain:
            call_state.post_intercepted = True
            return CONTINUE
        info = ToolResultInfo(
            call=call_state.call,
            result=call_state.result,
            meta=_meta(state, call_state),
            tool=self._tools.get(call_state.call.name),
        )
        action = first_action(self._post_chain, info)
        if info.result.call_id != call_state.call.call_id:
            raise UsageError("an interceptor changed a tool result's call_id")
        call_state.result = info.result
        call_state.post_intercepted = True
        return action

    def close(self, state: RunState, history: History, reason: str) -> None:
        """Give every open call of the batch its result, in call order (synchronous)."""
        batch = state.batch
        if batch is None:
            return
        for call_state in batch.unrecorded():
            if call_state.decision == "skipped":
                result = _skipped_result(call_state)
            elif call_state.result is not None:
                self.post_intercept(state, call_state)  # e.g. truncation still applies
                result = call_state.result
            else:
                result = error_result(call_state.call, reason)
            _append_result(history, call_state, result)
        state.batch = None


def _decided(call_state: CallState, decision: Continue | Skip | Abort | Pause) -> Stop | None:
    match decision:
        case Continue():
            call_state.decision = "approved"
        case Skip(reason=reason):
            call_state.decision = "skipped"
            call_state.skip_reason = reason
        case Abort():
            return decision
        case Pause(reason=reason):
            return PauseAt("pre_tool_call", reason)
        case _:
            assert_never(decision)
    return None


def _apply_rewrite(history: History, call_state: CallState, rewrite: Rewrite) -> None:
    """Replace the call's arguments in the history by a hook's ``Rewrite`` (validated here,
    whatever port answered: the registry also checks it, naming the hook)."""
    call = call_state.call
    if parse_arguments(rewrite.arguments) is None:
        raise HookFailedError(
            event="PRE_TOOL_CALL",
            hook="(a hook)",
            problem=f"rewrote the arguments of call {call.call_id} ({call.name}) to text "
            "that is not a JSON object",
        )
    if rewrite.arguments != call.arguments:
        new_call = ToolCall(call_id=call.call_id, name=call.name, arguments=rewrite.arguments)
        _rewrite_call(history, call_state, new_call)


def _meta(state: RunState, call_state: CallState) -> ToolMeta:
    batch = state.batch
    assert batch is not None
    return ToolMeta(
        turn=state.turn,
        request_index=batch.request_index,
        position=call_state.position,
        batch_size=len(batch.calls),
    )


def _rewrite_call(history: History, call_state: CallState, new_call: ToolCall) -> None:
    if new_call.call_id != call_state.call.call_id:
        raise UsageError("an interceptor changed a tool call's call_id")
    index = call_state.history_index
    if not (index < len(history) and history[index] is call_state.call):
        index = next(i for i, item in enumerate(history) if item is call_state.call)
        call_state.history_index = index
    history[index] = new_call
    call_state.call = new_call


def _append_result(history: History, call_state: CallState, result: ToolResult) -> None:
    if not call_state.recorded:
        if call_state.context:
            # An ``Annotate``'s text: the model sees it with the result of the call it is about.
            content = f"{result.content}\n\n[hook context] {bounded(call_state.context)}"
            result = ToolResult(
                call_id=result.call_id, name=result.name, content=content, is_error=result.is_error
            )
        history.append(result)
        call_state.recorded = True


def _skipped_result(call_state: CallState) -> ToolResult:
    return error_result(call_state.call, f"tool call skipped: {bounded(call_state.skip_reason)}")
