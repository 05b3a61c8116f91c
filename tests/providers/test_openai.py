"""OpenAIChatClient against recorded Chat Completions replies served on 127.0.0.1."""

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
from llm_worker.providers import OpenAIChatClient

MODEL = "gpt-4o-mini"
KEY = "sk-test-0123"

MakeClient = Callable[..., OpenAIChatClient]


@pytest.fixture
async def make_client(server: Any) -> AsyncIterator[MakeClient]:
    """Build clients pointed at the replay server; all are closed after the test."""
    made: list[OpenAIChatClient] = []

    def make(**options: Any) -> OpenAIChatClient:
        options.setdefault("api_key", KEY)
        options.setdefault("max_retries", 0)
        options.setdefault("timeout", 10.0)
        client = OpenAIChatClient(MODEL, base_url=f"{server.url}/v1", **options)
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()


def _queue_session(server: Any, *, stream: bool) -> None:
    for name in ("reply1_two_calls", "reply2_text_and_calls", "reply3_text"):
        if stream:
            server.reply_sse(f"openai_{name}.sse")
        else:
            server.reply_json(f"openai_{name}.json")


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
    results = [item for item in history if isinstance(item, ToolResult)]
    assert [(r.content, r.is_error) for r in results] == [
        ("Paris: sunny, 21 °C", False),
        ("Tokyo: rain, 14 °C", False),
        ("5", False),
        ("tool get_weather failed: LookupError: no weather for Atlantis", True),
    ]
    assert worker.usage == Usage(input_tokens=96 + 171 + 263, output_tokens=48 + 52 + 31)
    # on_text saw the text of every reply; when streaming it came in several pieces
    assert "".join(shown) == (
        "Both cities are covered. Now the sum, and one more city." + session.final_text
    )
    assert len(shown) == (5 if stream else 2)

    assert len(server.requests) == 3
    first, _, last = server.requests
    assert first.path == "/v1/chat/completions"
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.body["model"] == MODEL
    assert first.body["messages"] == [
        {"role": "system", "content": session.system_prompt},
        {"role": "user", "content": session.prompt},
    ]
    assert first.body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": definition.name,
                "description": definition.description,
                "parameters": definition.parameters,
            },
        }
        for definition in map(ToolDefinition.of, session.tools)
    ]
    assert first.body["tools"][0]["function"]["parameters"]["required"] == ["city"]
    if stream:
        assert first.body["stream"] is True
        assert first.body["stream_options"] == {"include_usage": True}
    else:
        assert "stream" not in first.body
    expected = session.recorded("openai_session_request3.json")
    assert last.body["model"] == expected["model"]
    assert last.body["messages"] == expected["messages"]


async def test_malformed_tool_arguments_reach_the_model_as_an_error_result(
    server: Any, make_client: MakeClient, session: Any
) -> None:
    broken = '{"city": "Par'
    server.reply_json(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": broken},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
        }
    )
    server.reply_json("openai_reply3_text.json")
    worker = Worker(make_client(), tools=session.tools)

    result = await worker.run("weather?")

    assert isinstance(result, Finished)
    call, answer = worker.history[1], worker.history[2]
    assert call == ToolCall(call_id="call_1", name="get_weather", arguments=broken)
    assert isinstance(answer, ToolResult)
    assert answer.is_error
    assert answer.content.startswith("arguments are not valid JSON")
    sent = server.requests[1].body["messages"]
    assert sent[1]["tool_calls"][0]["function"]["arguments"] == broken
    assert sent[2] == {"role": "tool", "tool_call_id": "call_1", "content": answer.content}


async def test_reasoning_from_a_local_server_is_kept_but_not_sent_back(
    server: Any, make_client: MakeClient
) -> None:
    server.reply_json(
        {
            "id": "chatcmpl-2",
            "object": "chat.completion",
            "created": 1,
            "model": "qwen3",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": "Hi.",
                        "reasoning_content": "The user greets me.",
                    },
                    "finish_reason": "stop",
                }
            ],
        }
    )
    server.reply_json("openai_reply3_text.json")
    worker = Worker(make_client())

    await worker.run("hello")
    await worker.run("again")

    assert worker.history[1:3] == (
        Reasoning(text="The user greets me."),
        Message(role="assistant", text="Hi."),
    )
    assert server.requests[1].body["messages"] == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "Hi."},
        {"role": "user", "content": "again"},
    ]


