"""A real pseudo-terminal for the CLI tests: stdin, stdout and stderr one terminal of
``columns`` columns (its window size set, as a terminal emulator does)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import termios
import time
from pathlib import Path
from typing import Final

__all__ = ["COLUMNS", "Terminal"]

COLUMNS: Final = 80
"""The width a user's terminal has unless a test says otherwise."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal:
    """A process whose stdin, stdout and stderr are one pseudo-terminal."""

    def __init__(self, argv: list[str], cwd: Path, *, columns: int = COLUMNS) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
        env.pop("COLUMNS", None)  # the width is the terminal's own
        env.update(NO_COLOR="1", TERM="xterm")
        controller, terminal = pty.openpty()
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        self.process = subprocess.Popen(
            argv, stdin=terminal, stdout=terminal, stderr=terminal, cwd=cwd, env=env
        )
        os.close(terminal)
        self.controller = controller
        self._raw = b""
        self._read_up_to = 0

    @property
    def screen(self) -> str:
        return _ANSI.sub("", self._raw.decode(errors="replace")).replace("\r", "")

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.controller], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.controller, 4096)
        except OSError:  # EIO: the process closed the terminal
            data = b""
        self._raw += data
        return bool(data)

    def expect(self, text: str, timeout: float = 30) -> None:
        """Wait until ``text`` appears after what was already expected."""
        deadline = time.monotonic() + timeout
        while text not in self.screen[self._read_up_to :]:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._read(min(remaining, 0.5)):
                raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen}")
        self._read_up_to = self.screen.index(text, self._read_up_to) + len(text)

    def type(self, line: str) -> None:
        os.write(self.controller, line.encode() + b"\r")

    def finish(self, timeout: float = 30) -> int:
        deadline = time.monotonic() + timeout
        while self._read(max(0.0, deadline - time.monotonic())) and time.monotonic() < deadline:
            pass
        code = self.process.wait(timeout=max(1.0, deadline - time.monotonic()))
        os.close(self.controller)
        return code
