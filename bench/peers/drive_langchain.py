"""LangChain v1 ``create_agent`` on langchain-core's ``GenericFakeChatModel``, with
``before_model`` and ``wrap_tool_call`` middleware.

``GenericFakeChatModel`` does not bind tools; a two-line subclass returns itself from
``bind_tools`` so ``create_agent`` accepts it. Run by ``python -m bench.peers`` with the
interpreter of ``bench/.venvs/langchain``.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import version
from typing import Any

from _driver import drive
from floor import FINAL_TEXT, echo_body
from langchain.agents import create_agent
from langchain.agents.middleware import before_model, wrap_tool_call
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool


class FakeToolModel(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> FakeToolModel:  # type: ignore[override]
        return self


def _replies(turns: int) -> Iterator[AIMessage]:
    for index in range(1, turns + 1):
        call = {"name": "echo", "args": {"text": "ok"}, "id": f"call_{index}", "type": "tool_call"}
        yield AIMessage(content="", tool_calls=[call])
    yield AIMessage(content=FINAL_TEXT)


@before_model
def watch_request(state: Any, runtime: Any) -> None:
    return None


@wrap_tool_call
async def allow_tool(request: Any, handler: Any) -> Any:
    return await handler(request)


@tool
async def echo(text: str) -> str:
    """Return the text."""
    return await echo_body(text)


def make(turns: int):  # type: ignore[no-untyped-def]
    agent = create_agent(
        model=FakeToolModel(messages=_replies(turns)),
        tools=[echo],
        middleware=[watch_request, allow_tool],
    )

    async def run() -> None:
        state = await agent.ainvoke(
            {"messages": [{"role": "user", "content": "go"}]},
            config={"recursion_limit": 3 * turns + 10},
        )
        assert state["messages"][-1].content == FINAL_TEXT

    return run


drive(
    "LangChain v1",
    version("langchain"),
    make,
    notes=[
        "model: langchain-core GenericFakeChatModel (bind_tools returns the model itself)",
        "hooks: before_model and wrap_tool_call middleware; LangGraph recursion limit raised",
    ],
)
