"""The ``hooks`` section of a Claude Code settings file, registered as ``claude-code`` hooks.

```json
{"hooks": {"PreToolUse": [{"matcher": "Bash|Write",
                           "hooks": [{"type": "command", "command": "./check.sh"}]}]}}
```

Contract: the file loads whole. An event of Claude Code's that has no counterpart here (or a
name that is no Claude Code event) is kept out and reported: :attr:`ClaudeSettings.not_run`
lists them all, and ``pod run`` and ``pod rules check`` print them in one line. Everything
else is checked before anything runs: a handler ``type`` other than ``command``, ``http``
(``_claude_http``) and ``prompt`` (``_claude_prompt``), an unknown
key, a bad value or a matcher that is no regular expression refuses the file with a
:class:`PodUsageError` naming the file and the JSON path of the entry
(``hooks.PreToolUse[0].hooks[1]``).

As in Claude Code: a ``command`` is a shell command (run with ``bash -c``, or ``sh -c`` when
there is no bash), or, with ``args`` (the exec form), a program run with those arguments and
no shell; either runs in the project folder, with ``CLAUDE_PROJECT_DIR`` set to it (and
``CLAUDE_PLUGIN_ROOT`` for a plugin's ``hooks/hooks.json``); ``timeout`` is in seconds
(default 600, 30 at ``UserPromptSubmit``, per event). ``"pod": {"persistent": true}`` (an
llm-pod extension, which Claude Code ignores) keeps one process for the hook, which reads one
JSON request a line and answers one line (see ``CommandHook``). A matcher
(:func:`claude_matcher`) of ``""`` or ``"*"`` (or none) selects every tool; one of letters,
digits, ``_``, ``-``, spaces, ``|`` and ``,`` only is a list of exact names; anything else is
a regular expression searched anywhere in the tool name (unanchored). Matchers of events
without tools are ignored.

``SessionStart``, ``SessionEnd``, ``Notification`` and ``PermissionRequest`` hooks, which no
llm-pod event serves, are read into :attr:`ClaudeSettings.session_hooks` for ``pod run`` to
run around the run (``_claude_session_hooks``).

The hooks of one event run in parallel, their outcomes merged, as Claude Code runs them, also
across files (:func:`run_in_parallel`, ``_claude_merge``).

Failing hooks: a guard event's (``PreToolUse``, ``UserPromptSubmit``) fails closed (the
run aborts, naming the command, its exit status and its stderr); an observe-only event's
(``PostToolUse``, ``PostToolUseFailure``, ``Stop``, ``PreCompact``) is reported in one
warning line and the run goes on. Only the ``hooks`` section is read (and
``disableAllHooks``): ``permissions`` are not.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, final

from pydantic import BaseModel, Field, JsonValue, TypeAdapter, ValidationError

from ..hooks import _events as events
from ..hooks._errors import PodUsageError
from ..hooks._events import HookEvent
from ..hooks._registry import FailurePolicy
from ._claude_code import CLAUDE_CODE_EVENTS, DEFAULT_SESSION, ClaudeSession
from ._claude_http import HTTP_DEFAULT_TIMEOUT, HttpHook, interpolated_headers
from ._claude_merge import ClaudeHookGroup
from ._claude_prompt import PROMPT_HOOK_TIMEOUT, PromptAsk, PromptHook
from ._claude_session_hooks import SESSION_EVENTS, SessionHook
from ._configured import ConfiguredCommandHook
from ._hook import TOOL_EVENTS, CommandHook
from ._protocol import describe_validation

__all__ = [
    "ALL_CLAUDE_EVENTS",
    "CLAUDE_DEFAULT_TIMEOUT",
    "CLAUDE_PROMPT_TIMEOUT",
    "ClaudeSettings",
    "claude_matcher",
    "load_claude_settings",
    "read_claude_plugin",
    "read_claude_settings",
    "run_in_parallel",
]

CLAUDE_DEFAULT_TIMEOUT: Final = 600.0
"""Claude Code's default timeout of a command hook, in seconds."""
CLAUDE_PROMPT_TIMEOUT: Final = 30.0
"""The default timeout of a ``UserPromptSubmit`` command hook, in seconds."""

