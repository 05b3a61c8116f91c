"""The ``pod`` command line (also ``python -m pod``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pod", description="llm-pod: an LLM agent runtime with a read-only hook API."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "demo",
        help="run the scripted showcase (no network)",
        description="Run a scripted session showing interceptors and hooks firing in order.",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pod`` command; return its exit code."""
    args = _parser().parse_args(argv)
    if args.command == "demo":
        from ._demo import run_demo

        run_demo()
    return 0
