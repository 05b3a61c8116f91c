"""``pod schema EVENT --stdin|--stdout``: exactly what a command reads and what the run accepts
from it, for both protocols; a schema and the run never disagree on an answer."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from pod import CommandHookError, events
from pod.cli._main import main
from pod.command._protocol import encode_request, parse_decision

from .conftest import CALL

ANSWERS = [
    {},
    {"decision": "continue"},
    {"decision": "skip", "reason": "no"},
    {"decision": "skip"},
    {"decision": "abort", "reason": "stop"},
    {"decision": "pause"},
    {"decision": "pause", "reason": "ask a human"},
    {"decision": "continue", "reason": "extra"},
    {"decision": "CONTINUE"},
    {"reason": "no tag"},
    [],
    "continue",
    None,
]


def schema_of(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["schema", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def run_accepts(event: events.HookEvent[Any, Any], answer: object) -> bool:
    try:
        parse_decision(event, json.dumps(answer).encode(), command="x")
    except CommandHookError:
        return False
    return True


@pytest.mark.parametrize("event", [e for e in events.CATALOGUE if not e.observe_only])
def test_the_stdout_schema_accepts_exactly_what_the_run_accepts(
    capsys: pytest.CaptureFixture[str], event: events.HookEvent[Any, Any]
) -> None:
    schema = schema_of(capsys, event.name, "--stdout")
    for answer in ANSWERS:
        valid = jsonschema.Draft202012Validator(schema).is_valid(answer)
        assert valid == run_accepts(event, answer), answer
    assert not jsonschema.Draft202012Validator(schema).is_valid({})


def test_the_stdin_schema_describes_the_request_exactly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    schema = schema_of(capsys, "pre_tool_call", "--stdin")
    request = json.loads(encode_request(events.PRE_TOOL_CALL, CALL))
    jsonschema.validate(request, schema)
    assert schema["required"] == ["event", "input", "arguments"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**request, "extra": 1}, schema)


def test_claude_code_schemas(capsys: pytest.CaptureFixture[str]) -> None:
    stdin = schema_of(capsys, "pre_tool_call", "--stdin", "--protocol", "claude-code")
    assert stdin["properties"]["hook_event_name"]["const"] == "PreToolUse"
    assert {"session_id", "cwd", "tool_name", "tool_input", "tool_use_id"} <= set(stdin["required"])
    stdout = schema_of(capsys, "turn_end", "--stdout", "--protocol", "claude-code")
    assert {"continue", "decision", "hookSpecificOutput"} <= set(stdout["properties"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--stdin"], "--stdin describes one event: name it (e.g. pre_tool_call)"),
        (["abort", "--stdout", "--protocol", "claude-code"], "Claude Code has no hook event"),
        (["nope", "--stdout"], "no hook event 'nope'"),
    ],
)
def test_schema_usage_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["schema", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert message in err