ALL_CLAUDE_EVENTS: Final = (
    "SessionStart", "Setup", "SessionEnd", "UserPromptSubmit", "UserPromptExpansion",
    "Stop", "StopFailure", "PreToolUse", "PermissionRequest", "PermissionDenied",
    "PostToolUse", "PostToolUseFailure", "PostToolBatch", "SubagentStart", "SubagentStop",
    "TaskCreated", "TaskCompleted", "TeammateIdle", "PreCompact", "PostCompact",
    "Elicitation", "ElicitationResult", "WorktreeCreate", "WorktreeRemove", "Notification",
    "ConfigChange", "InstructionsLoaded", "CwdChanged", "FileChanged", "DirectoryAdded",
    "PreModelSwitch", "PostModelSwitch", "MessageDisplay",
)  # fmt: skip
"""Every event name of Claude Code's hooks reference (33); those of ``CLAUDE_CODE_EVENTS``
run here, the others are reported as not run."""

_GUARDS: Final[tuple[HookEvent[Any, Any], ...]] = (events.PRE_TOOL_CALL, events.PROMPT_SUBMIT)
"""Events whose failing hook fails closed; the others' failures are one warning line."""
_PLAIN_NAMES: Final = re.compile(r"[A-Za-z0-9_| ,-]+")
_HANDLER_TYPES: Final = ("command", "http", "prompt", "agent", "mcp_tool")
_RUN: Final = ("command", "http", "prompt")
_CANNOT_RUN: Final = {
    "agent": 'an "agent" hook cannot run here: llm-pod runs "command", "http" and "prompt" '
    'hooks only (remove it, or make it a "prompt" hook, which asks the model one question '
    "without tools, or a command)",
    "mcp_tool": 'an "mcp_tool" hook cannot run here: llm-pod runs "command", "http" and '
    '"prompt" hooks only (remove it, or make it a command that calls the tool)',
}
"""Why each handler type of Claude Code's that does not run here is refused, and the fix."""


def claude_matcher(matcher: str) -> str | None:
    """Claude Code's tool ``matcher`` as a regular expression the whole tool name must
    match; ``None`` for every tool (``""``, ``"*"``).

    ``Edit|Write`` and ``Edit, Write`` are lists of exact names; ``^Notebook``,
    ``mcp__memory__.*`` and ``mcp__.*__write`` are regular expressions found anywhere in the
    name (``re.search``, as Claude Code tests a JavaScript ``RegExp``).

    Raises:
        PodUsageError: the matcher is neither a list of names nor a regular expression.
    """
    if matcher.strip() in ("", "*"):
        return None
    if _PLAIN_NAMES.fullmatch(matcher):
        names = [name.strip() for name in re.split(r"[|,]", matcher)]
        return "|".join(re.escape(name) for name in names if name)
    try:
        re.compile(matcher)
    except re.error as exc:
        raise PodUsageError(f"matcher {matcher!r} is not a regular expression: {exc}") from None
    return f"(?s:.*?(?:{matcher}).*)"


_OnFailure = Literal["block", "continue"] | None
"""Claude Code's ``onFailure`` of a command or http hook: ``block`` stops what the hook
guards when it cannot start, times out or answers badly; ``continue`` lets it through with a
warning line; unset, the event decides (guards block, the others warn)."""


def _on_error(on_failure: _OnFailure, *, guard: bool) -> FailurePolicy:
    if on_failure is None:
        return "abort" if guard else "ignore"
    return "abort" if on_failure == "block" else "ignore"


@final
class _PodExtension(BaseModel, frozen=True, extra="forbid", strict=True):
    """A command entry's ``"pod"`` object: llm-pod's own options, which Claude Code ignores."""

    persistent: bool = False
    """One long-lived process for the hook: one JSON request line in, one answer line out
    per event (``CommandHook(mode="persistent")``)."""


@final
class _CommandEntry(BaseModel, frozen=True, extra="forbid", strict=True):
    type: Literal["command"]
    command: str = Field(min_length=1)
    args: list[str] | None = None  # the exec form: ``command`` is the program, no shell
    timeout: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    statusMessage: str = ""  # Claude Code's spelling; shown nowhere here
    onFailure: _OnFailure = None
    pod: _PodExtension = _PodExtension()


