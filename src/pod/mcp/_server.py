"""``McpServer``: an MCP server's tools as ordinary tools of a Pod.

A server is started (a command, over stdio) or reached (a URL, over Streamable HTTP) when
its ``async with`` block is entered; its tools are listed once, then, and each becomes an
:class:`McpTool` named ``mcp__<server>__<tool>``. To the Worker an ``McpTool`` is a tool like
any other: every call to it is decided by the interceptors, the permission rules and the
``PRE_TOOL_CALL`` hooks before it reaches the server, and its result goes through the
truncation interceptor and the ``POST_TOOL_CALL`` hooks. Nothing else in the Pod calls the
server: the tool list is fixed when the block is entered (a tool the server adds later is
an unknown tool to the model), and the client offers the server no sampling, elicitation or
roots callback.

A call that fails (the server answers ``isError``, answers with a protocol error or a
malformed result, does not answer within ``call_timeout``, or is gone) raises from
:meth:`McpTool.call`, which the Worker turns into the call's error result.

The ``mcp`` package (``llm-pod[mcp]``) is imported when a server is entered, not before.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from types import TracebackType
from typing import TYPE_CHECKING, Final, cast, final

from pydantic import JsonValue

from llm_worker import Privileged

from ..hooks._errors import McpServerError

if TYPE_CHECKING:
    from mcp import Client
    from mcp.client import Transport
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import CallToolResult, ContentBlock
    from mcp_types import Tool as RemoteTool
    from pydantic import ValidationError

__all__ = ["McpServer", "McpTool", "McpToolError", "tool_name"]

_log: Final = logging.getLogger("pod.mcp")
PREFIX: Final = "mcp__"
_SERVER_NAME: Final = re.compile(r"[A-Za-z0-9_-]+")
_TOOL_NAME: Final = re.compile(r"[A-Za-z0-9_.-]+")
_CLOSED: Final = "the connection is closed (the server exited or stopped answering)"
_HTTP_TIMEOUT: Final = 30.0
_HTTP_READ: Final = 300.0


def tool_name(server: str, tool: str) -> str:
    """The name a server's tool has in a Pod: ``mcp__<server>__<tool>`` (Claude Code's)."""
    return f"{PREFIX}{server}__{tool}"


class McpToolError(Exception):
    """A call to an MCP tool failed; the Worker makes the message the call's error result."""


