"""The Worker: the agent loop (model request, tool calls, tool results, ...).

At every decision point the Worker (1) runs the interceptors in order, stopping at the first
action that is not ``Continue``; (2) if none stopped it, builds the read-only summary from
the state after them; (3) asks the hooks through the hook port; (4) acts. Interceptors and
hooks are separate steps: no interceptor hands its arguments to a hook.

Invariant: whatever happens (skip, abort, pause then a new prompt, a failing tool, invalid
arguments, an unknown tool, a failing hook, cancellation of the task running the Worker),
every ``ToolCall`` in the history ends up with exactly one ``ToolResult``, appended in call
order.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Final, TypeAlias, assert_never, final

from ._arguments import ArgumentsError, load_arguments
from ._client import LlmClient, LlmRequest, LlmResponse, Usage
from ._decisions import Abort, Continue, Pause, Skip
from ._errors import (
    HookFailedError,
    LlmClientError,
    SnapshotError,
    UsageError,
    WorkerStateError,
)
from ._history import History
from ._hook_port import NO_HOOKS, HookPort, SelectiveHookPort
from ._items import Item, Message, ToolCall, ToolResult
from ._privilege import Privileged
from ._results import (
    Aborted,
    Finished,
    LimitReached,
    Paused,
    PausePoint,
    PendingCall,
    WorkerResult,
    Yielded,
)
from ._run_state import CallState, RunState, ToolBatch, WorkerStatus
from ._snapshot import SNAPSHOT_VERSION, WorkerSnapshot
from ._summaries import (
    PREVIEW_BYTES,
    AbortInfo,
    PreRequestInfo,
    PromptSubmitInfo,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndInfo,
)
from ._text import utf8_len, utf8_prefix
from ._tools import PrivilegedTool, Tool, ToolArgumentsError, ToolDefinition
from ._validated import validated
from .interceptor import (
    CONTINUE,
    Interceptor,
    PromptInfo,
    ToolCallInfo,
    ToolMeta,
    ToolResultInfo,
    Yield,
)

__all__ = ["CallResolution", "Worker"]

CallResolution: TypeAlias = Continue | Skip | Abort
"""A caller's decision for a pending tool call on ``resume``: approve, skip or abort."""

_NO_RESOLUTIONS: Final[Mapping[str, CallResolution]] = {}


