"""load_mcp_config: the mcpServers file Claude Code and other clients use."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult
from pod import Pod
from pod.mcp import McpConfigError, load_mcp_config
from tests.mcp.conftest import SERVERS


def write(tmp_path: Path, config: object) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config) if not isinstance(config, str) else config)
    return path


async def test_a_stdio_server_from_the_file_serves_its_tools(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "local": {"command": sys.executable, "args": [str(SERVERS / "tools_server.py")]}
            }
        },
    )
    (server,) = load_mcp_config(path)
    async with server:
        pod = Pod(
            ScriptedClient(
                [
                    ScriptedReply(calls=[ScriptedCall("mcp__local__echo", {"text": "hi"})]),
                    ScriptedReply(text="done"),
                ]
            ),
            tools=server.tools,
        )
        await pod.run("go")
    (result,) = [item for item in pod.history if isinstance(item, ToolResult)]
    assert result.content == "hi"


def test_servers_keep_the_files_order_and_kind(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "b": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X": "1"}},
                "a": {"command": "srv", "args": ["--x"], "env": {"K": "v"}},
            },
            "otherClientSetting": True,
        },
    )
    assert [repr(server) for server in load_mcp_config(path)] == [
        "McpServer('b', 'http://127.0.0.1:9/mcp')",
        "McpServer('a', 'srv')",
    ]


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ("{not json", r"mcp.json, line 1: not JSON"),
        ({"servers": {}}, r'expected \{"mcpServers"'),
        ({"mcpServers": {"a": {"command": "x", "argv": []}}}, r"server 'a': argv: Extra inputs"),
        ({"mcpServers": {"a": {"args": []}}}, r"server 'a': command: Field required"),
        ({"mcpServers": {"a": {"command": "x", "args": "-v"}}}, r"server 'a': args: "),
        ({"mcpServers": {"a__b": {"command": "x"}}}, r"MCP server name 'a__b'"),
        ({"mcpServers": {"a": {"type": "sse", "url": "http://x"}}}, r"server 'a': type: "),
    ],
)
def test_a_malformed_file_names_the_file_the_server_and_the_field(
    tmp_path: Path, config: object, problem: str
) -> None:
    with pytest.raises(McpConfigError, match=problem):
        load_mcp_config(write(tmp_path, config))


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(McpConfigError, match=r"nowhere.json: cannot read it"):
        load_mcp_config(tmp_path / "nowhere.json")
