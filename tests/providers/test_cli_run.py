"""`pod run` against a local server speaking each provider's wire format."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from pod.cli._main import main

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


def pod_with_one_output(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m pod ARGV`` with stderr and stdout in one stream, as a terminal shows
    them (no provider variables from the environment)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    return subprocess.run(
        [sys.executable, "-m", "pod", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )


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
    captured = capsys.readouterr()
    assert code == 0, captured.err
    # stdout holds the answer alone, once (streamed or not); the trace is on stderr
    assert captured.out.splitlines()[-1].startswith(FINAL)
    assert captured.out.count(FINAL) == 1
    assert "PRE_TOOL_CALL" not in captured.out
    trace = " ".join(captured.err.split())
    assert trace.count("hooks PRE_TOOL_CALL") == 4
    # One reply check per model request, traced field by field.
    assert trace.count("hooks POST_LLM_RESPONSE") == 3
    assert "TURN_END" in trace
    assert "3 requests · 4 tool calls · " in trace
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
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0
    assert 'add({"a":2,"b":3}) -> Skip: no permission rule allows this call to add' in err
    assert "(by pod.PermissionHook)" in err
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
        (["--model=openai:m", "--api-key=k", "--rules=/no/such/rules.toml"], 2, "no such file"),
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
        cwd=tools_file.parent,
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
    saved = re.search(r"^saved: (\S+)$", err, re.MULTILINE)
    assert saved, err
    assert f"continue: pod resume {saved.group(1)} PROMPT" in err
    document = json.loads((tools_file.parent / saved.group(1)).read_text())
    assert document["paused"] is None
    [result] = [i for i in document["pod"]["worker"]["history"] if i["kind"] == "tool_result"]
    assert result["call_id"] == "call_slow"


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
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0
    assert 'get_weather({"city":"Atlantis"}) -> Skip: Atlantis is fictional' in err
    assert 'get_weather({"city":"Paris"}) -> Continue' in err


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_streamed_text_and_the_trace_never_share_a_line(
    server: Any, tools_file: Path, provider: str
) -> None:
    queue_session(server, provider, stream=True)
    done = pod_with_one_output(
        "run",
        "weather and sum",
        f"--model={provider}:test-model",
        f"--base-url={server.url}" + ("/v1" if provider == "openai" else ""),
        "--api-key=k",
        f"--tools={tools_file}:TOOLS",
        "--stream",
        cwd=tools_file.parent,
    )
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    trace = [line for line in lines if line.startswith("  hooks ")]
    assert len(trace) > 5
    # No trace text anywhere but at the start of a line, and the answer once.
    assert sum(line.count("hooks ") for line in lines) == len(trace)
    assert sum(line.count(FINAL) for line in lines) == 1


def test_json_lines_with_stream_carry_the_text_chunks(
    server: Any, tools_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queue_session(server, "openai", stream=True)
    argv = [
        "run",
        "weather and sum",
        "--model=openai:test-model",
        f"--base-url={server.url}/v1",
        "--api-key=k",
        f"--tools={tools_file}:TOOLS",
        "--stream",
        "--json",
    ]
    assert main(argv) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    chunks = [line["text"] for line in lines if line["type"] == "text"]
    assert len(chunks) > 3
    assert "".join(chunks).endswith(lines[-1]["text"])
    assert lines[-1]["type"] == "result"
    assert lines[-1]["status"] == "finished"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_authentication_failure_speaks_cli(
    server: Any, provider: str, capsys: pytest.CaptureFixture[str]
) -> None:
    server.reply_json(f"{provider}_error_401.json", status=401)
    code = main(
        [
            "run",
            "hello",
            f"--model={provider}:m",
            f"--base-url={server.url}" + ("/v1" if provider == "openai" else ""),
            "--api-key=wrong",
            "--max-retries=0",
        ]
    )
    err = capsys.readouterr().err
    assert code == 4
    [line] = [line for line in err.splitlines() if line.startswith("error: ")]
    assert line.startswith("error: aborted: model request failed: ")
    assert f"(set --api-key or {provider.upper()}_API_KEY)" in line
    assert "api_key=" not in err


def test_a_cut_stream_does_not_glue_its_text_to_the_abort_line(
    server: Any, tools_file: Path
) -> None:
    server.reply_sse("openai_reply3_text.sse", cut_at_event=4)
    done = pod_with_one_output(
        "run",
        "hello",
        "--model=openai:m",
        f"--base-url={server.url}/v1",
        "--api-key=k",
        "--max-retries=0",
        "--stream",
        cwd=tools_file.parent,
    )
    assert done.returncode == 4, done.stdout
    lines = done.stdout.splitlines()
    [abort] = [line for line in lines if "aborted:" in line]
    assert abort.startswith("error: aborted: model request failed")
    # the partial text, then the ABORT and RUN_END trace lines
    streamed = lines[lines.index(abort) - 3]
    assert lines[lines.index(abort) - 1].startswith("  hooks       RUN_END")
    assert streamed
    assert not streamed.startswith(("  hooks", "error"))


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
    assert (
        f"{rules}, line 3: [[rule]] 1: tool 'read-file' matches no tool of this run "
        "(tools: list_files, read_file); fix the name or remove the rule"
    ) in " ".join(capsys.readouterr().err.split())
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
    assert f"{rules}, line 5: [[hook]] 1: cwd 'gone' is not a folder" in err
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
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0
    assert 'get_weather({"city":"Atlantis"}) -> Skip: Atlantis is fictional' in err
    assert 'get_weather({"city":"Paris"}) -> Continue' in err
