"""AnthropicClient against recorded Messages API replies served on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from llm_worker import (
    Aborted,
    ContextTooLongError,
    Finished,
    LlmClientError,
    LlmRequest,
    Message,
    Reasoning,
    ToolCall,
    ToolDefinition,
    ToolResult,
    Usage,
    Worker,
)
from llm_worker.providers import AnthropicClient

MODEL = "claude-test"  # a name the SDK has no deprecation warning for
KEY = "sk-ant-test-0123"

MakeClient = Callable[..., AnthropicClient]


@pytest.fixture
async def make_client(server: Any) -> AsyncIterator[MakeClient]:
    """Build clients pointed at the replay server; all are closed after the test."""
    made: list[AnthropicClient] = []

    def make(**options: Any) -> AnthropicClient:
        options.setdefault("api_key", KEY)
        options.setdefault("max_retries", 0)
        options.setdefault("timeout", 10.0)
        options.setdefault("max_tokens", 1024)
        client = AnthropicClient(MODEL, base_url=server.url, **options)
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()


def _queue_session(server: Any, *, stream: bool) -> None:
    for name in ("reply1_two_calls", "reply2_text_and_calls", "reply3_text"):
        if stream:
            server.reply_sse(f"anthropic_{name}.sse")
        else:
            server.reply_json(f"anthropic_{name}.json")


def _message_reply(content: list[dict[str, Any]], stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_a_multi_tool_session_runs_end_to_end(
    server: Any,
    make_client: MakeClient,
    session: Any,
    stream: bool,
) -> None:
    _queue_session(server, stream=stream)
    shown: list[str] = []
    client = make_client(stream=stream, on_text=shown.append)
    worker = Worker(client, tools=session.tools, system_prompt=session.system_prompt)

    result = await worker.run(session.prompt)

    assert result == Finished(text=session.final_text, turn=0)
    history = worker.history
    assert [type(item).__name__ for item in history] == [
        "Message",
        "Message",
        "ToolCall",
        "ToolCall",
        "ToolResult",
        "ToolResult",
        "Message",
        "ToolCall",
        "ToolCall",
        "ToolResult",
        "ToolResult",
        "Message",
    ]
    assert history[2] == ToolCall(
        call_id="toolu_01A09q90qw90lq917835lq9", name="get_weather", arguments='{"city": "Paris"}'
    )
    results = [item for item in history if isinstance(item, ToolResult)]
    assert [(r.call_id, r.is_error) for r in results] == [
        ("toolu_01A09q90qw90lq917835lq9", False),
        ("toolu_01B7xK2vLm3NpQ4rS5tU6vW8", False),
        ("toolu_01C3dE4fG5hI6jK7lM8nO9pQ", False),
        ("toolu_01D1eF2gH3iJ4kL5mN6oP7qR", True),
    ]
    # input tokens include those read from the prompt cache (520 in the last reply)
    assert worker.usage == Usage(input_tokens=512 + 690 + 300 + 520, output_tokens=98 + 104 + 37)
    assert "".join(shown) == (
        "I'll check the weather in both cities.Now the sum, and one more city." + session.final_text
    )
    assert len(shown) == (7 if stream else 3)

    assert len(server.requests) == 3
    first, _, last = server.requests
    assert first.path == "/v1/messages"
    assert KEY in first.headers.get("x-api-key", "") + first.headers.get("authorization", "")
    assert "anthropic-version" in first.headers
    assert first.body["model"] == MODEL
    assert first.body["max_tokens"] == 1024
    assert first.body["system"] == session.system_prompt
    assert first.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": session.prompt}]}
    ]
    assert first.body["tools"] == [
        {
            "name": definition.name,
            "description": definition.description,
            "input_schema": definition.parameters,
        }
        for definition in map(ToolDefinition.of, session.tools)
    ]
    assert first.body.get("stream", False) is stream
    expected = session.recorded("anthropic_session_request3.json")
    assert {key: last.body[key] for key in expected} == expected


async def test_malformed_streamed_tool_input_reaches_the_model_as_an_error_result(
    server: Any, make_client: MakeClient, session: Any
) -> None:
    # The second tool input is truncated JSON: the model hit max_tokens mid-call.
    server.reply_sse(
        "anthropic_reply1_two_calls.sse",
        replace={
            '"partial_json":": \\"Tokyo\\"}"': '"partial_json":": \\"Tok"',
            '"stop_reason":"tool_use"': '"stop_reason":"max_tokens"',
        },
    )
    server.reply_sse("anthropic_reply3_text.sse")
    worker = Worker(make_client(stream=True), tools=session.tools)

    result = await worker.run("weather?")

    assert isinstance(result, Finished)
    call = worker.history[3]
    assert call == ToolCall(
        call_id="toolu_01B7xK2vLm3NpQ4rS5tU6vW8", name="get_weather", arguments='{"city": "Tok'
    )
    answer = worker.history[5]
    assert isinstance(answer, ToolResult)
    assert answer.is_error
    assert answer.content.startswith("arguments are not valid JSON")
    sent = server.requests[1].body["messages"]
    assert sent[1]["content"][2]["input"] == {"_raw_arguments": '{"city": "Tok'}
    assert sent[2]["content"][1] == {
        "type": "tool_result",
        "tool_use_id": "toolu_01B7xK2vLm3NpQ4rS5tU6vW8",
        "is_error": True,
        "content": answer.content,
    }


async def test_thinking_is_kept_but_not_sent_back(server: Any, make_client: MakeClient) -> None:
    server.reply_json(
        _message_reply(
            [
                {"type": "thinking", "thinking": "A greeting.", "signature": "EqQBCgIYAhIM"},
                {"type": "text", "text": "Hi."},
            ]
        )
    )
    server.reply_json(_message_reply([{"type": "text", "text": "Again."}]))
    worker = Worker(make_client())

    await worker.run("hello")
    await worker.run("again")

    assert worker.history[1:3] == (
        Reasoning(text="A greeting."),
        Message(role="assistant", text="Hi."),
    )
    assert server.requests[1].body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hello"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]},
        {"role": "user", "content": [{"type": "text", "text": "again"}]},
    ]


def _request(text: str = "hi") -> LlmRequest:
    return LlmRequest(items=[Message(role="user", text=text)])


async def test_an_auth_failure_is_not_retryable_and_aborts_without_touching_history(
    server: Any, make_client: MakeClient
) -> None:
    server.reply_json("anthropic_error_401.json", status=401)
    server.reply_json("anthropic_error_401.json", status=401)
    client = make_client()

    with pytest.raises(
        LlmClientError, match=r"^anthropic: authentication failed \(401\): invalid x-api-key"
    ) as caught:
        await client.complete(_request())
    assert not caught.value.retryable

    worker = Worker(client)
    result = await worker.run("hi")
    assert isinstance(result, Aborted)
    assert "authentication failed" in result.reason
    assert worker.history == (Message(role="user", text="hi"),)


async def test_a_rate_limit_is_retryable(server: Any, make_client: MakeClient) -> None:
    server.reply_json("anthropic_error_429.json", status=429)

    with pytest.raises(LlmClientError, match=r"^anthropic: request failed \(429\): ") as caught:
        await make_client().complete(_request())
    assert caught.value.retryable


async def test_prompt_too_long_is_a_context_error(server: Any, make_client: MakeClient) -> None:
    server.reply_json("anthropic_error_prompt_too_long.json", status=400)

    with pytest.raises(ContextTooLongError, match=r"prompt is too long: 208310 tokens") as caught:
        await make_client().complete(_request())
    assert not caught.value.retryable


async def test_an_error_event_in_the_stream_is_a_retryable_client_error(
    server: Any, make_client: MakeClient
) -> None:
    server.reply_sse("anthropic_stream_overloaded.sse")
    seen: list[str] = []

    with pytest.raises(LlmClientError, match=r"Overloaded") as caught:
        await make_client(stream=True, on_text=seen.append).complete(_request())
    assert caught.value.retryable
    assert seen == ["Paris is sunny"]  # live output showed it, the history never gets it


@pytest.mark.parametrize("cut", ["eof", "broken"])
async def test_a_dropped_stream_aborts_and_leaves_history_as_it_was(
    server: Any, make_client: MakeClient, session: Any, cut: str
) -> None:
    server.reply_sse("anthropic_reply1_two_calls.sse", cut_at_event=9, cut=cut)  # type: ignore[arg-type]
    server.reply_sse("anthropic_reply1_two_calls.sse", cut_at_event=9, cut=cut)  # type: ignore[arg-type]
    client = make_client(stream=True)

    with pytest.raises(
        LlmClientError, match=r"^anthropic: the stream (ended before|was cut|broke)"
    ) as caught:
        await client.complete(_request())
    assert caught.value.retryable

    earlier = (Message(role="user", text="before"), Message(role="assistant", text="ok"))
    worker = Worker(client, tools=session.tools, history=earlier)
    result = await worker.run("weather?")
    assert isinstance(result, Aborted)
    assert worker.history == (*earlier, Message(role="user", text="weather?"))


async def test_an_unreachable_server_is_a_retryable_client_error(closed_port_url: str) -> None:
    client = AnthropicClient(
        MODEL, api_key=KEY, base_url=closed_port_url, max_retries=0, timeout=10.0
    )
    try:
        with pytest.raises(LlmClientError, match=r"^anthropic: cannot reach http://127") as caught:
            await client.complete(_request())
        assert caught.value.retryable
    finally:
        await client.aclose()
