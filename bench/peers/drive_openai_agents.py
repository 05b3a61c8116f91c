"""OpenAI Agents SDK on a scripted ``Model`` (the SDK ships no fake model; this one implements
its ``Model`` interface in a few lines), with a tool input guardrail and run hooks.

Run by ``python -m bench.peers`` with the interpreter of ``bench/.venvs/openai_agents``.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from _driver import drive
from agents import (
    Agent,
    ModelSettings,
    RunHooks,
    Runner,
    ToolGuardrailFunctionOutput,
    function_tool,
    set_tracing_disabled,
    tool_input_guardrail,
)
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from floor import ARGUMENTS, FINAL_TEXT, echo_body
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

set_tracing_disabled(True)


class ScriptedModel(Model):
    def __init__(self, turns: int) -> None:
        self.turns = turns
        self.requests = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.requests += 1
        if self.requests <= self.turns:
            call_id = f"call_{self.requests}"
            item: Any = ResponseFunctionToolCall(
                type="function_call", call_id=call_id, name="echo", arguments=ARGUMENTS, id=call_id
            )
        else:
            item = ResponseOutputMessage(
                id="final",
                type="message",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text=FINAL_TEXT, annotations=[])],
            )
        return ModelResponse(output=[item], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the benchmark does not stream")


@tool_input_guardrail
def allow_tool(data: Any) -> ToolGuardrailFunctionOutput:
    return ToolGuardrailFunctionOutput.allow()


class WatchRequests(RunHooks[Any]):
    async def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
        return None


@function_tool(tool_input_guardrails=[allow_tool])
async def echo(text: str) -> str:
    """Return the text."""
    return await echo_body(text)


def make(turns: int):  # type: ignore[no-untyped-def]
    agent = Agent(
        name="bench",
        model=ScriptedModel(turns),
        tools=[echo],
        model_settings=ModelSettings(),
    )

    async def run() -> None:
        result = await Runner.run(agent, "go", max_turns=turns + 1, hooks=WatchRequests())
        assert result.final_output == FINAL_TEXT, result.final_output

    return run


drive(
    "OpenAI Agents SDK",
    version("openai-agents"),
    make,
    notes=[
        "model: a scripted Model subclass (no fake model ships with the SDK)",
        "hooks: a tool input guardrail (decides) and RunHooks.on_llm_start (observes only)",
        "tracing disabled",
    ],
)
