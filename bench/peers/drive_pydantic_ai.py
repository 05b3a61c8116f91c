"""pydantic-ai on its own test model (``FunctionModel``), with its ``Hooks`` capability.

Run by ``python -m bench.peers`` with the interpreter of ``bench/.venvs/pydantic_ai``.
"""

from __future__ import annotations

from importlib.metadata import version

from _driver import drive
from floor import ARGUMENTS, FINAL_TEXT, echo_body
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import Hooks
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import UsageLimits


def make(turns: int):  # type: ignore[no-untyped-def]
    requests = 0

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal requests
        requests += 1
        if requests <= turns:
            call = ToolCallPart(tool_name="echo", args=ARGUMENTS, tool_call_id=f"call_{requests}")
            return ModelResponse(parts=[call])
        return ModelResponse(parts=[TextPart(FINAL_TEXT)])

    hooks: Hooks[None] = Hooks()

    @hooks.on.before_model_request
    def watch_request(ctx: RunContext[None], request_context):  # type: ignore[no-untyped-def]
        return request_context

    @hooks.on.before_tool_execute
    def allow_tool(ctx: RunContext[None], *, call, tool_def, args):  # type: ignore[no-untyped-def]
        return args

    agent = Agent(FunctionModel(model), capabilities=[hooks])

    @agent.tool_plain
    async def echo(text: str) -> str:
        """Return the text."""
        return await echo_body(text)

    async def run() -> None:
        result = await agent.run("go", usage_limits=UsageLimits(request_limit=None))
        assert result.output == FINAL_TEXT, result.output

    return run


drive(
    "pydantic-ai",
    version("pydantic-ai-slim"),
    make,
    notes=["hooks: Hooks capability, before_model_request and before_tool_execute"],
)
