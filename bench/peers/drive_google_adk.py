"""Google ADK ``LlmAgent`` on a scripted ``BaseLlm`` (shaped like the ``MockModel`` of ADK's
own test runner, without recording requests), with ``before_model_callback`` and
``before_tool_callback``, run by ``InMemoryRunner``.

Run by ``python -m bench.peers`` with the interpreter of ``bench/.venvs/google_adk``.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator
from importlib.metadata import version
from typing import Any

from _driver import drive
from floor import FINAL_TEXT, echo_body
from google.adk.agents import LlmAgent, RunConfig
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

logging.disable(logging.WARNING)  # ADK warns about the scripted model's missing features


class ScriptedLlm(BaseLlm):
    model: str = "scripted"
    turns: int = 0
    requests: int = 0

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests += 1
        if self.requests <= self.turns:
            call = types.FunctionCall(name="echo", args={"text": "ok"}, id=f"call_{self.requests}")
            part = types.Part(function_call=call)
        else:
            part = types.Part(text=FINAL_TEXT)
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


async def echo(text: str) -> str:
    """Return the text."""
    return await echo_body(text)


def watch_request(callback_context: Any, llm_request: Any) -> None:
    return None


def allow_tool(tool: Any, args: Any, tool_context: Any) -> None:
    return None


def make(turns: int):  # type: ignore[no-untyped-def]
    agent = LlmAgent(
        name="bench",
        model=ScriptedLlm(turns=turns),
        tools=[echo],
        before_model_callback=watch_request,
        before_tool_callback=allow_tool,
    )
    runner = InMemoryRunner(agent=agent, app_name="bench")

    async def run() -> None:
        session = await runner.session_service.create_session(app_name="bench", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="go")])
        final = ""
        async for event in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message=message,
            run_config=RunConfig(max_llm_calls=turns + 10),
        ):
            if event.content and event.content.parts and event.content.parts[0].text:
                final = event.content.parts[0].text
        assert final == FINAL_TEXT, final

    return run


drive(
    "Google ADK",
    version("google-adk"),
    make,
    notes=[
        "model: a scripted BaseLlm, as ADK's own test runner's MockModel but not recording",
        "hooks: before_model_callback and before_tool_callback; InMemoryRunner sessions",
    ],
)
