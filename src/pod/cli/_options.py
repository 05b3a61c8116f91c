"""The options of ``pod run`` and ``pod resume``: parsing, checking, and building the Pod.

Values are checked after argparse (every problem is collected, not just the first) and the
Pod is built only when there are none. Driving the run, reporting and saving live in
``_run``.
"""

from __future__ import annotations

import argparse
import math
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from llm_worker import LlmClient, Tool
from llm_worker.providers import MissingCredentialsError, ProviderSetupError, client_from_spec

from ..command._claude_run import ClaudeCodeFiles, ClaudeRun
from ..command._configured import ConfiguredCommandHook
from ..command._model_ask import model_asker, other_model_asker
from ..hooks._errors import McpServerError, PodUsageError
from ..hooks._hook_files import HookFileError
from ..hooks._registry import FrozenHookRegistry, HookRegistry
from ..mcp import McpConfigError, McpServer, load_mcp_config
from ..policy._loader import load_policy
from ..policy._permissions import PermissionHook
from ..runtime._pod import Pod
from ..runtime._settings import PodSettings
from ..toolsets._toolsets import TOOLSETS, ToolsetName, chosen_toolset, toolset
from ._decisions import add_decision_arguments
from ._load import LoadError, check_hook_spec, load_hooks, load_tools
from ._mcp import CommandResources
from ._otel import otlp_export, wants_export
from ._output import RunOutput
from ._saved import DEFAULT_RUNS_FOLDER, RunOptions

__all__ = [
    "add_claude_code_arguments",
    "add_resume_arguments",
    "add_run_arguments",
    "build_pod",
    "claude_code_paths",
    "merged_options",
]

_DEFAULT_MAX_REQUESTS: Final = 20


def add_run_arguments(run: argparse.ArgumentParser) -> None:
    """Add the arguments of ``pod run`` to its parser."""
    run.add_argument("prompt", help="what to ask")
    _add_session_arguments(run, resuming=False)


def add_resume_arguments(resume: argparse.ArgumentParser) -> None:
    """Add the arguments of ``pod resume`` to its parser."""
    resume.add_argument("saved", type=Path, metavar="SAVED_RUN", help="a saved run (.json)")
    resume.add_argument(
        "prompt",
        nargs="?",
        metavar="PROMPT",
        help="the next prompt, for a run that is not paused (finished, ...)",
    )
    _add_session_arguments(resume, resuming=True)
    add_decision_arguments(resume)


def add_claude_code_arguments(parser: argparse.ArgumentParser) -> None:
    """``--claude-settings`` and ``--claude-plugin`` (``pod run``, ``pod resume``, ``pod
    worker``)."""
    parser.add_argument(
        "--claude-settings",
        action="append",
        help="a Claude Code settings file whose `hooks` section to run (repeatable)",
    )
    parser.add_argument(
        "--claude-plugin",
        dest="claude_plugins",
        action="append",
        metavar="DIR",
        help="a Claude Code plugin folder whose hooks/hooks.json to run (repeatable)",
    )


