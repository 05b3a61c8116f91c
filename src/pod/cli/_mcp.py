"""The MCP servers of one ``pod run`` or ``pod resume`` (``--mcp-config``).

The servers are started once every other option checked out, before the Pod is built (their
tools are its tools, so permission rules naming ``mcp__<server>__*`` are checked against
them), and stopped when the command ends: finished, paused, failed or cancelled.

The command drives the run with several ``asyncio.Runner.run`` calls (the run, then each
resume after a pause answered in the terminal), each its own task: a server is entered in
one and left in another, which ``McpServer`` allows (its connection lives in a task of its
own, in the runner's loop, from :meth:`RunServers.start` to :meth:`RunServers.stop`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import final

from llm_worker import Tool

from ..mcp import McpServer
from ._otel import OtlpExport

__all__ = ["CommandResources", "RunServers"]


@final
class RunServers:
    """The MCP servers of a command, started and stopped in ``runner``'s loop."""

    def __init__(self, runner: asyncio.Runner) -> None:
        self._runner = runner
        self._stack: AsyncExitStack | None = None

    def start(self, servers: Sequence[McpServer]) -> tuple[Tool, ...]:
        """Start ``servers`` in order and return their tools; on a failure, stop the ones
        already started and raise.

        Raises:
            McpServerError: a server did not start (the message names it and why).
        """
        if not servers:
            return ()
        return self._runner.run(self._start(tuple(servers)))

    def stop(self) -> None:
        """Stop every server started (each one's process ends); idempotent."""
        stack, self._stack = self._stack, None
        if stack is not None:
            self._runner.run(stack.aclose())

    async def _start(self, servers: tuple[McpServer, ...]) -> tuple[Tool, ...]:
        tools: list[Tool] = []
        async with AsyncExitStack() as stack:
            for server in servers:
                tools.extend((await stack.enter_async_context(server)).tools)
            self._stack = stack.pop_all()  # left open: stop() closes it
        return tuple(tools)


@final
class CommandResources:
    """What one ``pod run`` or ``pod resume`` holds until it ends: its event loop, its MCP
    servers and its span exporter. ``with`` closes them all, on every way out."""

    def __init__(self) -> None:
        self.runner = asyncio.Runner()
        self.servers = RunServers(self.runner)
        self.export: OtlpExport | None = None

    def release(self) -> None:
        """Stop the servers and flush the spans (the loop stays open); idempotent."""
        try:
            self.servers.stop()
        finally:
            if self.export is not None:
                self.export.close()

    def __enter__(self) -> CommandResources:
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.release()
        finally:
            self.runner.close()
