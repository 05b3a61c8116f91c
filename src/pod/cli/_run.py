"""``pod run`` and ``pod resume``: one real run against a model provider, with a live trace.

Exit codes (also in ``pod run --help``):
0 finished · 1 aborted or out of requests · 2 bad usage (arguments, model spec, rules,
hooks, tools, saved run, missing extra) · 3 no API key · 4 the model provider failed
(unreachable, auth, rate limit, ...) · 5 paused by a hook and saved · 130 cancelled (Ctrl-C).

Every option is checked before the first model request, and every problem is reported
(one line each), not just the first. A pause is answered in the terminal when there is
one (stdin a terminal, no ``--no-input``); otherwise the run is saved for ``pod resume``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shlex
import sys
import threading
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from llm_worker import (
    Approve,
    ContextTooLongError,
    LlmClient,
    LlmClientError,
    Message,
    Paused,
    SnapshotError,
    WorkerStateError,
)

from ..command._claude_run import ClaudeRun
from ..command._claude_session_hooks import SessionHookOutcome
from ..hooks._errors import PodUsageError
from ..runtime._pod import Pod, PodResult
from ._decisions import (
    USER_ABORT_REASON,
    Answer,
    answered_events,
    ask_decisions,
    decisions_from_arguments,
    decisions_given,
    describe_pause,
)
from ._mcp import CommandResources
from ._options import build_pod, merged_options
from ._output import RunOutput, result_object
from ._saved import (
    DEFAULT_RUNS_FOLDER,
    RunOptions,
    SavedRun,
    SavedRunTakenError,
    new_run_id,
    now_iso,
    taking_saved_run,
    write_saved_run,
)

__all__ = ["EPILOG", "RESUME_DESCRIPTION", "RUN_DESCRIPTION", "resume_command", "run_command"]

EXIT_FINISHED: Final = 0
EXIT_ABORTED: Final = 1
EXIT_USAGE: Final = 2
EXIT_NO_KEY: Final = 3
EXIT_PROVIDER: Final = 4
EXIT_PAUSED: Final = 5
EXIT_CANCELLED: Final = 130

EPILOG: Final = (
    "exit codes: 0 finished, 1 aborted or out of requests, 2 bad usage (arguments, model "
    "spec, rules, hooks, tools, saved run, missing extra), 3 no API key, 4 the model "
    "provider failed (unreachable, auth, rate limit), 5 paused by a hook (the run is saved), "
    "130 cancelled (Ctrl-C; the run is saved)"
)

RUN_DESCRIPTION: Final = (
    "Run PROMPT against a model (OpenAI Chat Completions or Anthropic Messages, or any "
    "OpenAI-compatible server with --base-url). The model gets read-only tools "
    "(read_file, list_files) confined to --workdir, plus any --tools. The trace goes to "
    "stderr, the answer to stdout. When a hook pauses, the pending calls are shown and you "
    "approve, skip or abort each; without a terminal (or with --no-input) the run is saved "
    "for `pod resume`."
)

RESUME_DESCRIPTION: Final = (
    "Continue a saved run (written by `pod run` on a pause, on Ctrl-C, or with --save). "
    "It is rebuilt with the options it was saved with (model, rules, hooks, tools, ...); "
    "any option given here replaces the saved one. Answer the pause with --approve, --skip "
    "and --abort, or in the terminal when none is given. A run that is not paused takes a "
    "new PROMPT. The file is updated with the run's new state."
)

_PROVIDER_ERRORS: Final = frozenset(cls.__name__ for cls in (LlmClientError, ContextTooLongError))
_DEBUG_LOGGERS: Final = ("pod", "llm_worker", "openai", "anthropic", "httpx")


@dataclass
class _Session:
    """Everything a checked command line gives: the Pod and how to report and save."""

    args: argparse.Namespace
    options: RunOptions
    client: LlmClient
    pod: Pod
    output: RunOutput
    run_id: str
    save_to: Path | None
    """Where to save whatever the outcome (``--save``, or the resumed file); else only on a
    pause without a prompt or Ctrl-C, to the default folder."""
    claude: ClaudeRun
    resources: CommandResources
    """The event loop the run is driven in, its MCP servers and its span exporter."""
    source: str = "startup"
    """``SessionStart``'s ``source``: ``startup`` (``pod run``) or ``resume``."""


def _built_or_exit_code(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    saved: dict[str, Any],
    output: RunOutput,
    problems: list[str],
    *,
    resources: CommandResources,
    run_id: str,
) -> tuple[RunOptions, LlmClient, Pod, ClaudeRun] | int:
    """The Pod of run ``run_id`` the options (over ``saved``) build, or the exit code once
    every problem (with those already in ``problems``) is reported."""
    built = build_pod(args, merged_options(args, saved), output, problems, resources, run_id=run_id)
    if problems:
        return _usage_failure(parser, problems, output)
    if not isinstance(built, tuple):
        output.error(built or "cannot start the run")
        return EXIT_NO_KEY
    return built


