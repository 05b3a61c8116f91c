"""``pod worker``, ``pod submit``, ``pod approve``, ``pod runs``: durable runs from the shell.

Results go to stdout (``--json`` for scripts), diagnostics to stderr. Exit codes: 0 done,
1 the database or the run failed, 2 bad usage (one line; ``--debug`` adds the traceback).
The ``dbos`` extra is imported only when one of these commands runs.

Decisions use the vocabulary and the code of saved runs (``_decisions``): ``--approve
CALL_ID``, ``--skip CALL_ID[=REASON]``, ``--abort``; with none, ``pod approve`` asks in a
terminal, as ``pod resume`` does, and otherwise lets the hooks be asked again.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, assert_never, cast

from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from llm_worker import Abort, Approve, Skip

from ..command._claude_run import ClaudeCodeFiles
from ..hooks._errors import PodUsageError
from ..toolsets._toolsets import TOOLSETS
from ._decisions import (
    USER_ABORT_REASON,
    Answer,
    add_decision_arguments,
    ask_decisions,
    decisions_from_arguments,
    decisions_given,
)
from ._load import (
    LoadError,
    _load_object,  # pyright: ignore[reportPrivateUsage]
)
from ._options import add_claude_code_arguments, claude_code_paths
from ._tables import Records, print_records

if TYPE_CHECKING:
    from ..durable import DurableAgent, DurableRuns, RunDecision, RunInfo

__all__ = ["add_durable_commands", "durable_command"]

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
EXIT_PAUSED: Final = 5
_COMMANDS: Final = frozenset({"worker", "submit", "approve", "runs"})
_WORKER_OPTIONS: Final = {
    "executor_id": "--executor-id",
    "concurrency": "--concurrency",
    "worker_concurrency": "--worker-concurrency",
    "heartbeat_seconds": "--heartbeat",
    "dead_after_seconds": "--dead-after",
}
"""The ``pod worker`` option of each ``DurableSettings`` field it sets, for error lines."""


def _at_least_one(text: str) -> int:
    """argparse's type of a count: a whole number of at least 1 (argparse says the rest)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not {text!r}")
    return value