def _add_session_arguments(parser: argparse.ArgumentParser, *, resuming: bool) -> None:
    # Values are checked after parsing (all problems reported together), so numbers are
    # read as text here; and on resume every option defaults to the saved one (None here).
    saved = " (default: as saved)" if resuming else ""
    parser.add_argument(
        "--model",
        required=not resuming,
        help="provider:model, e.g. openai:gpt-4o-mini, anthropic:NAME" + saved,
    )
    parser.add_argument("--base-url", help="API root (a local OpenAI-compatible server, a proxy)")
    parser.add_argument(
        "--api-key", help="API key (default: OPENAI_API_KEY / ANTHROPIC_API_KEY; never saved)"
    )
    parser.add_argument(
        "--rules", help="permission rules and command hooks (TOML); calls no rule allows are denied"
    )
    add_claude_code_arguments(parser)
    parser.add_argument(
        "--hooks", action="append", help="a HookRegistry as module:attr or file.py:attr"
    )
    parser.add_argument(
        "--trust-hooks",
        action="store_true",
        help="run the --hooks files without checking them against the taming database first",
    )
    parser.add_argument(
        "--tools", action="append", help="more tools as module:attr or file.py:attr"
    )
    parser.add_argument(
        "--toolset",
        choices=TOOLSETS,
        help="the built-in tools: claude-code (Bash, Read, Write, Edit, Glob, Grep; the default "
        "with --claude-settings) or workspace (read_file, list_files; the default otherwise)"
        + saved,
    )
    parser.add_argument(
        "--mcp-config",
        action="append",
        metavar="FILE",
        help="MCP servers to start for the run, in the mcpServers format of Claude Code "
        "(repeatable); their tools are named mcp__<server>__<tool>" + saved,
    )
    parser.add_argument(
        "--otel",
        action="store_true",
        help="export OpenTelemetry spans over OTLP/HTTP (endpoint, headers: the standard "
        "OTEL_EXPORTER_OTLP_* variables; default http://localhost:4318)",
    )
    parser.add_argument(
        "--workdir", help="folder the built-in tools may use (default: the current folder)" + saved
    )
    parser.add_argument("--system", help="system prompt")
    parser.add_argument(
        "--max-requests",
        metavar="N",
        help=f"model requests per turn (default: {_DEFAULT_MAX_REQUESTS})",
    )
    parser.add_argument("--timeout", metavar="SECONDS", help="seconds per model request attempt")
    parser.add_argument(
        "--max-retries", metavar="N", help="retries of a failed model request (default: the SDK's)"
    )
    output = parser.add_argument_group("output")
    output.add_argument("--stream", action="store_true", help="print the model's text as it comes")
    output.add_argument("--quiet", action="store_true", help="no trace: only the answer")
    output.add_argument(
        "--json",
        action="store_true",
        help="stdout: one JSON object per trace event and streamed chunk, then a result object",
    )
    output.add_argument(
        "--debug",
        action="store_true",
        help="timings in the trace; debug logs (hook tracebacks, provider requests); tracebacks",
    )
    saving = parser.add_argument_group("pausing and saving")
    saving.add_argument(
        "--no-input",
        action="store_true",
        help="never prompt: a paused run is saved (also when stdin is not a terminal)",
    )
    saving.add_argument(
        "--save",
        metavar="PATH",
        type=Path,
        help="save the run here when it ends, whatever the outcome "
        + ("(default: the file resumed)" if resuming else "(default on a pause or Ctrl-C: ")
        + ("" if resuming else f"{DEFAULT_RUNS_FOLDER}/<run-id>.json)"),
    )


# -- options ----------------------------------------------------------------------------


def _number(
    text: str | None,
    option: str,
    *,
    kind: Callable[[str], float],
    valid: Callable[[float], bool],
    wanted: str,
    problems: list[str],
) -> float | None:
    if text is None:
        return None
    try:
        value = kind(str(text))
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or not valid(value):
        problems.append(f"{option} must be {wanted}, not {text!r}")
        return None
    return value


def merged_options(args: argparse.Namespace, saved: dict[str, Any]) -> dict[str, Any]:
    """The command line's options over the saved ones."""
    names = (
        *("model", "base_url", "rules", "claude_settings", "claude_plugins", "hooks", "tools"),
        *("toolset", "mcp_config", "workdir", "system", "claude_session_id"),
        *("max_requests", "timeout", "max_retries"),
    )
    merged = {name: getattr(args, name, None) for name in names}
    merged = {
        name: value if value is not None else saved.get(name) for name, value in merged.items()
    }
    if saved and merged["toolset"] is None:
        merged["toolset"] = "workspace"  # saved before --toolset existed: what it ran with
    return merged