@final
class Worker(Privileged):
    """Runs the agent loop over one history, with interceptors and a hook port.

    Args:
        client: the model.
        tools: the tools the model may call (names must be unique).
        interceptors: privileged internal mechanisms, called in this order. Their methods
            are looked up here, once: only those a subclass (or the instance) overrides run.
        hooks: the hook port (``pod``'s frozen registry); none by default. A
            ``SelectiveHookPort`` is asked here which points have hooks; the others are skipped.
        system_prompt: sent with every request.
        max_requests_per_turn: model requests allowed in one turn before ``LimitReached``.
        tool_timeout: seconds a tool may run before it gets an error result; ``None``: no limit.
        history: items to start from (e.g. a restored conversation).
    """

    def __init__(
        self,
        client: LlmClient,
        *,
        tools: Iterable[Tool] = (),
        interceptors: Sequence[Interceptor] = (),
        hooks: HookPort = NO_HOOKS,
        system_prompt: str | None = None,
        max_requests_per_turn: int = 50,
        tool_timeout: float | None = None,
        history: Iterable[Item] = (),
    ) -> None:
        self._client = client
        # Held (and handed out) marked privileged, whatever class the caller's tools are of.
        self._tools: dict[str, PrivilegedTool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise UsageError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = PrivilegedTool.of(tool)
        self._tools_view: Mapping[str, PrivilegedTool] = MappingProxyType(dict(self._tools))
        self._tool_definitions = tuple(ToolDefinition.of(t) for t in self._tools.values())
        self._interceptors = tuple(interceptors)
        # Only the methods an interceptor overrides are called: the base ones carry on.
        chain = self._interceptors
        self._prompt_chain = tuple(
            i.on_prompt_submit for i in chain if _overrides(i, "on_prompt_submit")
        )
        self._request_chain = tuple(
            i.pre_llm_request for i in chain if _overrides(i, "pre_llm_request")
        )
        self._pre_tool_chain = tuple(
            i.pre_tool_call for i in chain if _overrides(i, "pre_tool_call")
        )
        self._post_tool_chain = tuple(
            i.post_tool_call for i in chain if _overrides(i, "post_tool_call")
        )
        self._turn_end_chain = tuple(i.on_turn_end for i in chain if _overrides(i, "on_turn_end"))
        self._hooks = hooks
        self._system_prompt = system_prompt
        if max_requests_per_turn < 1:
            raise UsageError("max_requests_per_turn must be at least 1")
        self._max_requests = max_requests_per_turn
        self._tool_timeout = tool_timeout
        # Points without hooks cost nothing: no summary is built, the port is not called.
        listens = hooks.listens_to if isinstance(hooks, SelectiveHookPort) else None
        self._ask_prompt_submit = listens is None or listens("prompt_submit")
        self._ask_pre_llm_request = listens is None or listens("pre_llm_request")
        self._ask_pre_tool_call = listens is None or listens("pre_tool_call")
        self._ask_post_tool_call = listens is None or listens("post_tool_call")
        self._ask_turn_end = listens is None or listens("turn_end")
        self._ask_abort = listens is None or listens("abort")
        self._history = History(history)
        self._request = self._request_for(self._history)
        self._state = RunState()

    def _request_for(self, history: History) -> LlmRequest:
        # One request object per history: it is a live view, so it never needs rebuilding.
        return LlmRequest(
            items=history, tools=self._tool_definitions, system_prompt=self._system_prompt
        )

    # -- what the owner may read ------------------------------------------------------------

    @property
    def context(self) -> list[Item]:
        """The live history. Privileged: for the Worker's owner and its interceptors."""
        return self._history

    @property
    def history(self) -> tuple[Item, ...]:
        """A copy of the history as it stands."""
        return tuple(self._history)

    @property
    def status(self) -> WorkerStatus:
        """Whether the Worker is idle, running, paused or yielded."""
        return self._state.status

    @property
    def turn(self) -> int:
        """0-based index of the current (or last) turn; -1 before the first run."""
        return self._state.turn

    @property
    def usage(self) -> Usage:
        """Tokens used by every model request so far."""
        return Usage(
            input_tokens=sum(u.input_tokens for u in self._state.usage),
            output_tokens=sum(u.output_tokens for u in self._state.usage),
        )

    @property
    def estimated_tokens(self) -> int:
        """The token estimate of the next request (see ``PreRequestInfo.estimated_tokens``)."""
        return self._history.estimated_tokens()

    @property
    def tools(self) -> Mapping[str, PrivilegedTool]:
        """The tools by name (a read-only view of a copy: changing it changes no run)."""
        return self._tools_view

    # -- saving and restoring -------------------------------------------------------------

    def snapshot(self) -> WorkerSnapshot:
        """Save the history and run state (the Worker must not be running).

        Raises:
            WorkerStateError: a run is in progress.
        """
        if self._state.status == "running":
            raise WorkerStateError("cannot snapshot a running Worker")
        return WorkerSnapshot(history=list(self._history), state=copy.deepcopy(self._state))

    def restore(self, snapshot: WorkerSnapshot) -> None:
        """Take over a saved run; ``resume()`` then continues it exactly where it stopped.

        The Worker must be configured as the one that saved it (tools, interceptors, hooks).

        Raises:
            WorkerStateError: a run is in progress.
            SnapshotError: the snapshot is inconsistent (nothing is changed).
        """
        if self._state.status == "running":
            raise WorkerStateError("cannot restore into a running Worker")
        if snapshot.version != SNAPSHOT_VERSION:
            raise SnapshotError(f"snapshot version {snapshot.version} is not supported")
        snapshot.check()
        self._history = History(snapshot.history)
        self._request = self._request_for(self._history)
        self._state = copy.deepcopy(snapshot.state)

    # -- running --------------------------------------------------------------------------

    async def run(self, prompt: str) -> WorkerResult:
        """Start a turn with a user prompt and run it until it finishes, pauses or aborts.

        If the previous run is paused or yielded, its open tool calls are closed with
        synthetic results first (the pause is abandoned).
        """
        state = self._state
        if state.status == "running":
            raise WorkerStateError("the Worker is already running")
        if state.status in ("paused", "yielded"):
            self._close_batch("not run: the paused run was abandoned for a new prompt")
        self._state = state = RunState(turn=state.turn + 1, usage=state.usage)
        state.status = "running"
        return await self._guarded(self._submit(prompt))

    async def resume(self, decisions: Mapping[str, CallResolution] | None = None) -> WorkerResult:
        """Continue a paused or yielded run exactly where it stopped.

        Args:
            decisions: decisions for pending tool calls by ``call_id``; each takes the place of
                the hooks' decision for that call (the interceptors still run first). A pending
                call without one is put to the hooks again.

        Raises:
            WorkerStateError: the Worker is not paused or yielded, or a decision names a call
                that is not pending.
        """
        state = self._state
        if state.status not in ("paused", "yielded"):
            raise WorkerStateError(f"nothing to resume: the Worker is {state.status}")
        resolutions = dict(decisions or {})
        pending = {c.call.call_id for c in self._undecided()}
        unknown = sorted(set(resolutions) - pending)
        if unknown:
            raise WorkerStateError(f"no pending tool call with id {', '.join(unknown)}")
        state.status = "running"
        return await self._guarded(self._advance(resolutions))

    async def _guarded(self, work: Awaitable[WorkerResult]) -> WorkerResult:
        try:
            return await work
        except HookFailedError as exc:
            return await self._abort(str(exc), error=exc)
        except BaseException:
            # Cancellation or a bug: close what is open so the history stays well-formed.
            self._close_batch("not run: the run was cancelled")
            self._state.status = "idle"
            self._state.point = "idle"
            raise

    async def _submit(self, prompt: str) -> WorkerResult:
        state = self._state
        info = PromptInfo(message=Message(role="user", text=prompt))
        action: Continue | Abort = CONTINUE
        for on_prompt_submit in self._prompt_chain:
            action = on_prompt_submit(info)
            if not isinstance(action, Continue):
                break
        if isinstance(action, Continue) and self._ask_prompt_submit:
            summary = PromptSubmitInfo(input_text=info.message.text, turn=state.turn)
            action = await self._hooks.prompt_submit(summary)
        match action:
            case Continue():
                pass
            case Abort(reason=reason):
                return await self._abort(reason)
            case _:
                assert_never(action)
        self._history.append(info.message)
        state.point = "pre_llm_request"
        return await self._advance(_NO_RESOLUTIONS)

    async def _advance(self, resolutions: Mapping[str, CallResolution]) -> WorkerResult:
        state = self._state
        while True:
            if state.point == "pre_llm_request":
                outcome = await self._request_step()
            elif state.point == "tool_calls":
                outcome = await self._tool_step(resolutions)
            elif state.point == "turn_end":
                outcome = await self._turn_end_step()
            else:
                raise WorkerStateError(f"cannot advance from {state.point!r}")
            if outcome is not None:
                return outcome

    # -- the decision points --------------------------------------------------------------

    async def _request_step(self) -> WorkerResult | None:
        state = self._state
        history = self._history
        if not state.hooks_done:
            if state.request_index >= self._max_requests:
                state.status = "idle"
                state.point = "idle"
                return LimitReached(limit=self._max_requests, turn=state.turn)
            action: Continue | Abort | Yield = CONTINUE
            for pre_llm_request in self._request_chain:
                action = pre_llm_request(history)
                if not isinstance(action, Continue):
                    break
            match action:
                case Continue():
                    pass
                case Yield(reason=reason):
                    state.status = "yielded"
                    return Yielded(reason=reason, turn=state.turn)
                case Abort(reason=reason):
                    return await self._abort(reason)
                case _:
                    assert_never(action)
            if self._ask_pre_llm_request:
                decision = await self._hooks.pre_llm_request(
                    validated(
                        PreRequestInfo,
                        turn=state.turn,
                        request_index=state.request_index,
                        item_count=len(history),
                        estimated_tokens=history.estimated_tokens(),
                        tool_calls_this_turn=state.tool_calls_this_turn,
                    )
                )
                match decision:
                    case Continue():
                        pass
                    case Abort(reason=reason):
                        return await self._abort(reason)
                    case Pause(reason=reason):
                        state.hooks_done = True
                        return self._pause("pre_llm_request", reason)
                    case _:
                        assert_never(decision)
        state.hooks_done = False
        chars_sent = history.chars
        try:
            response = await self._client.complete(self._request)
        except LlmClientError as exc:
            return await self._abort(f"model request failed: {exc}", error=exc)
        self._take_reply(response, chars_sent)
        return None

    def _take_reply(self, response: LlmResponse, chars_sent: int) -> None:
        """Append a reply to the history; its tool calls become the batch to decide on."""
        state = self._state
        history = self._history
        request_index = state.request_index
        state.request_index += 1
        if response.usage is not None:
            state.usage.append(response.usage)
            history.calibrate(response.usage.input_tokens, chars_sent)
        start = len(history)
        items = response.items
        history.extend(items)
        calls: list[CallState] = []
        for offset, item in enumerate(items):
            if isinstance(item, ToolCall):
                calls.append(
                    CallState(call=item, position=len(calls), history_index=start + offset)
                )
        if calls:
            state.tool_calls_this_turn += len(calls)
            state.batch = ToolBatch(calls=calls, request_index=request_index)
            state.point = "tool_calls"
        else:
            state.final_text = response.text
            state.point = "turn_end"

    async def _tool_step(self, resolutions: Mapping[str, CallResolution]) -> WorkerResult | None:
        state = self._state
        batch = state.batch
        assert batch is not None
        calls = batch.calls
        while batch.next_decision < len(calls):
            call_state = calls[batch.next_decision]
            outcome = await self._decide(call_state, batch, resolutions)
            if outcome is not None:
                return outcome
            batch.next_decision += 1
        if not batch.executed:
            if len(calls) == 1:  # the common case, without a task group
                only = calls[0]
                if only.decision == "approved" and only.result is None:
                    only.result = await self._run_tool(only.call)
            else:
                await self._execute(batch)
            batch.executed = True
        while batch.next_record < len(calls):
            call_state = calls[batch.next_record]
            outcome = await self._record(call_state, batch)
            batch.next_record += 1
            if outcome is not None:
                return outcome
        state.batch = None
        state.point = "pre_llm_request"
        return None

    async def _decide(
        self,
        call_state: CallState,
        batch: ToolBatch,
        resolutions: Mapping[str, CallResolution],
    ) -> WorkerResult | None:
        if not call_state.pre_intercepted:
            action: Continue | Skip | Abort | Pause = CONTINUE
            info: ToolCallInfo | None = None
            if self._pre_tool_chain:
                info = ToolCallInfo(
                    call=call_state.call,
                    meta=self._meta(call_state, batch),
                    tool=self._tools.get(call_state.call.name),
                )
                for pre_tool_call in self._pre_tool_chain:
                    action = pre_tool_call(info)
                    if not isinstance(action, Continue):
                        break
            call_state.pre_intercepted = True
            if info is not None and info.call is not call_state.call:
                self._rewrite_call(call_state, info.call)
            match action:
                case Continue():
                    pass
                case Skip(reason=reason):
                    call_state.decision = "skipped"
                    call_state.skip_reason = reason
                    return None
                case Abort(reason=reason):
                    return await self._abort(reason)
                case Pause(reason=reason):
                    return self._pause("pre_tool_call", reason)
                case _:
                    assert_never(action)
        resolution = resolutions.get(call_state.call.call_id) if resolutions else None
        decision: Continue | Skip | Abort | Pause
        if resolution is not None:
            decision = resolution
        elif not self._ask_pre_tool_call:
            decision = CONTINUE
        else:
            call = call_state.call
            decision = await self._hooks.pre_tool_call(
                validated(
                    ToolCallSummary,
                    call_id=call.call_id,
                    tool_name=call.name,
                    arguments=call.arguments,
                    turn=self._state.turn,
                )
            )
        match decision:
            case Continue():
                call_state.decision = "approved"
            case Skip(reason=reason):
                call_state.decision = "skipped"
                call_state.skip_reason = reason
            case Abort(reason=reason):
                return await self._abort(reason)
            case Pause(reason=reason):
                return self._pause("pre_tool_call", reason)
            case _:
                assert_never(decision)
        return None

    async def _record(self, call_state: CallState, batch: ToolBatch) -> WorkerResult | None:
        """Post-process one result (interceptors, then hooks) and append it, in call order."""
        if call_state.decision == "skipped":
            self._append_result(call_state, _skipped_result(call_state))
            return None
        action = self._post_intercept(call_state, batch)
        match action:
            case Continue():
                pass
            case Abort(reason=reason):
                self._append_result(call_state, call_state.result)
                return await self._abort(reason)
            case _:
                assert_never(action)
        result = call_state.result
        assert result is not None
        if not self._ask_post_tool_call:
            self._append_result(call_state, result)
            return None
        decision = await self._hooks.post_tool_call(
            validated(
                ToolResultSummary,
                call_id=result.call_id,
                tool_name=result.name,
                is_error=result.is_error,
                output_preview=utf8_prefix(result.content, PREVIEW_BYTES),
                output_length=utf8_len(result.content),
                turn=self._state.turn,
            )
        )
        self._append_result(call_state, result)
        match decision:
            case Continue():
                return None
            case Abort(reason=reason):
                return await self._abort(reason)
            case Pause(reason=reason):
                return self._pause("post_tool_call", reason)
            case _:
                assert_never(decision)

    async def _turn_end_step(self) -> WorkerResult | None:
        state = self._state
        if not state.interceptors_done:
            action: Continue | Pause = CONTINUE
            for on_turn_end in self._turn_end_chain:
                action = on_turn_end(self._history)
                if not isinstance(action, Continue):
                    break
            state.interceptors_done = True
            match action:
                case Continue():
                    pass
                case Pause(reason=reason):
                    return self._pause("turn_end", reason)
                case _:
                    assert_never(action)
        if not state.hooks_done and self._ask_turn_end:
            decision = await self._hooks.turn_end(
                TurnEndInfo(
                    turn=state.turn,
                    tool_calls_in_turn=state.tool_calls_this_turn,
                    final_text_preview=utf8_prefix(state.final_text, PREVIEW_BYTES),
                )
            )
            match decision:
                case Continue():
                    pass
                case Pause(reason=reason):
                    state.hooks_done = True
                    return self._pause("turn_end", reason)
                case _:
                    assert_never(decision)
        state.status = "idle"
        state.point = "idle"
        return Finished(text=state.final_text, turn=state.turn)

    # -- acting ---------------------------------------------------------------------------

    async def _execute(self, batch: ToolBatch) -> None:
        """Run the approved calls of a batch concurrently; every call gets a result."""
        approved = [c for c in batch.calls if c.decision == "approved" and c.result is None]
        if len(approved) == 1:
            approved[0].result = await self._run_tool(approved[0].call)
            return
        async with asyncio.TaskGroup() as group:
            tasks = [(c, group.create_task(self._run_tool(c.call))) for c in approved]
        for call_state, task in tasks:
            call_state.result = task.result()

    async def _run_tool(self, call: ToolCall) -> ToolResult:
        """Run one tool call; every failure becomes an error result the model sees."""
        tool = self._tools.get(call.name)
        if tool is None:
            known = ", ".join(sorted(self._tools)) or "none"
            return _error_result(call, f"unknown tool {call.name!r} (available: {known})")
        try:
            # The hooks' parser (``ToolCallSummary.parsed_arguments``): a tool runs only with
            # the value the hooks could see.
            arguments = load_arguments(call.arguments)
        except ArgumentsError as exc:
            return _error_result(call, str(exc))
        try:
            if self._tool_timeout is None:
                content = await tool.call(arguments)
            else:
                async with asyncio.timeout(self._tool_timeout):
                    content = await tool.call(arguments)
        except ToolArgumentsError as exc:
            return _error_result(call, f"invalid arguments for {call.name}: {exc}")
        except TimeoutError:
            return _error_result(call, f"tool {call.name} timed out after {self._tool_timeout}s")
        except Exception as exc:  # a failing tool is the model's news, not a crash
            return _error_result(call, f"tool {call.name} failed: {type(exc).__name__}: {exc}")
        problem = _not_text(content)
        if problem is not None:
            return _error_result(call, f"tool {call.name} returned {problem}")
        return validated(ToolResult, call_id=call.call_id, name=call.name, content=content)

    def _post_intercept(self, call_state: CallState, batch: ToolBatch) -> Continue | Abort:
        if call_state.post_intercepted:
            return CONTINUE
        assert call_state.result is not None
        if not self._post_tool_chain:
            call_state.post_intercepted = True
            return CONTINUE
        info = ToolResultInfo(
            call=call_state.call,
            result=call_state.result,
            meta=self._meta(call_state, batch),
            tool=self._tools.get(call_state.call.name),
        )
        action: Continue | Abort = CONTINUE
        for post_tool_call in self._post_tool_chain:
            action = post_tool_call(info)
            if not isinstance(action, Continue):
                break
        if info.result.call_id != call_state.call.call_id:
            raise UsageError("an interceptor changed a tool result's call_id")
        call_state.result = info.result
        call_state.post_intercepted = True
        return action

    def _rewrite_call(self, call_state: CallState, new_call: ToolCall) -> None:
        if new_call.call_id != call_state.call.call_id:
            raise UsageError("an interceptor changed a tool call's call_id")
        index = call_state.history_index
        history = self._history
        if not (index < len(history) and history[index] is call_state.call):
            index = next(i for i, item in enumerate(history) if item is call_state.call)
            call_state.history_index = index
        history[index] = new_call
        call_state.call = new_call

    def _append_result(self, call_state: CallState, result: ToolResult | None) -> None:
        assert result is not None
        if not call_state.recorded:
            self._history.append(result)
            call_state.recorded = True

    def _close_batch(self, reason: str) -> None:
        """Give every open call of the batch its result, in call order (synchronous)."""
        batch = self._state.batch
        if batch is None:
            return
        for call_state in batch.calls:
            if call_state.recorded:
                continue
            if call_state.decision == "skipped":
                result = _skipped_result(call_state)
            elif call_state.result is not None:
                self._post_intercept(call_state, batch)  # e.g. truncation still applies
                result = call_state.result
            else:
                result = _error_result(call_state.call, reason)
            self._append_result(call_state, result)
        self._state.batch = None

    def _pause(self, point: PausePoint, reason: str) -> Paused:
        state = self._state
        state.status = "paused"
        return Paused(
            point=point,
            reason=reason,
            pending_calls=tuple(
                PendingCall(
                    call_id=c.call.call_id, tool_name=c.call.name, arguments=c.call.arguments
                )
                for c in self._undecided()
            ),
            turn=state.turn,
        )

    def _undecided(self) -> list[CallState]:
        batch = self._state.batch
        if batch is None:
            return []
        return [c for c in batch.calls if c.decision == "undecided"]

    async def _abort(self, reason: str, *, error: Exception | None = None) -> Aborted:
        state = self._state
        self._close_batch(f"not run: the run was aborted ({reason})")
        state.status = "idle"
        state.point = "idle"
        for interceptor in self._interceptors:
            interceptor.on_abort(reason)
        if self._ask_abort:
            try:
                await self._hooks.abort(AbortInfo(reason=reason, turn=state.turn))
            except HookFailedError as exc:
                reason = f"{reason} (then {exc})"
        error_type = None if error is None else type(error).__name__
        return Aborted(reason=reason, turn=state.turn, error_type=error_type)

    def _meta(self, call_state: CallState, batch: ToolBatch) -> ToolMeta:
        return ToolMeta(
            turn=self._state.turn,
            request_index=batch.request_index,
            position=call_state.position,
            batch_size=len(batch.calls),
        )


def _overrides(interceptor: Interceptor, name: str) -> bool:
    """Whether ``interceptor`` has its own ``name`` (the base method carries on, doing nothing)."""
    method: object = getattr(interceptor, name)
    return getattr(method, "__func__", None) is not getattr(Interceptor, name)


def _not_text(content: object) -> str | None:
    """What is wrong with a tool's output, if it is not text (a ``Tool`` is any object of the
    protocol's shape, and nothing checks what it returns at run time)."""
    return None if isinstance(content, str) else f"{type(content).__name__}, not text"


def _error_result(call: ToolCall, message: str) -> ToolResult:
    return ToolResult(call_id=call.call_id, name=call.name, content=message, is_error=True)


def _skipped_result(call_state: CallState) -> ToolResult:
    return _error_result(call_state.call, f"tool call skipped: {call_state.skip_reason}")
