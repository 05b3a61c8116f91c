"""``pod run --mcp-config FILE``: servers from the file Claude Code reads, started for the
run and stopped after it, their tools governed by the rules as any other tool.

Each test runs ``python -m pod`` in a new process against the providers' replay server; the
MCP servers are real subprocesses: the published reference time server (``mcp-server-time``,
which nobody on the project wrote) and the SDK-written test server.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import chat_reply, pod_command
from tests.mcp.conftest import SERVERS
from tests.providers.conftest import ReplayServer, server

__all__ = ["server"]

ALLOW_MCP = """
[[rule]]
tool = "mcp__tools__echo"
action = "allow"

[[rule]]
tool = "mcp__tools__shout"
action = "deny"
"""


def model_options(replay: ReplayServer) -> list[str]:
    return ["--model=openai:m", f"--base-url={replay.url}/v1", "--api-key=k", "--max-retries=0"]


def write_config(folder: Path, servers: dict[str, Any]) -> Path:
    path = folder / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def tools_server_entry(tmp_path: Path) -> dict[str, Any]:
    """The SDK-written test server, logging its calls and writing its process id."""
    return {
        "command": sys.executable,
        "args": [str(SERVERS / "tools_server.py")],
        "env": {"CALL_LOG": str(tmp_path / "calls.log"), "PID_FILE": str(tmp_path / "pid")},
    }


def tool_messages(replay: ReplayServer) -> dict[str, str]:
    """The tool results the model was sent, by call id, from the last request."""
    messages: list[dict[str, Any]] = replay.requests[-1].body["messages"]
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def offered_tools(replay: ReplayServer) -> dict[str, Any]:
    tools: list[dict[str, Any]] = replay.requests[0].body["tools"]
    return {t["function"]["name"]: t["function"] for t in tools}


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is a process that ended and was not waited for: not running.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ", 1)[1][:1] != "Z"


def test_a_published_server_over_stdio_gives_the_run_its_tools(
    server: ReplayServer, tmp_path: Path
) -> None:
    config = write_config(
        tmp_path,
        {
            "time": {
                "command": sys.executable,
                "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
            }
        },
    )
    server.reply_json(
        chat_reply(
            calls=(
                (
                    "call_1",
                    "mcp__time__convert_time",
                    {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
                ),
            )
        )
    )
    server.reply_json(chat_reply(text="21:00 in Tokyo."))
    done = pod_command(
        "run", "Noon UTC in Tokyo?", *model_options(server), f"--mcp-config={config}", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "21:00 in Tokyo.\n"
    offered = offered_tools(server)
    assert {"mcp__time__convert_time", "mcp__time__get_current_time"} <= offered.keys()
    schema = offered["mcp__time__convert_time"]["parameters"]
    assert set(schema["required"]) == {"source_timezone", "time", "target_timezone"}
    result = json.loads(tool_messages(server)["call_1"])
    assert result["target"]["timezone"] == "Asia/Tokyo"
    assert result["target"]["datetime"][11:16] == "21:00"


def test_rules_govern_mcp_tools_and_the_server_is_stopped_after_the_run(
    server: ReplayServer, tmp_path: Path
) -> None:
    config = write_config(tmp_path, {"tools": tools_server_entry(tmp_path)})
    (tmp_path / "rules.toml").write_text(ALLOW_MCP, encoding="utf-8")
    server.reply_json(
        chat_reply(
            calls=(
                ("call_echo", "mcp__tools__echo", {"text": "hi"}),
                ("call_shout", "mcp__tools__shout", {"text": "hi"}),
            )
        )
    )
    server.reply_json(chat_reply(text="done"))
    done = pod_command(
        "run",
        "go",
        *model_options(server),
        f"--mcp-config={config}",
        "--rules=rules.toml",
        "--json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    results = tool_messages(server)
    assert results["call_echo"] == "hi"
    assert results["call_shout"] == (
        "tool call skipped: denied by permission rule 2 (tool=mcp__tools__shout)"
    )
    # Only the allowed call reached the server.
    assert (tmp_path / "calls.log").read_text(encoding="utf-8").split() == ["echo"]
    # The server's process ended with the command.
    assert not is_running(int((tmp_path / "pid").read_text(encoding="utf-8")))


def test_a_paused_run_resumes_with_the_servers_it_was_saved_with(
    server: ReplayServer, tmp_path: Path
) -> None:
    config = write_config(tmp_path, {"tools": tools_server_entry(tmp_path)})
    (tmp_path / "hooks.py").write_text(
        "from pod import Continue, HookRegistry, Pause, ToolCallSummary, events\n\n"
        "registry = HookRegistry()\n\n\n"
        "@registry.on(events.PRE_TOOL_CALL)\n"
        "def ask(call: ToolCallSummary) -> Continue | Pause:\n"
        "    return Pause(reason='a human decides')\n",
        encoding="utf-8",
    )
    server.reply_json(chat_reply(calls=(("call_echo", "mcp__tools__echo", {"text": "hi"}),)))
    paused = pod_command(
        "run",
        "go",
        *model_options(server),
        f"--mcp-config={config}",
        "--hooks=hooks.py:registry",
        "--save=run.json",
        cwd=tmp_path,
    )
    assert paused.returncode == 5, paused.stderr
    assert not (tmp_path / "calls.log").exists()  # nothing reached the server before approval
    first_pid = int((tmp_path / "pid").read_text(encoding="utf-8"))
    assert not is_running(first_pid)
    saved = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert saved["options"]["mcp_config"] == [str(config.resolve())]

    server.reply_json(chat_reply(text="echoed"))
    resumed = pod_command("resume", "run.json", "--approve=call_echo", "--api-key=k", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "echoed\n"
    assert tool_messages(server)["call_echo"] == "hi"
    assert (tmp_path / "calls.log").read_text(encoding="utf-8").split() == ["echo"]
    second_pid = int((tmp_path / "pid").read_text(encoding="utf-8"))
    assert second_pid != first_pid
    assert not is_running(second_pid)


@pytest.mark.parametrize(
    ("servers", "expected"),
    [
        ({"x": {"args": ["a"]}}, "server 'x': command: Field required"),
        ({"x": {"command": "python", "colour": "red"}}, "server 'x': colour: Extra inputs"),
        ({"a__b": {"command": "python"}}, "MCP server name 'a__b'"),
        (
            {"gone": {"command": "/nonexistent/mcp-server"}},
            "MCP server 'gone' did not start (/nonexistent/mcp-server",
        ),
    ],
)
def test_a_bad_config_or_a_server_that_cannot_start_is_one_usage_line(
    server: ReplayServer, tmp_path: Path, servers: dict[str, Any], expected: str
) -> None:
    config = write_config(tmp_path, servers)
    done = pod_command("run", "go", *model_options(server), f"--mcp-config={config}", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("pod run: error:")]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith("pod run: error: --mcp-config"), errors[0]
    assert expected in errors[0], errors[0]
    assert "Traceback" not in done.stderr
    assert server.requests == []  # the model was never asked


def test_a_missing_config_file_and_a_server_named_twice_are_usage_errors(
    server: ReplayServer, tmp_path: Path
) -> None:
    first = write_config(tmp_path, {"tools": tools_server_entry(tmp_path)})
    second = tmp_path / "other.json"
    second.write_text(json.dumps({"mcpServers": {"tools": {"url": "http://127.0.0.1:9/mcp"}}}))
    done = pod_command(
        "run",
        "go",
        *model_options(server),
        f"--mcp-config={first}",
        f"--mcp-config={second}",
        "--mcp-config=missing.json",
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("pod run: error:")]
    assert errors == [
        "pod run: error: --mcp-config missing.json: no such file",
        f"pod run: error: --mcp-config {second.resolve()}: server 'tools' is also in "
        f"{first.resolve()}; give each server one name",
    ], done.stderr
    assert not (tmp_path / "pid").exists()  # no server was started


def test_ctrl_c_during_an_mcp_call_stops_the_server_and_saves_the_run(
    server: ReplayServer, tmp_path: Path
) -> None:
    config = write_config(tmp_path, {"tools": tools_server_entry(tmp_path)})
    server.reply_json(chat_reply(calls=(("call_hang", "mcp__tools__hang", {}),)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    command = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pod",
            "run",
            "go",
            *model_options(server),
            f"--mcp-config={config}",
            "--save=run.json",
        ],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        calls = tmp_path / "calls.log"
        deadline = time.monotonic() + 60  # a readiness wait, not a timed assertion
        while not (calls.exists() and "hang" in calls.read_text(encoding="utf-8")):
            assert command.poll() is None, command.communicate()
            assert time.monotonic() < deadline, "the hang call never reached the server"
            time.sleep(0.05)
        command.send_signal(signal.SIGINT)
        _, stderr = command.communicate(timeout=60)
    finally:
        if command.poll() is None:
            command.kill()
            command.wait()
    assert command.returncode == 130, stderr
    assert "cancelled: the run was interrupted" in stderr
    assert "Traceback" not in stderr
    assert not is_running(int((tmp_path / "pid").read_text(encoding="utf-8")))
    saved = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    results = [i for i in saved["pod"]["worker"]["history"] if i["kind"] == "tool_result"]
    assert [r["call_id"] for r in results] == ["call_hang"]  # well-formed: a synthetic result
