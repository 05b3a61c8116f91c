"""Command hooks declared in TOML: ``[[hook]]`` tables, checked before anything runs.

```toml
[[hook]]
event = "pre_tool_call"              # a catalogue event name
command = ["python3", "policy.py"]   # argv list: no shell
timeout = 5                          # seconds per event (default 30)
on_error = "deny"                    # abort (default) | deny (pre_tool_call only) | ignore
mode = "per-call"                    # per-call (default) | persistent
cwd = "."                            # optional; relative to the TOML file's directory
```

Every table is validated in full (types are strict: ``timeout = "5"`` is an error, unknown
keys are errors); a bad table raises :class:`PodUsageError` naming the file, the table and
every problem, and no hook from that file is returned. Other top-level keys (the permission
rules) are left to their own loader.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast, final

from pydantic import BaseModel, Field, ValidationError

from . import events
from ._command_hook import DEFAULT_TIMEOUT, CommandHook, CommandMode
from ._errors import PodUsageError, UnknownEventError
from ._registry import FailurePolicy, HookRegistry
from .events import HookEvent

__all__ = [
    "ConfiguredCommandHook",
    "command_hook_from_config",
    "command_hooks_from_document",
    "load_command_hooks",
]


@final
class _HookTable(BaseModel, frozen=True, extra="forbid", strict=True):
    """One ``[[hook]]`` table, as written."""

    event: str
    command: list[str] = Field(min_length=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, allow_inf_nan=False)
    on_error: FailurePolicy = "abort"
    mode: CommandMode = "per-call"
    cwd: str | None = None


@final
@dataclass(frozen=True, slots=True)
class ConfiguredCommandHook:
    """A command hook read from configuration, with the policy to register it under."""

    event: HookEvent[Any, Any]
    hook: CommandHook[Any, Any]
    on_error: FailurePolicy
    source: str
    """Where it was declared, e.g. ``hooks.toml: [[hook]] #2``."""

    def register(self, registry: HookRegistry) -> None:
        """Register the hook for its event under its failure policy."""
        registry.on(self.event, self.hook, on_error=self.on_error)


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in detail['loc']) or 'table'}: {detail['msg']}"
        for detail in error.errors(include_url=False)
    )


def command_hook_from_config(
    table: Mapping[str, object], *, source: str, base_dir: str | os.PathLike[str] | None = None
) -> ConfiguredCommandHook:
    """Check one ``[[hook]]`` table and build its hook.

    Args:
        table: the table's keys and values (as ``tomllib`` gives them).
        source: where the table comes from, for error messages.
        base_dir: what a relative ``cwd`` is relative to (the TOML file's directory).

    Raises:
        PodUsageError: the table is invalid; the message names ``source`` and every problem.
    """

    def fail(problem: str) -> PodUsageError:
        return PodUsageError(f"{source}: invalid [[hook]]: {problem}")

    if isinstance(table.get("command"), str):
        raise fail(
            'command must be a list of arguments, e.g. ["python3", "policy.py"]: '
            'no shell is used (write ["sh", "-c", "..."] to use one)'
        )
    try:
        parsed = _HookTable.model_validate(dict(table))
    except ValidationError as exc:
        raise fail(_problems(exc)) from None
    try:
        event = events.by_name(parsed.event)
    except UnknownEventError as exc:
        raise fail(str(exc)) from None
    if parsed.on_error == "deny" and event is not events.PRE_TOOL_CALL:
        raise fail(f"on_error = 'deny' is only meaningful for pre_tool_call, not {event.name}")
    cwd: str | None = parsed.cwd
    if cwd is not None and base_dir is not None:
        cwd = os.fspath(Path(base_dir) / cwd)
    try:
        hook = CommandHook(event, parsed.command, timeout=parsed.timeout, mode=parsed.mode, cwd=cwd)
    except PodUsageError as exc:
        raise fail(str(exc)) from None
    return ConfiguredCommandHook(event, hook, parsed.on_error, source)


def command_hooks_from_document(
    document: Mapping[str, object], *, source: str, base_dir: str | os.PathLike[str] | None = None
) -> list[ConfiguredCommandHook]:
    """Build the hooks of every ``[[hook]]`` table of a parsed TOML document, in order.

    Raises:
        PodUsageError: ``hook`` is not an array of tables, or a table is invalid.
    """
    found: object = document.get("hook", [])
    if not isinstance(found, list) or not all(isinstance(t, dict) for t in found):  # pyright: ignore[reportUnknownVariableType]
        raise PodUsageError(f"{source}: `hook` must be an array of tables, written [[hook]]")
    tables = cast(list[Mapping[str, object]], found)  # TOML tables have string keys
    return [
        command_hook_from_config(table, source=f"{source}: [[hook]] #{number}", base_dir=base_dir)
        for number, table in enumerate(tables, start=1)
    ]


def load_command_hooks(path: str | os.PathLike[str]) -> list[ConfiguredCommandHook]:
    """Read a TOML file and build the hooks of its ``[[hook]]`` tables, in order.

    A relative ``cwd`` in a table is relative to the file's directory.

    Raises:
        PodUsageError: the file cannot be read, is not TOML, or declares an invalid hook.
    """
    file = Path(path)
    try:
        document = tomllib.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise PodUsageError(f"cannot read hooks file {file}: {exc}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PodUsageError(f"{file}: not valid TOML: {exc}") from exc
    return command_hooks_from_document(document, source=str(file), base_dir=file.parent)
