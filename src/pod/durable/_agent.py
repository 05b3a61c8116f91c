"""``DurableAgent``: a Pod whose runs are DBOS workflows, checkpointed step by step.

A durable run is one prompt run to its end by a fresh Pod built from the agent's parts. Its
model requests, tool calls, compaction summaries and hook decisions are steps (see
``_steps``). After a crash, DBOS runs the workflow again from the start in a new process:
every recorded step returns its recorded output without running, so the Pod rebuilds the
same history and carries on from the first step that had not completed.

A ``Paused`` result becomes a durable wait for a decision message (``DurableRuns.approve``
or ``pod approve``): the process may stop meanwhile; whichever process holds the workflow
next continues it. The agent must be defined (in every process that runs or recovers its
runs) before DBOS is launched, under the same name.
"""

from __future__ import annotations

import functools
import logging
import re
import uuid
import zlib
from collections.abc import Callable, Coroutine, Iterable, Mapping
from typing import Any, Final, Self, cast, final

from dbos import DBOS, SetWorkflowID
from pydantic import BaseModel, Field, ValidationError, model_validator

from llm_worker import (
    Abort,
    Approve,
    CallResolution,
    HookPort,
    Item,
    LlmClient,
    Paused,
    PendingCall,
    Skip,
    Tool,
    Usage,
)

from ..command._claude_prompt import PromptAsk
from ..command._claude_run import ClaudeCodeFiles, ClaudeRun
from ..command._claude_session_hooks import SessionHookOutcome
from ..command._model_ask import model_asker
from ..hooks._errors import PodUsageError
from ..hooks._registry import FrozenHookRegistry, HookRegistry
from ..policy._permissions import PermissionHook
from ..runtime._pod import Pod, PodResult
from ..runtime._settings import PodSettings
from ..runtime._snapshot import PodSnapshot
from ..runtime._summariser import LlmSummariser, Summariser
from ..runtime._trace import Tracer
from ..telemetry import Telemetry
from ..toolsets._toolsets import ToolsetName, toolset
from ._dbos_records import DbosRecordedSteps
from ._steps import (
    StepClient,
    StepHookPort,
    Steps,
    StepSummariser,
    StepTool,
    approved_calls,
    quiet_while_replaying,
    run_steps,
    step,
)
from ._system import QUEUE_NAME

__all__ = [
    "DECISION_TOPIC",
    "PAUSE_EVENT",
    "RUN_WORKFLOW_PREFIX",
    "DurableAgent",
    "PauseRecord",
    "RunDecision",
    "RunEnd",
    "RunOutcome",
    "claude_session_id",
    "defined_agents",
    "history_event",
    "new_run_id",
]

_log = logging.getLogger("pod.durable")

RUN_WORKFLOW_PREFIX: Final = "pod.run/"
"""A durable run is the workflow named ``pod.run/<agent name>``."""
PAUSE_EVENT: Final = "pod.paused"
"""The workflow event holding the ``PauseRecord`` a run waits on (``None`` once decided; a
bare ``Paused`` in a run paused by an earlier version)."""
DECISION_TOPIC: Final = "pod.decision"
"""The message topic a paused run waits on."""
HISTORY_EVENT_PREFIX: Final = "pod.history/"
HISTORY_PART_ITEMS: Final = 256
"""Items per history event: one event's pickle stays small (a few hundred KiB at most)."""
_WAIT_SECONDS: Final = 24 * 3600.0
"""One durable wait; a run waits again after it (a decision may take days)."""
_NAME: Final = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
CLAUDE_STEP_PREFIX: Final = "pod.claude:"
"""The steps of the Claude Code hooks a run runs itself (``pod.claude:SessionStart``, ...)."""
_SESSION_NAMESPACE: Final = uuid.UUID("0b4f5c1e-6a47-4d2b-9a55-2f0e1c3d7a10")


