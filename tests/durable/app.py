"""Durable agents the tests run in other processes, and the entry points those processes use.

The model is a function of the request (the session is the prompt, the step is the number of
tool results so far), so a recovered run asks it the same questions. Every model request and
tool execution appends a line to ``events.log`` in ``$POD_TEST_COUNTS``, and every trace event
to ``trace.log``: counted outside the process, the lines survive a SIGKILL.
``$POD_TEST_BLOCK_TOOL=K`` (or ``..._MODEL=K``) makes tool call K (model request K) write
``blocked`` and hang, for the test to kill the process there.

    python -m tests.durable.app run AGENT PROMPT RUN_ID     # start a run, print its outcome
    python -m tests.durable.app until-paused AGENT PROMPT RUN_ID
    python -m tests.durable.app recover RUN_ID              # recover, print the outcome
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

from llm_worker import LlmRequest, ScriptedCall, ScriptedClient, ScriptedReply, ToolResult, tool
from pod import (
    AbortInfo,
    Continue,
    HookRegistry,
    Pause,
    PodSettings,
    Skip,
    ToolCallSummary,
    TraceEvent,
    TurnEndInfo,
    events,
)
from pod.durable import DurableAgent, DurableRuns, DurableSettings, launch, shutdown
from pod.telemetry import Telemetry

STEPS: Final = 4
"""Tool calls per session before the model answers with text."""
APPROVAL_STEP: Final = 1
"""The step the approval agent's hook pauses at."""


def _log(line: str, file: str = "events.log") -> None:
    path = Path(os.environ["POD_TEST_COUNTS"]) / file
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())  # one write: whole lines, even with a kill
    finally:
        os.close(fd)


def _blocked_here(variable: str, step: int) -> bool:
    return os.environ.get(variable) == str(step)


def _signal_blocked() -> None:
    (Path(os.environ["POD_TEST_COUNTS"]) / "blocked").write_text("yes")


@tool
async def work(session: str, step: int) -> str:
    """Do one step of a session's work."""
    _log(f"start {session}:{step}")
    if _blocked_here("POD_TEST_BLOCK_TOOL", step):
        _signal_blocked()
        await asyncio.sleep(3600)
    await asyncio.sleep(float(os.environ.get("POD_TEST_TOOL_SECONDS", "0")))
    _log(f"end {session}:{step}")
    return f"{session}: step {step} done"


def reply(request: LlmRequest) -> ScriptedReply:
    """The scripted model: one ``work`` call per step, then a final text."""
    session = next(i.text for i in request.items if getattr(i, "role", None) == "user")
    done = sum(isinstance(item, ToolResult) for item in request.items)
    _log(f"model {session}:{done}")
    if _blocked_here("POD_TEST_BLOCK_MODEL", done):
        _signal_blocked()
        time.sleep(3600)  # the whole process hangs in the model request
    if done < STEPS:
        call = ScriptedCall(
            name="work", arguments={"session": session, "step": done}, call_id=f"{session}-{done}"
        )
        return ScriptedReply(calls=(call,))
    return ScriptedReply(text=f"{session}: finished after {done} steps")


def _watch(call: ToolCallSummary) -> Continue | Skip:
    """Continue; or, with ``$POD_TEST_HOOK_SKIPS`` set, skip: a hook that changed its mind
    (a recovered run must replay the recorded decisions, not ask again)."""
    if os.environ.get("POD_TEST_HOOK_SKIPS"):
        return Skip(reason=f"the hook changed its mind about step {call.argument('step')}")
    return Continue()


def _trace(event: TraceEvent) -> None:
    """Every trace event, in ``trace.log``, after the id of the process that reported it."""
    _log(f"{os.getpid()} {event.actor}: {event.message} -> {event.decision}", "trace.log")


def _ask_a_human(call: ToolCallSummary) -> Continue | Pause:
    if call.argument("step") == APPROVAL_STEP:
        return Pause(reason="a human approves step 1")
    return Continue()


def _review_the_answer(info: TurnEndInfo) -> Pause:
    return Pause(reason="a human reviews the answer")


def _count_abort(info: AbortInfo) -> None:
    _log(f"abort {info.reason}")


