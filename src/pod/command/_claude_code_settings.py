"""The ``hooks`` section of a Claude Code settings file, registered as ``claude-code`` hooks.

```json
{"hooks": {"PreToolUse": [{"matcher": "Bash|Write",
                           "hooks": [{"type": "command", "command": "./check.sh"}]}]}}
```

Contract: every event name, matcher and hook entry is checked before anything runs; an
event this runtime does not have, a hook ``type`` other than ``command``, an unknown key or a
bad value refuses the whole file with a :class:`PodUsageError` naming the file and the JSON
path of the entry (``hooks.PreToolUse[0].hooks[1]``). As in Claude Code: a ``command`` is a
shell command (run with ``bash -c``, or ``sh -c`` when there is no bash), in the project
folder, with ``CLAUDE_PROJECT_DIR`` set to it; ``timeout`` is in seconds (default 60); a
``matcher`` of ``""`` or ``"*"`` (or none) matches every tool, anything else is a regular
expression the whole tool name must match; matchers of events without tools are ignored.
Unlike Claude Code, a failing hook fails closed: it is registered with ``on_error="abort"``.
Only the ``hooks`` section is read (and ``disableAllHooks``): ``permissions`` are not.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Final, Literal, final

from pydantic import BaseModel, Field, JsonValue, TypeAdapter, ValidationError

from ..hooks import _events as events
from ..hooks._errors import PodUsageError
from ._claude_code import CLAUDE_CODE_EVENTS
from ._configured import ConfiguredCommandHook
from ._hook import TOOL_EVENTS, CommandHook
from ._protocol import describe_validation

__all__ = ["CLAUDE_DEFAULT_TIMEOUT", "load_claude_settings"]

CLAUDE_DEFAULT_TIMEOUT: Final = 60.0
"""Claude Code's default timeout of a command hook, in seconds."""


@final
class _CommandEntry(BaseModel, frozen=True, extra="forbid", strict=True):
    type: Literal["command"]
    command: str = Field(min_length=1)
    timeout: float = Field(default=CLAUDE_DEFAULT_TIMEOUT, gt=0, allow_inf_nan=False)
    statusMessage: str = ""  # Claude Code's spelling; shown nowhere here


@final
class _MatcherGroup(BaseModel, frozen=True, extra="forbid", strict=True):
    matcher: str = ""
    hooks: list[_CommandEntry]


_SETTINGS: Final = TypeAdapter(dict[str, JsonValue])


def _matches_auto(matcher: str) -> bool:
    """Whether a ``PreCompact`` matcher selects automatic compaction (a bad regex selects
    nothing; a matcher of a tool event that is not a regex is refused when the hook is made)."""
    try:
        return matcher in ("", "*") or re.fullmatch(matcher, "auto") is not None
    except re.error:
        return False


def _shell() -> str:
    return shutil.which("bash") or "/bin/sh"


def load_claude_settings(
    path: str | os.PathLike[str], *, project_dir: str | os.PathLike[str] = "."
) -> list[ConfiguredCommandHook]:
    """Read the ``hooks`` section of a Claude Code settings file.

    Args:
        path: the settings file (e.g. ``.claude/settings.json``).
        project_dir: the folder the commands run in and ``CLAUDE_PROJECT_DIR`` names.

    Raises:
        PodUsageError: the file cannot be read, is not a JSON object, or declares a hook
            this runtime cannot run as Claude Code would; names the file and the entry.
    """
    source = os.fspath(path)

    def fail(where: str, problem: str) -> PodUsageError:
        return PodUsageError(f"{source}: {where}: {problem}")

    try:
        settings = _SETTINGS.validate_json(Path(source).read_bytes())
    except OSError as exc:
        raise PodUsageError(f"cannot read Claude Code settings {source}: {exc}") from exc
    except ValidationError as exc:
        raise PodUsageError(
            f"{source}: not a Claude Code settings file: {describe_validation(exc)}"
        ) from None
    if settings.get("disableAllHooks") is True:
        return []
    section = settings.get("hooks", {})
    if not isinstance(section, dict):
        raise fail("hooks", "must be an object keyed by event name")
    project = Path(project_dir).resolve()
    if not project.is_dir():
        raise PodUsageError(f"the project folder {project} of {source} is not a folder")
    configured: list[ConfiguredCommandHook] = []
    for name, groups in section.items():
        event = CLAUDE_CODE_EVENTS.get(name)
        if event is None:
            raise fail(
                f"hooks.{name}",
                f"this runtime has no {name} event (it runs: {', '.join(CLAUDE_CODE_EVENTS)}); "
                "remove it or keep it in another settings file",
            )
        if not isinstance(groups, list):
            raise fail(f"hooks.{name}", "must be a list of {matcher, hooks} objects")
        for index, raw in enumerate(groups):
            where = f"hooks.{name}[{index}]"
            try:
                group = _MatcherGroup.model_validate(raw)
            except ValidationError as exc:
                raise fail(where, describe_validation(exc)) from None
            tool_event = any(event is tool for tool in TOOL_EVENTS)
            matcher = group.matcher if tool_event and group.matcher not in ("", "*") else None
            if event is events.PRE_COMPACT and not _matches_auto(group.matcher):
                continue  # e.g. "manual": compaction here is always automatic
            for number, entry in enumerate(group.hooks):
                try:
                    hook = CommandHook(
                        event,
                        [_shell(), "-c", entry.command],
                        timeout=entry.timeout,
                        cwd=project,
                        env={"CLAUDE_PROJECT_DIR": str(project)},
                        matcher=matcher,
                        protocol="claude-code",
                    )
                except PodUsageError as exc:
                    raise fail(f"{where}.hooks[{number}]", str(exc)) from None
                configured.append(
                    ConfiguredCommandHook(
                        event, hook, "abort", f"{source}: {where}.hooks[{number}]"
                    )
                )
    return configured