def _database(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        metavar="URL",
        help="system database: sqlite:///PATH or postgresql://... "
        "(default: $POD_DATABASE_URL, else sqlite:///.pod/durable.sqlite)",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")


def add_durable_commands(add_parser: Callable[..., argparse.ArgumentParser]) -> None:
    """Register ``worker``, ``submit``, ``approve`` and ``runs`` (``add_parser`` is the
    ``pod`` parser's subcommand adder)."""
    worker = add_parser(
        "worker",
        help="serve durable runs: recover this worker's runs, take queued ones",
        description="Serve the durable runs of the agents in APP until stopped (SIGTERM, "
        "Ctrl-C). A worker restarted under the same --executor-id recovers the runs it held; "
        "on PostgreSQL, live workers also take over the runs of a worker that stopped "
        "beating for --dead-after seconds.",
    )
    worker.add_argument(
        "--app", required=True, metavar="MODULE:ATTR", help="a DurableAgent (or a list of them)"
    )
    worker.add_argument(
        "--executor-id",
        help="this worker's name among workers (default: local on SQLite, a fresh name per "
        "process on PostgreSQL)",
    )
    worker.add_argument(
        "--concurrency", type=int, help="runs of the queue in progress at once, all workers"
    )
    worker.add_argument("--worker-concurrency", type=int, help="runs this worker takes at once")
    worker.add_argument(
        "--heartbeat",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="PostgreSQL: how often this worker marks itself alive (default 5)",
    )
    worker.add_argument(
        "--dead-after",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="PostgreSQL: a worker silent this long is dead and its runs are taken over "
        "(default 30, at least twice --heartbeat)",
    )
    worker.add_argument(
        "--sync",
        choices=("full", "normal"),
        default="full",
        help="full (default) syncs every checkpoint to disk; normal survives a crashed "
        "worker process but may lose the last checkpoints with the machine",
    )
    add_claude_code_arguments(worker)  # every run of the agents served, as in pod run
    worker.add_argument(
        "--toolset",
        choices=TOOLSETS,
        help="the built-in tools added to each agent's own with Claude Code hooks: "
        "claude-code (Bash, Read, Write, Edit, Glob, Grep; the default) or workspace",
    )
    worker.add_argument(
        "--workdir",
        help="the project folder: where the hooks run and the built-in tools may work "
        "(default: the current folder)",
    )
    _database(worker)

    submit = add_parser(
        "submit",
        help="queue a durable run for the workers",
        description="Queue PROMPT as a durable run of AGENT; print its run id.",
    )
    submit.add_argument("prompt", help="what to ask")
    submit.add_argument("--agent", required=True, help="the DurableAgent's name")
    submit.add_argument("--run-id", help="the run id (default: a fresh one)")
    submit.add_argument("--wait", action="store_true", help="wait for the run to end")
    submit.add_argument("--json", action="store_true", help="print JSON")
    _database(submit)

    approve = add_parser(
        "approve",
        help="decide the pending tool calls of a paused durable run",
        description="Send a decision to the paused run RUN_ID; whichever worker holds it "
        "continues. With no decision: asks in a terminal, else the hooks are asked again.",
    )
    approve.add_argument("run_id", metavar="RUN_ID")
    add_decision_arguments(approve)
    approve.add_argument("--no-input", action="store_true", help="never ask in the terminal")
    approve.add_argument("--json", action="store_true", help="print JSON")
    _database(approve)

    runs = add_parser(
        "runs",
        help="list durable runs, or show one (runs show RUN_ID)",
        description="List durable runs: status, pending approvals, started, last step. "
        "`pod runs show RUN_ID` prints the history a run recorded so far.",
    )
    runs.add_argument("show", nargs="?", choices=("show",), help=argparse.SUPPRESS)
    runs.add_argument("run_id", nargs="?", metavar="RUN_ID", help=argparse.SUPPRESS)
    runs.add_argument("--limit", type=_at_least_one, default=50, help="newest N runs (default 50)")
    runs.add_argument("--json", action="store_true", help="print JSON")
    _database(runs)


def durable_command(args: argparse.Namespace, console: Console, errors: Console) -> int | None:
    """Run a durable command; ``None`` if ``args.command`` is not one."""
    if args.command not in _COMMANDS:
        return None

    def fail(code: int, message: str, exc: BaseException | None = None) -> int:
        if exc is not None and args.debug:
            errors.print(escape("".join(traceback.format_exception(exc))), highlight=False)
        first_line = message.strip().splitlines()[0] if message.strip() else "failed"
        sys.stderr.write(f"error: {first_line}\n")  # one line, unwrapped (--debug: the rest)
        return code

    try:
        from .. import durable
    except ImportError as exc:
        hint = "durable runs need the dbos extra: pip install 'llm-pod[dbos]'"
        return fail(EXIT_USAGE, f"{hint} ({exc})")
    _quiet_libraries(debug=args.debug)
    try:
        database = _checked_database(args.database)
        if args.command == "runs":
            _check_runs_arguments(args)  # before the database: a typo costs nothing
        if args.command == "worker":
            return _worker(args, database, errors)
        with durable.DurableRuns(database) as runs:
            if args.command == "submit":
                return _submit(args, runs, console, errors)
            if args.command == "approve":
                return _approve(args, runs, console, errors)
            return _runs(args, runs, console)
    except (PodUsageError, LoadError) as exc:
        return fail(EXIT_USAGE, str(exc), exc)
    except Exception as exc:  # the database or DBOS failed: one line, traceback with --debug
        return fail(EXIT_FAILED, _database_failure(args.database, exc), exc)


def _quiet_libraries(*, debug: bool) -> None:
    """No DBOS or SQLAlchemy log line unless ``--debug`` (then everything, at DEBUG)."""
    for name in ("dbos", "sqlalchemy"):
        logger = logging.getLogger(name)
        logger.disabled = not debug
        if debug:
            logger.setLevel(logging.DEBUG)


def _checked_database(given: str | None) -> str:
    from ..durable import database_url
    from ..durable._system import DATABASE_ENV

    try:
        return database_url(given)
    except PodUsageError as exc:
        source = "--database" if given else f"${DATABASE_ENV}"
        raise PodUsageError(f"{source}: {exc}") from None


def _database_failure(given: str | None, exc: BaseException) -> str:
    """What went wrong with the database, in the words of its driver (first line)."""
    cause: BaseException = exc
    while cause.__cause__ is not None or getattr(cause, "orig", None) is not None:
        cause = getattr(cause, "orig", None) or cause.__cause__ or cause
        if cause is exc:
            break
    said = str(cause).strip().splitlines()[0] if str(cause).strip() else "no message"
    return f"the database failed ({given or 'default database'}): {said}"


def _approve(args: argparse.Namespace, runs: DurableRuns, console: Console, errors: Console) -> int:
    info = runs.get(args.run_id)
    if info.paused is None:
        raise PodUsageError(f"run {args.run_id} is not paused (it is {info.status})")
    if decisions_given(args):
        answer = decisions_from_arguments(args, info.paused)
        if isinstance(answer, list):
            for problem in answer:
                sys.stderr.write(f"error: {problem}\n")
            return EXIT_USAGE
    elif not args.no_input and sys.stdin.isatty():
        answer = ask_decisions(info.paused, decided_by=None, console=errors)
    else:  # nothing to send: saying "sent" would be a lie
        raise PodUsageError(
            f"no decision for run {args.run_id} and no terminal to ask in: give --approve "
            "CALL_ID, --skip CALL_ID[=REASON] or --abort"
        )
    decision = run_decision(answer)
    runs.approve(args.run_id, decision)
    if args.json:
        _print_json({"run_id": args.run_id, "sent": decision.model_dump(mode="json")})
    else:
        pending = ", ".join(c.call_id for c in info.paused.pending_calls) or "none"
        console.print(f"sent to {args.run_id} (pending calls: {pending})", highlight=False)
    return EXIT_OK


def run_decision(answer: Answer) -> RunDecision:
    """The message for a durable run of the decisions ``pod resume`` would apply."""
    from ..durable import RunDecision

    if answer.end_run:
        return RunDecision(abort=USER_ABORT_REASON)
    approve: list[str] = []
    digests: dict[str, str] = {}
    skip: dict[str, str] = {}
    abort: str | None = None
    for call_id, decision in answer.decisions.items():
        match decision:
            case Approve(digest=digest):  # the run checks it again before it approves
                approve.append(call_id)
                digests[call_id] = digest
            case Skip(reason=reason):
                skip[call_id] = reason
            case Abort(reason=reason):
                abort = reason
            case _:
                assert_never(decision)
    if abort is not None:  # the run ends at the abort: the other calls are not run
        return RunDecision(abort=abort)
    return RunDecision(approve=tuple(approve), skip=skip, digests=digests)


def _submit(args: argparse.Namespace, runs: DurableRuns, console: Console, errors: Console) -> int:
    run_id = runs.submit(args.agent, args.prompt, run_id=args.run_id)
    if not args.wait:
        if args.json:
            _print_json({"run_id": run_id})
        else:
            sys.stdout.write(run_id + "\n")
        return EXIT_OK
    errors.print(f"submitted {run_id}; waiting for it to end or pause", highlight=False)
    paused = _wait_for_end_or_pause(runs, run_id)
    if paused is not None:
        pending = list(paused.pending_calls)
        reason = paused.paused.reason if paused.paused is not None else ""
        if args.json:
            _print_json(
                {
                    "run_id": run_id,
                    "status": "paused",
                    "reason": reason,
                    "pending_calls": pending,
                    "result": None,
                }
            )
        else:
            console.print(f"{run_id}: paused", highlight=False)
        errors.print(
            f"paused: {reason or 'a hook asked for a human'}; decide with: "
            f"pod approve {run_id} " + " ".join(f"--approve {c}" for c in pending),
            highlight=False,
        )
        return EXIT_PAUSED
    outcome = runs.result(run_id)
    if args.json:
        _print_json(
            {
                "run_id": run_id,
                "status": outcome.result.kind,
                "result": outcome.result.model_dump(mode="json"),
            }
        )
    else:
        console.print(f"{run_id}: {outcome.result.kind}", highlight=False)
    return EXIT_OK if outcome.result.kind == "finished" else EXIT_FAILED


_WAIT_POLL_SECONDS: Final = 0.2


def _wait_for_end_or_pause(runs: DurableRuns, run_id: str) -> RunInfo | None:
    """Wait until the run ends (``None``) or pauses (the run, paused)."""
    while True:
        info = runs.get(run_id)
        if info.status == "paused":
            return info
        if info.status in ("finished", "failed", "cancelled"):
            return None
        time.sleep(_WAIT_POLL_SECONDS)


def _check_runs_arguments(args: argparse.Namespace) -> None:
    if args.show is None and args.run_id is not None:
        raise PodUsageError(f"unexpected {args.run_id!r}: did you mean `pod runs show RUN_ID`?")
    if args.show is not None and args.run_id is None:
        raise PodUsageError("pod runs show needs a RUN_ID")


def _runs(args: argparse.Namespace, runs: DurableRuns, console: Console) -> int:
    if args.show is None:
        listed = runs.list_runs(limit=args.limit)
        if args.json:
            _print_json([_info_json(info) for info in listed])
        else:
            print_records(console, runs_records(listed))
        return EXIT_OK
    info, shown = runs.show(args.run_id)
    if args.json:
        _print_json(
            {"run": _info_json(info), "history": [item.model_dump(mode="json") for item in shown]}
        )
        return EXIT_OK
    console.print(f"{info.run_id} ({info.agent}): {info.status}", highlight=False)
    for item in shown:
        console.print(f"  [dim]{escape(item.step)}[/] {escape(item.text)}", highlight=False)
    if info.pending_calls:
        console.print(f"pending calls: {', '.join(info.pending_calls)}", highlight=False)
    return EXIT_OK


def _info_json(info: RunInfo) -> object:
    return info.model_dump(mode="json", exclude={"paused"}) | {
        "paused": None if info.paused is None else info.paused.model_dump(mode="json")
    }


def runs_records(listed: Sequence[RunInfo]) -> Records:
    """``pod runs`` as records, one per run (its id first: never wrapped)."""
    columns = ("run", "agent", "status", "worker", "pending approvals", "started", "last step")
    rows = [
        (
            info.run_id,
            info.agent,
            info.status,
            info.executor or "",
            ", ".join(info.pending_calls),
            "" if info.started is None else info.started.strftime("%Y-%m-%d %H:%M:%S"),
            info.last_step or "",
        )
        for info in listed
    ]
    return Records("durable runs", columns, rows)


def _first_problem(exc: ValidationError) -> str:
    """One line for a setting pydantic refused: the option's problem, as the user typed it."""
    error = exc.errors()[0]
    message = str(error["msg"]).removeprefix("Value error, ")
    field = str(error["loc"][0]) if error["loc"] else ""
    return f"{_WORKER_OPTIONS[field]}: {message}" if field in _WORKER_OPTIONS else message


def _print_json(document: object) -> None:
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _claude_code_files(args: argparse.Namespace) -> ClaudeCodeFiles:
    """``--claude-settings``/``--claude-plugin``/``--workdir`` checked (before the app is
    imported: a typo costs nothing); empty without them."""
    problems: list[str] = []
    settings, plugins = claude_code_paths(
        args.claude_settings or (), args.claude_plugins or (), problems
    )
    workdir = Path(args.workdir or ".")
    if not workdir.is_dir():
        problems.append(f"--workdir {workdir}: no such folder")
    if not (args.claude_settings or args.claude_plugins):
        options = (("--toolset", args.toolset), ("--workdir", args.workdir))
        given = [flag for flag, value in options if value is not None]
        if given:
            problems.insert(
                0,
                f"{given[0]} goes with --claude-settings or --claude-plugin (without them "
                "the agents run with their own tools only)",
            )
    if problems:
        raise PodUsageError("; ".join(problems))
    return ClaudeCodeFiles(settings, plugins, str(workdir.resolve()))


def _guard_with_claude_code(
    args: argparse.Namespace,
    files: ClaudeCodeFiles,
    agents: Sequence[DurableAgent],
    errors: Console,
) -> None:
    """Every agent's runs get the hooks (and the toolset) as ``pod run`` gives them."""
    if not files:
        return
    warnings: tuple[str, ...] = ()
    for agent in agents:
        warnings = agent.use_claude_code(files, toolset=args.toolset or "claude-code")
    for warning in warnings:  # the same files for every agent: said once
        errors.print(f"warning: {escape(warning)}", highlight=False)


def _worker(args: argparse.Namespace, database: str, errors: Console) -> int:
    from dbos import DBOS

    from ..durable import DurableAgent, DurableSettings, launch, shutdown

    try:  # before the app's code is imported: a typo costs nothing
        settings = DurableSettings(
            database=database,
            sync=args.sync,
            executor_id=args.executor_id,
            concurrency=args.concurrency,
            worker_concurrency=args.worker_concurrency,
            heartbeat_seconds=args.heartbeat,
            dead_after_seconds=args.dead_after,
        )
    except ValidationError as exc:
        raise PodUsageError(_first_problem(exc)) from exc
    claude_code = _claude_code_files(args)
    loaded = _load_object(args.app)
    candidates: list[object] = (
        list(cast("Sequence[object]", loaded)) if isinstance(loaded, list | tuple) else [loaded]
    )
    agents = [a for a in candidates if isinstance(a, DurableAgent)]
    if not agents or len(agents) != len(candidates):
        raise LoadError(f"{args.app} is not a DurableAgent (or a list of them)")
    _guard_with_claude_code(args, claude_code, agents, errors)

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await launch(settings)
        names = ", ".join(a.name for a in agents)
        errors.print(f"worker {DBOS.executor_id}: serving {names}", highlight=False)
        try:
            await stop.wait()
        finally:
            shutdown()

    asyncio.run(serve())
    return EXIT_OK
