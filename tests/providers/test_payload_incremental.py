"""Payloads continued from the previous request equal payloads built from scratch."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from llm_worker import (
    LlmRequest,
    Message,
    Reasoning,
    Summary,
    ToolCall,
    ToolResult,
)
from llm_worker.interceptor import History
from llm_worker.providers import build_anthropic_payload, build_openai_payload

counter = iter(range(10**9))


def fresh_item(kind: str) -> Any:
    n = next(counter)
    match kind:
        case "user":
            return Message(role="user", text=f"user {n}")
        case "system":
            return Message(role="system", text=f"system {n}")
        case "assistant":
            return Message(role="assistant", text=f"assistant {n}")
        case "empty":
            return Message(role="assistant", text="")
        case "reasoning":
            return Reasoning(text=f"thinking {n}")
        case "summary":
            return Summary(text=f"summary {n}", replaced_items=3)
        case "call":
            return ToolCall(call_id=f"c{n}", name="echo", arguments=json.dumps({"n": n}))
        case _:
            return ToolResult(
                call_id=f"c{n}", name="echo", content=f"result {n}", is_error=n % 2 == 0
            )


kinds = st.sampled_from(
    ["user", "system", "assistant", "empty", "reasoning", "summary", "call", "result"]
)
operation = st.one_of(
    st.tuples(st.just("append"), st.lists(kinds, min_size=1, max_size=4)),
    st.tuples(st.just("compact"), st.integers(min_value=0, max_value=6)),
    st.tuples(st.just("replace_last"), kinds),
    st.tuples(st.just("system_prompt"), st.sampled_from([None, "be brief", "be kind"])),
    st.tuples(st.just("build"), st.none()),
)


def as_json(payload: Any) -> str:
    return json.dumps(payload, sort_keys=True)


@settings(max_examples=150, deadline=None)
@given(start=st.lists(kinds, max_size=5), operations=st.lists(operation, max_size=25))
def test_continued_builds_equal_builds_from_scratch(
    start: list[str], operations: list[tuple[str, Any]]
) -> None:
    history = History(fresh_item(kind) for kind in start)
    system_prompt: str | None = "be brief"
    for name, argument in [*operations, ("build", None)]:
        if name == "append":
            history.extend(fresh_item(kind) for kind in argument)
        elif name == "compact" and history:
            del history[: min(argument, len(history))]
            history.insert(0, fresh_item("summary"))
        elif name == "replace_last" and history:
            history[-1] = fresh_item(argument)
        elif name == "system_prompt":
            system_prompt = argument
        for build in (build_openai_payload, build_anthropic_payload):
            continued = build(LlmRequest(items=history, system_prompt=system_prompt))
            scratch = build(LlmRequest(items=list(history), system_prompt=system_prompt))
            assert as_json(continued) == as_json(scratch), build.__name__


def test_a_turn_folds_only_what_it_added() -> None:
    history = History([Message(role="user", text="go")])
    for n in range(200):
        history.extend(
            [
                ToolCall(call_id=f"c{n}", name="echo", arguments="{}"),
                ToolResult(call_id=f"c{n}", name="echo", content="ok"),
            ]
        )
        first = build_openai_payload(LlmRequest(items=history))["messages"]
    # The same list grew: earlier messages were not rebuilt.
    assert len(first) == 1 + 2 * 200
    again = build_openai_payload(LlmRequest(items=history))["messages"]
    assert again is first