def _absolute_spec(spec: str) -> str:
    # file.py:attr is stored with an absolute path, so a resume from elsewhere finds it.
    module, colon, attribute = spec.rpartition(":")
    if colon and module.endswith(".py"):
        return f"{Path(module).resolve()}:{attribute}"
    return spec


_NUMBER_OPTIONS: Final[
    tuple[tuple[str, str, Callable[[str], float], Callable[[float], bool], str], ...]
] = (
    ("max_requests", "--max-requests", int, lambda v: v >= 1, "a whole number of at least 1"),
    ("timeout", "--timeout", float, lambda v: v > 0, "a positive number of seconds"),
    ("max_retries", "--max-retries", int, lambda v: v >= 0, "a whole number of at least 0"),
)
"""Each number option: its name, flag, type, what is valid, and how to say it."""


def _not_a_file(path: Path) -> str | None:
    """Why ``path`` is not a file to read, or ``None``."""
    if path.is_dir():
        return "is a folder; give a file"
    return None if path.is_file() else "no such file"


def claude_code_paths(
    settings: Sequence[str], plugins: Sequence[str], problems: list[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``--claude-settings`` files and ``--claude-plugin`` folders that exist, made
    absolute; one problem for each of the others."""
    files: list[str] = []
    for given in settings:
        if (problem := _not_a_file(Path(given))) is not None:
            problems.append(f"--claude-settings {given}: {problem}")
        else:
            files.append(str(Path(given).resolve()))
    folders: list[str] = []
    for folder in plugins:
        if not Path(folder).is_dir():
            problems.append(f"--claude-plugin {folder}: no such folder")
        else:
            folders.append(str(Path(folder).resolve()))
    return tuple(files), tuple(folders)


def _check_options(merged: dict[str, Any], problems: list[str]) -> RunOptions | None:
    numbers = {
        name: _number(
            None if merged[name] is None else str(merged[name]),
            option,
            kind=kind,
            valid=valid,
            wanted=wanted,
            problems=problems,
        )
        for name, option, kind, valid, wanted in _NUMBER_OPTIONS
    }
    max_requests, timeout, max_retries = (
        numbers["max_requests"],
        numbers["timeout"],
        numbers["max_retries"],
    )
    workdir = Path(merged["workdir"] or ".")
    if not workdir.is_dir():
        problems.append(f"--workdir {workdir}: no such folder")
    rules = merged["rules"]
    if rules is not None and (problem := _not_a_file(Path(rules))) is not None:
        problems.append(f"--rules {rules}: {problem}")
        rules = None
    claude_settings, claude_plugins = claude_code_paths(
        merged["claude_settings"] or (), merged["claude_plugins"] or (), problems
    )
    mcp_config: list[str] = []
    for config in merged["mcp_config"] or ():
        if (problem := _not_a_file(Path(config))) is not None:
            problems.append(f"--mcp-config {config}: {problem}")
        else:
            mcp_config.append(str(Path(config).resolve()))
    session_id = merged["claude_session_id"]
    if session_id is None and (claude_settings or claude_plugins):
        session_id = str(uuid.uuid4())
    model = merged["model"]
    if not model:
        problems.append("--model is required")
        return None
    return RunOptions(
        model=str(model),
        base_url=merged["base_url"],
        rules=str(Path(rules).resolve()) if rules is not None else None,
        claude_settings=claude_settings,
        claude_plugins=claude_plugins,
        claude_session_id=session_id,
        hooks=tuple(_absolute_spec(s) for s in merged["hooks"] or ()),
        tools=tuple(_absolute_spec(s) for s in merged["tools"] or ()),
        toolset=chosen_toolset(
            merged["toolset"], claude_settings=bool(claude_settings or claude_plugins)
        ),
        workdir=str(workdir.resolve()),
        system=merged["system"],
        max_requests=int(max_requests) if max_requests is not None else _DEFAULT_MAX_REQUESTS,
        timeout=timeout,
        max_retries=int(max_retries) if max_retries is not None else None,
        mcp_config=tuple(mcp_config),
    )


def _refused_hook_files(specs: Sequence[str]) -> tuple[str, ...]:
    """Every problem of every hook file, checked before any of them runs (``file:line:
    rule: fix``, one a line)."""
    problems: list[str] = []
    for spec in specs:
        try:
            check_hook_spec(spec)
        except HookFileError as exc:
            problems.extend(exc.problems)
        except PodUsageError as exc:
            problems.append(f"--hooks {spec}: {exc}")
    return tuple(problems)


def build_pod(  # noqa: PLR0915 (each option a step; split with the CLI issue)
    args: argparse.Namespace,
    merged: dict[str, Any],
    output: RunOutput,
    problems: list[str],
    resources: CommandResources,
    *,
    run_id: str,
) -> tuple[RunOptions, LlmClient, Pod, ClaudeRun] | str | None:
    """Check every option and build the Pod of run ``run_id``; collect the problems (a
    missing key is returned on its own: it has its own exit code). The MCP servers are
    started last, in ``resources`` (which stop them), and only when every other option is
    good."""
    options = _check_options(merged, problems)
    client: LlmClient | None = None
    missing_key: str | None = None
    if options is not None:
        try:
            client = client_from_spec(
                options.model,
                base_url=options.base_url,
                api_key=args.api_key,
                stream=args.stream,
                on_text=output.text if args.stream else None,
                timeout=options.timeout,
                max_retries=options.max_retries,
            )
        except MissingCredentialsError as exc:
            missing_key = f"no API key for {exc.provider}: pass --api-key or set {exc.env_var}"
        except ProviderSetupError as exc:
            problems.append(f"--model {options.model}: {exc}")
    permissions: PermissionHook | None = None
    configured: list[ConfiguredCommandHook] = []
    claude_run, _ = ClaudeCodeFiles().read(session_id=None, ask=None)
    if options is not None:
        if options.rules is not None:
            try:  # one read of the file: its rules and its command hooks
                policy = load_policy(options.rules, workspace=options.workdir)
                permissions = policy.permissions_or_refuse()
                configured += policy.hooks
            except (PodUsageError, OSError, ValueError) as exc:  # one line per problem
                problems.extend(
                    f"--rules {options.rules}: {line}" for line in str(exc).splitlines()
                )
        files = ClaudeCodeFiles(options.claude_settings, options.claude_plugins, options.workdir)
        ask = None if client is None else model_asker(client)  # for "prompt" hooks
        ask_model = other_model_asker(  # for "prompt" hooks that name a model
            options.model,
            base_url=options.base_url,
            api_key=args.api_key,
            timeout=options.timeout,
            max_retries=options.max_retries,
        )
        claude_run, claude_problems = files.read(
            session_id=options.claude_session_id, ask=ask, ask_model=ask_model
        )
        problems.extend(claude_problems)
        configured += claude_run.configured
        for warning in claude_run.warnings:
            output.note(f"warning: {warning}")
    policy_hooks = _policy_commands(configured)
    user_hooks = HookRegistry().freeze()
    tools: list[Tool] = []
    # Loaded as given (messages name what the user typed); stored with absolute paths.
    hook_specs = merged["hooks"] or ()
    refused = () if args.trust_hooks else _refused_hook_files(hook_specs)
    problems.extend(refused)
    for spec in hook_specs if not refused else ():
        try:
            user_hooks = user_hooks.then(load_hooks([spec], trust_hooks=True))
        except (LoadError, PodUsageError) as exc:
            problems.append(f"--hooks {spec}: {exc}")
    toolset_name, built_in = _built_in_tools(options)
    for spec in merged["tools"] or ():
        try:
            loaded = load_tools([spec])
        except LoadError as exc:
            problems.append(f"--tools {spec}: {exc}")
            continue
        problems.extend(_name_clashes(spec, loaded, (toolset_name, built_in), tools))
        tools.extend(loaded)
    mcp_servers = _mcp_servers(options.mcp_config if options is not None else ())
    if isinstance(mcp_servers, list):
        problems.extend(mcp_servers)
        mcp_servers = ()
    export = otlp_export(problems) if wants_export(args.otel) else None
    resources.export = export
    if args.save is not None and args.save.is_dir():
        problems.append(f"--save {args.save}: is a folder; give a file name")
    if problems and missing_key is not None:
        problems.insert(0, missing_key)  # reported with the rest, in one go
    if problems or options is None:
        return None
    if missing_key is not None or client is None:
        return missing_key
    built: list[Pod] = []
    wrap = claude_run.wrap_hooks(lambda: built[0].history if built else ())
    try:  # the last step: every other option is good
        mcp_tools = resources.servers.start(mcp_servers)
    except McpServerError as exc:
        problems.append(f"--mcp-config: {exc}")
        return None
    try:
        pod = Pod(
            client,
            tools=[*built_in, *tools, *mcp_tools],
            hooks=policy_hooks.then(user_hooks),
            permissions=permissions,
            settings=PodSettings(max_requests_per_turn=options.max_requests),
            system_prompt=options.system,
            trace=output.trace,
            telemetry=export.telemetry() if export is not None else None,
            wrap_hooks=wrap,
            run_id=run_id,
        )
    except (PodUsageError, ValueError) as exc:  # e.g. two tools with one name
        problems.append(str(exc))
        return None
    built.append(pod)
    return options, client, pod, claude_run


def _mcp_servers(configs: Sequence[str]) -> tuple[McpServer, ...] | list[str]:
    """The servers of every ``--mcp-config`` file, or the problems (one line each)."""
    servers: dict[str, tuple[str, McpServer]] = {}
    problems: list[str] = []
    for config in configs:
        try:
            loaded = load_mcp_config(config)
        except McpConfigError as exc:
            problems.append(f"--mcp-config {exc}")
            continue
        for server in loaded:
            if server.name in servers:
                problems.append(
                    f"--mcp-config {config}: server {server.name!r} is also in "
                    f"{servers[server.name][0]}; give each server one name"
                )
            servers[server.name] = (config, server)
    return problems or tuple(server for _, server in servers.values())


def _built_in_tools(options: RunOptions | None) -> tuple[ToolsetName, list[Tool]]:
    """The run's ``--toolset`` and its tools, confined to its ``--workdir``."""
    if options is None:
        return "workspace", []
    name = chosen_toolset(
        options.toolset, claude_settings=bool(options.claude_settings or options.claude_plugins)
    )
    return name, toolset(name, Path(options.workdir))


def _name_clashes(
    spec: str,
    loaded: list[Tool],
    built_in: tuple[ToolsetName, list[Tool]],
    earlier: list[Tool],
) -> list[str]:
    """A tool of ``spec`` named like a built-in tool (of toolset ``built_in[0]``) or a tool
    loaded before it."""
    taken = {tool.name: f"a {built_in[0]} tool" for tool in built_in[1]}
    taken |= {tool.name: "a tool of an earlier --tools" for tool in earlier}
    problems: list[str] = []
    for tool in loaded:
        if tool.name in taken:
            problems.append(
                f"--tools {spec}: {tool.name!r} is already the name of {taken[tool.name]}; "
                "rename the tool"
            )
        taken[tool.name] = "another tool of the same --tools"
    return problems


def _policy_commands(configured: list[ConfiguredCommandHook]) -> FrozenHookRegistry:
    """The ``[[hook]]`` commands of the policy file, then those of ``--claude-settings``:
    asked after the rules, before user hooks."""
    registry = HookRegistry()
    for hook in configured:
        hook.register(registry)
    return registry.freeze()
