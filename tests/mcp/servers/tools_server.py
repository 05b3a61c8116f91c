"""A small MCP server for the tests, written with the mcp SDK, run as a subprocess (stdio).

Tools: ``echo`` (text), ``add`` (structured output), ``fail`` (an ``isError`` result),
``crash`` (the process exits mid-call), ``hang`` (never answers), ``grow`` (adds the tool
``late`` and tells the client its tool list changed), ``chatty`` (sends progress and
tool-list notifications before answering), ``shout`` (as echo, in capitals), ``header``
(a request header's value, over HTTP). Every call is
appended to the file named by ``CALL_LOG``, if set, so a test can see what reached the
server; ``PID_FILE``, if set, gets the process id.
``python tools_server.py http PORT`` serves the same tools over Streamable HTTP.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("pod-test-tools", log_level="CRITICAL")


def _log_call(name: str) -> None:
    log = os.environ.get("CALL_LOG")
    if log:
        with Path(log).open("a", encoding="utf-8") as file:
            file.write(name + "\n")


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    _log_call("echo")
    return text


@server.tool()
def shout(text: str) -> str:
    """Return the text in capitals."""
    _log_call("shout")
    return text.upper()


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    _log_call("add")
    return a + b


@server.tool()
def fail(message: str) -> str:
    """Fail with the message."""
    _log_call("fail")
    raise ToolError(message)


@server.tool()
def crash() -> str:
    """Exit the server process in the middle of the call."""
    _log_call("crash")
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answer."""
    _log_call("hang")
    await anyio.sleep(3600)
    return "too late"


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of the request header ``name`` (over HTTP), else ``(none)``."""
    _log_call("header")
    headers = ctx.headers or {}
    return headers.get(name.lower(), headers.get(name, "(none)"))


@server.tool()
async def grow(ctx: Context) -> str:
    """Add the tool ``late`` and notify the client that the tool list changed."""
    _log_call("grow")

    def late() -> str:
        """A tool listed after the client connected."""
        _log_call("late")
        return "late ran"

    server.add_tool(late)
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool()
async def chatty(ctx: Context) -> str:
    """Send progress and tool-list notifications, then answer."""
    _log_call("chatty")
    await ctx.report_progress(1, 2)
    await ctx.session.send_tool_list_changed()
    return "done talking"


if __name__ == "__main__":
    if os.environ.get("PID_FILE"):
        Path(os.environ["PID_FILE"]).write_text(str(os.getpid()), encoding="utf-8")
    if len(sys.argv) == 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
