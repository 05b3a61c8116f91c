"""What a durable run records: the model, tools, summaries and hooks, each call a step.

Wrapped around a Pod's client, tools, summariser and hook port, each call runs as a step of
the durable run: its outcome is checkpointed before the run goes on, and a replay (recovery
after a crash) returns the recorded outcome instead of calling again. Steps are DBOS step
records (``_dbos_records``).

Outcomes cross the checkpoint pickled, and not every exception survives pickling
(``HookFailedError`` takes keyword arguments, a
tool's own exception may hold anything). So a step catches the failures the Worker handles
and returns them as a small record; the wrapper raises the equivalent error outside the step,
which gives the Worker the same message live and on replay.

A call a person approved runs at most once: its tool step is preceded by an ``approved``
step, committed before the tool starts. A recovered run that finds that record but no
outcome of the tool (the process died while it ran) does not run it again on that approval:
the model gets an error result saying so (``APPROVED_CALL_INTERRUPTED``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final, Protocol, TypeVar, final

from pydantic import BaseModel, JsonValue

from llm_worker import (
    HookFailedError,
    HookPoint,
    HookPort,
    Item,
    LlmClient,
    LlmRequest,
    LlmResponse,
    SelectiveHookPort,
    Tool,
    ToolArgumentsError,
    current_tool_call_id,
)

from ..hooks._errors import PodError
from ..runtime._summariser import Summariser, SummaryText
from ..runtime._trace import TraceEvent, Tracer, TracingHookPort

__all__ = [
    "APPROVED_CALL_INTERRUPTED",
    "StepClient",
    "StepHookPort",
    "StepMismatchError",
    "StepSummariser",
    "StepTool",
    "Steps",
    "approved_calls",
    "quiet_while_replaying",
    "run_steps",
    "step",
    "step_names",
]

T = TypeVar("T")
InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")
_log = logging.getLogger("pod.durable")


class StepMismatchError(PodError):
    """A recovered run asked for a step other than the one recorded at its place: the
    agent's code or configuration changed since the run started. The run fails."""

    def __init__(self, run_id: str, seq: int, *, expected: str, recorded: str) -> None:
        self.run_id = run_id
        self.seq = seq
        self.expected = expected
        self.recorded = recorded
        super().__init__(
            f"run {run_id}: step {seq} is {expected!r} now but was recorded as {recorded!r}"
            " (did the agent change?)"
        )

    def __reduce__(self) -> tuple[object, tuple[str, int, str, str]]:
        # DBOS pickles the error that ends a workflow; keyword arguments need this.
        return _mismatch, (self.run_id, self.seq, self.expected, self.recorded)


def _mismatch(run_id: str, seq: int, expected: str, recorded: str) -> StepMismatchError:
    return StepMismatchError(run_id, seq, expected=expected, recorded=recorded)


POD_STEP: Final = "pod."
"""Every step name of a run starts so (DBOS's own operations start with ``DBOS.``)."""
MODEL_STEP: Final = "pod.model"
SUMMARY_STEP: Final = "pod.summary"
TOOL_STEP_PREFIX: Final = "pod.tool:"
HOOK_STEP_PREFIX: Final = "pod.hook:"
APPROVED_STEP_PREFIX: Final = "pod.approved:"
APPROVED_CALL_INTERRUPTED: Final = (
    "not run again: the process running this approved call stopped before it finished "
    "(it may have taken effect); an approval runs its call at most once"
)
"""The error a recovered run gives the model for an approved call that was in flight."""


def step_names() -> tuple[str, str, str, str]:
    """The step names (model, summary, tool prefix, hook prefix), for readers of records."""
    return MODEL_STEP, SUMMARY_STEP, TOOL_STEP_PREFIX, HOOK_STEP_PREFIX


class Steps(Protocol):
    """The steps of one durable run as it runs (how they are checkpointed is the class's)."""

    @property
    def replaying(self) -> bool:
        """Whether recorded steps are still ahead."""
        ...

    async def step(
        self, name: str, call: Callable[[], Coroutine[Any, Any, T]], *, deferred: bool = False
    ) -> T:
        """Return the recorded outcome of this step, or run ``call`` and record it."""
        ...

    def flush(self) -> None:
        """Write what waits to be written (before the run pauses or ends)."""
        ...

    def next_is_recorded(self) -> bool:
        """Whether the step after the last one taken has a record."""
        ...


_RUN_STEPS: Final[ContextVar[Steps | None]] = ContextVar("pod_durable_run_steps", default=None)


def run_steps() -> ContextVar[Steps | None]:
    """The variable holding the steps of the run in progress (set by the workflow)."""
    return _RUN_STEPS


_APPROVED: Final[ContextVar[frozenset[str]]] = ContextVar(
    "pod_durable_approved_calls", default=frozenset()
)


def approved_calls() -> ContextVar[frozenset[str]]:
    """The variable holding the ids of the calls a person approved, while the run resumes
    with that approval (set by the workflow): each runs at most once."""
    return _APPROVED


async def step(
    name: str, call: Callable[[], Coroutine[Any, Any, T]], *, deferred: bool = False
) -> T:
    """Run ``call`` as the next step of the run; outside a run, just run it. No retries: a
    failure is recorded like an output."""
    steps = _RUN_STEPS.get()
    if steps is not None:
        return await steps.step(name, call, deferred=deferred)
    return await call()


