"""``Bash``: Claude Code's shell tool, a real shell in the workspace.

Each call runs ``command`` with ``bash -c`` (``sh -c`` where there is no bash) in the
workspace folder, in a process group of its own, with stdin closed and the environment of
``pod`` itself. Nothing carries over between calls (no working directory, no variables).

- ``timeout`` is in milliseconds (default :data:`DEFAULT_TIMEOUT_MS`, at most
  :data:`MAX_TIMEOUT_MS`, as in Claude Code). When it passes, the whole process group is
  killed (``SIGKILL``) and the result says so (``interrupted: true``).
- When the shell exits, whatever it left running in its process group (``cmd &``) is
  killed too, so a call never outlives its result.
- stdout and stderr are each kept up to ``max_output_chars`` characters (default
  :data:`MAX_OUTPUT_CHARS`, Claude Code's); the rest is read and dropped, and the result says
  how much.
- A non-zero exit status is part of the result (``Exit code N``), not a tool error.
- ``description`` is accepted (Claude Code's models send it) and shown nowhere.
- ``run_in_background`` and ``dangerouslyDisableSandbox`` are not offered.

The ``tool_response`` has the fields of Claude Code's ``BashOutput``: ``stdout``,
``stderr``, ``interrupted``, ``isImage`` (always false), plus ``returnCodeInterpretation``
for a non-zero status and ``timedOutAfterMs`` on a timeout.

A shell is not a sandbox: a command can read whatever the user running ``pod`` can; guard
``Bash`` with hooks or rules (``command_prefix``), or do not offer it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
from typing import Final, final

from pydantic import BaseModel, Field, JsonValue

from ._base import ClaudeCodeTool
from ._workspace import Workspace

__all__ = ["DEFAULT_TIMEOUT_MS", "MAX_OUTPUT_CHARS", "MAX_TIMEOUT_MS", "BashTool"]

DEFAULT_TIMEOUT_MS: Final = 120_000
MAX_TIMEOUT_MS: Final = 600_000
MAX_OUTPUT_CHARS: Final = 30_000
_CHUNK: Final = 65_536
_DRAIN_SECONDS: Final = 5.0
"""How long the pipes are read once the process group is gone (a process that left the
group may still hold them open)."""


@final
class BashArguments(BaseModel, frozen=True, extra="forbid"):
    command: str = Field(min_length=1, description="The shell command to run")
    timeout: int | None = Field(
        default=None,
        gt=0,
        le=MAX_TIMEOUT_MS,
        description=f"Milliseconds before the command is killed (default {DEFAULT_TIMEOUT_MS}, "
        f"at most {MAX_TIMEOUT_MS})",
    )
    description: str | None = Field(
        default=None, description="What the command does, in 5-10 words"
    )


@final
class _Captured:
    """One stream, kept up to a number of characters."""

    __slots__ = ("dropped", "kept", "limit")

    def __init__(self, limit: int) -> None:
        self.kept = bytearray()
        self.dropped = 0
        self.limit = limit

    def add(self, chunk: bytes) -> None:
        room = max(self.limit * 4 - len(self.kept), 0)  # bytes: up to 4 per character
        self.kept += chunk[:room]
        self.dropped += max(len(chunk) - room, 0)

    def text(self) -> tuple[str, int]:
        """The kept text and how many characters (or bytes, past the kept ones) were cut."""
        decoded = self.kept.decode("utf-8", errors="replace")
        cut = max(len(decoded) - self.limit, 0) + self.dropped
        return decoded[: self.limit], cut


@final
class _Shell(asyncio.SubprocessProtocol):
    """The shell's pipes and its exit, told apart: the shell may exit while something it
    started still holds the pipes (``asyncio.subprocess``'s ``wait`` waits for both)."""

    def __init__(self, limit: int) -> None:
        loop = asyncio.get_running_loop()
        self.stdout, self.stderr = _Captured(limit), _Captured(limit)
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        (self.stdout if fd == 1 else self.stderr).add(data)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


@final
class BashTool(ClaudeCodeTool[BashArguments]):
    name = "Bash"
    description = (
        "Run a shell command in the workspace folder (bash -c). Each call starts afresh in "
        f"the workspace. timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}, at most "
        f"{MAX_TIMEOUT_MS}); output beyond {MAX_OUTPUT_CHARS} characters per stream is cut."
    )
    arguments = BashArguments

    def __init__(
        self,
        workspace: Workspace,
        *,
        default_timeout_ms: int = DEFAULT_TIMEOUT_MS,
        max_output_chars: int = MAX_OUTPUT_CHARS,
    ) -> None:
        self._workspace = workspace
        self._default_timeout_ms = default_timeout_ms
        self._max_output_chars = max_output_chars
        self._shell = shutil.which("bash") or "/bin/sh"

    async def run(self, arguments: BashArguments) -> tuple[str, dict[str, JsonValue]]:
        timeout_ms = arguments.timeout or self._default_timeout_ms
        loop = asyncio.get_running_loop()
        transport, shell = await loop.subprocess_exec(
            lambda: _Shell(self._max_output_chars),
            self._shell,
            "-c",
            arguments.command,
            cwd=self._workspace.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: killed as one
        )
        pid = transport.get_pid()
        timed_out = False
        try:
            try:
                async with asyncio.timeout(timeout_ms / 1000):
                    await asyncio.shield(shell.exited)
            except TimeoutError:
                timed_out = True
            _kill_group(pid)  # on a timeout the shell too; else what it left running
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_DRAIN_SECONDS):
                    await asyncio.shield(shell.closed)
        finally:
            _kill_group(pid)  # also when the call itself is cancelled
            if not shell.exited.done():  # cancelled: reap the shell (asyncio.wait never raises)
                await asyncio.wait({shell.exited}, timeout=_DRAIN_SECONDS)
            transport.close()
        status = transport.get_returncode()
        return self._result(shell.stdout, shell.stderr, status, timed_out, timeout_ms)

    def _result(
        self,
        stdout: _Captured,
        stderr: _Captured,
        status: int | None,
        timed_out: bool,
        timeout_ms: int,
    ) -> tuple[str, dict[str, JsonValue]]:
        out, out_cut = stdout.text()
        err, err_cut = stderr.text()
        response: dict[str, JsonValue] = {
            "stdout": out,
            "stderr": err,
            "interrupted": timed_out,
            "isImage": False,
        }
        parts: list[str] = []
        if out:
            parts.append(out.rstrip("\n"))
        if out_cut:
            parts.append(f"... [{out_cut} more characters of stdout cut]")
        if err:
            parts.append(err.rstrip("\n"))
        if err_cut:
            parts.append(f"... [{err_cut} more characters of stderr cut]")
        if timed_out:
            response["timedOutAfterMs"] = timeout_ms
            parts.append(f"Command timed out after {timeout_ms} ms; its processes were killed")
        elif status:
            interpretation = f"killed by signal {-status}" if status < 0 else f"exit code {status}"
            response["returnCodeInterpretation"] = interpretation
            parts.append(f"Exit code {status}" if status > 0 else f"Killed by signal {-status}")
        return "\n".join(parts) or "(no output)", response
