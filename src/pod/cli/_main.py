"""The ``pod`` command line (also ``python -m pod``).

Every listing is derived from the event catalogue (``pod.events.CATALOGUE``): there is no
second list of events, fields or decisions here.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
from collections.abc import Sequence
from typing import Any, get_origin

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..hooks import _events as events
from ..hooks._events import UnknownEventError
from ._durable import add_durable_commands, durable_command
from ._options import add_resume_arguments, add_run_arguments
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

__all__ = ["main"]

EXIT_USAGE = 2
EXIT_INTERNAL = 1


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
    commands.add_parser(
        "events",
        help="list the hook events: Input fields and legal decisions",
        description="Print the hook event catalogue as a table.",
    )
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


def events_table() -> Table:
    """The catalogue as a table: event, Input type and fields, legal decisions."""
    table = Table(title="Hook events (pod.events)", show_lines=True)
    table.add_column("event", style="bold", no_wrap=True)
    table.add_column("Input", no_wrap=True)
    table.add_column("decisions")
    table.add_column("when")
    for event in events.CATALOGUE:
        fields = "\n".join(
            f"  {name}: {escape(_type_name(field.annotation))}"  # ``[str, ...]`` is not markup
            for name, field in event.input_type.model_fields.items()
        )
        decisions = (
            "None (observe only)"
            if event.observe_only
            else " | ".join(t.__name__ for t in event.decision_types)
        )
        table.add_row(
            event.name.upper(),
            f"{event.input_type.__name__}\n{fields}",
            decisions,
            event.description,
        )
    return table


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
    console = Console(soft_wrap=not sys.stdout.isatty())  # whole lines in logs and pipes
    errors = Console(stderr=True)
    if args.command == "demo":
        from ._demo import run_demo

        run_demo(console)
    elif args.command == "events":
        console.print(events_table())
    elif args.command == "rules":
        return rules_command(args, console, errors)
    elif args.command == "schema":
        try:
            document = command_schema_of(args) if args.stream else schemas(args.event)
        except (KeyError, UnknownEventError) as exc:  # KeyError: an event Claude Code lacks
            errors.print(f"[bold red]error:[/] {exc.args[0] if isinstance(exc, KeyError) else exc}")
            return EXIT_USAGE
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    elif args.command in ("run", "resume"):
        command = run_command if args.command == "run" else resume_command
        try:
            return command(args, args.command_parser)
        except Exception as exc:  # a bug, or a failure nothing else reports: one line
            if args.debug:
                raise
            errors.print(
                f"[bold red]error:[/] {type(exc).__name__}: {exc} "
                "(run again with --debug for the traceback)",
                markup=True,
                highlight=False,
            )
            return EXIT_INTERNAL
    else:
        durable = durable_command(args, console, errors)
        if durable is not None:
            return durable
    return 0
