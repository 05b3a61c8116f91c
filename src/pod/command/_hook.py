"""``CommandHook``: a hook that runs an external command, so that only JSON crosses.

The protocol, for an event ``E`` with Input model ``I``:

- in, on stdin: ``{"event": "<E's name>", "input": <I as JSON>}`` (``I.model_dump(mode="json")``,
  so it matches ``I.model_json_schema()``), as one line of ASCII JSON; for a tool call also
  ``"arguments"``: the call's arguments parsed (``null`` if they are not a JSON object);
- out, on stdout: one decision ``E`` allows, e.g. ``{"decision": "continue"}`` or
  ``{"decision": "skip", "reason": "..."}``. For the observe-only ``ABORT`` the output is ignored.

Per-call mode (the default) starts the command for every event and writes one request; the
command answers and exits with status 0. Persistent mode keeps one process and speaks
newline-delimited JSON: one request line in, one response line out, one request at a time.

Anything else fails the hook with a :class:`CommandHookError` naming the command and what went
wrong (it could not start, timed out, crashed, exited non-zero, printed garbage or a decision
the event does not allow), so the registration's failure policy applies: fail closed by
default. The command is an argv list, never a shell string; its process group is killed when
the call ends (see ``_process``).

``protocol="claude-code"`` speaks Claude Code's hook contract instead (``_claude_code``); in
persistent mode (an llm-pod extension: Claude Code starts a process per event) each request
line is what a per-call script reads on stdin, and the answer line what it prints at exit 0. A
``matcher`` (a regular expression the whole tool name must match) limits a tool-event hook to
some tools; for the others it is not run and the event's neutral decision stands. The command
inherits only a minimal environment (``PATH``, ``HOME``, the locale, ...) unless told
otherwise (``env``, ``inherit_env``; see ``hook_environment``).
"""

from __future__ import annotations

import asyncio
import math
import os
import re
import shlex
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Final, Literal, TypeAlias, TypeVar, cast, final

from pydantic import BaseModel

from ..hooks import _events as events
from ..hooks._base import Hook
from ..hooks._errors import CommandHookError, PodUsageError
from ..hooks._events import HookEvent, UnknownEventError
from ..hooks._registry import reads_only_hook
from ._claude_code import (
    BLOCKING_EXIT,
    CLAUDE_CODE_EVENTS,
    DEFAULT_SESSION,
    ClaudeSession,
    claude_name,
    encode_claude_request,
    hears_of,
    parse_claude_answer,
)
from ._process import LineProcess, ProcessFailure, hook_environment, run_once
from ._protocol import encode_request, matcher_selects, parse_decision, tool_name_of

__all__ = [
    "DEFAULT_TIMEOUT",
    "TOOL_EVENTS",
    "CommandHook",
    "CommandMode",
    "CommandOptionError",
    "CommandProtocol",
]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")

CommandMode: TypeAlias = Literal["per-call", "persistent"]
"""``per-call``: one process per event; ``persistent``: one long-lived process, one JSON line
in and one out per event."""

CommandProtocol: TypeAlias = Literal["native", "claude-code"]
"""``native``: this project's JSON envelope and decisions; ``claude-code``: Claude Code's hook
contract (stdin fields, exit status 2 blocks, its JSON answers)."""

TOOL_EVENTS: Final = (events.PRE_TOOL_CALL, events.POST_TOOL_CALL)
"""The events a ``matcher`` applies to (their Input names a tool)."""

DEFAULT_TIMEOUT: Final = 30.0
"""Seconds a command may take to answer one event, unless told otherwise."""
_SHUTDOWN_GRACE: Final = 1.0
"""Seconds ``aclose`` lets a persistent command exit on end of input before killing it."""


