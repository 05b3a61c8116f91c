"""``Pod``: the object users start runs with.

A Pod owns one Worker and wires, in this order:
- its internal interceptors: notification, compaction, truncation (``docs/pod.md`` says why
  this order);
- the hooks: policy hooks first (the ``PermissionHook``), then the user's registry, in its
  registration order. The Pod freezes the user's registry. A policy ``Skip`` ends the chain,
  so no user hook can let a denied call run.

It handles the Worker's internal ``Yielded`` (compaction is due): it asks the
``PRE_COMPACT`` hooks, compacts and resumes, so ``run`` and ``resume`` return only
``Finished``, ``Paused``, ``Aborted`` or ``LimitReached``. A pause at ``PRE_COMPACT`` leaves
the Worker yielded; resuming it is the go-ahead (the hooks are not asked again). A Pod runs
one thing at a time; ``notify`` may be called from any thread or task at any time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TypeAlias, assert_never, final

from llm_worker import (
    PRE_COMPACT_POINT,
    Aborted,
    CallResolution,
    Continue,
    Finished,
    HookFailedError,
    HookPort,
    Interceptor,
    Item,
    LimitReached,
    LlmClient,
    Pause,
    Paused,
    PreCompactInfo,
    Privileged,
    SelectiveHookPort,
    SnapshotError,
    Tool,
    Usage,
    Worker,
    WorkerResult,
    WorkerStateError,
    WorkerStatus,
    Yielded,
)

from ..hooks import _events as events
from ..hooks._errors import PodUsageError
from ..hooks._registry import FrozenHookRegistry, HookRegistry
from ..policy._permissions import PermissionHook
from ..telemetry import DecidingHooks, Telemetry
from ._interceptors import (
    CompactionInterceptor,
    NotificationInterceptor,
    NotificationQueue,
    TruncationInterceptor,
    plan_compaction,
)
from ._settings import PodSettings
from ._snapshot import PodSnapshot
from ._summariser import LlmSummariser, Summariser
from ._trace import TraceEvent, Tracer, TracingHookPort

__all__ = ["Pod", "PodResult"]

_log = logging.getLogger("pod")

PodResult: TypeAlias = Finished | Paused | Aborted | LimitReached
"""How a Pod run ends (``Yielded`` never reaches the caller: the Pod handles it)."""


@final
class Pod(Privileged):
    """Runs an agent: a model, tools, internal interceptors, policy hooks and user hooks.

    Args:
        client: the model; also writes compaction summaries unless ``summariser`` is given.
        tools: the tools the model may call.
        hooks: the user's hooks. The Pod freezes a ``HookRegistry`` it is given.
        permissions: the policy hook, asked before every user hook on ``PRE_TOOL_CALL``;
            ``None``: no policy (every call goes to the user hooks). Its rules are checked
            against ``tools`` now (``PermissionRulesError`` if one can never apply).
        settings: limits and thresholds (compaction, truncation, requests, tool timeout).
        summariser: writes compaction summaries; default: one request through ``client``.
        system_prompt: sent with every model request.
        history: items to start from (e.g. a restored conversation).
        trace: receives a :class:`TraceEvent` for each interceptor action and hook decision.
        wrap_hooks: wraps the hook port the Worker asks (tracing included), e.g. so
            ``pod.durable`` can record every decision; it must keep the port's answers to
            ``listens_to``.
        telemetry: sends OpenTelemetry spans of the runs, model requests, tool calls and
            hook dispatches (``pod.telemetry``, ``docs/observability.md``); ``None``: none.
        run_id: the run's identity, part of every pending call's digest (``Worker.run_id``):
            an approval of this run approves nothing in another. Default: a fresh one;
            ``restore`` takes the snapshot's.

    Example:
        ```python
        pod = Pod(client, tools=[read_file], hooks=registry,
                  permissions=PermissionHook.from_toml("permissions.toml"))
        result = await pod.run("Summarise README.md")
        ```
    """

    def __init__(
        self,
        client: LlmClient,
        *,
        tools: Iterable[Tool] = (),
        hooks: HookRegistry | FrozenHookRegistry | None = None,
        permissions: PermissionHook | None = None,
        settings: PodSettings | None = None,
        summariser: Summariser | None = None,
        system_prompt: str | None = None,
        history: Iterable[Item] = (),
        trace: Tracer | None = None,
        wrap_hooks: Callable[[HookPort], HookPort] | None = None,
        telemetry: Telemetry | None = None,
        run_id: str | None = None,
    ) -> None:
        tools = tuple(tools)
        if telemetry is not None:
            client, tools = telemetry.client(client), telemetry.tools(tools)
        self._telemetry = telemetry
        if permissions is not None:
            permissions.check_tools(tools)  # a rule that can never apply refuses to start
        self._settings = settings = settings if settings is not None else PodSettings()
        self._trace = trace
        self._notifications = NotificationQueue()
        self._compaction = CompactionInterceptor(
            threshold_tokens=settings.compaction_threshold_tokens,
            keep_recent=settings.compaction_keep_recent,
            trace=trace,
        )
        interceptors: list[Interceptor] = [
            NotificationInterceptor(self._notifications, trace=trace),
            self._compaction,
        ]
        if settings.max_tool_output_bytes is not None:
            interceptors.append(TruncationInterceptor(settings.max_tool_output_bytes, trace=trace))
        self._hooks = _policy_registry(permissions).then(_frozen(hooks))
        asked: DecidingHooks = self._hooks if telemetry is None else telemetry.hooks(self._hooks)
        port: HookPort = asked if trace is None else TracingHookPort(asked, trace)
        if wrap_hooks is not None:
            port = wrap_hooks(port)
        self._port = port
        self._ask_pre_compact = not isinstance(port, SelectiveHookPort) or port.listens_to(
            PRE_COMPACT_POINT
        )
        self._summariser: Summariser = (
            summariser if summariser is not None else LlmSummariser(client)
        )
        self._worker = Worker(
            client,
            tools=tools,
            interceptors=interceptors,
            hooks=port,
            system_prompt=system_prompt,
            max_requests_per_turn=settings.max_requests_per_turn,
            tool_timeout=settings.tool_timeout,
            history=history,
            run_id=run_id,
        )
        self._summary_usage: list[Usage] = []
        self._busy = False

    # -- what the caller may read ---------------------------------------------------------

    @property
    def history(self) -> tuple[Item, ...]:
        """A copy of the history as it stands (for the caller; hooks never get it)."""
        return self._worker.history

    @property
    def usage(self) -> Usage:
        """Tokens used so far: every model request of the runs, plus compaction summaries."""
        worker = self._worker.usage
        return Usage(
            input_tokens=worker.input_tokens + sum(u.input_tokens for u in self._summary_usage),
            output_tokens=worker.output_tokens + sum(u.output_tokens for u in self._summary_usage),
        )

    @property
    def hooks(self) -> FrozenHookRegistry:
        """The hooks the Pod asks: policy hooks first, then the user's."""
        return self._hooks

    @property
    def settings(self) -> PodSettings:
        """The Pod's limits and thresholds."""
        return self._settings

    @property
    def turn(self) -> int:
        """0-based index of the current (or last) turn; -1 before the first run."""
        return self._worker.turn

    @property
    def run_id(self) -> str:
        """The run's identity, part of every pending call's digest."""
        return self._worker.run_id

    @property
    def pending_notifications(self) -> int:
        """Notifications waiting for the next model request."""
        return len(self._notifications)

    # -- running --------------------------------------------------------------------------

    async def run(self, prompt: str) -> PodResult:
        """Start a turn with ``prompt`` and run it until it finishes, pauses or aborts.

        A paused run left open is abandoned: its pending tool calls get synthetic results.

        Raises:
            WorkerStateError: the Pod is already running.
        """
        self._enter()
        try:
            if self._telemetry is not None:
                return await self._telemetry.invoke_agent(lambda: self._run(prompt))
            return await self._run(prompt)
        finally:
            self._busy = False

    async def _run(self, prompt: str) -> PodResult:
        return await self._settle(await self._worker.run(prompt))

    async def resume(self, decisions: Mapping[str, CallResolution] | None = None) -> PodResult:
        """Continue a paused run where it stopped.

        Args:
            decisions: by ``call_id``, a decision for a pending tool call that takes the
                place of the hooks' decision for it: ``Approve(digest=pending.digest)``
                (the digest of the ``PendingCall`` the approver was shown), ``Skip`` or
                ``Abort``.

        Raises:
            WorkerStateError: the Pod is running or has nothing to resume, or a decision
                names a call that is not pending.
            ApprovalMismatchError: an ``Approve`` names another digest than the call's now.
            UsageError: a decision is not one of the three (``Continue`` approves nothing).
        """
        self._enter()
        try:
            if self._telemetry is not None:
                return await self._telemetry.invoke_agent(
                    lambda: self._resume(decisions), decisions=decisions
                )
            return await self._resume(decisions)
        finally:
            self._busy = False

    async def _resume(self, decisions: Mapping[str, CallResolution] | None) -> PodResult:
        if self._worker.status == "yielded":  # paused at PRE_COMPACT: the go-ahead
            if decisions:  # refused before anything changes: no call is pending here
                raise WorkerStateError(f"no pending tool call with id {', '.join(decisions)}")
            await self._compact()
        return await self._settle(await self._worker.resume(decisions))

    async def abort(self, reason: str) -> Aborted:
        """End a paused run as ``Aborted``, as a hook's or a decision's ``Abort`` would.

        Its pending tool calls get synthetic results, then the interceptors and the
        ``ABORT`` hooks are told. For a pause with no pending call (at ``PRE_LLM_REQUEST``,
        ``TURN_END`` or ``PRE_COMPACT``), which no decision given to ``resume`` can end.

        Raises:
            WorkerStateError: the Pod is running or not paused.
        """
        self._enter()
        try:
            return await self._worker.abort(reason)
        finally:
            self._busy = False

    # -- saving and restoring -------------------------------------------------------------

    def snapshot(self) -> PodSnapshot:
        """Save the run (typically a paused one) to resume it elsewhere.

        The pending notifications are copied, not taken: do not keep using this Pod and the
        restored one for the same run.

        Raises:
            WorkerStateError: the Pod is running.
        """
        if self._busy:
            raise WorkerStateError("cannot snapshot a running Pod")
        return PodSnapshot(
            worker=self._worker.snapshot(),
            tool_names=tuple(sorted(self._worker.tools)),
            pending_notifications=self._notifications.peek_all(),
            summary_usage=tuple(self._summary_usage),
        )

    def restore(self, snapshot: PodSnapshot) -> None:
        """Take over a saved run in this fresh Pod (built with the same configuration).

        Args:
            snapshot: a :class:`PodSnapshot`; for text, ``PodSnapshot.from_json(text)``.

        Raises:
            PodUsageError: ``snapshot`` is not a ``PodSnapshot``, or this Pod has already
                run, holds history or pending notifications.
            SnapshotError: the snapshot is inconsistent, was taken with other tools, or is
                of another run than the ``run_id`` this Pod was built with
                (nothing is changed).
        """
        if not isinstance(snapshot, PodSnapshot):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise PodUsageError(
                f"restore takes a PodSnapshot, not {type(snapshot).__name__}; "
                "load saved text with PodSnapshot.from_json(text)"
            )
        if self._busy or self._worker.turn != -1 or self._worker.history or self._notifications:
            raise PodUsageError("restore a snapshot into a fresh Pod that has not run yet")
        tool_names = tuple(sorted(self._worker.tools))
        if snapshot.tool_names != tool_names:
            raise SnapshotError(
                f"the snapshot was taken with tools {_names(snapshot.tool_names)}; "
                f"this Pod has {_names(tool_names)}: build it with the same tools"
            )
        self._worker.restore(snapshot.worker)
        for text in snapshot.pending_notifications:
            self._notifications.push(text)
        self._summary_usage = list(snapshot.summary_usage)

    @property
    def status(self) -> WorkerStatus:
        """``idle``, ``running`` or ``paused`` (``resume`` continues a paused run)."""
        status = self._worker.status
        return "paused" if status == "yielded" else status

    def notify(self, text: str) -> None:
        """Queue a notification for the model; thread-safe, callable at any time.

        It enters the history just before the next model request, as a user message
        starting with ``[notification] ``; if the run ends first, it waits for the next run.

        Raises:
            PodUsageError: ``text`` is empty.
        """
        if not text.strip():
            raise PodUsageError("a notification needs some text")
        self._notifications.push(text)

    def _enter(self) -> None:
        if self._busy:
            raise WorkerStateError("the Pod is already running")
        self._busy = True

    async def _settle(self, result: WorkerResult) -> PodResult:
        while isinstance(result, Yielded):
            stopped = await self._ask_before_compacting()
            if stopped is not None:
                return stopped
            await self._compact()
            result = await self._worker.resume()
        return result

    async def _ask_before_compacting(self) -> Paused | Aborted | None:
        """Ask the ``PRE_COMPACT`` hooks; ``None``: go ahead (also when nothing would be
        replaced, so there is nothing to ask about)."""
        threshold = self._settings.compaction_threshold_tokens
        if not self._ask_pre_compact or threshold is None:
            return None
        worker = self._worker
        plan = plan_compaction(worker.context, self._settings.compaction_keep_recent)
        if plan is None:
            return None
        info = PreCompactInfo(
            turn=worker.turn,
            items_to_replace=plan.stop - plan.start,
            estimated_tokens=worker.estimated_tokens,
            threshold_tokens=threshold,
        )
        try:
            decision = await self._port.ask(PRE_COMPACT_POINT, info)
        except HookFailedError as exc:
            return await worker.abort(str(exc), error=exc)
        match decision:
            case Continue():
                return None
            case Pause(reason=reason):
                return Paused(point="pre_compact", reason=reason, turn=worker.turn)
            case _:
                assert_never(decision)

    async def _compact(self) -> None:
        """Compact the history; on failure send the request as it is (logged and traced)."""
        try:
            outcome = await self._compaction.compact(self._worker.context, self._summariser)
        except Exception as exc:  # a failed summary must not end the run by itself
            problem = f"compaction failed, sending the request uncompacted: {exc!r}"
            _log.warning("%s", problem)
            if self._trace is not None:
                self._trace(TraceEvent(source="pod", actor="pod", message=problem))
            outcome = None
        if outcome is None:
            self._compaction.skip_next_request()
        elif outcome.summary.usage is not None:
            self._summary_usage.append(outcome.summary.usage)


def _names(names: tuple[str, ...]) -> str:
    return "[" + ", ".join(names) + "]" if names else "no tools"


def _policy_registry(permissions: PermissionHook | None) -> FrozenHookRegistry:
    policy = HookRegistry()
    if permissions is not None:
        # on_error="deny": a failing policy check skips the call (fail closed).
        policy.on(events.PRE_TOOL_CALL, permissions, on_error="deny")
    return policy.freeze()


def _frozen(hooks: HookRegistry | FrozenHookRegistry | None) -> FrozenHookRegistry:
    if hooks is None:
        return HookRegistry().freeze()
    if isinstance(hooks, HookRegistry):
        return hooks.freeze()
    return hooks
