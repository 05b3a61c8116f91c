"""Tool arguments come from the model: parsing them never raises and is bounded (issue 11)."""

from __future__ import annotations

import json

import pytest

from llm_worker import (
    ITEMS_ADAPTER,
    Continue,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolCall,
    ToolCallSummary,
    ToolResult,
    Worker,
)
from llm_worker._arguments import MAX_ARGUMENTS_CHARS, load_arguments, parse_arguments
from pod import HookRegistry, PermissionHook, PermissionRule, Pod, events

from ..engine.conftest import echo

TEN_MB = '{"text": "' + "x" * 10_000_000 + '"}'
DEEP_ARRAY = '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"
DEEP_OBJECT = '{"a": ' * 100_000 + "1" + "}" * 100_000
UNCLOSED = "[" * 100_000

REFUSED = {
    "10 MB": TEN_MB,
    "100,000-deep array": DEEP_ARRAY,
    "100,000-deep object": DEEP_OBJECT,
    "100,000 open brackets": UNCLOSED,
    "NaN": '{"x": NaN}',
    "not an object": "[1, 2]",
    "not JSON": "{'single': 'quotes'}",
    "a lone surrogate": '{"x": "\\ud800"}',
}


def _summary(arguments: str) -> ToolCallSummary:
    return ToolCallSummary(call_id="c1", tool_name="echo", arguments=arguments, turn=0)


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_refused_arguments_read_as_none_and_never_raise(text: str) -> None:
    call = _summary(text)
    assert call.parsed_arguments() is None
    assert call.argument("text") is None
    assert parse_arguments(text) is None


def test_the_limits_are_where_the_docs_say() -> None:
    at_limit = '{"t": "' + "x" * (MAX_ARGUMENTS_CHARS - 9) + '"}'
    assert len(at_limit) == MAX_ARGUMENTS_CHARS
    assert _summary(at_limit).argument("t") == "x" * (MAX_ARGUMENTS_CHARS - 9)
    assert _summary(at_limit + " ").parsed_arguments() is None
    nested_200 = '{"a": ' + "[" * 200 + "]" * 200 + "}"  # 200 levels below the object
    assert _summary(nested_200).parsed_arguments() == {"a": json.loads("[" * 200 + "]" * 200)}
    assert _summary('{"a": ' + "[" * 201 + "]" * 201 + "}").parsed_arguments() is None


def test_blank_arguments_are_no_arguments_for_hooks_and_tools_alike() -> None:
    assert _summary("").parsed_arguments() == {}
    assert _summary("  \n").parsed_arguments() == {}
    assert load_arguments(" ") == {}


def test_each_parse_is_a_fresh_object() -> None:
    call = _summary('{"path": {"p": [1]}}')
    first = call.parsed_arguments()
    assert first is not None
    first["path"] = "changed"
    assert call.argument("path") == {"p": [1]}


@pytest.mark.parametrize("text", [TEN_MB, DEEP_ARRAY, UNCLOSED], ids=["10 MB", "deep", "open"])
async def test_a_refused_call_never_runs_and_a_hook_reading_it_does_not_abort(text: str) -> None:
    read: list[object] = []
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def reads(call: ToolCallSummary) -> Continue:
        read.append(call.argument("text"))
        return Continue()

    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("echo", text)]), ScriptedReply("ok")]
    )
    # The policy reads an argument too (``text``), and must not fail on this text. (A rule
    # must name a parameter the tool has: the Pod refuses one that can never apply.)
    rule = PermissionRule(action="deny", tool="echo", arguments={"text": "rm*"})
    policy = PermissionHook([rule], default="allow")
    pod = Pod(client, tools=[echo], hooks=registry, permissions=policy)
    result = await pod.run("go")

    assert result.kind == "finished"
    assert read == [None]
    results = [item for item in pod.history if isinstance(item, ToolResult)]
    assert len(results) == 1
    assert results[0].is_error
    assert "arguments" in results[0].content
    calls = [item for item in pod.history if isinstance(item, ToolCall)]
    assert len(calls) == 1
    ITEMS_ADAPTER.dump_json(list(pod.history))  # the history stays well-formed


async def test_the_tool_gets_exactly_what_the_hook_saw() -> None:
    seen: list[object] = []
    registry = HookRegistry()
    registry.on(
        events.PRE_TOOL_CALL, lambda call: (seen.append(call.parsed_arguments()), Continue())[1]
    )
    arguments = '{"text": "caf\\u00e9 \\ud83d\\ude00"}'
    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("echo", arguments)]), ScriptedReply("ok")]
    )
    worker = Worker(client, tools=[echo], hooks=registry.freeze())
    await worker.run("go")
    result = next(item for item in worker.history if isinstance(item, ToolResult))
    assert seen == [{"text": result.content}]


def test_sending_deep_arguments_back_to_anthropic_does_not_raise() -> None:
    from llm_worker.providers._anthropic_wire import RAW_ARGUMENTS_KEY, _tool_input

    assert _tool_input(DEEP_ARRAY) == {RAW_ARGUMENTS_KEY: DEEP_ARRAY}
    assert _tool_input('{"a": 1}') == {"a": 1}