@final
class _HttpEntry(BaseModel, frozen=True, extra="forbid", strict=True):
    type: Literal["http"]
    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict[str, str])
    allowedEnvVars: list[str] = Field(default_factory=list[str])  # Claude Code's spelling
    timeout: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    statusMessage: str = ""
    onFailure: _OnFailure = None


@final
class _PromptEntry(BaseModel, frozen=True, extra="forbid", strict=True):
    type: Literal["prompt"]
    prompt: str = Field(min_length=1)
    model: str = ""  # the model to ask; "": the Pod's own
    timeout: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    statusMessage: str = ""


_Entry = _CommandEntry | _HttpEntry | _PromptEntry


@final
class _MatcherGroup(BaseModel, frozen=True, extra="forbid", strict=True):
    matcher: str = ""
    hooks: list[JsonValue]


_SETTINGS: Final = TypeAdapter(dict[str, JsonValue])


@final
@dataclass(frozen=True, slots=True)
class ClaudeSettings:
    """The hooks of one settings file, and the events of it that will not run."""

    source: str
    """The file, as given."""
    hooks: tuple[ConfiguredCommandHook, ...]
    """Every hook of the file, one per entry, in file order (what ``pod rules check``
    checks)."""

    session_hooks: tuple[SessionHook, ...]
    """``SessionStart``, ``SessionEnd`` and ``Notification`` hooks, which ``pod run`` runs
    itself around the run."""
    not_run: tuple[str, ...]
    """Event names of the file that have no counterpart here (file order, each once); an
    unknown name is marked ``(not a Claude Code event)``."""
    by_event: tuple[tuple[str, tuple[ConfiguredCommandHook, ...]], ...] = ()
    """The ``hooks`` of each Claude Code event name of the file, in file order."""

    @property
    def merged(self) -> list[ConfiguredCommandHook]:
        """What runs: per Claude Code event, its one hook, or a :class:`ClaudeHookGroup`
        of its hooks, which run in parallel and merge as Claude Code merges them (see
        :func:`run_in_parallel` for several files)."""
        return run_in_parallel([self])

    def warning(self) -> str | None:
        """One line naming every event of the file that will not run (``None``: all run)."""
        if not self.not_run:
            return None
        return (
            f"{self.source}: these events will not run (no counterpart in llm-pod): "
            f"{', '.join(self.not_run)}"
        )


def _matches_auto(matcher: str) -> bool:
    """Whether a ``PreCompact`` matcher selects automatic compaction (a bad regex selects
    nothing)."""
    try:
        pattern = claude_matcher(matcher)
    except PodUsageError:
        return False
    return pattern is None or re.fullmatch(pattern, "auto") is not None


def _shell() -> str:
    return shutil.which("bash") or "/bin/sh"


_CLAUDE_VARIABLE: Final = re.compile(r"\$(?:\{(CLAUDE_[A-Z_]+)\}|(CLAUDE_[A-Z_]+)\b)")


def _command_argv(entry: _CommandEntry, variables: Mapping[str, str]) -> list[str]:
    """The argv of a ``command`` entry: ``bash -c COMMAND`` (the shell form), or, with
    ``args`` (the exec form), the program ``command`` and ``args`` as they are, no shell.

    In the exec form no shell expands anything, so ``${CLAUDE_PROJECT_DIR}`` and
    ``${CLAUDE_PLUGIN_ROOT}`` (also ``$NAME``) are filled in here, as Claude Code fills in
    its own variables before a command runs; any other ``$`` text is passed on verbatim.
    """
    if entry.args is None:
        return [_shell(), "-c", entry.command]

    def fill(text: str) -> str:
        def one(found: re.Match[str]) -> str:
            name = found.group(1) or found.group(2)
            return variables.get(name, found.group(0))

        return _CLAUDE_VARIABLE.sub(one, text)

    return [fill(entry.command), *(fill(arg) for arg in entry.args)]


def _display(entry: _CommandEntry) -> str:
    """How failures name a ``command`` entry: as written (the exec form: the program and
    its arguments as a shell line)."""
    if entry.args is None:
        return entry.command
    return shlex.join([entry.command, *entry.args])


