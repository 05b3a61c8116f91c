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

import logging
import re
import uuid
from collections.abc import Iterable, Mapping
from typing import Final, final

from dbos import DBOS, SetWorkflowID
from pydantic import BaseModel, Field, ValidationError

from llm_worker import (
    Abort,
    CallResolution,
    Continue,
    Item,
    LlmClient,
    Paused,
    Skip,
    Tool,
    Usage,
)

from .._errors import PodUsageError
from .._permissions import PermissionHook
from .._pod import Pod, PodResult
from .._registry import FrozenHookRegistry, HookRegistry
from .._settings import PodSettings
from .._summariser import LlmSummariser, Summariser
from ._steps import RunSteps, StepClient, StepHookPort, StepSummariser, StepTool, run_steps
from ._system import QUEUE_NAME, process_journal

__all__ = [
    "DECISION_TOPIC",
    "PAUSE_EVENT",
    "RUN_WORKFLOW_PREFIX",
    "DurableAgent",
    "RunDecision",
    "RunOutcome",
    "new_run_id",
]

_log = logging.getLogger("pod.durable")

RUN_WORKFLOW_PREFIX: Final = "pod.run/"
"""A durable run is the workflow named ``pod.run/<agent name>``."""
PAUSE_EVENT: Final = "pod.paused"
"""The workflow event holding the ``Paused`` result a run waits on (``None`` once decided)."""
DECISION_TOPIC: Final = "pod.decision"
"""The message topic a paused run waits on."""
_WAIT_SECONDS: Final = 24 * 3600.0
"""One durable wait; a run waits again after it (a decision may take days)."""
_NAME: Final = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


@final
class RunDecision(BaseModel, frozen=True, extra="forbid"):
    """The decision a paused run waits for, by pending ``call_id``.

    A pending call named nowhere is approved when ``approve_rest`` is true, otherwise put to
    the hooks again. ``abort`` ends the run (its pending calls get synthetic results).
    """

    approve: tuple[str, ...] = ()
    """Calls to run."""
    skip: Mapping[str, str] = Field(default_factory=dict)
    """Calls not to run, with the reason the model is given."""
    abort: str | None = None
    """If set, abort the run with this reason."""
    approve_rest: bool = False
    """Approve every pending call not named in ``approve`` or ``skip``."""

    def named(self) -> set[str]:
        """Every call id the decision names."""
        return set(self.approve) | set(self.skip)


@final
class RunOutcome(BaseModel, frozen=True, extra="forbid"):
    """How a durable run ended, with its whole history (written once, at the end)."""

    result: PodResult = Field(discriminator="kind")
    history: tuple[Item, ...]
    usage: Usage


def new_run_id() -> str:
    """A fresh run id (``run-`` and 12 hex digits)."""
    return f"run-{uuid.uuid4().hex[:12]}"


@final
class DurableAgent:
    """Defines durable runs: a name and the parts of the Pod each run builds afresh.

    The parts are those of :class:`pod.Pod` (the client and tools are shared by the runs of
    this process; give stateless ones, or ones safe to share). Define the agent at import
    time, in every process that starts, serves or recovers its runs, then launch DBOS
    (``pod.durable.launch``).

    Args:
        name: the agent's name, the same in every process (letters, digits, ``_.-``).

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
    ) -> None:
        if not _NAME.match(name):
            raise PodUsageError(f"an agent name is 1 to 100 of A-Z a-z 0-9 _ . -, not {name!r}")
        self.name = name
        self._client = client
        self._tools = tuple(StepTool(t) for t in tools)
        self._hooks = hooks.freeze() if isinstance(hooks, HookRegistry) else hooks
        self._permissions = permissions
        self._settings = settings
        self._summariser = StepSummariser(
            summariser if summariser is not None else LlmSummariser(client)
        )
        self._system_prompt = system_prompt
        self._step_client = StepClient(client)

        async def durable_run(prompt: str) -> RunOutcome:
            return await self._execute(prompt)

        self.workflow_name = RUN_WORKFLOW_PREFIX + name
        self._workflow = DBOS.workflow(name=self.workflow_name)(durable_run)

    def pod(self) -> Pod:
        """A fresh Pod of this agent whose every step is checkpointed inside a workflow."""
        return Pod(
            self._step_client,
            tools=self._tools,
            hooks=self._hooks,
            permissions=self._permissions,
            settings=self._settings,
            summariser=self._summariser,
            system_prompt=self._system_prompt,
            wrap_hooks=StepHookPort,
        )

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
        outcome: RunOutcome = await handle.get_result()
        return outcome

    async def submit(self, prompt: str, *, run_id: str | None = None) -> str:
        """Put a run on the queue for any worker of this agent; return its id."""
        run_id = run_id or new_run_id()
        queue = DBOS.retrieve_queue(QUEUE_NAME)
        if queue is None:  # launch() registers it
            raise RuntimeError("DBOS is not launched: call pod.durable.launch() first")
        with SetWorkflowID(run_id):
            await queue.enqueue_async(self._workflow, prompt)
        return run_id

    async def _execute(self, prompt: str) -> RunOutcome:
        journal = process_journal()
        run_id = DBOS.workflow_id
        steps = None if journal is None or run_id is None else RunSteps(journal, run_id)
        token = run_steps().set(steps)
        try:
            pod = self.pod()
            result = await pod.run(prompt)
            if steps is not None:
                steps.flush()  # the last decisions, before the run waits or ends
            while isinstance(result, Paused):
                await DBOS.set_event_async(PAUSE_EVENT, result.model_dump(mode="json"))
                decision = await _wait_for_decision(result)
                await DBOS.set_event_async(PAUSE_EVENT, None)
                result = await _apply(pod, result, decision)
                if steps is not None:
                    steps.flush()
            return RunOutcome(result=result, history=pod.history, usage=pod.usage)
        finally:
            run_steps().reset(token)


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
        elif call_id in decision.approve or decision.approve_rest:
            resolutions[call_id] = Continue()
    return await pod.resume(resolutions)
