"""The ``pod`` command line (also ``python -m pod``).

Every listing is derived from the event catalogue (``pod.events.CATALOGUE``): there is no
second list of events, fields or decisions here.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, get_origin

from rich.console import Console
from rich.markup import escape

from ..hooks import _events as events
from ..hooks._events import UnknownEventError
from ._durable import add_durable_commands, durable_command
from ._options import add_resume_arguments, add_run_arguments
from ._output import console_for
from ._rules import (
    add_command_schema_arguments,
    add_rules_parser,
    command_schema_of,
    rules_command,
)
from ._run import (
    EPILOG,
    RESUME_DESCRIPTION,
    RUN_DESCRIPTION,
    resume_command,
    run_command,
)
from ._tables import Records, print_records

__all__ = ["main"]

EXIT_USAGE = 2
EXIT_INTERNAL = 1
EXIT_INTERRUPTED = 130
EXIT_CLOSED_PIPE = 141
"""128 + SIGPIPE: what a shell reports for ``cat`` when its reader went away."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pod", description="llm-pod: an LLM agent runtime with a read-only hook API."
    )
    parser.add_argument("--version", action="version", version=f"pod (llm-pod) {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "demo",
        help="run the scripted showcase (no network)",
        description="Run a scripted session showing interceptors and hooks firing in order.",
    )
    listing = commands.add_parser(
        "events",
        help="list the hook events: Input fields and legal decisions",
        description="Print the hook event catalogue as a table.",
    )
    listing.add_argument("--json", action="store_true", help="print JSON")
    schema = commands.add_parser(
        "schema",
        help="print the JSON Schema of event Inputs and Outputs",
        description=(
            "Print the JSON Schema of each event's Input (what a hook receives) and Output "
            "(the decisions it may return), as one JSON object keyed by event name."
        ),
    )
    schema.add_argument(
        "event",
        nargs="?",
        help="one event (e.g. pre_tool_call); all events when omitted",
    )
    add_command_schema_arguments(schema)
    add_rules_parser(commands)
    run = commands.add_parser(
        "run",
        help="run one prompt against a real model, with a live trace",
        description=RUN_DESCRIPTION,
        epilog=EPILOG,
    )
    add_run_arguments(run)
    run.set_defaults(command_parser=run)
    resume = commands.add_parser(
        "resume",
        help="continue a saved run: answer its pause, or give it a new prompt",
        description=RESUME_DESCRIPTION,
        epilog=EPILOG,
    )
    add_resume_arguments(resume)
    resume.set_defaults(command_parser=resume)
    add_durable_commands(commands.add_parser)
    return parser


def _version() -> str:
    try:
        return importlib.metadata.version("llm-pod")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def _type_name(annotation: object) -> str:
    if isinstance(annotation, type) and get_origin(annotation) is None:  # a plain class
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _decision_names(event: events.HookEvent[Any, Any]) -> list[str]:
    return [t.__name__ for t in event.decision_types]


def events_records() -> Records:
    """The catalogue as records: event, Input type and fields, legal decisions, when."""
    rows: list[tuple[str, ...]] = []
    for event in events.CATALOGUE:
        fields = "".join(
            f"\n  {name}: {_type_name(field.annotation)}"
            for name, field in event.input_type.model_fields.items()
        )
        decisions = (
            "None (observe only)" if event.observe_only else " | ".join(_decision_names(event))
        )
        rows.append(
            (event.name.upper(), event.input_type.__name__ + fields, decisions, event.description)
        )
    return Records("Hook events (pod.events)", ("event", "Input", "decisions", "when"), rows)


def events_json() -> list[dict[str, Any]]:
    """``pod events --json``: the same catalogue, one object per event."""
    return [
        {
            "event": event.name,
            "input": event.input_type.__name__,
            "fields": {
                name: _type_name(field.annotation)
                for name, field in event.input_type.model_fields.items()
            },
            "decisions": _decision_names(event),
            "observe_only": event.observe_only,
            "when": event.description,
        }
        for event in events.CATALOGUE
    ]


def schemas(event_name: str | None) -> dict[str, Any]:
    """JSON Schemas of the Input and Output of one event, or of all."""
    chosen = events.CATALOGUE if event_name is None else (events.by_name(event_name),)
    return {
        event.name: {"input": event.input_schema(), "output": event.output_schema()}
        for event in chosen
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pod`` command; return its exit code."""
    args = _parser().parse_args(argv)
    errors = console_for(sys.stderr)  # one diagnostic, one line: never wrapped by rich
    try:
        return _command(args, errors)
    except BrokenPipeError:
        return _after_closed_pipe()
    except KeyboardInterrupt:  # run and resume handle it themselves (the run is saved)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug, or a failure nothing else reports: one line
        if getattr(args, "debug", False):
            raise
        errors.print(f"[bold red]error:[/] {escape(unexpected_failure(exc))}")
        return EXIT_INTERNAL


def unexpected_failure(exc: BaseException) -> str:
    """The line for a failure no check caught: what it said, and what to do."""
    said = str(exc).strip().splitlines()[0] if str(exc).strip() else "no message"
    return (
        f"pod failed unexpectedly ({said}); run again with --debug to see where, "
        "and report it: this is a bug"
    )


def _after_closed_pipe() -> int:
    """The reader went away (``pod events | head -3``): stop, quietly, as ``cat`` does.

    stdout is pointed at the null device, so the interpreter's last flush cannot fail
    again and print the error the command just left out.
    """
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, sys.stdout.fileno())
    os.close(null)
    return EXIT_CLOSED_PIPE


def _command(args: argparse.Namespace, errors: Console) -> int:
    console = console_for(sys.stdout, soft_wrap=not sys.stdout.isatty())  # whole lines off a tty
    if args.command == "demo":
        from ._demo import run_demo

        run_demo(console)
    elif args.command == "events":
        if args.json:
            sys.stdout.write(json.dumps(events_json(), indent=2) + "\n")
        else:
            print_records(console, events_records())
    elif args.command == "rules":
        return rules_command(args, console, errors)
    elif args.command == "schema":
        try:
            document = command_schema_of(args) if args.stream else schemas(args.event)
        except (KeyError, UnknownEventError) as exc:  # KeyError: an event Claude Code lacks
            message = exc.args[0] if isinstance(exc, KeyError) else str(exc)
            errors.print(f"[bold red]error:[/] {escape(message)}")
            return EXIT_USAGE
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    elif args.command in ("run", "resume"):
        command = run_command if args.command == "run" else resume_command
        return command(args, args.command_parser)
    else:
        durable = durable_command(args, console, errors)
        if durable is not None:
            return durable
    return 0