def claude_session_id(run_id: str) -> str:
    """The ``session_id`` Claude Code hooks read in the durable run ``run_id``: a UUID
    derived from the run id, so every process that runs or recovers the run gives the
    same one, with nothing stored."""
    return str(uuid.uuid5(_SESSION_NAMESPACE, run_id))


@final
class RunDecision(BaseModel, frozen=True, extra="forbid"):
    """The decision a paused run waits for, by pending ``call_id``.

    A pending call named nowhere is put to the hooks again. ``abort`` ends the run (its
    pending calls get synthetic results). Every approval names the digest of the call as
    the approver was shown it: a decision approving a call without one is invalid.
    """

    approve: tuple[str, ...] = ()
    """Calls to run, each with its digest in ``digests``."""
    skip: Mapping[str, str] = Field(default_factory=dict)
    """Calls not to run, with the reason the model is given."""
    abort: str | None = None
    """If set, abort the run with this reason."""
    digests: Mapping[str, str] = Field(default_factory=dict)
    """By call id in ``approve``, the digest of the call as the approver was shown it
    (``PendingCall.digest``): the run refuses the decision (logged with both digests; it
    keeps waiting) unless it is the pending call's, and approves with ``Approve``."""

    @model_validator(mode="after")
    def _every_approval_names_its_digest(self) -> Self:
        unbound = sorted(set(self.approve) - set(self.digests))
        if unbound:
            raise ValueError(
                f"approve names {', '.join(unbound)} without a digest: give "
                "digests={call_id: pending.digest}, the digest of the call as it was shown"
            )
        unapproved = sorted(set(self.digests) - set(self.approve))
        if unapproved:
            raise ValueError(f"digests names {', '.join(unapproved)}, which approve does not")
        return self

    @classmethod
    def approving(cls, *calls: PendingCall, skip: Mapping[str, str] | None = None) -> RunDecision:
        """Approve ``calls`` as they were shown (``Paused.pending_calls``), by their digests."""
        return cls(
            approve=tuple(c.call_id for c in calls),
            digests={c.call_id: c.digest for c in calls},
            skip=dict(skip or {}),
        )

    def named(self) -> set[str]:
        """Every call id the decision names."""
        return set(self.approve) | set(self.skip)


@final
class PauseRecord(BaseModel, frozen=True, extra="forbid"):
    """What a waiting run publishes: its pause, and the pause's number in the run (0, 1, ...),
    which names the one decision that answers it (``DurableRuns.approve``)."""

    paused: Paused
    number: int


@final
class RunOutcome(BaseModel, frozen=True, extra="forbid"):
    """How a durable run ended, with its whole history."""

    result: PodResult = Field(discriminator="kind")
    history: tuple[Item, ...]
    usage: Usage


@final
class RunEnd(BaseModel, frozen=True, extra="forbid"):
    """What a run's workflow returns, and DBOS stores: how it ended, without the history.

    The history is published as ``history_parts`` workflow events (``history_event(n)``) of
    ``HISTORY_PART_ITEMS`` items each, so no single value holds all of it: serialising the
    whole history at once would double the memory a run needs at its end.
    """

    result: PodResult = Field(discriminator="kind")
    usage: Usage
    history_parts: int

    def outcome(self, parts: Iterable[object]) -> RunOutcome:
        """The outcome, with the history read back from its parts (in order).

        Raises:
            ValueError: a part is missing (``None``: its event was not found).
        """
        history: list[Item] = []
        for number, part in enumerate(parts):
            if not isinstance(part, tuple):
                raise ValueError(f"part {number} of the run's history is missing")
            history.extend(cast("tuple[Item, ...]", part))
        return RunOutcome(result=self.result, history=tuple(history), usage=self.usage)


def history_event(part: int) -> str:
    """The workflow event holding part ``part`` of a finished run's history."""
    return f"{HISTORY_EVENT_PREFIX}{part}"


_DEFINED: Final[set[str]] = set()


def defined_agents() -> frozenset[str]:
    """The names of the agents defined in this process (what its worker serves)."""
    return frozenset(_DEFINED)