def load_claude_settings(
    path: str | os.PathLike[str], *, project_dir: str | os.PathLike[str] = "."
) -> list[ConfiguredCommandHook]:
    """The hooks of a Claude Code settings file that run here, one per entry (see
    :func:`read_claude_settings`, which also says which events will not run, and whose
    ``merged`` runs the hooks of one event in parallel, as Claude Code does)."""
    return list(read_claude_settings(path, project_dir=project_dir).hooks)


def read_claude_settings(
    path: str | os.PathLike[str],
    *,
    project_dir: str | os.PathLike[str] = ".",
    env: Mapping[str, str] | None = None,
    session: ClaudeSession = DEFAULT_SESSION,
    ask: PromptAsk | None = None,
    ask_model: Callable[[str], PromptAsk] | None = None,
) -> ClaudeSettings:
    """Read the ``hooks`` section of a Claude Code settings file (or a plugin's
    ``hooks/hooks.json``).

    Args:
        path: the settings file (e.g. ``.claude/settings.json``).
        project_dir: the folder the commands run in and ``CLAUDE_PROJECT_DIR`` names.
        env: more variables for every command (e.g. ``CLAUDE_PLUGIN_ROOT``).
        session: the ``session_id`` and ``transcript_path`` the scripts read.
        ask: how ``prompt`` hooks ask the model (``pod run``: the run's own client); without
            it a ``prompt`` hook refuses the file.
        ask_model: how a ``prompt`` hook with a ``model`` asks that model (``pod run``: the
            run's provider, API and key); without it such a hook refuses the file.

    Raises:
        PodUsageError: the file cannot be read, is not a JSON object, or declares a hook
            this runtime cannot run as Claude Code would; names the file and the entry.
    """
    source = os.fspath(path)

    def fail(where: str, problem: str) -> PodUsageError:
        return _fail(source, where, problem)

    try:
        settings = _SETTINGS.validate_json(Path(source).read_bytes())
    except OSError as exc:
        raise PodUsageError(f"cannot read Claude Code settings {source}: {exc}") from exc
    except ValidationError as exc:
        raise PodUsageError(
            f"{source}: not a Claude Code settings file: {describe_validation(exc)}"
        ) from None
    if settings.get("disableAllHooks") is True:
        return ClaudeSettings(source, (), (), ())
    section = settings.get("hooks", {})
    if not isinstance(section, dict):
        raise fail("hooks", "must be an object keyed by event name")
    project = Path(project_dir).resolve()
    if not project.is_dir():
        raise PodUsageError(f"the project folder {project} of {source} is not a folder")
    variables = {"CLAUDE_PROJECT_DIR": str(project), **(env or {})}
    configured: list[ConfiguredCommandHook] = []
    by_event: list[tuple[str, tuple[ConfiguredCommandHook, ...]]] = []
    session_hooks: list[SessionHook] = []
    not_run: list[str] = []
    for name, groups in section.items():
        if not isinstance(groups, list):
            raise fail(f"hooks.{name}", "must be a list of {matcher, hooks} objects")
        if name in SESSION_EVENTS:
            for index, raw in enumerate(groups):
                where = f"hooks.{name}[{index}]"
                session_hooks += _session_group(name, source, where, raw, project, variables)
            continue
        event = CLAUDE_CODE_EVENTS.get(name)
        if event is None:
            known = name in ALL_CLAUDE_EVENTS
            not_run.append(name if known else f"{name} (not a Claude Code event)")
            continue
        of_event: list[ConfiguredCommandHook] = []
        for index, raw in enumerate(groups):
            where = f"hooks.{name}[{index}]"
            of_event += _group(
                event,
                source,
                name=name,
                where=where,
                raw=raw,
                project=project,
                variables=variables,
                session=session,
                ask=ask,
                ask_model=ask_model,
            )
        configured += of_event
        by_event.append((name, tuple(of_event)))
    return ClaudeSettings(
        source, tuple(configured), tuple(session_hooks), tuple(not_run), tuple(by_event)
    )