@final
class McpServer(Privileged):
    """One MCP server; ``async with`` starts it, lists its tools, and stops it on the way out.

    Give exactly one of ``command`` (a stdio server: ``args``, ``env`` and ``cwd`` as for a
    subprocess; ``env`` is added to a minimal inherited environment) or ``url`` (a
    Streamable HTTP server, with optional ``headers``).

    Args:
        name: the server's name in tool names; letters, digits, ``_`` and ``-``, without
            ``__`` (so ``mcp__<server>__<tool>`` reads one way only).
        start_timeout: seconds to start and finish the handshake and listing.
        call_timeout: seconds a call may take before it gets an error result (``None``: no
            limit of its own; the Pod's ``tool_timeout`` still applies).

    Raises:
        McpServerError: on entering, when the server does not start or answer within
            ``start_timeout``, or lists a tool that cannot be offered.

    Example:
        ```python
        async with McpServer("files", command="npx", args=["-y", "server-fs", "."]) as files:
            pod = Pod(client, tools=[*files.tools], permissions=rules)
            result = await pod.run("List the files")
        ```
    """

    def __init__(
        self,
        name: str,
        *,
        command: str | None = None,
        args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        start_timeout: float = 30.0,
        call_timeout: float | None = 60.0,
    ) -> None:
        if not _SERVER_NAME.fullmatch(name) or "__" in name:
            raise ValueError(
                f"MCP server name {name!r}: use letters, digits, '_' and '-', without '__'"
            )
        if (command is None) == (url is None):
            raise ValueError(f"MCP server {name!r}: give either a command or a url")
        self.name = name
        self._command = command
        self._args = tuple(args)
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._url = url
        self._headers = dict(headers) if headers is not None else None
        self._start_timeout = start_timeout
        self.call_timeout = call_timeout
        self._holder: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._client: Client | None = None
        self._tools: tuple[McpTool, ...] | None = None

    @property
    def tools(self) -> tuple[McpTool, ...]:
        """The server's tools, as listed when the ``async with`` block was entered."""
        if self._tools is None:
            raise RuntimeError(f"MCP server {self.name!r}: enter `async with` before .tools")
        return self._tools

    def __repr__(self) -> str:
        where = self._url if self._url is not None else self._command
        return f"McpServer({self.name!r}, {where!r})"

    async def __aenter__(self) -> McpServer:
        if self._holder is not None:
            raise RuntimeError(f"MCP server {self.name!r} is already entered")
        try:
            from mcp import Client
        except ImportError as exc:  # pragma: no cover - the extra is in dev
            raise McpServerError(
                server=self.name, problem="needs the mcp package: pip install 'llm-pod[mcp]'"
            ) from exc
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[tuple[Client, list[RemoteTool]]] = loop.create_future()
        stop = asyncio.Event()
        holder = asyncio.create_task(
            self._hold(Client, ready, stop), name=f"mcp server {self.name}"
        )
        try:
            async with asyncio.timeout(self._start_timeout):
                client, listed = await asyncio.shield(ready)
            tools = _tools_of(self, listed)
        except BaseException as exc:
            holder.cancel()
            with contextlib.suppress(BaseException):
                await holder
            if isinstance(exc, McpServerError):
                raise
            if isinstance(exc, TimeoutError):
                raise McpServerError(
                    server=self.name,
                    problem=f"did not start within {self._start_timeout}s ({self._where()})",
                ) from exc
            if isinstance(exc, Exception):
                raise McpServerError(
                    server=self.name, problem=f"did not start ({self._where()}): {_failure(exc)}"
                ) from exc
            raise
        self._holder, self._stop, self._client, self._tools = holder, stop, client, tools
        return self

    async def _hold(
        self,
        client_class: type[Client],
        ready: asyncio.Future[tuple[Client, list[RemoteTool]]],
        stop: asyncio.Event,
    ) -> None:
        """The task that holds the connection: the SDK's task groups are entered and left
        here, so a transport that fails (a server gone mid-run) cancels this task only,
        never the run that called a tool; the calls waiting for it get error results."""
        try:
            async with AsyncExitStack() as stack:
                target = await self._target(stack)
                client = await stack.enter_async_context(client_class(target, cache=None))
                listed = await _list_tools(client)
                if ready.done():  # given up on while starting
                    return
                ready.set_result((client, listed))
                await stop.wait()
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)
            elif not stop.is_set():  # the connection failed mid-run: calls now say so
                _log.debug("MCP server %r: the connection failed", self.name, exc_info=True)
            else:
                raise  # a failure of the shutdown itself: __aexit__ logs it
        finally:
            if not ready.done():
                ready.cancel()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        holder, stop = self._holder, self._stop
        self._holder = self._stop = self._client = None
        if holder is None or stop is None:
            return
        stop.set()
        try:
            await holder
        except Exception:  # a server gone mid-run also fails its shutdown
            # Its calls already got error results; leaving the block still stops it.
            _log.debug("MCP server %r: stopping it failed", self.name, exc_info=True)

    def _where(self) -> str:
        if self._url is not None:
            return self._url
        return " ".join([self._command or "", *self._args])

    async def _target(self, stack: AsyncExitStack) -> Transport | StdioServerParameters | str:
        """What ``Client`` connects to; an HTTP client of ours is closed with ``stack``."""
        if self._url is not None:
            if not self._headers:
                return self._url
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            # The SDK's own timeouts for MCP over HTTP (30 s, 300 s to read a held stream);
            # a client passed in is the caller's to close.
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=self._headers, timeout=httpx2.Timeout(_HTTP_TIMEOUT, read=_HTTP_READ)
                )
            )
            return streamable_http_client(self._url, http_client=http)
        from mcp.client.stdio import StdioServerParameters

        assert self._command is not None
        return StdioServerParameters(
            command=self._command, args=list(self._args), env=self._env, cwd=self._cwd
        )

    async def _call(self, remote_name: str, arguments: dict[str, JsonValue]) -> str:
        client, holder = self._client, self._holder
        if client is None or holder is None:
            raise McpToolError(f"MCP server {self.name!r} is not running")
        if holder.done():
            raise McpToolError(f"MCP server {self.name!r}: {_CLOSED}")
        try:
            if self.call_timeout is None:
                result = await client.call_tool(remote_name, arguments)
            else:
                async with asyncio.timeout(self.call_timeout):
                    result = await client.call_tool(remote_name, arguments)
        except TimeoutError as exc:
            raise McpToolError(
                f"MCP server {self.name!r} did not answer within {self.call_timeout}s"
            ) from exc
        except Exception as exc:
            if holder.done():  # the transport failed under the call
                raise McpToolError(f"MCP server {self.name!r}: {_CLOSED}") from exc
            raise McpToolError(f"MCP server {self.name!r}: {_failure(exc)}") from exc
        return _result_text(self.name, result)