def _usage_failure(parser: argparse.ArgumentParser, problems: list[str], output: RunOutput) -> int:
    """argparse-style: the usage line, then one ``pod run: error: ...`` line per problem."""
    output.end_streamed_line()
    sys.stderr.write(parser.format_usage())
    for problem in problems:
        sys.stderr.write(f"{parser.prog}: error: {problem}\n")
    sys.stderr.flush()
    return EXIT_USAGE


def _configure_debug_logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    for name in _DEBUG_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)


# -- the commands -----------------------------------------------------------------------


def run_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Carry out ``pod run``; return the exit code."""
    output = RunOutput(json_lines=args.json, quiet=args.quiet, debug=args.debug)
    if args.debug:
        _configure_debug_logging()
    with CommandResources() as resources:
        run_id = new_run_id()
        built = _built_or_exit_code(
            args, parser, {}, output, [], resources=resources, run_id=run_id
        )
        if isinstance(built, int):
            return built
        options, client, pod, claude = built
        session = _Session(args, options, client, pod, output, run_id, args.save, claude, resources)
        prompt: str = args.prompt
        return _drive(session, lambda: pod.run(prompt), None)


def resume_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Carry out ``pod resume``; return the exit code."""
    output = RunOutput(json_lines=args.json, quiet=args.quiet, debug=args.debug)
    if args.debug:
        _configure_debug_logging()
    try:
        with taking_saved_run(args.saved) as (saved, take), CommandResources() as resources:
            return _resume_taken(args, parser, output, saved, take, resources=resources)
    except (OSError, SnapshotError, SavedRunTakenError) as exc:
        problem = f"{args.saved}: {getattr(exc, 'strerror', None) or exc}"
        return _usage_failure(parser, [problem], output)


def _resume_taken(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    output: RunOutput,
    saved: SavedRun,
    take: Callable[[], None],
    *,
    resources: CommandResources,
) -> int:
    """``pod resume`` of the saved run this process holds; ``take`` marks it resumed once
    every check passed, before anything runs."""
    problems: list[str] = []
    paused = None if saved.paused is None else _with_digests(saved.paused, saved)
    answer: Answer | None = None
    if paused is not None:
        if args.prompt is not None:
            problems.append(
                "the saved run is paused: answer it (--approve, --skip, --abort), "
                "then give a new prompt once it is done"
            )
        if decisions_given(args):
            answered = decisions_from_arguments(args, paused)
            if isinstance(answered, list):
                problems.extend(answered)
            else:
                answer = answered
    else:
        if decisions_given(args):
            problems.append("the saved run is not paused: there is no call to decide")
        if args.prompt is None:
            problems.append("the saved run is not paused: give the next PROMPT")
    built = _built_or_exit_code(
        args,
        parser,
        saved.options.model_dump(),
        output,
        problems,
        resources=resources,
        run_id=saved.run_id,
    )
    if isinstance(built, int):
        return built
    options, client, pod, claude = built
    try:
        pod.restore(saved.pod)
    except (PodUsageError, SnapshotError) as exc:
        return _usage_failure(parser, [f"{args.saved}: {exc}"], output)
    if answer is not None:
        refused = _approvals_refused(answer, saved.pod.worker.pending_digests())
        if refused:  # before the saved run is taken: nothing is lost, it can be answered again
            return _usage_failure(parser, refused, output)
    save_to = args.save or args.saved
    session = _Session(
        args, options, client, pod, output, saved.run_id, save_to, claude, resources, "resume"
    )
    output.paused_by = saved.paused_by
    take()
    if paused is None:
        prompt = str(args.prompt)
        return _drive(session, lambda: pod.run(prompt), None)
    if answer is None:
        return _drive(session, None, paused)
    _record(output, paused, answer)
    if answer.end_run:
        return _drive(session, lambda: pod.abort(USER_ABORT_REASON), None)
    decisions = answer.decisions
    return _drive(session, lambda: pod.resume(decisions), None)


def _with_digests(paused: Paused, saved: SavedRun) -> Paused:
    """``paused``, its calls saved before calls had digests given the saved run's (the file
    is the one record of what was shown)."""
    if all(call.digest for call in paused.pending_calls):
        return paused
    digests = saved.pod.worker.pending_digests()
    calls = tuple(
        call.model_copy(update={"digest": call.digest or digests.get(call.call_id, "")})
        for call in paused.pending_calls
    )
    return paused.model_copy(update={"pending_calls": calls})


