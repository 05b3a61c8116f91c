"""The MCP configuration file other clients use: ``{"mcpServers": {name: server}}``.

A server is ``{"command": ..., "args": [...], "env": {...}}`` (stdio) or ``{"url": ...,
"headers": {...}}`` (Streamable HTTP; ``"type": "http"`` may say so). Claude Code, Claude
Desktop and Cursor read the same shape. Other top-level keys are left alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, Literal, cast, final

from pydantic import BaseModel, Field, JsonValue, TypeAdapter, ValidationError

from ..hooks._errors import PodUsageError
from ._server import McpServer

__all__ = ["McpConfigError", "load_mcp_config"]


class McpConfigError(PodUsageError):
    """An MCP configuration file is unreadable or malformed; the message names the file and
    the server at fault."""


# The file's other keys (other clients' settings) are left alone, so it is no model.
_SERVERS: Final = TypeAdapter(dict[str, dict[str, JsonValue]])


@final
class _Stdio(BaseModel, frozen=True, extra="forbid"):
    type: Literal["stdio"] | None = None
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list[str])
    env: dict[str, str] | None = None
    cwd: str | None = None


@final
class _Http(BaseModel, frozen=True, extra="forbid"):
    type: Literal["http", "streamable-http"] | None = None
    url: str = Field(min_length=1)
    headers: dict[str, str] | None = None


def load_mcp_config(path: str | Path) -> tuple[McpServer, ...]:
    """Read the servers of an MCP configuration file, in the file's order (none started).

    Raises:
        McpConfigError: the file cannot be read, is not JSON, has no ``mcpServers`` object,
            or a server is malformed (an unknown field, a missing command or url, a name
            that cannot be part of a tool name).
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise McpConfigError(f"{source}: cannot read it: {exc.strerror or exc}") from exc
    try:
        data: object = json.loads(text)
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"{source}, line {exc.lineno}: not JSON: {exc.msg}") from exc
    try:
        if not isinstance(data, dict):
            raise ValueError("not an object")
        servers = _SERVERS.validate_python(cast("dict[str, object]", data).get("mcpServers"))
    except (ValueError, ValidationError) as exc:
        raise McpConfigError(f'{source}: expected {{"mcpServers": {{NAME: SERVER, ...}}}}') from exc
    return tuple(_server(source, name, entry) for name, entry in servers.items())


def _server(source: str, name: str, entry: dict[str, JsonValue]) -> McpServer:
    is_http = "url" in entry or entry.get("type") in ("http", "streamable-http")
    try:
        if is_http:
            http = _Http.model_validate(entry)
            return McpServer(name, url=http.url, headers=http.headers)
        stdio = _Stdio.model_validate(entry)
        return McpServer(name, command=stdio.command, args=stdio.args, env=stdio.env, cwd=stdio.cwd)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        field = ".".join(str(part) for part in error["loc"]) or "(server)"
        raise McpConfigError(f"{source}: server {name!r}: {field}: {error['msg']}") from exc
    except ValueError as exc:
        raise McpConfigError(f"{source}: {exc}") from exc
