"""Real MCP servers for the tests: subprocesses over stdio (tests/mcp/servers)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pod.mcp import McpServer

SERVERS = Path(__file__).parent / "servers"


def tools_server(
    name: str = "tools", *, env: dict[str, str] | None = None, call_timeout: float = 10.0
) -> McpServer:
    """The SDK-written test server (tools_server.py), started over stdio."""
    return McpServer(
        name,
        command=sys.executable,
        args=[str(SERVERS / "tools_server.py")],
        env=env,
        call_timeout=call_timeout,
    )


def raw_server(mode: str, *, start_timeout: float = 10.0) -> McpServer:
    """The hand-written server that breaks the protocol in ``mode`` (raw_server.py)."""
    return McpServer(
        "raw",
        command=sys.executable,
        args=[str(SERVERS / "raw_server.py"), mode],
        start_timeout=start_timeout,
    )


@pytest.fixture
def call_log(tmp_path: Path) -> Path:
    """The file the tools server appends each call it receives to."""
    return tmp_path / "calls.log"


def logged_server(call_log: Path) -> McpServer:
    """The tools server, logging its calls to ``call_log``, with a 2 s call timeout.

    Entered in each test (``async with``), not in a fixture: the SDK's task groups must be
    entered and left in one task, and pytest-asyncio sets up and tears down in two.
    """
    return tools_server(env={"CALL_LOG": str(call_log)}, call_timeout=2.0)


def calls_received(call_log: Path) -> list[str]:
    """The tools the server ran, in order."""
    return call_log.read_text(encoding="utf-8").split() if call_log.exists() else []