def _approvals_refused(answer: Answer, current: Mapping[str, str]) -> list[str]:
    """Every approval whose digest (what the approver was shown) is not the saved call's now."""
    return [
        f"{call_id!r} not approved: it was shown with digest {decision.digest}, the saved "
        f"run's call is now {current.get(call_id, '(not pending)')}"
        for call_id, decision in answer.decisions.items()
        if isinstance(decision, Approve) and current.get(call_id) != decision.digest
    ]


# -- running, answering pauses, saving ---------------------------------------------------


def _record(output: RunOutput, paused: Paused, answer: Answer) -> None:
    """A person's decisions go in the trace (and ``--json``) as the hooks' do."""
    for event in answered_events(paused, answer):
        output.trace(event)


def _answer_under_review(pod: Pod, paused: Paused) -> str | None:
    """At a ``TURN_END`` pause, the answer the run would give: a person reviews it."""
    if paused.point != "turn_end":
        return None
    for item in reversed(pod.history):
        if isinstance(item, Message) and item.role == "assistant":
            return item.text
    return None


def _drive(
    session: _Session,
    start: Callable[[], Coroutine[Any, Any, PodResult]] | None,
    paused: Paused | None,
) -> int:
    """Run ``start`` (or answer ``paused`` first); answer pauses in the terminal if there
    is one; report, save when due, and return the exit code."""
    pod, output = session.pod, session.output
    interactive = sys.stdin.isatty() and not session.args.no_input
    runner = session.resources.runner
    result: PodResult | None = paused
    asking = False
    if start is None and not interactive:
        start = pod.resume  # nobody to ask: the hooks are asked again
    try:
        _session_hooks(session, runner, "SessionStart", {"source": session.source})
        if start is not None:
            result = _asked_hooks(session, runner, runner.run(start()))
        elif result is not None:
            result = _asked_hooks(session, runner, result)
        while isinstance(result, Paused) and interactive:
            _waiting(session, runner, result)
            output.end_streamed_line()
            try:
                asking = True
                answer = ask_decisions(
                    result,
                    decided_by=output.paused_by,
                    console=output.errors,
                    under_review=_answer_under_review(pod, result),
                )
            except EOFError:
                output.note("")
                break  # nobody to answer any more: save it
            asking = False  # not in a finally: Ctrl-C at the prompt must still see it
            _record(output, result, answer)
            if answer.end_run:  # a pause with no pending call: ends as a hook's Abort would
                result = runner.run(pod.abort(USER_ABORT_REASON))
            else:
                result = _asked_hooks(session, runner, runner.run(pod.resume(answer.decisions)))
    except KeyboardInterrupt:
        if asking:
            output.note("")  # the prompt's line is left open
        still_paused = isinstance(result, Paused) and pod.status == "paused"
        code = _cancelled(session, result if still_paused and isinstance(result, Paused) else None)
        _close(session, before_closing=lambda: _exit_if_a_tool_thread_blocks(code))
        return code
    if isinstance(result, Paused) and not interactive:
        _waiting(session, runner, result)  # saved for a human to answer
    _session_hooks(session, runner, "SessionEnd", {"reason": "other"})
    _close(session)
    assert result is not None
    return _report(session, result)


def _asked_hooks(session: _Session, runner: asyncio.Runner, result: PodResult) -> PodResult:
    """Claude Code's ``PermissionRequest``: at a pause for approval, each pending call is
    put to the hooks first; what they allow is approved (by its digest), what they deny is
    skipped, the rest waits for a human as before."""
    while isinstance(result, Paused) and result.pending_calls:
        decisions, notes = runner.run(session.claude.permission_decisions(result))
        for note in notes:
            session.output.note(note)
        if not decisions:
            break
        result = runner.run(session.pod.resume(decisions))
    return result


def _waiting(session: _Session, runner: asyncio.Runner, paused: Paused) -> None:
    """Claude Code's ``Notification``: the run waits for a human."""
    _report_session_hooks(session, runner.run(session.claude.notify_waiting(paused)))


def _session_hooks(
    session: _Session, runner: asyncio.Runner, event_name: str, fields: Mapping[str, object]
) -> None:
    """Run the Claude Code hooks of ``event_name`` in file order; what ``SessionStart``
    prints is queued for the model, failures and ``systemMessage`` are one warning line."""
    _report_session_hooks(session, runner.run(session.claude.run_session_hooks(event_name, fields)))


def _report_session_hooks(session: _Session, outcomes: Sequence[SessionHookOutcome]) -> None:
    for outcome in outcomes:
        if outcome.warning:
            session.output.note(f"warning: {outcome.warning}")
        if outcome.context:
            session.pod.notify(outcome.context)


def _close(session: _Session, *, before_closing: Callable[[], None] | None = None) -> None:
    # The MCP servers stop and the spans are sent before anything else: ``before_closing``
    # may leave the process (see _exit_if_a_tool_thread_blocks), and runner.close() waits
    # for the worker threads of sync tools.
    runner, resources = session.resources.runner, session.resources
    close = getattr(session.client, "aclose", None)
    try:
        resources.release()
        if close is not None:
            runner.run(close())
        if before_closing is not None:
            before_closing()
    finally:
        runner.close()


