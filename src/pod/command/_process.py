"""Running a hook command as a child process, so that nothing it does can outlive the call.

Contract (POSIX):
- Every command starts in a new session, so it leads a process group of its own. Whenever we
  are done with it (it exited, it timed out, its caller was cancelled, it printed too much)
  the whole group gets SIGKILL: a grandchild it left running dies with it.
- The command is always reaped, and waiting is always bounded: no zombie, no hang.
- Output is bounded: at most :data:`MAX_OUTPUT_BYTES` on stdout (past it the command is
  killed and the call fails); the last :data:`STDERR_TAIL_BYTES` of stderr are kept.

We use ``loop.subprocess_exec`` with our own protocol rather than ``create_subprocess_exec``:
on 3.11 ``Process.wait()`` returns only once every pipe is closed, so a grandchild holding
stdout would keep us waiting until the timeout; the protocol hears the exit itself.

Failures are raised as :class:`ProcessFailure` (a problem and the stderr tail); ``CommandHook``
turns them into ``CommandHookError`` naming the command.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from typing import Final, final

from typing_extensions import override

__all__ = [
    "INHERITED_BY_DEFAULT",
    "MAX_OUTPUT_BYTES",
    "STDERR_TAIL_BYTES",
    "LineProcess",
    "ProcessFailure",
    "hook_environment",
    "run_once",
]

MAX_OUTPUT_BYTES: Final = 1 << 20
"""Most a command may print on stdout for one call (1 MiB)."""
STDERR_TAIL_BYTES: Final = 2048
"""How much of the end of stderr a failure reason carries."""
_REAP_GRACE: Final = 5.0
"""Seconds to wait for a SIGKILLed group's pipes to close before giving up on them (the
event loop's child watcher still reaps the command)."""


INHERITED_BY_DEFAULT: Final = ("PATH", "HOME", "LANG", "LC_*", "TMPDIR", "TERM", "TZ")
"""Names (globs, case-sensitive) of the variables a hook command inherits by default: what
programs need to start, find files and speak the locale. Everything else (credentials under
any name: ``PGPASSWORD``, ``POD_DATABASE_URL``, cloud tokens) is left out unless named."""


def _inherited_by_default(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in INHERITED_BY_DEFAULT)