async def test_calls_without_ids_get_unique_ones(
    server: Any, make_client: MakeClient, session: Any
) -> None:
    call = {"type": "function", "function": {"name": "add", "arguments": '{"a":1,"b":1}'}}
    server.reply_json(
        {
            "id": "chatcmpl-3",
            "object": "chat.completion",
            "created": 1,
            "model": "llama",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "tool_calls": [call, call]},
                    "finish_reason": "stop",
                }
            ],
        }
    )
    server.reply_json("openai_reply3_text.json")
    worker = Worker(make_client(), tools=session.tools)

    await worker.run("1 + 1, twice")

    calls = [item for item in worker.history if isinstance(item, ToolCall)]
    results = [item for item in worker.history if isinstance(item, ToolResult)]
    assert len({c.call_id for c in calls}) == 2
    assert [r.call_id for r in results] == [c.call_id for c in calls]
    assert [r.content for r in results] == ["2", "2"]


def _request(text: str = "hi") -> LlmRequest:
    return LlmRequest(items=[Message(role="user", text=text)])


async def test_an_auth_failure_is_not_retryable_and_aborts_without_touching_history(
    server: Any, make_client: MakeClient
) -> None:
    server.reply_json("openai_error_401.json", status=401)
    server.reply_json("openai_error_401.json", status=401)
    client = make_client()

    with pytest.raises(LlmClientError, match=r"^openai: authentication failed \(401\): ") as caught:
        await client.complete(_request())
    assert not caught.value.retryable
    assert not isinstance(caught.value, ContextTooLongError)

    worker = Worker(client)
    result = await worker.run("hi")
    assert isinstance(result, Aborted)
    assert "authentication failed" in result.reason
    assert worker.history == (Message(role="user", text="hi"),)


async def test_a_rate_limit_is_retryable(server: Any, make_client: MakeClient) -> None:
    server.reply_json("openai_error_429.json", status=429)

    with pytest.raises(
        LlmClientError, match=r"^openai: request failed \(429\): Rate limit"
    ) as caught:
        await make_client().complete(_request())
    assert caught.value.retryable


async def test_the_sdk_retries_as_configured(server: Any, make_client: MakeClient) -> None:
    server.reply_json("openai_error_429.json", status=429, retry_after_ms="1")
    server.reply_json("openai_reply3_text.json")

    response = await make_client(max_retries=1).complete(_request())

    assert response.text.startswith("Paris is sunny")
    assert len(server.requests) == 2


async def test_context_too_long_has_its_own_error(server: Any, make_client: MakeClient) -> None:
    server.reply_json("openai_error_context_length.json", status=400)

    with pytest.raises(ContextTooLongError, match=r"maximum context length is 128000") as caught:
        await make_client().complete(_request())
    assert not caught.value.retryable


@pytest.mark.parametrize("cut", ["eof", "broken"])
async def test_a_dropped_stream_aborts_and_leaves_history_as_it_was(
    server: Any, make_client: MakeClient, session: Any, cut: str
) -> None:
    server.reply_sse("openai_reply1_two_calls.sse", cut_at_event=4, cut=cut)  # type: ignore[arg-type]
    server.reply_sse("openai_reply1_two_calls.sse", cut_at_event=4, cut=cut)  # type: ignore[arg-type]
    client = make_client(stream=True)

    with pytest.raises(
        LlmClientError, match=r"^openai: the stream (ended before|was cut|broke)"
    ) as caught:
        await client.complete(_request())
    assert caught.value.retryable

    earlier = (Message(role="user", text="before"), Message(role="assistant", text="ok"))
    worker = Worker(client, tools=session.tools, history=earlier)
    result = await worker.run("weather?")
    assert isinstance(result, Aborted)
    assert worker.history == (*earlier, Message(role="user", text="weather?"))


async def test_an_unreachable_server_is_a_retryable_client_error(closed_port_url: str) -> None:
    client = OpenAIChatClient(
        MODEL, api_key=KEY, base_url=f"{closed_port_url}/v1", max_retries=0, timeout=10.0
    )
    try:
        with pytest.raises(LlmClientError, match=r"^openai: cannot reach http://127") as caught:
            await client.complete(_request())
        assert caught.value.retryable
    finally:
        await client.aclose()
