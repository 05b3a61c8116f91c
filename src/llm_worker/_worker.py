"""The Worker: the agent loop (model request, tool calls, tool results, ...).

At every decision point the Worker (1) runs the interceptors in order, stopping at the first
action that is not ``Continue``; (2) if none stopped it, builds the read-only summary from
the state after them; (3) asks the hooks through the hook port; (4) acts. Interceptors and
hooks are separate steps: no interceptor hands its arguments to a hook.

Invariant: whatever happens (skip, abort, pause then a new prompt, a failing tool, invalid
arguments, an unknown tool, a failing hook, cancellation of the task running the Worker),
every ``ToolCall`` in the history ends up with exactly one ``ToolResult``, appended in call
order.

Why this module is about 500 lines: it is the loop's state machine (run, resume, abort,
snapshot and the points that decide the run's course: prompt, request and reply, turn end)
and those steps share one run state. What stands apart lives apart: the tool-calls point
(``_tool_calls.py``), running tools (``_tool_runner.py``), the interceptor chain
(``_interceptor_chain.py``), batch bookkeeping (``ToolBatch``), the typed hook keys
(``_summaries.py``).
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final, assert_never, final

from ._arguments import parse_arguments
from ._client import LlmClient, LlmRequest, LlmResponse, Usage
from ._decisions import CONTINUE, Abort, Approve, Continue, Feedback, Pause, Skip
from ._digest import call_digest
from ._errors import (
    ApprovalMismatchError,
    HookFailedError,
    LlmClientError,
    SnapshotError,
    UsageError,
    WorkerStateError,
)
from ._history import History, recent_items
from ._hook_port import NO_HOOKS, HookPoint, HookPort, SelectiveHookPort
from ._interceptor_chain import first_action, overrides
from ._items import Item, Message, ToolCall
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
from ._run_state import RunState, ToolBatch, WorkerStatus
from ._snapshot import SNAPSHOT_VERSION, WorkerSnapshot
from ._summaries import (
    ABORT_POINT,
    HOOK_POINTS,
    OUTPUT_BYTES,
    OUTPUT_POINT,
    POST_LLM_RESPONSE_POINT,
    PRE_LLM_REQUEST_POINT,
    PREVIEW_BYTES,
    PROMPT_SUBMIT_POINT,
    RECENT_ITEMS,
    RUN_END_POINT,
    RUN_START_POINT,
    TURN_END_POINT,
    AbortInfo,
    OutputInfo,
    PostLlmResponseInfo,
    PreRequestInfo,
    PromptSubmitInfo,
    RunEndInfo,
    RunOutcome,
    RunStartInfo,
    TurnEndInfo,
)
from ._text import bounded, utf8_prefix
from ._tool_calls import CallResolution, PauseAt, Stop, ToolCalls
from ._tool_runner import ToolRunner
from ._tools import PrivilegedTool, Tool, ToolDefinition
from ._validated import validated
from .interceptor import (
    Interceptor,
    PromptInfo,
    Yield,
)

__all__ = ["Worker"]


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
        run_id: the run's identity, part of every pending call's digest, so an approval of
            one run approves nothing in another; default a fresh ``run-<hex>``. ``restore``
            takes the snapshot's.
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
        run_id: str | None = None,
    ) -> None:
        if run_id is not None and not run_id:
            raise UsageError("run_id must not be empty (give None for a fresh one)")
        self._run_id: str = run_id if run_id is not None else f"run-{uuid.uuid4().hex}"
        self._run_id_given = run_id is not None
        self._client = client
        # Held (and handed out) marked privileged, whatever class the caller's tools are of.
        self._tools: dict[str, PrivilegedTool] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise UsageError(f"two tools are named {tool.name!r}")
            self._tools[tool.name] = PrivilegedTool.of(tool)
        self._tools_view: Mapping[str, PrivilegedTool] = MappingProxyType(dict(self._tools))
        self._tool_names = tuple(self._tools)
        self._tool_definitions = tuple(ToolDefinition.of(t) for t in self._tools.values())
        self._interceptors = tuple(interceptors)
        # Only the methods an interceptor overrides are called: the base ones carry on.
        chain = self._interceptors
        self._prompt_chain = tuple(
            i.on_prompt_submit for i in chain if overrides(i, "on_prompt_submit")
        )
        self._request_chain = tuple(
            i.pre_llm_request for i in chain if overrides(i, "pre_llm_request")
        )
        self._pre_tool_chain = tuple(
            i.pre_tool_call for i in chain if overrides(i, "pre_tool_call")
        )
        self._post_tool_chain = tuple(
            i.post_tool_call for i in chain if overrides(i, "post_tool_call")
        )
        self._turn_end_chain = tuple(i.on_turn_end for i in chain if overrides(i, "on_turn_end"))
        self._hooks = hooks
        self._system_prompt = system_prompt
        if max_requests_per_turn < 1:
            raise UsageError("max_requests_per_turn must be at least 1")
        self._max_requests = max_requests_per_turn
        # Points without hooks cost nothing: no summary is built, the port is not called.
        listens = hooks.listens_to if isinstance(hooks, SelectiveHookPort) else None
        self._asked: frozenset[HookPoint[Any, Any]] = frozenset(
            point for point in HOOK_POINTS if listens is None or listens(point)
        )
        self._tool_calls = ToolCalls(
            tools=self._tools,
            runner=ToolRunner(self._tools, tool_timeout),
            interceptors=self._interceptors,
            hooks=hooks,
            asked=self._asked,
        )
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
    def run_id(self) -> str:
        """The run's identity: what makes a pending call's digest this run's alone."""
        return self._run_id

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
        return WorkerSnapshot(
            history=list(self._history), state=copy.deepcopy(self._state), run_id=self._run_id
        )

    def restore(self, snapshot: WorkerSnapshot) -> None:
        """Take over a saved run; ``resume()`` then continues it exactly where it stopped.

        The Worker must be configured as the one that saved it (tools, interceptors, hooks).
        It takes the snapshot's run id (so a digest shown before the save still approves);
        a Worker built with another ``run_id`` refuses it.

        Raises:
            WorkerStateError: a run is in progress.
            SnapshotError: the snapshot is inconsistent, or of another run than the
                ``run_id`` this Worker was built with (nothing is changed).
        """
        if self._state.status == "running":
            raise WorkerStateError("cannot restore into a running Worker")
        if snapshot.version != SNAPSHOT_VERSION:
            raise SnapshotError(f"snapshot version {snapshot.version} is not supported")
        snapshot.check()
        if self._run_id_given and snapshot.run_id and snapshot.run_id != self._run_id:
            raise SnapshotError(
                f"the snapshot is of run {snapshot.run_id!r}, this Worker is run {self._run_id!r}"
            )
        self._run_id = snapshot.run_id
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
                call without one is put to the hooks again. ``Approve(digest=...)`` approves a
                call only if the digest is the pending call's (``PendingCall.digest``); with
                ``arguments``, the call runs with those instead (the approver's own, bound
                to the digest of the call it was shown). ``Skip`` and ``Abort`` need none.
                Nothing else decides a pending call; a decision that is refused changes
                nothing.

        Raises:
            WorkerStateError: the Worker is not paused or yielded, or a decision names a call
                that is not pending (e.g. an approval replayed after the call was decided,
                or after a cancelled run closed it).
            ApprovalMismatchError: an ``Approve`` names another digest than the call's.
            UsageError: a decision is not ``Approve``, ``Skip`` or ``Abort`` (a ``Continue``
                approves nothing: approve with ``Approve(digest=pending.digest)``), or an
                ``Approve``'s ``arguments`` are not a JSON object.
        """
        state = self._state
        if state.status not in ("paused", "yielded"):
            raise WorkerStateError(f"nothing to resume: the Worker is {state.status}")
        resolutions = dict(decisions or {})
        undecided = [] if state.batch is None else state.batch.undecided()
        pending = {c.call.call_id for c in undecided}
        unknown = sorted(set(resolutions) - pending)
        if unknown:
            raise WorkerStateError(f"no pending tool call with id {', '.join(unknown)}")
        for call_state in undecided:
            resolution = resolutions.get(call_state.call.call_id)
            if resolution is not None:
                self._check_resolution(call_state.call, resolution)
        state.status = "running"
        return await self._guarded(self._advance(resolutions))

    def _check_resolution(self, call: ToolCall, resolution: object) -> None:
        """Refuse a decision that approves ``call`` without its digest, or with another."""
        if isinstance(resolution, Skip | Abort):
            return
        if isinstance(resolution, Approve):
            current = self._digest(call)
            if resolution.digest != current:
                raise ApprovalMismatchError(
                    call_id=call.call_id, shown=resolution.digest, current=current
                )
            rewritten = resolution.arguments
            if rewritten is not None and parse_arguments(rewritten) is None:
                raise UsageError(
                    f"the approval of call {call.call_id} rewrites its arguments to text "
                    "that is not a JSON object"
                )
        elif isinstance(resolution, Continue):  # callers need not be type-checked
            raise UsageError(
                f"Continue does not approve pending call {call.call_id!r} ({call.name}): "
                "approve it with Approve(digest=pending.digest), the digest of the "
                "PendingCall the approver was shown"
            )
        else:
            raise UsageError(
                f"{type(resolution).__name__} is not a decision for pending call "
                f"{call.call_id!r} ({call.name}): give Approve(digest=...), Skip or Abort"
            )

    async def abort(self, reason: str, *, error: Exception | None = None) -> Aborted:
        """End a paused or yielded run as ``Aborted``, as a hook's ``Abort`` would.

        Its open tool calls get synthetic results, then the interceptors and the ``ABORT``
        hooks are told. For the owner of a run stopped outside the loop (the Pod, when a hook
        fails before compaction).

        Args:
            reason: why; it becomes ``Aborted.reason``.
            error: the error that ended the run, if any (``Aborted.error_type`` names it).

        Raises:
            WorkerStateError: the Worker is not paused or yielded.
        """
        if self._state.status not in ("paused", "yielded"):
            raise WorkerStateError(f"nothing to abort: the Worker is {self._state.status}")
        aborted = await self._abort(reason, error=error)
        failure = await self._run_ended("aborted", aborted.reason)
        return aborted if failure is None else _then(aborted, failure)

    async def _guarded(self, work: Awaitable[WorkerResult]) -> WorkerResult:
        try:
            result = await work
        except HookFailedError as exc:
            result = await self._abort(str(exc), error=exc)
        except BaseException:
            # Cancellation or a bug: close what is open so the history stays well-formed.
            self._close_batch("not run: the run was cancelled")
            self._state.status = "idle"
            self._state.point = "idle"
            raise
        return await self._ended(result)

    async def _ended(self, result: WorkerResult) -> WorkerResult:
        """Tell the ``RUN_END`` hooks of a result that ends the run (a pause does not).

        A failing ``RUN_END`` hook is not passed over: an aborted run's reason says it, and a
        finished run (or one at its limit) is ``Aborted`` instead, naming the hook."""
        match result:
            case Paused() | Yielded():
                return result
            case Aborted(reason=reason):
                failure = await self._run_ended("aborted", reason)
                return result if failure is None else _then(result, failure)
            case Finished() | LimitReached():
                failure = await self._run_ended(result.kind, "")
                if failure is None:
                    return result
                return Aborted(
                    reason=str(failure), turn=result.turn, error_type=type(failure).__name__
                )
            case _:
                assert_never(result)

    async def _run_ended(self, outcome: RunOutcome, reason: str) -> HookFailedError | None:
        if RUN_END_POINT not in self._asked:
            return None
        info = RunEndInfo(turn=self._state.turn, outcome=outcome, reason=reason)
        try:
            await self._hooks.ask(RUN_END_POINT, info)
        except HookFailedError as exc:
            return exc
        return None

    async def _submit(self, prompt: str) -> WorkerResult:
        state = self._state
        if RUN_START_POINT in self._asked:
            start = await self._hooks.ask(
                RUN_START_POINT, RunStartInfo(turn=state.turn, tool_names=self._tool_names)
            )
            match start:
                case Continue():
                    pass
                case Abort(reason=reason):
                    return await self._abort(reason)
                case _:
                    assert_never(start)
        info = PromptInfo(message=Message(role="user", text=prompt))
        action: Continue | Abort | Feedback = (
            first_action(self._prompt_chain, info) if self._prompt_chain else CONTINUE
        )
        if isinstance(action, Continue) and PROMPT_SUBMIT_POINT in self._asked:
            summary = PromptSubmitInfo(input_text=info.message.text, turn=state.turn)
            action = await self._hooks.ask(PROMPT_SUBMIT_POINT, summary)
        match action:
            case Continue():
                self._history.append(info.message)
            case Feedback(text=text):  # context for the prompt, written by the engine
                self._history.append(info.message)
                self._history.append(Message(role="user", text=bounded(text)))
            case Abort(reason=reason):
                return await self._abort(reason)
            case _:
                assert_never(action)
        state.point = "pre_llm_request"
        return await self._advance(_NO_RESOLUTIONS)

    async def _advance(self, resolutions: Mapping[str, CallResolution]) -> WorkerResult:
        state = self._state
        while True:
            if state.point == "pre_llm_request":
                outcome = await self._request_step()
            elif state.point == "tool_calls":  # ToolCalls is the step (one coroutine less)
                stop = await self._tool_calls.step(state, self._history, resolutions)
                if stop is not None:
                    return await self._stop(stop)
                state.point = "pre_llm_request"
                continue
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
            action = first_action(self._request_chain, history) if self._request_chain else CONTINUE
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
            if PRE_LLM_REQUEST_POINT in self._asked:
                decision = await self._hooks.ask(
                    PRE_LLM_REQUEST_POINT,
                    validated(
                        PreRequestInfo,
                        turn=state.turn,
                        request_index=state.request_index,
                        item_count=len(history),
                        estimated_tokens=history.estimated_tokens(),
                        tool_calls_this_turn=state.tool_calls_this_turn,
                        recent_items=recent_items(history, RECENT_ITEMS, PREVIEW_BYTES),
                    ),
                )
                if not isinstance(decision, Continue):
                    state.hooks_done = True  # if paused, resuming sends the request as it is
                    return await self._act(decision, "pre_llm_request")
        state.hooks_done = False
        chars_sent = history.chars
        try:
            response = await self._client.complete(self._request)
        except LlmClientError as exc:
            return await self._abort(f"model request failed: {exc}", error=exc)
        self._take_reply(response, chars_sent)
        if POST_LLM_RESPONSE_POINT not in self._asked:
            return None
        # The reply is in the history and its calls are the batch: a pause resumes with them,
        # an abort closes them.
        calls = response.tool_calls
        usage = response.usage
        decision = await self._hooks.ask(
            POST_LLM_RESPONSE_POINT,
            validated(
                PostLlmResponseInfo,
                turn=state.turn,
                request_index=state.request_index - 1,
                text_preview=utf8_prefix(response.text, PREVIEW_BYTES),
                tool_call_count=len(calls),
                tool_names=tuple(call.name for call in calls),
                tool_arguments=tuple(call.arguments for call in calls),
                stop_reason=response.stop_reason,
                input_tokens=None if usage is None else usage.input_tokens,
                output_tokens=None if usage is None else usage.output_tokens,
            ),
        )
        return (
            None
            if isinstance(decision, Continue)
            else await self._act(decision, "post_llm_response")
        )

    def _take_reply(self, response: LlmResponse, chars_sent: int) -> None:
        """Append a reply to the history; its tool calls become the batch to decide on."""
        state = self._state
        history = self._history
        request_index = state.request_index
        state.request_index += 1
        if response.usage is not None:
            state.usage.append(response.usage)
            history.calibrate(response.usage.input_tokens, chars_sent)
        batch = ToolBatch.of_reply(response.items, len(history), request_index)
        history.extend(response.items)
        if batch is not None:
            state.tool_calls_this_turn += len(batch.calls)
            state.batch = batch
            state.point = "tool_calls"
        else:
            state.final_text = response.text
            state.point = "turn_end"

    async def _turn_end_step(self) -> WorkerResult | None:
        state = self._state
        if not state.interceptors_done:
            chain = self._turn_end_chain
            action = first_action(chain, self._history) if chain else CONTINUE
            state.interceptors_done = True
            if not isinstance(action, Continue):
                return await self._act(action, "turn_end")
        if not state.hooks_done and TURN_END_POINT in self._asked:
            decision = await self._hooks.ask(
                TURN_END_POINT,
                TurnEndInfo(
                    turn=state.turn,
                    tool_calls_in_turn=state.tool_calls_this_turn,
                    final_text_preview=utf8_prefix(state.final_text, PREVIEW_BYTES),
                    continued=state.continued,
                ),
            )
            if isinstance(decision, Feedback):
                # Keep going: the hook's text is the model's next instruction (bounded).
                state.continued += 1
                state.interceptors_done = False
                self._history.append(Message(role="user", text=bounded(decision.text)))
                state.point = "pre_llm_request"
                return None
            if not isinstance(decision, Continue):
                state.hooks_done = True  # if paused, resuming finishes the turn
                return await self._act(decision, "turn_end")
        if OUTPUT_POINT in self._asked:
            text = state.final_text
            output = await self._hooks.ask(
                OUTPUT_POINT,
                OutputInfo(
                    turn=state.turn,
                    text=utf8_prefix(text, OUTPUT_BYTES),
                    text_length=len(text.encode()),
                ),
            )
            match output:
                case Continue():
                    pass
                case Abort(reason=reason):
                    return await self._abort(reason)
                case _:
                    assert_never(output)
        state.status = "idle"
        state.point = "idle"
        return Finished(text=state.final_text, turn=state.turn)

    # -- acting ---------------------------------------------------------------------------

    async def _act(self, decision: Abort | Pause, point: PausePoint) -> WorkerResult:
        """What a decision that stops the run means at any point: abort, or pause there."""
        match decision:
            case Abort(reason=reason):
                return await self._abort(reason)
            case Pause(reason=reason):
                return self._pause(point, reason)
            case _:
                assert_never(decision)

    async def _stop(self, stop: Stop) -> WorkerResult:
        match stop:
            case Abort(reason=reason):
                return await self._abort(reason)
            case PauseAt(point=point, reason=reason):
                return self._pause(point, reason)
            case _:
                assert_never(stop)

    def _close_batch(self, reason: str) -> None:
        self._tool_calls.close(self._state, self._history, reason)

    def _pause(self, point: PausePoint, reason: str) -> Paused:
        state = self._state
        state.status = "paused"
        return Paused(
            point=point,
            reason=reason,
            pending_calls=tuple(
                PendingCall(
                    call_id=c.call.call_id,
                    tool_name=c.call.name,
                    arguments=c.call.arguments,
                    digest=self._digest(c.call),
                )
                for c in ([] if state.batch is None else state.batch.undecided())
            ),
            turn=state.turn,
        )

    def _digest(self, call: ToolCall) -> str:
        return call_digest(
            run_id=self._run_id,
            turn=self._state.turn,
            call_id=call.call_id,
            tool_name=call.name,
            arguments=call.arguments,
        )

    async def _abort(self, reason: str, *, error: Exception | None = None) -> Aborted:
        state = self._state
        self._close_batch(f"not run: the run was aborted ({bounded(reason)})")
        state.status = "idle"
        state.point = "idle"
        for interceptor in self._interceptors:
            interceptor.on_abort(reason)
        if ABORT_POINT in self._asked:
            try:
                await self._hooks.ask(ABORT_POINT, AbortInfo(reason=reason, turn=state.turn))
            except HookFailedError as exc:
                reason = f"{reason} (then {exc})"
        error_type = None if error is None else type(error).__name__
        return Aborted(reason=reason, turn=state.turn, error_type=error_type)


def _then(aborted: Aborted, failure: HookFailedError) -> Aborted:
    """``aborted`` with a failing ``RUN_END`` hook appended to its reason (as ``ABORT``'s)."""
    return Aborted(
        reason=f"{aborted.reason} (then {failure})",
        turn=aborted.turn,
        error_type=aborted.error_type,
    )
