"""The MCP servers of one ``pod run`` or ``pod resume`` (``--mcp-config``).

The servers are started once every other option checked out, before the Pod is built (their
tools are its tools, so permission rules naming ``mcp__<server>__*`` are checked against
them), and stopped when the command ends: finished, paused, failed or cancelled.

The ``mcp`` SDK's task groups must be entered and left in one task, and the command drives
the run with several ``asyncio.Runner.run`` calls (the run, then each resume after a pause
answered in the terminal), each its own task. So one task of the runner's loop holds every
server open, from :meth:`RunServers.start` to :meth:`RunServers.stop`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import final

from llm_worker import Tool

from ..hooks._errors import McpServerError
from ..mcp import McpServer
from ._otel import OtlpExport

__all__ = ["CommandResources", "RunServers"]


@final
class RunServers:
    """The MCP servers of a command, held open by one task of ``runner``'s loop."""

    def __init__(self, runner: asyncio.Runner) -> None:
        self._runner = runner
        self._holder: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None

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
        if self._holder is not None and self._stop is not None:
            self._runner.run(self._stopped())

    async def _start(self, servers: tuple[McpServer, ...]) -> tuple[Tool, ...]:
        started: asyncio.Future[tuple[Tool, ...]] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        self._holder = asyncio.create_task(self._hold(servers, started, self._stop))
        try:
            return await started
        except McpServerError:
            await self._holder  # already leaving: the servers started are stopped
            self._holder = None
            raise

    async def _hold(
        self,
        servers: tuple[McpServer, ...],
        started: asyncio.Future[tuple[Tool, ...]],
        stop: asyncio.Event,
    ) -> None:
        try:
            async with AsyncExitStack() as stack:
                tools: list[Tool] = []
                for server in servers:
                    try:
                        entered = await stack.enter_async_context(server)
                    except McpServerError as exc:
                        started.set_exception(exc)
                        return
                    tools.extend(entered.tools)
                started.set_result(tuple(tools))
                await stop.wait()
        finally:
            if not started.done():  # cancelled while starting: nobody waits forever
                started.cancel()

    async def _stopped(self) -> None:
        holder, stop = self._holder, self._stop
        self._holder = self._stop = None
        if holder is None or stop is None:
            return
        stop.set()
        with contextlib.suppress(Exception):  # a server that died mid-run fails its shutdown
            await holder


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