def run_in_parallel(files: Sequence[ClaudeSettings]) -> list[ConfiguredCommandHook]:
    """The hooks of settings files (and plugins) as they run, as Claude Code runs them:
    per Claude Code event, every hook of every file in one :class:`ClaudeHookGroup` (their
    outcomes merged), or the one hook the event has."""
    of_event: dict[str, list[ConfiguredCommandHook]] = {}
    sources: dict[str, list[str]] = {}
    for settings in files:
        for name, declared in settings.by_event:
            of_event.setdefault(name, []).extend(declared)
            if declared:
                sources.setdefault(name, []).append(settings.source)
    running: list[ConfiguredCommandHook] = []
    for name, hooks in of_event.items():
        if len(hooks) < 2:  # a group is two or more
            running += hooks
            continue
        first = hooks[0]
        entries = [c.hook for c in hooks if not isinstance(c.hook, ClaudeHookGroup)]  # all
        closed = [c.on_error == "abort" for c in hooks]  # each hook's own onFailure
        group = ClaudeHookGroup(first.event, entries, fail_closed=closed)
        on_error: FailurePolicy = "abort" if any(closed) else "ignore"
        where = f"{', '.join(sources[name])}: hooks.{name} ({len(hooks)} hooks in parallel)"
        running.append(ConfiguredCommandHook(first.event, group, on_error, where))
    return running


def read_claude_plugin(
    folder: str | os.PathLike[str],
    *,
    project_dir: str | os.PathLike[str] = ".",
    session: ClaudeSession = DEFAULT_SESSION,
    ask: PromptAsk | None = None,
    ask_model: Callable[[str], PromptAsk] | None = None,
) -> ClaudeSettings:
    """Read a Claude Code plugin's hooks, ``FOLDER/hooks/hooks.json``: its commands run with
    ``CLAUDE_PLUGIN_ROOT`` set to the folder (as absolute path) and ``CLAUDE_PROJECT_DIR``
    to the project.

    Raises:
        PodUsageError: the folder is not a folder or has no ``hooks/hooks.json``, or the file
            is refused as :func:`read_claude_settings` refuses one.
    """
    root = Path(folder).resolve()
    if not root.is_dir():
        raise PodUsageError(f"the Claude Code plugin folder {os.fspath(folder)} is not a folder")
    hooks = root / "hooks" / "hooks.json"
    if not hooks.is_file():
        raise PodUsageError(f"the Claude Code plugin {root} has no hooks/hooks.json")
    return read_claude_settings(
        hooks,
        project_dir=project_dir,
        env={"CLAUDE_PLUGIN_ROOT": str(root)},
        session=session,
        ask=ask,
        ask_model=ask_model,
    )


def _entries(
    source: str, where: str, raw: JsonValue, *, can_prompt: bool
) -> tuple[str, list[_Entry]]:
    """A group's matcher and its entries, each checked (a handler type that does not run
    here refused by name)."""
    try:
        group = _MatcherGroup.model_validate(raw)
    except ValidationError as exc:
        raise _fail(source, where, describe_validation(exc)) from None
    entries: list[_Entry] = []
    for number, raw_entry in enumerate(group.hooks):
        at = f"{where}.hooks[{number}]"
        kind = raw_entry.get("type") if isinstance(raw_entry, dict) else None
        if isinstance(kind, str) and kind not in _RUN and kind in _HANDLER_TYPES:
            raise _fail(source, at, _CANNOT_RUN[kind])
        if kind == "prompt" and not can_prompt:
            raise _fail(
                source,
                at,
                'a "prompt" hook needs a model to ask, and none is configured here '
                "(pod run asks its own --model)",
            )
        try:
            if kind == "http":
                entries.append(_HttpEntry.model_validate(raw_entry))
            elif kind == "prompt":
                entries.append(_PromptEntry.model_validate(raw_entry))
            else:
                entries.append(_CommandEntry.model_validate(raw_entry))
        except ValidationError as exc:
            raise _fail(source, at, describe_validation(exc)) from None
    return group.matcher, entries