@final
class McpTool(Privileged):
    """One tool of an :class:`McpServer`, as the Worker sees it (the ``Tool`` protocol)."""

    __slots__ = ("_server", "description", "name", "parameters", "remote_name")

    def __init__(self, server: McpServer, remote: RemoteTool) -> None:
        self._server = server
        self.remote_name: str = remote.name
        """The tool's name on its server."""
        self.name: str = tool_name(server.name, remote.name)
        self.description: str = remote.description or ""
        self.parameters: Mapping[str, JsonValue] = _json_object(remote.input_schema)

    async def call(self, arguments: dict[str, JsonValue]) -> str:
        """Call the tool on its server; raises :class:`McpToolError` when the call fails."""
        return await self._server._call(self.remote_name, arguments)  # pyright: ignore[reportPrivateUsage]

    def __repr__(self) -> str:
        return f"<McpTool {self.name}>"


async def _list_tools(client: Client) -> list[RemoteTool]:
    listed: list[RemoteTool] = []
    cursor: str | None = None
    while True:
        page = await client.list_tools(cursor=cursor)
        listed.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return listed


def _tools_of(server: McpServer, listed: list[RemoteTool]) -> tuple[McpTool, ...]:
    seen: set[str] = set()
    tools: list[McpTool] = []
    for remote in listed:
        if not _TOOL_NAME.fullmatch(remote.name):
            raise McpServerError(
                server=server.name,
                problem=f"lists a tool named {remote.name!r}: use letters, digits, '_', '.', '-'",
            )
        if remote.name in seen:
            raise McpServerError(server=server.name, problem=f"lists {remote.name!r} twice")
        seen.add(remote.name)
        tools.append(McpTool(server, remote))
    return tuple(tools)


def _json_object(schema: Mapping[str, object]) -> dict[str, JsonValue]:
    loaded: dict[str, JsonValue] = json.loads(json.dumps(schema))
    return loaded


def _result_text(server: str, result: CallToolResult) -> str:
    """The text of a tool result: its content blocks, or its structured content as JSON."""
    parts = [_block_text(block) for block in result.content]
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(parts)
    if result.is_error:
        raise McpToolError(f"MCP server {server!r} reported an error: {text or '(no message)'}")
    return text


def _block_text(block: ContentBlock) -> str:
    from mcp_types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents

    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ResourceLink):
        return f"[resource: {block.uri}]"
    if isinstance(block, EmbeddedResource):
        contents = block.resource
        if isinstance(contents, TextResourceContents):
            return contents.text
        return f"[resource: {contents.uri} ({contents.mime_type or 'binary'})]"
    return f"[{block.type}: {block.mime_type}]"


def _unwrap(exc: BaseException) -> BaseException:
    """The one exception inside the groups anyio's task groups wrap it in."""
    current: BaseException = exc
    while isinstance(current, BaseExceptionGroup):
        inner = cast("tuple[BaseException, ...]", current.exceptions)
        if len(inner) != 1:
            break
        current = inner[0]
    return current  # pyright: ignore[reportUnknownVariableType]


def _failure(exc: BaseException) -> str:
    """What went wrong talking to the server, in one line for the model and the user."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED
    from pydantic import ValidationError

    exc = _unwrap(exc)
    if isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED:
        return _CLOSED
    if isinstance(exc, MCPError):
        return f"the server answered with error {exc.code}: {exc.message}"
    if isinstance(exc, ValidationError):
        return f"malformed result: {exc.error_count()} problem(s), first: {_first(exc)}"
    return _describe(exc)


def _first(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in error["loc"]) or "(result)"
    return f"{where}: {error['msg']}"


def _describe(exc: BaseException) -> str:
    """One line for an exception."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