def parts(*, approval: bool = False, review: bool = False) -> dict[str, Any]:
    """The parts of the agents, also for a plain ``Pod`` (the uninterrupted reference).
    ``review``: the turn pauses at its end, with no pending call."""
    hooks = HookRegistry()
    hooks.on(events.PRE_TOOL_CALL, _ask_a_human if approval else _watch)
    hooks.on(events.ABORT, _count_abort)
    if review:
        hooks.on(events.TURN_END, _review_the_answer)
    return {
        "client": ScriptedClient(then=reply, record=False),
        "tools": [work],
        "hooks": hooks,
        "settings": PodSettings(max_requests_per_turn=STEPS + 2),
        "trace": _trace,
    }


CLAUDE_COMMANDS: Final = ("rm -rf keep", "echo hi >> made.txt", "echo again >> made.txt")
"""What the model of the ``claude`` agent runs with Claude Code's ``Bash``, one per request."""


def claude_reply(request: LlmRequest) -> ScriptedReply:
    """The ``claude`` agent's model: each of ``CLAUDE_COMMANDS`` in turn, then a text."""
    done = sum(isinstance(item, ToolResult) for item in request.items)
    _log(f"model claude:{done}")
    if _blocked_here("POD_TEST_BLOCK_MODEL", done):
        _signal_blocked()
        time.sleep(3600)
    if done < len(CLAUDE_COMMANDS):
        call = ScriptedCall(
            name="Bash", arguments={"command": CLAUDE_COMMANDS[done]}, call_id=f"bash-{done}"
        )
        return ScriptedReply(calls=(call,))
    return ScriptedReply(text="claude: done")


claude_agent: Final = DurableAgent(
    "claude", ScriptedClient(then=claude_reply, record=False), trace=_trace
)
"""No tools of its own: ``pod worker --claude-settings`` gives it Claude Code's."""


class _SpanLog(SpanExporter):
    """Each ended span, at once, as a line of ``spans.log``: name, ids, the process."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        for span in spans:
            context, parent = span.context, span.parent
            record = {
                "name": span.name,
                "trace_id": f"{context.trace_id:032x}" if context else None,
                "parent": f"{parent.span_id:016x}" if parent else None,
                "pid": os.getpid(),
                "attributes": dict(span.attributes or {}),
            }
            _log(json.dumps(record, default=str), "spans.log")
        return SpanExportResult.SUCCESS


def _telemetry() -> Telemetry:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(_SpanLog()))  # survives a SIGKILL
    return Telemetry(agent_name="otel", tracer_provider=provider, model="scripted")


crash_agent: Final = DurableAgent("crash", **parts())
otel_agent: Final = DurableAgent("otel", **parts(), telemetry=_telemetry())
approval_agent: Final = DurableAgent("approval", **parts(approval=True))
scale_agent: Final = DurableAgent("scale", **parts())
review_agent: Final = DurableAgent("review", **parts(review=True))
AGENTS: Final = {
    a.name: a for a in (crash_agent, approval_agent, scale_agent, review_agent, otel_agent)
}
AGENTS_LIST: Final = list(AGENTS.values())
"""What `pod worker --app tests.durable.app:AGENTS_LIST` serves."""


async def _main(command: str, arguments: list[str]) -> int:
    await launch(DurableSettings(database=os.environ["POD_DATABASE_URL"]))
    try:
        if command == "run":
            agent, prompt, run_id = arguments
            outcome = await AGENTS[agent].run(prompt, run_id=run_id)
            sys.stdout.write(outcome.model_dump_json() + "\n")
        elif command == "until-paused":
            agent, prompt, run_id = arguments
            await AGENTS[agent].start(prompt, run_id=run_id)
            with DurableRuns(os.environ["POD_DATABASE_URL"]) as runs:
                # Polls the database: the pause is written by the workflow, not signalled here.
                while runs.get(run_id).status != "paused":  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
        elif command == "recover":
            (run_id,) = arguments
            with DurableRuns(os.environ["POD_DATABASE_URL"]) as runs:
                outcome = await asyncio.to_thread(runs.result, run_id)
            sys.stdout.write(outcome.model_dump_json() + "\n")
        else:
            sys.stderr.write(f"unknown command {command}\n")
            return 2
    finally:
        shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(_main(sys.argv[1], sys.argv[2:])))