def _session_group(  # noqa: PLR0917 (one group: its event, where it is, what it gets)
    name: str,
    source: str,
    where: str,
    raw: JsonValue,
    project: Path,
    variables: Mapping[str, str],
) -> list[SessionHook]:
    matcher, given = _entries(source, where, raw, can_prompt=True)
    entries: list[_CommandEntry] = []
    for number, entry in enumerate(given):
        if not isinstance(entry, _CommandEntry):
            raise _fail(
                source,
                f"{where}.hooks[{number}]",
                f'{"an" if entry.type == "http" else "a"} "{entry.type}" hook of {name} '
                "cannot run here",
            )
        if entry.pod.persistent:
            raise _fail(
                source,
                f"{where}.hooks[{number}]",
                f'"pod": {{"persistent": true}} is for hooks of tool, prompt, stop and '
                f"compaction events; a {name} hook runs once per occasion (drop it)",
            )
        entries.append(entry)
    try:
        pattern = claude_matcher(matcher)
    except PodUsageError as exc:
        raise _fail(source, where, str(exc)) from None
    return [
        SessionHook(
            event_name=name,
            argv=tuple(_command_argv(entry, variables)),
            display=_display(entry),
            timeout=entry.timeout or CLAUDE_DEFAULT_TIMEOUT,
            cwd=str(project),
            env=dict(variables),
            matcher=pattern,
            source=f"{source}: {where}.hooks[{number}]",
            fail_closed=None if entry.onFailure is None else entry.onFailure == "block",
        )
        for number, entry in enumerate(entries)
    ]


def _fail(source: str, where: str, problem: str) -> PodUsageError:
    return PodUsageError(f"{source}: {where}: {problem}")


def _group(
    event: HookEvent[Any, Any],
    source: str,
    *,
    name: str,
    where: str,
    raw: JsonValue,
    project: Path,
    variables: Mapping[str, str],
    session: ClaudeSession,
    ask: PromptAsk | None,
    ask_model: Callable[[str], PromptAsk] | None,
) -> list[ConfiguredCommandHook]:
    """The hooks of one ``{matcher, hooks}`` object."""

    def fail(at: str, problem: str) -> PodUsageError:
        return _fail(source, at, problem)

    group_matcher, entries = _entries(source, where, raw, can_prompt=ask is not None)
    if event is events.PRE_COMPACT and not _matches_auto(group_matcher):
        return []  # e.g. "manual": compaction here is always automatic
    tool_event = any(event is tool for tool in TOOL_EVENTS)
    matcher = None
    if tool_event:
        try:
            matcher = claude_matcher(group_matcher)
        except PodUsageError as exc:
            raise fail(where, str(exc)) from None
    guard = any(event is g for g in _GUARDS)
    default_timeout = (
        CLAUDE_PROMPT_TIMEOUT if event is events.PROMPT_SUBMIT else CLAUDE_DEFAULT_TIMEOUT
    )
    configured: list[ConfiguredCommandHook] = []
    for number, entry in enumerate(entries):
        at = f"{where}.hooks[{number}]"
        hook: CommandHook[Any, Any] | HttpHook[Any, Any] | PromptHook[Any, Any]
        if isinstance(entry, _PromptEntry):
            assert ask is not None  # _entries refuses a prompt hook without one
            asking = ask
            if entry.model:
                if ask_model is None:
                    raise fail(
                        at,
                        f'a "prompt" hook\'s model {entry.model!r} cannot be chosen here '
                        '(no way to ask another model is configured): drop "model" to '
                        "ask the run's own",
                    )
                asking = ask_model(entry.model)
            hook = PromptHook(
                event,
                entry.prompt,
                asking,
                timeout=entry.timeout or PROMPT_HOOK_TIMEOUT,
                cwd=str(project),
                matcher=matcher,
                session=session,
                claude_event=name,
            )
        elif isinstance(entry, _HttpEntry):
            hook = HttpHook(
                event,
                entry.url,
                headers=interpolated_headers(entry.headers, entry.allowedEnvVars),
                timeout=entry.timeout or HTTP_DEFAULT_TIMEOUT,
                cwd=str(project),
                matcher=matcher,
                session=session,
                claude_event=name,
            )
        else:
            try:
                hook = CommandHook(
                    event,
                    _command_argv(entry, variables),
                    timeout=entry.timeout or default_timeout,
                    cwd=project,
                    env=variables,
                    matcher=matcher,
                    protocol="claude-code",
                    mode="persistent" if entry.pod.persistent else "per-call",
                    session=session,
                    display=_display(entry),
                    claude_event=name,
                )
            except PodUsageError as exc:
                raise fail(at, str(exc)) from None
        written = group_matcher if tool_event else None
        on_failure = None if isinstance(entry, _PromptEntry) else entry.onFailure
        on_error = _on_error(on_failure, guard=guard)
        configured.append(
            ConfiguredCommandHook(event, hook, on_error, f"{source}: {at}", matcher=written)
        )
    return configured
