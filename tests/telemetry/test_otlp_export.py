"""``pod run --otel``: a run's spans leave the process over OTLP/HTTP, to a receiver this
test starts on the loopback, which decodes the protobuf it was sent.

The run is real end to end: ``python -m pod`` in a new process, the providers' replay
server as the model, the SDK-written MCP test server over stdio for the tool, and a hooks
file whose PRE_TOOL_CALL hook decides.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import chat_reply, pod_command
from tests.mcp.conftest import SERVERS
from tests.providers.conftest import ReplayServer, closed_port_url, server
from tests.telemetry.otlp_receiver import Receiver, otlp_receiver

__all__ = ["closed_port_url", "server"]

HOOKS = """
from pod import Continue, HookRegistry, Skip, ToolCallSummary, events

registry = HookRegistry()


@registry.on(events.PRE_TOOL_CALL)
def no_shouting(call: ToolCallSummary) -> Continue | Skip:
    if call.tool_name == "mcp__tools__shout":
        return Skip(reason="no shouting")
    return Continue()
"""


@pytest.fixture
def otel_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_SERVICE_NAME",
        "OTEL_RESOURCE_ATTRIBUTES",
        "OTEL_SDK_DISABLED",
        "OTEL_TRACES_EXPORTER",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
    ):
        monkeypatch.delenv(name, raising=False)


def run_with_an_mcp_tool(replay: ReplayServer, folder: Path, *extra: str) -> str:
    """Run ``pod run`` with an MCP tool and a deciding hook; return its stderr."""
    (folder / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "tools": {"command": sys.executable, "args": [str(SERVERS / "tools_server.py")]}
                }
            }
        ),
        encoding="utf-8",
    )
    (folder / "hooks.py").write_text(HOOKS, encoding="utf-8")
    replay.reply_json(
        chat_reply(
            calls=(
                ("call_echo", "mcp__tools__echo", {"text": "hi"}),
                ("call_shout", "mcp__tools__shout", {"text": "hi"}),
            )
        )
    )
    replay.reply_json(chat_reply(text="echoed"))
    done = pod_command(
        "run",
        "echo hi",
        "--model=openai:m",
        f"--base-url={replay.url}/v1",
        "--api-key=k",
        "--max-retries=0",
        "--mcp-config=.mcp.json",
        "--hooks=hooks.py:registry",
        *extra,
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "echoed\n"
    return done.stderr


def one(receiver: Receiver, name: str) -> dict[str, object]:
    spans = receiver.named(name)
    assert len(spans) == 1, [span.name for span in receiver.spans]
    return spans[0].attributes


def test_otel_exports_the_run_its_requests_tool_call_and_hook_dispatch(
    server: ReplayServer,
    tmp_path: Path,
    otel_environment: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with otlp_receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        run_with_an_mcp_tool(server, tmp_path, "--otel")
    assert set(receiver.paths) == {"/v1/traces"}
    names = sorted(span.name for span in receiver.spans)
    assert names == sorted(
        [
            "invoke_agent pod",
            "chat m",
            "chat m",
            "hooks pre_tool_call",
            "hooks pre_tool_call",
            "execute_tool mcp__tools__echo",
        ]
    ), names
    # One trace; every other span a child of the run's.
    (run,) = receiver.named("invoke_agent pod")
    assert {span.trace_id for span in receiver.spans} == {run.trace_id}
    assert all(s.parent_span_id == run.span_id for s in receiver.spans if s is not run)
    assert run.resource["service.name"] == "pod"
    assert run.attributes["pod.run.outcome"] == "finished"
    tool = one(receiver, "execute_tool mcp__tools__echo")
    assert tool["gen_ai.tool.call.id"] == "call_echo"
    assert tool["gen_ai.tool.name"] == "mcp__tools__echo"
    assert "gen_ai.tool.call.arguments" not in tool  # content only when opted in
    assert "gen_ai.tool.call.result" not in tool
    hooks = {
        str(span.attributes["gen_ai.tool.call.id"]): span.attributes
        for span in receiver.named("hooks pre_tool_call")
    }
    assert hooks["call_echo"]["pod.hook.decision"] == "Continue"
    assert "pod.hook.decided_by" not in hooks["call_echo"]  # Continue: no hook decided
    assert hooks["call_shout"]["pod.hook.decision"] == "Skip"
    assert hooks["call_shout"]["pod.hook.decided_by"] == "hooks.no_shouting"
    assert hooks["call_shout"]["pod.hook.reason"] == "no shouting"
    first, second = receiver.named("chat m")
    assert first.attributes["gen_ai.usage.input_tokens"] == 10
    assert first.attributes["pod.response.tool_call_ids"] == ["call_echo", "call_shout"]
    # pod's normalised stop reason, not the provider's own word ("stop")
    assert second.attributes["gen_ai.response.finish_reasons"] == ["end_turn"]


def test_the_standard_variables_alone_turn_export_on_and_opt_in_to_content(
    server: ReplayServer,
    tmp_path: Path,
    otel_environment: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with otlp_receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"{receiver.endpoint}/traces")
        monkeypatch.setenv("OTEL_SERVICE_NAME", "my-agent")
        monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
        run_with_an_mcp_tool(server, tmp_path)
    assert set(receiver.paths) == {"/traces"}
    (run,) = receiver.named("invoke_agent pod")
    assert run.resource["service.name"] == "my-agent"
    tool = one(receiver, "execute_tool mcp__tools__echo")
    assert json.loads(str(tool["gen_ai.tool.call.arguments"])) == {"text": "hi"}
    assert tool["gen_ai.tool.call.result"] == "hi"


def test_without_otel_or_an_endpoint_variable_nothing_is_exported(
    server: ReplayServer,
    tmp_path: Path,
    otel_environment: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with otlp_receiver() as receiver:
        # The receiver listens where the exporter would send by default.
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", f"{receiver.endpoint}/v1/traces")
        monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
        run_with_an_mcp_tool(server, tmp_path, "--otel")
    assert receiver.spans == []


def test_an_unreachable_collector_changes_neither_the_answer_nor_the_exit_code(
    server: ReplayServer,
    tmp_path: Path,
    otel_environment: None,
    monkeypatch: pytest.MonkeyPatch,
    closed_port_url: str,
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", closed_port_url)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    stderr = run_with_an_mcp_tool(server, tmp_path, "--otel")  # exit 0, "echoed" on stdout
    assert "Failed to export spans batch" in stderr  # the exporter's own logger says so
    assert "Traceback" not in stderr


def test_otel_without_the_exporter_installed_is_one_usage_line(
    server: ReplayServer,
    tmp_path: Path,
    otel_environment: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pod.cli._main import main

    # As if llm-pod[otel-export] were not installed: the import fails.
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    monkeypatch.chdir(tmp_path)
    code = main(
        ["run", "go", "--model=openai:m", f"--base-url={server.url}/v1", "--api-key=k", "--otel"]
    )
    assert code == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if "error:" in line]
    assert errors == [
        "pod run: error: --otel needs the OpenTelemetry SDK and its OTLP/HTTP exporter: "
        "pip install 'llm-pod[otel-export]'"
    ]
    assert server.requests == []
