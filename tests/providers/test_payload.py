"""How a history becomes a request body, for each provider, without any network."""

from __future__ import annotations

from llm_worker import (
    Item,
    LlmRequest,
    Message,
    Reasoning,
    Summary,
    ToolCall,
    ToolResult,
)
from llm_worker.providers import build_anthropic_payload, build_openai_payload

CALL_1 = ToolCall(call_id="c1", name="get_weather", arguments='{"city":"Paris"}')
CALL_2 = ToolCall(call_id="c2", name="add", arguments='{"a":1,"b":2}')
HISTORY: list[Item] = [
    Message(role="system", text="Answer briefly."),
    Summary(text="The user asked about France.", replaced_items=6),
    Message(role="user", text="And the weather?"),
    Reasoning(text="I should call the tools."),
    Message(role="assistant", text="Let me look."),
    CALL_1,
    CALL_2,
    ToolResult(call_id="c1", name="get_weather", content="sunny"),
    ToolResult(call_id="c2", name="add", content="boom", is_error=True),
    Message(role="assistant", text="Sunny."),
    Message(role="assistant", text="Anything else?"),
]


def test_openai_messages_follow_chat_completions() -> None:
    payload = build_openai_payload(LlmRequest(items=HISTORY, system_prompt="Be kind."))

    assert payload == {
        "messages": [
            {"role": "system", "content": "Be kind."},
            {"role": "system", "content": "Answer briefly."},
            {
                "role": "user",
                "content": "[Summary of the earlier conversation]\nThe user asked about France.",
            },
            {"role": "user", "content": "And the weather?"},
            {
                "role": "assistant",
                "content": "Let me look.",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a":1,"b":2}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
            {"role": "tool", "tool_call_id": "c2", "content": "boom"},
            {"role": "assistant", "content": "Sunny."},
            {"role": "assistant", "content": "Anything else?"},
        ]
    }


def test_openai_joins_text_interleaved_with_calls_into_one_assistant_message() -> None:
    items: list[Item] = [
        Message(role="user", text="go"),
        Message(role="assistant", text="First."),
        CALL_1,
        Message(role="assistant", text="Second."),
        CALL_2,
    ]

    message = build_openai_payload(LlmRequest(items=items))["messages"][1]

    assert message["content"] == "First.\n\nSecond."
    assert [call["id"] for call in message["tool_calls"]] == ["c1", "c2"]


def test_anthropic_payload_follows_the_messages_api() -> None:
    payload = build_anthropic_payload(LlmRequest(items=HISTORY, system_prompt="Be kind."))

    assert payload == {
        "system": "Be kind.\n\nAnswer briefly.",
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "[Summary of the earlier conversation]\n"
                        "The user asked about France.",
                    },
                    {"type": "text", "text": "And the weather?"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look."},
                    {
                        "type": "tool_use",
                        "id": "c1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                    {"type": "tool_use", "id": "c2", "name": "add", "input": {"a": 1, "b": 2}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "c1",
                        "is_error": False,
                        "content": "sunny",
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "c2",
                        "is_error": True,
                        "content": "boom",
                    },
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Sunny."},
                    {"type": "text", "text": "Anything else?"},
                ],
            },
        ],
    }


def test_anthropic_puts_tool_results_first_and_later_system_text_in_a_user_turn() -> None:
    items: list[Item] = [
        Message(role="user", text="go"),
        CALL_1,
        Message(role="system", text="Budget: 2 calls left."),
        ToolResult(call_id="c1", name="get_weather", content=""),
        Message(role="user", text=""),
    ]

    payload = build_anthropic_payload(LlmRequest(items=items))

    assert "system" not in payload
    assert payload["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "c1", "is_error": False},
            {"type": "text", "text": "[system]\nBudget: 2 calls left."},
        ],
    }
    assert len(payload["messages"]) == 3  # the empty message is not sent


def test_anthropic_sends_malformed_arguments_as_raw_text() -> None:
    items: list[Item] = [
        Message(role="user", text="go"),
        ToolCall(call_id="c1", name="get_weather", arguments='{"city": "Pa'),
        ToolCall(call_id="c2", name="get_weather", arguments="[1, 2]"),
        ToolCall(call_id="c3", name="get_weather", arguments=""),
    ]

    blocks = build_anthropic_payload(LlmRequest(items=items))["messages"][1]["content"]

    assert [block["input"] for block in blocks] == [
        {"_raw_arguments": '{"city": "Pa'},
        {"_raw_arguments": "[1, 2]"},
        {},
    ]


def test_unchanged_items_are_converted_once_across_requests() -> None:
    history: list[Item] = [Message(role="user", text=f"message {n}") for n in range(50)]

    first = build_openai_payload(LlmRequest(items=history))["messages"]
    history.append(Message(role="assistant", text="new"))
    second = build_openai_payload(LlmRequest(items=history))["messages"]

    assert all(a is b for a, b in zip(first, second, strict=False))
    assert second[-1] == {"role": "assistant", "content": "new"}
    first_blocks = build_anthropic_payload(LlmRequest(items=history))["messages"][0]["content"]
    second_blocks = build_anthropic_payload(LlmRequest(items=history))["messages"][0]["content"]
    assert all(a is b for a, b in zip(first_blocks, second_blocks, strict=True))


def test_a_new_item_never_gets_a_stale_form() -> None:
    # Fresh items are often allocated where a collected one was (same id): the cache
    # must tell them apart.
    for n in range(200):
        items: list[Item] = [Message(role="user", text=f"round {n}")]
        assert build_openai_payload(LlmRequest(items=items))["messages"] == [
            {"role": "user", "content": f"round {n}"}
        ]
        blocks = build_anthropic_payload(LlmRequest(items=items))["messages"][0]["content"]
        assert blocks == [{"type": "text", "text": f"round {n}"}]
