"""``validated(Model, **fields)`` is ``Model(**fields)``: same value, frozen, same errors."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from llm_worker import (
    LlmResponse,
    PreRequestInfo,
    ToolCall,
    ToolCallSummary,
    ToolResult,
    ToolResultSummary,
    Usage,
)
from llm_worker._validated import validated

CALL = ToolCall(call_id="c1", name="echo", arguments='{"text": "hi"}')

CASES: list[tuple[type[BaseModel], dict[str, object]]] = [
    (ToolCall, dict(call_id="c1", name="echo", arguments='{"text": "hi"}')),
    (ToolResult, dict(call_id="c1", name="echo", content="hi", is_error=True)),
    (
        LlmResponse,
        dict(items=(CALL,), usage=Usage(input_tokens=3, output_tokens=1), stop_reason="tool_calls"),
    ),
    (
        PreRequestInfo,
        dict(turn=0, request_index=1, item_count=2, estimated_tokens=3, tool_calls_this_turn=4),
    ),
    (ToolCallSummary, dict(call_id="c1", tool_name="echo", arguments="{}", turn=0)),
    (
        ToolResultSummary,
        dict(
            call_id="c1",
            tool_name="echo",
            arguments='{"text": "hi"}',
            is_error=False,
            output_preview="hi",
            output_length=2,
            turn=0,
        ),
    ),
]


@pytest.mark.parametrize(("model", "fields"), CASES, ids=[m.__name__ for m, _ in CASES])
def test_validated_equals_the_constructor_and_is_as_frozen(
    model: type[BaseModel], fields: dict[str, object]
) -> None:
    built = validated(model, **fields)
    expected = model(**fields)

    assert type(built) is model
    assert built == expected
    assert built.model_dump() == expected.model_dump()
    assert built.model_fields_set == expected.model_fields_set
    with pytest.raises(ValidationError, match="frozen"):
        built.turn = 99  # type: ignore[attr-defined]


def test_validated_rejects_what_the_constructor_rejects() -> None:
    with pytest.raises(ValidationError) as by_constructor:
        ToolResult(call_id="c1", name="echo", content=3)  # type: ignore[arg-type]
    with pytest.raises(ValidationError) as by_validated:
        validated(ToolResult, call_id="c1", name="echo", content=3)
    assert by_validated.value.errors() == by_constructor.value.errors()

    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        validated(ToolCallSummary, call_id="c", tool_name="t", arguments="{}", turn=0, x=1)