def _check_argv(command: object) -> tuple[str, ...]:
    if isinstance(command, str):
        raise PodUsageError(
            f"a CommandHook command is a list of arguments, not the string {command!r}: "
            'write e.g. ["python3", "policy.py"]; no shell is used (for one, write '
            '["sh", "-c", "..."] explicitly)'
        )
    if not isinstance(command, Sequence):
        raise PodUsageError(f"a CommandHook command is a list of strings, not {command!r}")
    argv = tuple(cast(Sequence[object], command))
    if not argv or not all(isinstance(arg, str) for arg in argv) or not argv[0]:
        raise PodUsageError(
            f"a CommandHook command is a non-empty list of strings with a program first, "
            f"not {command!r}"
        )
    return cast(tuple[str, ...], argv)


class CommandOptionError(PodUsageError):
    """One option of a :class:`CommandHook` is wrong; ``option`` names it (so a loader can
    point at the line that sets it)."""

    def __init__(self, message: str, *, option: str) -> None:
        self.option = option
        super().__init__(message)


@final
class _PersistentState:
    """The long-lived process of one event loop, and the lock that serialises requests."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.lock = asyncio.Lock()
        self.process: LineProcess | None = None
        self.keeper: AsyncGenerator[None, None] | None = None


async def _keep(state: _PersistentState, grace: float) -> AsyncGenerator[None, None]:
    """Stay suspended while ``state`` is in use; on close, end its process.

    An event loop closes the async generators still suspended when it shuts down
    (``asyncio.run`` and ``asyncio.Runner`` do), so a persistent command never outlives the
    loop that started it, even if nobody calls ``aclose``.
    """
    try:
        yield
    finally:
        process, state.process = state.process, None
        if process is not None:
            await process.close(grace=grace)


@final
@reads_only_hook
class CommandHook(Hook[InputT, DecisionT]):
    """A hook that asks an external command: JSON in on stdin, a decision out on stdout.

    The hook serves one event, given first; register it for that event. The command's answer
    is checked against the event's legal decisions, and every way it can go wrong raises
    :class:`CommandHookError`, so the registration's failure policy applies (fail closed
    unless ``on_error`` says otherwise).

    Example:
        ```python
        registry.on(
            events.PRE_TOOL_CALL,
            CommandHook(events.PRE_TOOL_CALL, ["python3", "policy.py"], timeout=5),
            on_error="deny",
        )
        ```

    A persistent hook keeps its process until :meth:`aclose` (or ``async with``); a later
    call starts a new one. It restarts the process after a crash, a timeout or garbage.
    """

    def __init__(
        self,
        event: HookEvent[InputT, DecisionT],
        command: Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        mode: CommandMode = "per-call",
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        inherit_env: bool | Sequence[str] | None = None,
        matcher: str | None = None,
        protocol: CommandProtocol = "native",
        session: ClaudeSession = DEFAULT_SESSION,
        display: str | None = None,
        claude_event: str | None = None,
    ) -> None:
        """Describe the command; nothing starts until the first event.

        Args:
            event: the event this hook serves (one of ``pod.events``).
            command: the program and its arguments (an argv list; no shell).
            timeout: seconds the command may take per event, start-up included (past it its
                process group is killed and the hook fails). Must be positive and finite.
            mode: ``"per-call"`` or ``"persistent"`` (see :data:`CommandMode`).
            cwd: working directory of the command (default: the current one); it must
                exist.
            env: variables set for the command, over the inherited ones.
            inherit_env: what it inherits from this process's environment (read now):
                ``None`` only ``INHERITED_BY_DEFAULT`` (``PATH``, ``HOME``, the locale,
                ...), a list of names those plus these, ``True`` everything, ``False``
                nothing.
            matcher: a regular expression the whole tool name must match for the command to
                be asked (tool events only); other calls get the neutral decision.
            protocol: ``"native"`` or ``"claude-code"``. A persistent ``claude-code``
                command (an llm-pod extension) reads each event's stdin object as one line
                and answers one line: what a per-call script prints at exit 0.
            session: the ``session_id`` and ``transcript_path`` a ``claude-code`` script
                reads (default: one id per process, no transcript).
            display: how failures name the command (default: the argv as a shell line; a
                settings file's hook is named by its ``command`` as written).
            claude_event: the Claude Code event a ``claude-code`` script is written for
                (default: ``event``'s first name); ``PostToolUseFailure`` at
                ``POST_TOOL_CALL`` is asked about error results only, ``PostToolUse``
                about the others.

        Raises:
            UnknownEventError: ``event`` is not in the catalogue.
            PodUsageError: the command is a string or empty, the timeout is not positive and
                finite, the mode or protocol is unknown or they do not go together, the
                matcher is not a regular expression or the event names no tool, ``cwd`` is
                not a folder, or this system has no process groups.
        """
        if not any(event is known for known in events.CATALOGUE):
            raise UnknownEventError(event)
        if not hasattr(os, "killpg"):
            raise PodUsageError("CommandHook needs a POSIX system (process groups)")
        self._argv = _check_argv(command)
        if not (math.isfinite(timeout) and timeout > 0):
            raise CommandOptionError(
                f"a CommandHook timeout must be positive and finite: {timeout!r}", option="timeout"
            )
        if mode not in ("per-call", "persistent"):
            raise CommandOptionError(
                f"unknown CommandHook mode {mode!r}: use per-call or persistent", option="mode"
            )
        if protocol not in ("native", "claude-code"):
            raise CommandOptionError(
                f"unknown protocol {protocol!r}: use native or claude-code", option="protocol"
            )
        if protocol == "claude-code":
            if claude_name(event) is None:
                raise CommandOptionError(
                    f"Claude Code has no hook event for {event.name}", option="event"
                )
            claude_event = claude_event or claude_name(event)
            if CLAUDE_CODE_EVENTS.get(str(claude_event)) is not event:
                raise CommandOptionError(
                    f"Claude Code's {claude_event} does not run at {event.name}",
                    option="claude_event",
                )
        self._matcher = None
        if matcher is not None:
            if not any(event is tool_event for tool_event in TOOL_EVENTS):
                raise CommandOptionError(
                    f"a matcher selects tools: {event.name} has none (drop the matcher)",
                    option="matcher",
                )
            try:
                self._matcher = re.compile(matcher)
            except re.error as exc:
                raise CommandOptionError(
                    f"matcher {matcher!r} is not a regular expression: {exc}", option="matcher"
                ) from None
        if cwd is not None and not os.path.isdir(cwd):
            raise CommandOptionError(
                f"the cwd {os.fspath(cwd)!r} of a CommandHook is not a folder", option="cwd"
            )
        self._event = event
        self._timeout = float(timeout)
        self._mode: CommandMode = mode
        self._protocol: CommandProtocol = protocol
        self._session = session
        self._claude_event = claude_event
        self._cwd = None if cwd is None else os.fspath(cwd)
        self._env = hook_environment(env, inherit_env)
        self._display = shlex.join(self._argv) if display is None else display
        self._persistent: _PersistentState | None = None
        # The registry names a hook by its __qualname__: make failures name the command.
        self.__qualname__ = f"CommandHook({self._display})"

    def selects(self, tool_name: str) -> bool:
        """Whether a call of ``tool_name`` is put to the command (always, without a
        matcher; ``pod rules check`` names a hook that selects no tool of the run)."""
        return matcher_selects(self._matcher, tool_name)

    @property
    def event(self) -> HookEvent[InputT, DecisionT]:
        """The event this hook serves."""
        return self._event

    @property
    def command(self) -> tuple[str, ...]:
        """The argv the command runs with."""
        return self._argv

    @property
    def timeout(self) -> float:
        """Seconds the command may take per event."""
        return self._timeout

    @property
    def mode(self) -> CommandMode:
        """``per-call`` or ``persistent``."""
        return self._mode

    @property
    def protocol(self) -> CommandProtocol:
        """``native`` or ``claude-code``."""
        return self._protocol

    @property
    def environment(self) -> Mapping[str, str]:
        """The environment the command runs with (a copy)."""
        return dict(self._env)

    def __repr__(self) -> str:
        return (
            f"CommandHook({self._event!r}, {list(self._argv)!r}, "
            f"timeout={self._timeout:g}, mode={self._mode!r})"
        )

    async def __call__(self, info: InputT) -> DecisionT:
        """Ask the command about ``info`` and return its decision.

        Raises:
            CommandHookError: the command failed or answered illegally (see the module doc).
        """
        event = self._event
        if not isinstance(info, event.input_type):
            raise CommandHookError(
                command=self._display,
                problem=(
                    f"serves {event.name.upper()} but was given a {type(info).__name__}: "
                    "register it for the event it was made for"
                ),
            )
        if not self.selects(tool_name_of(info)):
            return event.neutral
        if self._protocol == "claude-code":
            if not hears_of(info, self._claude_event):
                return event.neutral  # PostToolUse: successes; PostToolUseFailure: errors
            return await self._ask_claude_code(info)
        request = encode_request(event, info)
        try:
            if self._mode == "persistent":
                output, stderr = await self._ask_persistent(request + b"\n")
            else:
                output, stderr, _ = await run_once(
                    self._argv, request, timeout=self._timeout, cwd=self._cwd, env=self._env
                )
        except ProcessFailure as failure:
            raise CommandHookError(
                command=self._display, problem=failure.problem, stderr=failure.stderr
            ) from None
        return parse_decision(event, output, command=self._display, stderr=stderr)

    async def _ask_claude_code(self, info: InputT) -> DecisionT:
        cwd = self._cwd if self._cwd is not None else os.getcwd()
        request = encode_claude_request(
            self._event,
            info,
            cwd=cwd,
            command=self._display,
            session=self._session,
            name=self._claude_event,
        )
        try:
            if self._mode == "persistent":  # an llm-pod extension: one JSON line in, one out
                status = 0  # no exit status per event: the line is what stdout would be
                output, stderr = await self._ask_persistent(request + b"\n")
            else:
                output, stderr, status = await run_once(
                    self._argv,
                    request,
                    timeout=self._timeout,
                    cwd=self._cwd,
                    env=self._env,
                    exit_codes=frozenset({0, BLOCKING_EXIT}),
                )
        except ProcessFailure as failure:
            raise CommandHookError(
                command=self._display, problem=failure.problem, stderr=failure.stderr
            ) from None
        return parse_claude_answer(
            self._event, status, output, stderr, command=self._display, name=self._claude_event
        )

    def _state(self) -> _PersistentState:
        loop = asyncio.get_running_loop()
        state = self._persistent
        if state is None or state.loop is not loop:
            if state is not None and state.process is not None:
                state.process.abandon()  # started under an event loop that has ended
            state = self._persistent = _PersistentState(loop)
        return state

    async def _ask_persistent(self, line: bytes) -> tuple[bytes, str]:
        state = self._state()
        async with state.lock:
            try:
                async with asyncio.timeout(self._timeout):
                    if state.process is not None and not state.process.alive:
                        await state.process.close()  # it died between requests: reap it
                        state.process = None
                    if state.process is None:
                        state.process = await LineProcess.start(
                            self._argv, cwd=self._cwd, env=self._env
                        )
                        if state.keeper is None:
                            state.keeper = _keep(state, self._grace())
                            await anext(state.keeper)
                    answer = await state.process.exchange(line)
                    return answer, state.process.stderr_text()
            except BaseException as exc:
                failed, state.process = state.process, None
                stderr = failed.stderr_text() if failed is not None else ""
                if failed is not None:
                    await failed.close()
                if isinstance(exc, TimeoutError):
                    raise ProcessFailure(f"timed out after {self._timeout:g}s", stderr) from None
                raise

    async def aclose(self) -> None:
        """End a persistent command: close its stdin, give it a moment to exit, then kill its
        process group. Does nothing for a per-call hook or one with no process running."""
        state, self._persistent = self._persistent, None
        if state is None:
            return
        if state.loop is not asyncio.get_running_loop():
            if state.process is not None:
                state.process.abandon()
            return
        async with state.lock:
            if state.keeper is not None:
                await state.keeper.aclose()

    def _grace(self) -> float:
        return min(self._timeout, _SHUTDOWN_GRACE)

    async def __aenter__(self) -> CommandHook[InputT, DecisionT]:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
