"""Command hooks declared in a policy file: ``[[hook]]`` tables, checked before anything runs.

```toml
[[hook]]
event = "pre_tool_call"              # a catalogue event name
command = ["python3", "policy.py"]   # argv list: no shell
timeout = 5                          # seconds per event (default 30)
on_error = "deny"                    # abort (default) | deny (pre_tool_call only) | ignore
mode = "per-call"                    # per-call (default) | persistent
protocol = "native"                  # native (default) | claude-code
matcher = "read_file|list_files"     # tool events: regex the whole tool name must match
cwd = "."                            # default: the declaring file's folder; relative to it
env = { POLICY_LEVEL = "strict" }    # set for the command
inherit_env = ["POLICY_DB"]          # true | false | names (added to PATH, HOME, LANG, ...)
```

Every table is validated in full (types are strict: ``timeout = "5"`` is an error, unknown
keys are errors). One rule for folders: the command runs in ``cwd``, which is relative to the
folder of the file that declares it and defaults to that folder, so ``["python3",
"policy.py"]`` finds the ``policy.py`` beside the file wherever ``pod`` is started. The folder
must exist, and a program given by a relative path (``./check.sh``) must exist in it, when the
file is loaded. The policy loader (``_loader``) reads the file once and reports a bad table
as ``FILE, line N: [[hook]] K: PROBLEM``; no hook from that file is returned.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, final

from pydantic import BaseModel, Field, ValidationError

from ..command._configured import ConfiguredCommandHook
from ..command._hook import DEFAULT_TIMEOUT, CommandHook, CommandMode, CommandOptionError
from ..hooks import _events as events
from ..hooks._errors import PermissionRulesError, PodUsageError
from ..hooks._registry import FailurePolicy
from ._toml_lines import TableProblem

__all__ = [
    "build_command_hook",
    "command_hook_from_config",
]


@final
class _HookTable(BaseModel, frozen=True, extra="forbid", strict=True):
    """One ``[[hook]]`` table, as written."""

    event: str
    command: list[str] = Field(min_length=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, allow_inf_nan=False)
    on_error: FailurePolicy = "abort"
    mode: CommandMode = "per-call"
    protocol: Literal["native", "claude-code"] = "native"
    matcher: str | None = None
    cwd: str | None = None
    env: dict[str, str] = Field(default_factory=dict[str, str])
    inherit_env: bool | list[str] | None = None


def build_command_hook(
    table: Mapping[str, object], *, base_dir: str | os.PathLike[str] | None = None
) -> ConfiguredCommandHook:
    """Check one ``[[hook]]`` table and build its hook (``source`` is left empty).

    Args:
        table: the table's keys and values (as ``tomllib`` gives them).
        base_dir: the declaring file's folder: the default ``cwd``, and what a relative
            ``cwd`` is relative to (default: the current folder).

    Raises:
        TableProblem: the table is invalid; names the first field at fault.
    """
    if isinstance(table.get("command"), str):
        raise TableProblem(
            'command must be a list of arguments, e.g. ["python3", "policy.py"]: '
            'no shell is used (write ["sh", "-c", "..."] to use one)',
            "command",
        )
    try:
        parsed = _HookTable.model_validate(dict(table))
    except ValidationError as exc:
        raise TableProblem.from_validation(exc, _HookTable.model_fields) from None
    try:
        event = events.by_name(parsed.event)
    except (KeyError, PodUsageError) as exc:  # an unknown name (KeyError's text is its arg)
        raise TableProblem(str(exc.args[0]), "event") from None
    if parsed.on_error == "deny" and event is not events.PRE_TOOL_CALL:
        raise TableProblem(
            f"on_error = 'deny' is only meaningful for pre_tool_call, not {event.name}",
            "on_error",
        )
    base = Path(base_dir if base_dir is not None else ".")
    cwd = os.fspath(base / parsed.cwd) if parsed.cwd is not None else os.fspath(base)
    if not os.path.isdir(cwd):
        raise TableProblem(
            f"cwd {parsed.cwd!r} is not a folder (looked for {cwd}; a relative cwd is "
            "relative to the folder of the file that declares the hook)",
            "cwd",
        )
    program = parsed.command[0]
    if "/" in program and not os.path.isfile(os.path.join(cwd, program)):
        raise TableProblem(
            f"the program {program!r} does not exist (looked for "
            f"{os.path.join(cwd, program)}; a relative program path is relative to the cwd)",
            "command",
        )
    try:
        hook = CommandHook(
            event,
            parsed.command,
            timeout=parsed.timeout,
            mode=parsed.mode,
            cwd=cwd,
            env=parsed.env,
            inherit_env=parsed.inherit_env,
            matcher=parsed.matcher,
            protocol=parsed.protocol,
        )
    except CommandOptionError as exc:
        raise TableProblem(str(exc), exc.option) from None
    except PodUsageError as exc:  # the command itself
        raise TableProblem(str(exc), "command") from None
    return ConfiguredCommandHook(event, hook, parsed.on_error, "")


def command_hook_from_config(
    table: Mapping[str, object], *, source: str, base_dir: str | os.PathLike[str] | None = None
) -> ConfiguredCommandHook:
    """Check one ``[[hook]]`` table given as a mapping and build its hook.

    Raises:
        PermissionRulesError: the table is invalid; the message names ``source`` and every
            problem (no line: the table has no text).
    """
    try:
        built = build_command_hook(table, base_dir=base_dir)
    except TableProblem as problem:
        raise PermissionRulesError(source=source, problem=problem.problem) from None
    return ConfiguredCommandHook(built.event, built.hook, built.on_error, source)