def _report(session: _Session, result: PodResult) -> int:
    output, pod = session.output, session.pod
    snapshot: Path | None = None
    reason: str | None = None
    match result.kind:
        case "finished":
            output.answer(result.text)
            code = EXIT_FINISHED
        case "aborted":
            code = EXIT_PROVIDER if result.error_type in _PROVIDER_ERRORS else EXIT_ABORTED
            reason = result.reason.replace("api_key=...", "--api-key")  # CLI words
            output.error(f"aborted: {reason}")
        case "limit_reached":
            code = EXIT_ABORTED
            reason = f"the turn used its {result.limit} model requests"
            output.error(f"stopped: {reason}")
        case "paused":
            code = EXIT_PAUSED
            reason = result.reason
            output.note(describe_pause(result, output.paused_by) + _pending(result))
            snapshot = _save_or_say_why(session, result)
            if snapshot is not None:
                _say_saved(session, snapshot, result)
    if result.kind != "paused" and session.save_to is not None:
        snapshot = _save_or_say_why(session, None)
        if snapshot is not None:
            output.note(f"saved: {snapshot}")
    output.closing_line(pod.usage)
    output.result(
        result_object(
            result,
            status=result.kind,
            exit_code=code,
            usage=pod.usage,
            stats=output.stats,
            snapshot=str(snapshot) if snapshot is not None else None,
            reason=reason,
        )
    )
    return code


def _cancelled(session: _Session, paused: Paused | None) -> int:
    output, pod = session.output, session.pod
    snapshot = _save_or_say_why(session, paused)
    output.error(f"cancelled: {_interrupted_state(len(pod.history), paused)}")
    if snapshot is not None:
        _say_saved(session, snapshot, paused)
    output.result(
        result_object(
            paused,
            status="cancelled",
            exit_code=EXIT_CANCELLED,
            usage=pod.usage,
            stats=output.stats,
            snapshot=str(snapshot) if snapshot is not None else None,
            reason="interrupted",
        )
    )
    return EXIT_CANCELLED


def _interrupted_state(items: int, paused: Paused | None) -> str:
    """What an interrupted run left, truthfully: at a pause its calls wait, undecided."""
    if paused is not None and paused.pending_calls:
        calls = ", ".join(call.call_id for call in paused.pending_calls)
        return (
            f"the run was interrupted at a pause ({items} items); its pending calls "
            f"({calls}) are saved undecided, for pod resume to decide"
        )
    return (
        f"the run was interrupted; the history is well-formed ({items} items, every tool "
        "call has its result)"
    )


def _save_or_say_why(session: _Session, paused: Paused | None) -> Path | None:
    """Save the run; on failure say why (the outcome is still reported) and return None."""
    try:
        return _save(session, paused)
    except (OSError, WorkerStateError) as exc:
        session.output.error(f"could not save the run: {exc}")
        return None


def _save(session: _Session, paused: Paused | None) -> Path:
    path = session.save_to or DEFAULT_RUNS_FOLDER / f"{session.run_id}.json"
    write_saved_run(
        SavedRun(
            run_id=session.run_id,
            created=now_iso(),
            options=session.options,
            paused=paused,
            paused_by=session.output.paused_by if paused is not None else None,
            pod=session.pod.snapshot(),
        ),
        path,
    )
    return path


def _say_saved(session: _Session, path: Path, paused: Paused | None) -> None:
    """Print where the run is and the command that continues it."""
    output = session.output
    command = ["pod", "resume", str(path)]
    if paused is not None:
        command += [f"--approve={call.call_id}" for call in paused.pending_calls]
    else:
        command.append("PROMPT")
    key = "  (add --api-key: keys are never saved)" if session.args.api_key else ""
    output.note(f"saved: {path}")
    output.note(f"continue: {shlex.join(command)}{key}")
    if paused is not None and paused.pending_calls:
        output.note("  (or --skip CALL_ID=REASON, or --abort; with no decision it asks here)")


def _pending(paused: Paused) -> str:
    if not paused.pending_calls:
        return ""
    return "; pending: " + ", ".join(f"{c.tool_name} ({c.call_id})" for c in paused.pending_calls)


def _exit_if_a_tool_thread_blocks(code: int) -> None:
    """Exit now if a sync tool is still running in a worker thread.

    A thread cannot be interrupted: waiting for it (as interpreter shutdown would) could
    take as long as the tool does. The run is already closed and reported, so leave.
    """
    blocked = [
        thread
        for thread in threading.enumerate()
        if thread.is_alive() and not thread.daemon and thread is not threading.main_thread()
    ]
    if blocked:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
