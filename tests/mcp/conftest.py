"""Real MCP servers for the tests: subprocesses over stdio (tests/mcp/servers)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Generator
from contextlib import contextmanager
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

    Entered in each test (``async with``), so each test shows the server's whole life.
    """
    return tools_server(env={"CALL_LOG": str(call_log)}, call_timeout=2.0)


def calls_received(call_log: Path) -> list[str]:
    """The tools the server ran, in order."""
    return call_log.read_text(encoding="utf-8").split() if call_log.exists() else []


TIME_SERVER_OVER_HTTP = (
    "import sys; from mcp_server_time.server import create_server; "
    "create_server('UTC').run('streamable-http', host='127.0.0.1', port=int(sys.argv[1]))"
)
"""The published reference time server (``mcp-server-time``), served over Streamable HTTP
by the SDK's own transport: ``create_server`` is the server its ``main`` runs over stdio."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def http_server(
    *command: str, env: dict[str, str] | None = None
) -> Generator[tuple[str, subprocess.Popen[bytes]]]:
    """Start ``command PORT`` (an MCP server over Streamable HTTP on 127.0.0.1), wait until
    it accepts connections, and yield its URL and process; stopped afterwards."""
    port = _free_port()
    process = subprocess.Popen(
        [*command, str(port)],
        env=None if env is None else {**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30  # a readiness wait, not a timed assertion
        while True:
            assert process.poll() is None, f"{command} exited with {process.returncode}"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, f"{command} did not listen on {port}"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
