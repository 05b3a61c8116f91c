"""`pod run` against a local server speaking each provider's wire format."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from pod._cli import main

FINAL = "Paris is sunny (21 °C), Tokyo is rainy (14 °C), 2 + 3 = 5"

TOOLS_MODULE = textwrap.dedent(
    '''
    import time
    from pathlib import Path
    from llm_worker import tool

    @tool
    def get_weather(city: str) -> str:
        """Current weather in a city."""
        return {"Paris": "sunny, 21 °C", "Tokyo": "rain, 14 °C"}[city]

    @tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    TOOLS = [get_weather, add]

    @tool
    def get_weather_slowly(city: str) -> str:
        """Current weather, after a long wait."""
        Path(__file__).with_name("started").write_text("yes")
        time.sleep(60)
        return "late"

    SLOW = [get_weather_slowly]
    '''
)


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    path = tmp_path / "session_tools.py"
    path.write_text(TOOLS_MODULE)
    return path


@pytest.fixture(autouse=True)
def no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")


def queue_session(server: Any, provider: str, *, stream: bool) -> None:
    for name in ("reply1_two_calls", "reply2_text_and_calls", "reply3_text"):
        if stream:
            server.reply_sse(f"{provider}_{name}.sse")
        else:
            server.reply_json(f"{provider}_{name}.json")


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_pod_run_completes_a_multi_tool_session(
    server: Any,
    tools_file: Path,
    provider: str,
    stream: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    queue_session(server, provider, stream=stream)
    argv = [
        "run",
        "What is the weather in Paris and Tokyo, and what is 2 + 3?",
        f"--model={provider}:test-model",
        f"--base-url={server.url}" + ("/v1" if provider == "openai" else ""),
        "--api-key=test-key",
        f"--tools={tools_file}:TOOLS",
        "--max-retries=0",
    ]
    code = main([*argv, "--stream"] if stream else argv)
    out = capsys.readouterr().out
    assert code == 0, out
    assert FINAL in out
    assert " ".join(out.split()).count("hooks PRE_TOOL_CALL") == 4
    assert "TURN_END" in out
    assert len(server.requests) == 3
    tool_names = {
        tool.get("name") or tool["function"]["name"] for tool in server.requests[0].body["tools"]
    }
    assert tool_names == {"read_file", "list_files", "get_weather", "add"}


def test_pod_run_applies_permission_rules(
    server: Any, tools_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\naction = "allow"\ntool = "get_weather"\n')
    queue_session(server, "openai", stream=False)
    code = main(
        [
            "run",
            "weather and sum",
            "--model=openai:test-model",
            f"--base-url={server.url}/v1",
            "--api-key=k",
            f"--tools={tools_file}:TOOLS",
            f"--rules={rules}",
        ]
    )
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert 'add({"a":2,"b":3}) -> Skip: no permission rule allows this call to add' in out
    third = server.requests[2].body["messages"]
    denied = [m for m in third if m["role"] == "tool" and "skipped" in m["content"]]
    assert len(denied) == 1


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--model=nope:x"], 2, "nope"),
        (["--model=gpt-4o"], 2, "provider:model"),
        (["--model=openai:m"], 3, "OPENAI_API_KEY"),
        (["--model=openai:m", "--api-key=k", "--hooks=json:dumps"], 2, "not a HookRegistry"),
        (["--model=openai:m", "--api-key=k", "--tools=no_such_module_x:T"], 2, "cannot import"),
        (["--model=openai:m", "--api-key=k", "--rules=/no/such/rules.toml"], 2, "No such file"),
    ],
)
def test_pod_run_usage_errors_have_clear_messages_and_exit_codes(
    argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "hello", *argv]) == code
    assert message in capsys.readouterr().err


def test_pod_run_reports_an_unreachable_server(
    closed_port_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "run",
            "hello",
            "--model=openai:m",
            f"--base-url={closed_port_url}/v1",
            "--api-key=k",
            "--max-retries=0",
        ]
    )
    assert code == 4
    assert "aborted: model request failed" in capsys.readouterr().err


def test_ctrl_c_cancels_cleanly_and_says_so(server: Any, tools_file: Path) -> None:
    server.reply_json(
        {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_slow",
                                "type": "function",
                                "function": {
                                    "name": "get_weather_slowly",
                                    "arguments": '{"city": "Paris"}',
                                },
                            }
                        ],
                    },
                }
            ],
        }
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pod",
            "run",
            "weather, slowly",
            "--model=openai:m",
            f"--base-url={server.url}/v1",
            "--api-key=k",
            f"--tools={tools_file}:SLOW",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    started = tools_file.with_name("started")
    deadline = time.monotonic() + 30
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert started.exists(), process.communicate(timeout=5)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.returncode == 130, (out, err)
    assert "cancelled: the run was interrupted; the history is well-formed (3 items" in " ".join(
        err.split()
    )


def test_pod_run_loads_command_hooks_from_the_rules_file(
    server: Any, tools_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "no_atlantis.py"
    policy.write_text(
        textwrap.dedent(
            """
            import json, sys
            request = json.load(sys.stdin)
            city = json.loads(request["input"]["arguments"]).get("city")
            if city == "Atlantis":
                print(json.dumps({"decision": "skip", "reason": "Atlantis is fictional"}))
            else:
                print(json.dumps({"decision": "continue"}))
            """
        )
    )
    rules = tmp_path / "rules.toml"
    rules.write_text(
        textwrap.dedent(
            f"""
            default = "allow"

            [[rule]]
            action = "allow"
            tool = "add"

            [[hook]]
            event = "pre_tool_call"
            command = [{json.dumps(sys.executable)}, {json.dumps(str(policy))}]
            timeout = 20
            """
        )
    )
    queue_session(server, "openai", stream=False)
    code = main(
        [
            "run",
            "weather and sum",
            "--model=openai:test-model",
            f"--base-url={server.url}/v1",
            "--api-key=k",
            f"--tools={tools_file}:TOOLS",
            f"--rules={rules}",
        ]
    )
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert 'get_weather({"city":"Atlantis"}) -> Skip: Atlantis is fictional' in out
    assert 'get_weather({"city":"Paris"}) -> Continue' in out


def test_pod_run_refuses_a_rule_for_a_missing_tool_before_any_request(
    server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('default = "allow"\n\n[[rule]]\naction = "deny"\ntool = "read-file"\n')
    code = main(
        [
            "run",
            "hi",
            "--model=openai:m",
            f"--base-url={server.url}/v1",
            "--api-key=k",
            f"--rules={rules}",
        ]
    )
    assert code == 2
    assert " ".join(capsys.readouterr().err.split()) == (
        f"error: {rules}, line 3: [[rule]] 1: tool 'read-file' matches no tool of this run "
        "(tools: list_files, read_file); fix the name or remove the rule"
    )
    assert server.requests == []


def test_pod_run_refuses_a_missing_hook_cwd_before_any_request(
    server: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(
        'default = "allow"\n[[hook]]\nevent = "pre_tool_call"\ncommand = ["x"]\ncwd = "gone"\n'
    )
    code = main(
        [
            "run",
            "hi",
            "--model=openai:m",
            f"--base-url={server.url}/v1",
            "--api-key=k",
            f"--rules={rules}",
        ]
    )
    assert code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith(f"error: {rules}, line 5: [[hook]] 1: cwd 'gone' is not a folder")
    assert server.requests == []


def test_pod_run_runs_claude_code_hooks_from_a_settings_file(
    server: Any, tools_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "no_atlantis.py"
    script.write_text(
        textwrap.dedent(
            """
            import json, sys
            data = json.load(sys.stdin)
            if data["tool_input"].get("city") == "Atlantis":
                print("Atlantis is fictional", file=sys.stderr)
                sys.exit(2)
            """
        )
    )
    settings = tmp_path / "settings.json"
    command = f"{sys.executable} {script}"
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "get_weather",
                            "hooks": [{"type": "command", "command": command, "timeout": 20}],
                        }
                    ]
                }
            }
        )
    )
    queue_session(server, "openai", stream=False)
    code = main(
        [
            "run",
            "weather and sum",
            "--model=openai:test-model",
            f"--base-url={server.url}/v1",
            "--api-key=k",
            f"--tools={tools_file}:TOOLS",
            f"--claude-settings={settings}",
        ]
    )
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert 'get_weather({"city":"Atlantis"}) -> Skip: Atlantis is fictional' in out
    assert 'get_weather({"city":"Paris"}) -> Continue' in out