def new_run_id() -> str:
    """A fresh run id (``run-`` and 12 hex digits)."""
    return f"run-{uuid.uuid4().hex[:12]}"


@final
class DurableAgent:
    """Defines durable runs: a name and the parts of the Pod each run builds afresh.

    The parts are those of :class:`pod.Pod` (the client and tools are shared by the runs of
    this process; give stateless ones, or ones safe to share). ``trace`` gets the Pod's trace
    events, except while a recovered run replays recorded steps (``docs/durability.md``).
    Define the agent at import time, in every process that starts, serves or recovers its
    runs, then launch DBOS (``pod.durable.launch``).

    Args:
        name: the agent's name, the same in every process (letters, digits, ``_.-``).
        telemetry: spans of the runs (``pod.telemetry``): a run's spans, in every process
            that runs or recovers it, are one trace named by the run id; the model request,
            tool call and hook spans are made inside their steps, so a step replayed after a
            crash adds none.

    Raises:
        PodUsageError: the name is not valid.
    """

    def __init__(
        self,
        name: str,
        client: LlmClient,
        *,
        tools: Iterable[Tool] = (),
        hooks: HookRegistry | FrozenHookRegistry | None = None,
        permissions: PermissionHook | None = None,
        settings: PodSettings | None = None,
        summariser: Summariser | None = None,
        system_prompt: str | None = None,
        trace: Tracer | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        if not _NAME.match(name):
            raise PodUsageError(f"an agent name is 1 to 100 of A-Z a-z 0-9 _ . -, not {name!r}")
        self.name = name
        # Spans go inside the steps: a step replayed after a crash adds none.
        if telemetry is not None:
            client, tools = telemetry.client(client), telemetry.tools(tools)
        self._telemetry = telemetry
        self._client = client
        self._tools = tuple(StepTool(t) for t in tools)
        self._hooks = hooks.freeze() if isinstance(hooks, HookRegistry) else hooks
        self._permissions = permissions
        self._settings = settings
        self._summariser = StepSummariser(
            summariser if summariser is not None else LlmSummariser(client)
        )
        self._system_prompt = system_prompt
        self._trace = None if trace is None else quiet_while_replaying(trace)
        self._step_client = StepClient(client)
        self._claude_code = ClaudeCodeFiles()
        self._toolset: ToolsetName | None = None

        async def durable_run(prompt: str) -> RunEnd:
            return await self._execute(prompt)

        self.workflow_name = RUN_WORKFLOW_PREFIX + name
        self._workflow = DBOS.workflow(name=self.workflow_name)(durable_run)
        _DEFINED.add(name)

    def use_claude_code(
        self, files: ClaudeCodeFiles, *, toolset: ToolsetName | None = "claude-code"
    ) -> tuple[str, ...]:
        """Guard this agent's runs with Claude Code hooks, as ``pod run --claude-settings``
        guards a run (``pod worker --claude-settings`` calls this for the agents it serves).

        Every run reads the files afresh, for its own session: ``session_id`` is
        :func:`claude_session_id` of the run id (the same in every process that runs or
        recovers it), ``transcript_path`` the run's transcript in ``files.project_dir``. The
        hooks are asked before the agent's own; ``SessionStart``, ``SessionEnd``,
        ``Notification`` and ``PermissionRequest`` hooks run as steps of the run
        (``docs/claude-code.md``, "Durable runs"). ``toolset`` adds that built-in toolset,
        confined to the project folder, to the agent's tools (``None``: none).

        Returns:
            One warning line per file with events that will not run.

        Raises:
            PodUsageError: a file is refused, or a tool of the toolset is named like a tool
                of the agent (every problem, in one line, ``; `` between them).
        """
        run, problems = files.read(session_id=claude_session_id("check"), ask=self._ask())
        taken = {tool.name for tool in self._tools}
        if toolset is not None:
            problems += [
                f"the {toolset} tool {tool.name!r} is already the name of a tool of agent "
                f"{self.name!r}; rename the tool"
                for tool in self._toolset_tools(toolset, files.project_dir)
                if tool.name in taken
            ]
        if problems:
            raise PodUsageError("; ".join(problems))
        self._claude_code, self._toolset = files, toolset
        return run.warnings

    def _ask(self) -> PromptAsk:
        """How the agent's ``prompt`` hooks ask its model (a request of their own)."""
        return model_asker(self._client)

    def _toolset_tools(self, name: ToolsetName, root: str) -> list[Tool]:
        tools = toolset(name, root)
        return list(self._telemetry.tools(tools)) if self._telemetry is not None else tools

    def pod(self, run_id: str | None = None) -> Pod:
        """A fresh Pod of this agent whose every step is checkpointed inside a workflow;
        ``run_id`` (in a run: its id) is the Pod's, so its pending calls' digests are the
        run's alone."""
        return self._pod(None, run_id=run_id)

    def _claude_run(self) -> ClaudeRun | None:
        """The Claude Code side of the run in progress (``None``: no Claude Code hooks)."""
        if not self._claude_code:
            return None
        session_id = claude_session_id(DBOS.workflow_id or "")
        run, problems = self._claude_code.read(session_id=session_id, ask=self._ask())
        if problems:  # a file changed since the worker checked it
            raise PodUsageError("; ".join(problems))
        return run

    def _pod(
        self, claude: ClaudeRun | None, steps: Steps | None = None, *, run_id: str | None = None
    ) -> Pod:
        """A fresh Pod of run ``run_id`` of this agent, with the Claude Code hooks, toolset
        and transcript of ``claude`` when given (the transcript waits while ``steps``
        replay)."""
        tools: tuple[Tool, ...] = self._tools
        hooks = self._hooks
        wrap: Callable[[HookPort], HookPort] = StepHookPort
        built: list[Pod] = []
        if claude is not None:
            if self._toolset is not None:
                root = self._claude_code.project_dir
                tools += tuple(StepTool(t) for t in self._toolset_tools(self._toolset, root))
            registry = HookRegistry()
            for configured in claude.configured:
                configured.register(registry)
            frozen = registry.freeze()
            hooks = frozen if hooks is None else frozen.then(hooks)
            hold = None if steps is None else (lambda: steps.replaying)
            transcript = claude.wrap_hooks(lambda: built[0].history if built else (), hold=hold)
            if transcript is not None:
                # Outside the steps: a replayed decision still passes it (and is held).
                keep_up = transcript

                def recorded_and_written(port: HookPort) -> HookPort:
                    return keep_up(StepHookPort(port))

                wrap = recorded_and_written

        pod = Pod(
            self._step_client,
            tools=tools,
            hooks=hooks,
            permissions=self._permissions,
            settings=self._settings,
            summariser=self._summariser,
            system_prompt=self._system_prompt,
            trace=self._trace,
            wrap_hooks=wrap,
            telemetry=None if self._telemetry is None else self._telemetry.around_steps(),
            run_id=run_id,
        )
        built.append(pod)
        return pod

    async def start(self, prompt: str, *, run_id: str | None = None) -> str:
        """Start a durable run in this process; return its id (``DBOS`` must be launched).

        Starting a run id again does not start a second run: it attaches to the first.
        """
        run_id = run_id or new_run_id()
        with SetWorkflowID(run_id):
            await DBOS.start_workflow_async(self._workflow, prompt)
        return run_id

    async def run(self, prompt: str, *, run_id: str | None = None) -> RunOutcome:
        """Start a durable run in this process and wait for its end (pauses included)."""
        run_id = run_id or new_run_id()
        with SetWorkflowID(run_id):
            handle = await DBOS.start_workflow_async(self._workflow, prompt)
        end: RunEnd = await handle.get_result()
        parts = [
            await DBOS.get_event_async(run_id, history_event(part), timeout_seconds=0)
            for part in range(end.history_parts)
        ]
        return end.outcome(parts)

    async def submit(self, prompt: str, *, run_id: str | None = None) -> str:
        """Put a run on the queue for any worker of this agent; return its id."""
        run_id = run_id or new_run_id()
        queue = DBOS.retrieve_queue(QUEUE_NAME)
        if queue is None:  # launch() registers it
            raise RuntimeError("DBOS is not launched: call pod.durable.launch() first")
        with SetWorkflowID(run_id):
            await queue.enqueue_async(self._workflow, prompt)
        return run_id

    async def _execute(self, prompt: str) -> RunEnd:
        if self._telemetry is None:
            return await self._steps(prompt)
        with self._telemetry.in_trace_of(DBOS.workflow_id or ""):
            return await self._steps(prompt)

    async def _steps(self, prompt: str) -> RunEnd:
        steps = DbosRecordedSteps()  # the run's recorded steps, read once
        token = run_steps().set(steps)
        claude: ClaudeRun | None = None
        run_id = DBOS.workflow_id
        try:
            claude = self._claude_run()
            recovering = steps.replaying  # recorded steps ahead: another process began it
            pod = self._pod(claude, steps, run_id=run_id)
            if claude is not None:
                await _session_start(claude, pod, recovering=recovering)
            result = await _permission_requests(claude, pod, await pod.run(prompt))
            steps.flush()  # the last decisions, before the run waits or ends
            number = 0
            while isinstance(result, Paused):
                if claude is not None:
                    await _session_step("Notification", claude.notify_waiting(result))
                record = PauseRecord(paused=result, number=number)
                await DBOS.set_event_async(PAUSE_EVENT, record.model_dump(mode="json"))
                number += 1
                # A waiting run keeps its state as a compressed snapshot, not a live Pod: a
                # worker may hold many runs that wait for days.
                saved = zlib.compress(pod.snapshot().to_json().encode())
                del pod
                if claude is not None:
                    await claude.aclose()  # nor a persistent hook's process
                decision = await _wait_for_decision(result)
                pod = self._pod(claude, steps, run_id=run_id)
                pod.restore(PodSnapshot.from_json(zlib.decompress(saved)))
                del saved
                await DBOS.set_event_async(PAUSE_EVENT, None)
                result = await _permission_requests(
                    claude, pod, await _apply(pod, result, decision)
                )
                steps.flush()
            if claude is not None:
                ending = claude.run_session_hooks("SessionEnd", {"reason": "other"})
                await _session_step("SessionEnd", ending)
                steps.flush()
            return await _publish(result, pod)
        finally:
            run_steps().reset(token)
            if claude is not None:
                await claude.aclose()


def _report(outcomes: Iterable[SessionHookOutcome]) -> tuple[str, ...]:
    """Log what the hooks said for the user; return the contexts for the model."""
    contexts: list[str] = []
    for outcome in outcomes:
        if outcome.warning:
            _log.warning("run %s: %s", DBOS.workflow_id, outcome.warning)
        if outcome.context:
            contexts.append(outcome.context)
    return tuple(contexts)


async def _session_step(
    event_name: str, running: Coroutine[Any, Any, list[SessionHookOutcome]]
) -> tuple[str, ...]:
    """Run session hooks as one step of the run: a recovery replays what they gave (the
    model is told the same) and does not run them again."""

    async def run_once() -> tuple[str, ...]:
        return _report(await running)

    try:
        return await step(CLAUDE_STEP_PREFIX + event_name, run_once)
    finally:
        running.close()  # replayed: never awaited


async def _session_start(claude: ClaudeRun, pod: Pod, *, recovering: bool) -> None:
    """``SessionStart``: ``startup`` once, as a step (its context reaches the model, the
    same on every replay); and, in a process recovering the run, ``resume``, not recorded
    (it runs in each recovery), whose context is not given to the model: a recovered run
    rebuilds the history it recorded."""
    starting = claude.run_session_hooks("SessionStart", {"source": "startup"})
    for context in await _session_step("SessionStart", starting):
        pod.notify(context)
    if recovering:
        dropped = _report(await claude.run_session_hooks("SessionStart", {"source": "resume"}))
        if dropped:
            _log.warning(
                "run %s: the context of SessionStart (resume) hooks is not given to a "
                "recovered run's model (%d dropped)",
                DBOS.workflow_id,
                len(dropped),
            )


async def _permission_requests(claude: ClaudeRun | None, pod: Pod, result: PodResult) -> PodResult:
    """Claude Code's ``PermissionRequest`` at a pause for approval, as ``pod run`` asks it;
    the hooks' decisions are a step of the run."""
    while claude is not None and isinstance(result, Paused) and result.pending_calls:
        decisions = await step(
            CLAUDE_STEP_PREFIX + "PermissionRequest", functools.partial(_decide, claude, result)
        )
        if not decisions:
            break
        result = await pod.resume(dict(decisions))
    return result


async def _decide(claude: ClaudeRun, paused: Paused) -> dict[str, Approve | Skip | Abort]:
    decisions, notes = await claude.permission_decisions(paused)
    for note in notes:
        _log.warning("run %s: %s", DBOS.workflow_id, note)
    return decisions


async def _publish(result: PodResult, pod: Pod) -> RunEnd:
    """Publish the final history in parts; return the small record of the end."""
    history = pod.history
    starts = range(0, len(history), HISTORY_PART_ITEMS)
    for part, start in enumerate(starts):
        await DBOS.set_event_async(history_event(part), history[start : start + HISTORY_PART_ITEMS])
    return RunEnd(result=result, usage=pod.usage, history_parts=len(starts))


async def _wait_for_decision(paused: Paused) -> RunDecision:
    """Wait (durably) for a decision that fits the pending calls; ignore others (logged)."""
    pending = {c.call_id for c in paused.pending_calls}
    while True:
        message: object = await DBOS.recv_async(DECISION_TOPIC, timeout_seconds=_WAIT_SECONDS)
        if message is None:
            continue  # no decision yet: wait again
        try:
            decision = RunDecision.model_validate(message)
        except ValidationError as exc:
            _log.warning("run %s: ignored an invalid decision: %s", DBOS.workflow_id, exc)
            continue
        unknown = decision.named() - pending
        if unknown:
            _log.warning(
                "run %s: ignored a decision naming calls not pending: %s",
                DBOS.workflow_id,
                ", ".join(sorted(unknown)),
            )
            continue
        current = {c.call_id: c.digest for c in paused.pending_calls}
        mismatched = [
            f"{call_id} was shown as {shown}, the pending call is {current[call_id]}"
            for call_id, shown in sorted(decision.digests.items())
            if shown != current[call_id]
        ]
        if mismatched:
            _log.warning(
                "run %s: refused an approval of another call than the pending one: %s",
                DBOS.workflow_id,
                "; ".join(mismatched),
            )
            continue
        return decision


async def _apply(pod: Pod, paused: Paused, decision: RunDecision) -> PodResult:
    pending = [c.call_id for c in paused.pending_calls]
    if decision.abort is not None:
        if not pending:  # no call to decide: end the run as the in-memory Pod does
            return await pod.abort(decision.abort)
        abort = Abort(reason=decision.abort)
        return await pod.resume(dict.fromkeys(pending, abort))
    resolutions: dict[str, CallResolution] = {}
    for call_id in pending:
        if call_id in decision.skip:
            resolutions[call_id] = Skip(reason=decision.skip[call_id])
        elif call_id in decision.digests:
            resolutions[call_id] = Approve(digest=decision.digests[call_id])
    approved = frozenset(c for c, r in resolutions.items() if isinstance(r, Approve))
    token = approved_calls().set(approved)  # each of them runs at most once
    try:
        return await pod.resume(resolutions)
    finally:
        approved_calls().reset(token)