def hook_environment(
    env: Mapping[str, str] | None = None,
    inherit: bool | Sequence[str] | None = None,
    *,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of a hook command.

    Args:
        env: variables to set (they win over inherited ones; a protocol's own variables,
            such as ``CLAUDE_PROJECT_DIR``, are passed here).
        inherit: what to take from ``base``: ``None`` (the default) only
            :data:`INHERITED_BY_DEFAULT`; a list of names those defaults plus exactly these
            (naming a credential is a choice); ``True`` everything; ``False`` nothing.
        base: the environment inherited from (default: this process's).
    """
    source = os.environ if base is None else base
    if inherit is True:
        chosen = dict(source)
    elif inherit is False:
        chosen = {}
    else:
        named = () if inherit is None else inherit
        chosen = {k: v for k, v in source.items() if _inherited_by_default(k)}
        chosen.update({name: source[name] for name in named if name in source})
    chosen.update(env or {})
    return chosen


class ProcessFailure(Exception):
    """The command did not answer as it should; ``problem`` reads after the command's name."""

    def __init__(self, problem: str, stderr: str = "") -> None:
        self.problem = problem
        self.stderr = stderr
        super().__init__(problem)


def _kill_group(pgid: int) -> None:
    """SIGKILL every process of the group (gone already is fine)."""
    # The group outlives its leader while any member lives, so its id cannot be reused
    # before the last straggler is dead.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _exit_problem(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name}"
    return f"exited with status {returncode}"


def _has_exited(pid: int) -> bool:
    """Whether our child ``pid`` has exited, asked now rather than when the event loop hears
    of it, and without reaping it (the loop's child watcher does that)."""
    if not hasattr(os, "waitid"):  # macOS: rely on the event loop having heard
        return False
    try:
        status = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped already
        return True
    return status is not None


@final
class _Protocol(asyncio.SubprocessProtocol):
    """Collects bounded output and tells when the command exits and when its pipes close."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.stdout = bytearray()
        self.stderr_tail = bytearray()
        self.overflowed = False
        self.loop = loop
        # Events, not futures: a cancelled waiter must not cancel what others wait for.
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()
        self.changed = asyncio.Event()
        self.pgid: int | None = None

    @override
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self.pgid = transport.get_pid()

    @override
    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            if len(self.stdout) + len(data) > MAX_OUTPUT_BYTES:
                self.overflowed = True
                if self.pgid is not None:
                    _kill_group(self.pgid)
            else:
                self.stdout += data
        elif fd == 2:
            self.stderr_tail += data
            del self.stderr_tail[:-STDERR_TAIL_BYTES]
        self.changed.set()

    @override
    def process_exited(self) -> None:
        self.exited.set()
        self.changed.set()

    @override
    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        self.changed.set()

    def stderr_text(self) -> str:
        return bytes(self.stderr_tail).decode("utf-8", errors="replace").strip()

    def failure(self, problem: str) -> ProcessFailure:
        return ProcessFailure(problem, self.stderr_text())


async def _spawn(
    argv: Sequence[str], *, cwd: str | None, env: Mapping[str, str] | None
) -> tuple[asyncio.SubprocessTransport, _Protocol]:
    loop = asyncio.get_running_loop()
    # Shielded: cancelled mid-start (a timeout), asyncio would close the new transport before
    # its child watcher heard the exit, reap the child itself, and the watcher would log
    # "Unknown child process pid ...". Let the start finish, then dispose of it our way.
    starting = asyncio.ensure_future(
        loop.subprocess_exec(
            lambda: _Protocol(loop),
            *argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            cwd=cwd,
            env=None if env is None else dict(env),
        )
    )
    try:
        return await asyncio.shield(starting)
    except OSError as exc:
        raise ProcessFailure(f"could not start: {exc}") from exc
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            await _dispose(*await starting)
        raise


async def _dispose(transport: asyncio.SubprocessTransport, protocol: _Protocol) -> None:
    """Kill the group, close our pipe ends and wait (bounded) until the command is reaped.

    The transport is closed only once the event loop has heard the exit: closing it before
    would make it poll (and so reap) the command itself, and the child watcher, finding its
    child gone, logs "Unknown child process pid ..., will report returncode 255".
    """
    if protocol.closed.is_set():  # exited, reaped, stragglers killed: nothing left to kill
        transport.close()
        return
    _kill_group(transport.get_pid())
    try:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(_REAP_GRACE):
                await protocol.exited.wait()
    finally:
        transport.close()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(_REAP_GRACE):
            await protocol.closed.wait()


async def run_once(
    argv: Sequence[str],
    request: bytes,
    *,
    timeout: float,  # noqa: ASYNC109  # on timeout we kill the group and keep its stderr
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    exit_codes: frozenset[int] = frozenset({0}),
) -> tuple[bytes, str, int]:
    """Start the command, write ``request`` to its stdin, and return its stdout, the tail of
    its stderr and its exit status once it has exited with one of ``exit_codes``.

    Raises:
        ProcessFailure: it could not start, timed out, printed too much, or exited with
            another status or by a signal.
    """
    protocol: _Protocol | None = None
    transport: asyncio.SubprocessTransport | None = None
    try:
        async with asyncio.timeout(timeout):
            transport, protocol = await _spawn(argv, cwd=cwd, env=env)
            stdin = transport.get_pipe_transport(0)
            assert isinstance(stdin, asyncio.WriteTransport)
            # A command may exit without reading stdin: the broken pipe is not its failure.
            stdin.write(request)
            stdin.write_eof()
            await protocol.exited.wait()
            _kill_group(transport.get_pid())  # whatever it left behind
            await protocol.closed.wait()
    except TimeoutError:
        problem = f"timed out after {timeout:g}s"
        raise (protocol.failure(problem) if protocol else ProcessFailure(problem)) from None
    finally:
        if transport is not None and protocol is not None:
            await _dispose(transport, protocol)
    # Both are set: an exception would have left above.
    assert transport is not None
    assert protocol is not None
    if protocol.overflowed:
        raise protocol.failure(f"printed more than {MAX_OUTPUT_BYTES} bytes on stdout")
    returncode = transport.get_returncode()
    assert returncode is not None  # connection_lost comes after the exit
    if returncode not in exit_codes:
        raise protocol.failure(_exit_problem(returncode))
    return bytes(protocol.stdout), protocol.stderr_text(), returncode


@final
class LineProcess:
    """A long-lived command answering one line on stdout for each line on stdin.

    Not safe for concurrent use: the caller sends one request at a time (under a lock).
    A failed exchange leaves the process unusable (``alive`` is false); the caller kills it
    with :meth:`close` and starts another.
    """

    def __init__(self, transport: asyncio.SubprocessTransport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self._broken = False

    @classmethod
    async def start(
        cls, argv: Sequence[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None
    ) -> LineProcess:
        """Start the command.

        Raises:
            ProcessFailure: it could not start.
        """
        return cls(*await _spawn(argv, cwd=cwd, env=env))

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the process belongs to (it can only be awaited from there)."""
        return self._protocol.loop

    def stderr_text(self) -> str:
        """The end of what the process wrote on stderr so far (at most 2 KB, decoded)."""
        return self._protocol.stderr_text()

    @property
    def alive(self) -> bool:
        """Whether it can take a request: running, in sync, and not closed."""
        if self._broken or self._protocol.exited.is_set() or self._transport.is_closing():
            return False
        return not _has_exited(self._transport.get_pid())

    async def exchange(self, line: bytes) -> bytes:
        """Write one request line and return the response line (without its newline).

        The caller bounds the time (``asyncio.timeout``) and closes the process on failure.

        Raises:
            ProcessFailure: it printed something unasked, exited, printed more than one line
                or more than :data:`MAX_OUTPUT_BYTES`.
        """
        protocol = self._protocol
        self._broken = True  # until a clean answer proves it in sync
        if protocol.stdout:
            raise protocol.failure("printed output nobody asked for between requests")
        stdin = self._transport.get_pipe_transport(0)
        assert isinstance(stdin, asyncio.WriteTransport)
        stdin.write(line)
        while b"\n" not in protocol.stdout:
            if protocol.overflowed:
                raise protocol.failure(f"printed more than {MAX_OUTPUT_BYTES} bytes on stdout")
            if protocol.closed.is_set():  # exited, and every pipe drained: no answer is coming
                returncode = self._transport.get_returncode()
                problem = _exit_problem(returncode) if returncode is not None else "exited"
                raise protocol.failure(f"{problem} before answering")
            if protocol.exited.is_set():
                # Its last words may still be in the pipe; stragglers must not keep it open.
                _kill_group(self._transport.get_pid())
                await protocol.closed.wait()
                continue
            protocol.changed.clear()
            await protocol.changed.wait()
        answer, _, rest = bytes(protocol.stdout).partition(b"\n")
        protocol.stdout.clear()
        if rest:
            raise protocol.failure("printed more than one line for one request")
        self._broken = False
        return answer

    async def close(self, *, grace: float = 0.0) -> None:
        """End the process: close its stdin, let it exit within ``grace`` seconds, then kill
        its group. Bounded; never raises."""
        if grace > 0 and self.alive:
            stdin = self._transport.get_pipe_transport(0)
            if isinstance(stdin, asyncio.WriteTransport):
                stdin.write_eof()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace):
                    await self._protocol.exited.wait()
        await _dispose(self._transport, self._protocol)

    def abandon(self) -> None:
        """Kill the group without waiting: the process belongs to an event loop that is no
        longer running, so it cannot be awaited (that loop's child watcher reaps it)."""
        _kill_group(self._transport.get_pid())
        with contextlib.suppress(RuntimeError):  # its loop is closed
            self._transport.close()