def quiet_while_replaying(trace: Tracer) -> Tracer:
    """``trace``, told nothing while the run replays recorded steps (after a crash).

    The events of replayed steps were reported when the steps first ran; from the first step
    not recorded on, events are reported again. Events after the last checkpoint before a
    crash are reported twice (at least once in all, as a step in flight runs at most twice).
    """

    def traced(event: TraceEvent) -> None:
        steps = _RUN_STEPS.get()
        if steps is None or not steps.replaying:
            trace(event)

    return traced


@final
class StepClient:
    """An ``LlmClient`` whose every request is a step: the reply is recorded, never the
    request (so a step writes only what is new, whatever the history's length)."""

    def __init__(self, client: LlmClient) -> None:
        self._client = client

    async def complete(self, request: LlmRequest) -> LlmResponse:
        """Ask the model once per run: a replay returns the recorded reply (or error)."""

        async def request_once() -> LlmResponse:
            return await self._client.complete(request)

        return await step(MODEL_STEP, request_once)


@final
@dataclass(frozen=True, slots=True)
class _ToolFailure:
    """A tool's exception as a record: its class name and message (what the model sees)."""

    type_name: str
    message: str


@final
class StepTool:
    """A ``Tool`` whose every call is a step; name, description and schema are the tool's."""

    def __init__(self, tool: Tool) -> None:
        self._tool = tool
        self._step_name = TOOL_STEP_PREFIX + tool.name

    @property
    def name(self) -> str:
        return self._tool.name

    @property
    def description(self) -> str:
        return self._tool.description

    @property
    def parameters(self) -> Mapping[str, JsonValue]:
        return self._tool.parameters

    async def call(self, arguments: dict[str, JsonValue]) -> str:
        """Run the tool once per run; a replay returns the recorded text or failure. An
        approved call found started but not finished by a process that died is not run again.
        """

        async def call_once() -> str | _ToolFailure:
            return await self._recorded_call(arguments)

        async def not_again() -> str | _ToolFailure:
            return _ToolFailure("ApprovedCallInterrupted", APPROVED_CALL_INTERRUPTED)

        outcome = await step(
            self._step_name, not_again if await self._interrupted_approval() else call_once
        )
        if isinstance(outcome, _ToolFailure):
            raise _standin(outcome)
        return outcome

    async def _interrupted_approval(self) -> bool:
        """For an approved call, take the ``approved`` step (committed now, before the tool
        starts); whether an earlier process took it and died before the tool's outcome."""
        steps = _RUN_STEPS.get()
        call_id = current_tool_call_id()
        if steps is None or call_id is None or call_id not in _APPROVED.get():
            return False
        taken_now = False

        async def take() -> str:
            nonlocal taken_now
            taken_now = True
            return call_id

        await steps.step(APPROVED_STEP_PREFIX + self._tool.name, take)
        return not taken_now and not steps.next_is_recorded()

    async def _recorded_call(self, arguments: dict[str, JsonValue]) -> str | _ToolFailure:
        try:
            return await self._tool.call(arguments)
        except ToolArgumentsError:
            raise  # picklable, and the Worker words it differently
        except Exception as exc:  # recorded as the Worker will word it
            return _ToolFailure(type(exc).__name__, str(exc))


def _standin(failure: _ToolFailure) -> Exception:
    """An exception whose class name and message are the recorded ones: the Worker reports
    ``{type name}: {message}``, so the model reads the same text live and on replay."""
    standin: type[Exception] = type(failure.type_name, (Exception,), {"__module__": __name__})
    return standin(failure.message)


@final
class StepSummariser:
    """A ``Summariser`` whose every summary is a step."""

    def __init__(self, summariser: Summariser) -> None:
        self._summariser = summariser

    async def summarise(self, items: Sequence[Item], /) -> SummaryText:
        """Summarise once per run: a replay returns the recorded summary (or failure)."""

        async def summarise_once() -> SummaryText:
            return await self._summariser.summarise(items)

        return await step(SUMMARY_STEP, summarise_once)


@final
@dataclass(frozen=True, slots=True)
class _HookFailure:
    event: str
    hook: str
    problem: str


@final
class StepHookPort:
    """A hook port whose every question to hooks is a step: the decision is recorded, so a
    replay takes the same path even if a hook is not deterministic, and a command hook is
    not run again. Points without hooks are not steps: the Worker does not ask them
    (``listens_to`` is the wrapped port's), or, with a trace, their decision is the fixed
    default, asked live (so a trace added or removed does not change a run's steps)."""

    def __init__(self, port: HookPort) -> None:
        self._port = port
        self._selective = port if isinstance(port, SelectiveHookPort) else None
        self._tracing = port if isinstance(port, TracingHookPort) else None

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool:
        return self._selective is None or self._selective.listens_to(point)

    async def ask(self, point: HookPoint[InputT, DecisionT], info: InputT, /) -> DecisionT:
        if self._tracing is not None and not self._tracing.has_hooks_at(point):
            return await self._port.ask(point, info)

        async def recorded() -> DecisionT | _HookFailure:
            try:
                return await self._port.ask(point, info)
            except HookFailedError as exc:
                return _HookFailure(exc.event, exc.hook, exc.problem)

        outcome = await step(HOOK_STEP_PREFIX + point.name, recorded, deferred=True)
        if isinstance(outcome, _HookFailure):
            raise HookFailedError(event=outcome.event, hook=outcome.hook, problem=outcome.problem)
        return outcome
