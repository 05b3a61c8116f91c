"""Tools built with @tool: schema, validation, sync functions off the event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Annotated

import pytest
from pydantic import Field

from llm_worker import ToolArgumentsError, ToolDefinitionError, tool


@tool
def read_file(path: Annotated[str, Field(description="file to read")], limit: int = 100) -> str:
    """Read a file.

    Longer explanation that is not part of the description.
    """
    return f"{path}:{limit}"


def test_schema_and_description_come_from_the_function() -> None:
    assert read_file.name == "read_file"
    assert read_file.description == "Read a file."
    params = read_file.parameters
    assert params["type"] == "object"
    assert params["required"] == ["path"]
    assert params["properties"] == {
        "path": {"description": "file to read", "title": "Path", "type": "string"},
        "limit": {"default": 100, "title": "Limit", "type": "integer"},
    }
    assert params["additionalProperties"] is False


async def test_arguments_are_validated_before_the_call() -> None:
    assert await read_file.call({"path": "a", "limit": "5"}) == "a:5"
    with pytest.raises(ToolArgumentsError, match=r"^limit: Input should be a valid integer"):
        await read_file.call({"path": "a", "limit": "many"})
    with pytest.raises(ToolArgumentsError, match=r"path: Field required"):
        await read_file.call({})
    with pytest.raises(ToolArgumentsError, match=r"extra: Extra inputs are not permitted"):
        await read_file.call({"path": "a", "extra": 1})


async def test_sync_tools_run_off_the_event_loop() -> None:
    loop_thread = threading.get_ident()

    @tool
    def where() -> str:
        """Report the thread."""
        return "loop" if threading.get_ident() == loop_thread else "worker thread"

    assert await where.call({}) == "worker thread"


async def test_async_tools_are_awaited_and_non_text_results_become_json() -> None:
    @tool(name="sum_up", description="Add numbers.")
    async def add(numbers: list[int]) -> dict[str, int]:
        await asyncio.sleep(0)
        return {"total": sum(numbers)}

    assert add.name == "sum_up"
    assert add.description == "Add numbers."
    assert await add.call({"numbers": [1, 2, 3]}) == '{"total":6}'


def test_every_definition_problem_is_reported_at_once() -> None:
    def bad(a, *rest: int, **more: int) -> str:  # type: ignore[no-untyped-def]
        return ""

    with pytest.raises(ToolDefinitionError) as info:
        tool(bad)
    assert info.value.problems == (
        "parameter 'a' has no type annotation",
        "parameter 'rest': *args and **kwargs are not supported",
        "parameter 'more': *args and **kwargs are not supported",
    )
    assert str(info.value).startswith("cannot make a tool of ")
