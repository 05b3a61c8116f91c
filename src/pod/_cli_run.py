"""``pod run``: one real run against a model provider, with a live trace.

Exit codes (also in ``pod run --help``):
0 finished · 1 aborted or out of requests · 2 bad usage (arguments, model spec, rules,
hooks, tools, missing extra) · 3 no API key · 4 the model provider failed (unreachable,
auth, rate limit, ...) · 5 paused by a hook (nobody to ask here) · 130 cancelled (Ctrl-C).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Final, cast

from rich.console import Console
from rich.markup import escape

from llm_worker import ContextTooLongError, LlmClientError, Tool, UsageError
from llm_worker.providers import (
    MissingCredentialsError,
    ProviderSetupError,
    client_from_spec,
)

from ._claude_code_settings import load_claude_settings
from ._demo import render_trace_event
from ._errors import PodUsageError
from ._pod import Pod, PodResult
from ._policy import PolicyFile, load_policy
from ._registry import FrozenHookRegistry, HookRegistry
from ._settings import PodSettings
from ._workspace_tools import workspace_tools

__all__ = ["EPILOG", "RUN_DESCRIPTION", "add_run_arguments", "run_command"]

EXIT_FINISHED: Final = 0
EXIT_ABORTED: Final = 1
EXIT_USAGE: Final = 2
EXIT_NO_KEY: Final = 3
EXIT_PROVIDER: Final = 4
EXIT_PAUSED: Final = 5
EXIT_CANCELLED: Final = 130

EPILOG: Final = (
    "exit codes: 0 finished, 1 aborted or out of requests, 2 bad usage (arguments, model "
    "spec, rules, hooks, tools, missing extra), 3 no API key, 4 the model provider failed "
    "(unreachable, auth, rate limit), 5 paused by a hook, 130 cancelled (Ctrl-C)"
)

_PROVIDER_ERRORS: Final = frozenset(cls.__name__ for cls in (LlmClientError, ContextTooLongError))


class _LoadError(Exception):
    """A ``--hooks``/``--tools`` spec cannot be loaded."""


RUN_DESCRIPTION: Final = (
    "Run PROMPT against a model (OpenAI Chat Completions or Anthropic Messages, or any "
    "OpenAI-compatible server with --base-url). The model gets read-only tools "
    "(read_file, list_files) confined to --workdir, plus any --tools."
)


def add_run_arguments(run: argparse.ArgumentParser) -> None:
    """Add the arguments of ``pod run`` to its parser."""
    run.add_argument("prompt", help="what to ask")
    run.add_argument(
        "--model", required=True, help="provider:model, e.g. openai:gpt-4o-mini, anthropic:NAME"
    )
    run.add_argument("--base-url", help="API root (a local OpenAI-compatible server, a proxy)")
    run.add_argument("--api-key", help="API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)")
    run.add_argument(
        "--rules",
        type=Path,
        help="permission rules and command hooks (TOML); calls no rule allows are denied",
    )
    run.add_argument(
        "--claude-settings",
        type=Path,
        action="append",
        default=[],
        help="a Claude Code settings file whose `hooks` section to run (repeatable)",
    )
    run.add_argument(
        "--hooks", action="append", default=[], help="a HookRegistry as module:attr or file.py:attr"
    )
    run.add_argument(
        "--tools", action="append", default=[], help="more tools as module:attr or file.py:attr"
    )
    run.add_argument(
        "--workdir", type=Path, default=Path(), help="folder the file tools may read (default: .)"
    )
    run.add_argument("--system", help="system prompt")
    run.add_argument("--max-requests", type=int, default=20, help="model requests allowed")
    run.add_argument("--timeout", type=float, help="seconds per model request attempt")
    run.add_argument(
        "--max-retries", type=int, help="retries of a failed model request (default: the SDK's)"
    )
    run.add_argument("--stream", action="store_true", help="stream the model's text as it comes")
    run.add_argument("--quiet", action="store_true", help="print only the final answer")


def run_command(args: argparse.Namespace, console: Console, errors: Console) -> int:
    """Carry out ``pod run``; return the exit code."""

    def fail(code: int, message: str) -> int:
        errors.print(f"[bold red]error:[/] {escape(message)}")
        return code

    streamed: list[str] = []

    def show_text(text: str) -> None:
        streamed.append(text)
        console.print(text, end="", markup=False, highlight=False)

    try:
        client = client_from_spec(
            args.model,
            base_url=args.base_url,
            api_key=args.api_key,
            stream=args.stream,
            on_text=show_text if args.stream and not args.quiet else None,
            timeout=args.timeout,
            max_retries=args.max_retries,
        )
    except MissingCredentialsError as exc:
        return fail(EXIT_NO_KEY, str(exc))
    except ProviderSetupError as exc:
        return fail(EXIT_USAGE, str(exc))
    try:
        policy = load_policy(args.rules, workspace=args.workdir) if args.rules else None
        permissions = policy.permissions_or_refuse() if policy else None
        hooks = _policy_commands(policy, args).then(_load_hooks(args.hooks))
        tools = [*workspace_tools(args.workdir), *_load_tools(args.tools)]
        pod = Pod(
            client,
            tools=tools,
            hooks=hooks,
            permissions=permissions,
            settings=PodSettings(max_requests_per_turn=args.max_requests),
            system_prompt=args.system,
            trace=None if args.quiet else lambda event: console.print(render_trace_event(event)),
        )
    except (PodUsageError, UsageError, _LoadError, OSError) as exc:
        return fail(EXIT_USAGE, str(exc))

    async def run_then_close() -> PodResult:
        async with client:
            return await pod.run(args.prompt)

    runner = asyncio.Runner()
    try:
        result = runner.run(run_then_close())
    except KeyboardInterrupt:
        code = fail(
            EXIT_CANCELLED,
            f"cancelled: the run was interrupted; the history is well-formed "
            f"({len(pod.history)} items, every tool call has its result)",
        )
        _exit_if_a_tool_thread_blocks(code)
        runner.close()
        return code
    runner.close()
    if streamed:
        console.print()
    return _report(result, console, fail)


def _report(result: PodResult, console: Console, fail: Callable[[int, str], int]) -> int:
    match result.kind:
        case "finished":
            console.print(escape(result.text))
            return EXIT_FINISHED
        case "aborted":
            code = EXIT_PROVIDER if result.error_type in _PROVIDER_ERRORS else EXIT_ABORTED
            return fail(code, f"aborted: {result.reason}")
        case "limit_reached":
            return fail(EXIT_ABORTED, f"stopped: the turn used its {result.limit} model requests")
        case "paused":
            pending = ", ".join(f"{c.tool_name} ({c.call_id})" for c in result.pending_calls)
            return fail(
                EXIT_PAUSED,
                f"paused at {result.point}: {result.reason}"
                + (f"; pending: {pending}" if pending else ""),
            )


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


def _load_object(spec: str) -> object:
    module_name, colon, attribute = spec.rpartition(":")
    if not colon or not module_name or not attribute:
        raise _LoadError(f"{spec!r} is not module:attr or file.py:attr")
    try:
        module = _import(module_name)
    except Exception as exc:  # importing user code can raise anything
        raise _LoadError(f"cannot import {module_name!r}: {type(exc).__name__}: {exc}") from exc
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise _LoadError(f"{module_name!r} has no attribute {attribute!r}") from None


def _import(name: str) -> ModuleType:
    if not name.endswith(".py"):
        if "" not in sys.path:
            sys.path.insert(0, "")  # module:attr is looked up from the current folder too
        return importlib.import_module(name)
    path = Path(name)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise _LoadError(f"cannot load {name}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _policy_commands(policy: PolicyFile | None, args: argparse.Namespace) -> FrozenHookRegistry:
    """The ``[[hook]]`` commands of the policy file, then those of ``--claude-settings``:
    asked after the rules, before user hooks."""
    registry = HookRegistry()
    for configured in policy.hooks if policy is not None else ():
        configured.register(registry)
    for settings in args.claude_settings:
        for configured in load_claude_settings(settings, project_dir=args.workdir):
            configured.register(registry)
    return registry.freeze()


def _load_hooks(specs: Iterable[str]) -> FrozenHookRegistry:
    combined = HookRegistry().freeze()
    for spec in specs:
        loaded = _load_object(spec)
        if isinstance(loaded, HookRegistry):
            loaded = loaded.freeze()
        if not isinstance(loaded, FrozenHookRegistry):
            raise _LoadError(f"{spec} is a {type(loaded).__name__}, not a HookRegistry")
        combined = combined.then(loaded)
    return combined


def _load_tools(specs: Iterable[str]) -> list[Tool]:
    tools: list[Tool] = []
    for spec in specs:
        loaded = _load_object(spec)
        candidates: list[object] = (
            list(cast(Iterable[object], loaded)) if isinstance(loaded, list | tuple) else [loaded]
        )
        for candidate in candidates:
            if not all(hasattr(candidate, name) for name in ("name", "parameters", "call")):
                raise _LoadError(f"{spec}: {candidate!r} is not a tool (use @tool)")
            tools.append(cast(Tool, candidate))
    return tools
