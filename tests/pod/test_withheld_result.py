"""``Skip`` at ``POST_TOOL_CALL``: a tool ran, but its result is withheld. The model gets the
hook's reason in its place, the run goes on, and the history stays well-formed."""

from __future__ import annotations

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult, tool
from llm_worker.testing import assert_well_formed
from pod import (
    Continue,
    Finished,
    HookRegistry,
    Pod,
    PostToolDecision,
    Skip,
    ToolResultSummary,
    events,
)

RAN: list[str] = []


@tool
def fetch(url: str) -> str:
    """Fetch a URL."""
    RAN.append(url)
    return f"SECRET-TOKEN from {url}"


async def test_a_withheld_result_never_reaches_the_model() -> None:
    RAN.clear()
    registry = HookRegistry()

    @registry.on(events.POST_TOOL_CALL)
    def no_secrets(result: ToolResultSummary) -> PostToolDecision:
        if "SECRET" in result.output_preview:
            return Skip(reason="the result holds a secret")
        return Continue()

    client = ScriptedClient(
        [
            ScriptedReply(calls=[ScriptedCall("fetch", {"url": "https://x"}, call_id="c1")]),
            ScriptedReply(text="I could not read it."),
        ]
    )
    pod = Pod(client, tools=[fetch], hooks=registry)

    assert await pod.run("fetch x") == Finished(text="I could not read it.", turn=0)

    assert RAN == ["https://x"]  # the tool ran, once
    [result] = [item for item in pod.history if isinstance(item, ToolResult)]
    assert result == ToolResult(
        call_id="c1",
        name="fetch",
        content="tool result withheld: the result holds a secret",
        is_error=True,
    )
    assert not any("SECRET" in str(item) for item in client.requests[1])
    assert_well_formed(pod.history)
