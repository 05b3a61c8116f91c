"""``Annotate``: at ``PRE_TOOL_CALL`` a hook tells the model something about a call, next to
the call's result, and decides nothing else by itself: the hooks after it are asked, and
what it carries (``then``) is the decision. The engine writes the text, bounded."""

from __future__ import annotations

import pytest

from llm_worker import (
    REASON_BYTES,
    Annotate,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolResult,
    tool,
)
from llm_worker.testing import assert_well_formed
from pod import (
    Approve,
    Continue,
    Finished,
    HookRegistry,
    Pause,
    Paused,
    Pod,
    PodSnapshot,
    Rewrite,
    Skip,
    ToolCallSummary,
    events,
)

ran: list[str] = []


@tool
def shell(command: str) -> str:
    """Run a command (recorded)."""
    ran.append(command)
    return f"ran {command}"


@pytest.fixture(autouse=True)
def _fresh() -> None:
    ran.clear()


def client(*commands: str) -> ScriptedClient:
    calls = [ScriptedCall("shell", {"command": c}, call_id=f"c{i}") for i, c in enumerate(commands)]
    return ScriptedClient([ScriptedReply(calls=calls), ScriptedReply(text="done")])


def results(scripted: ScriptedClient) -> list[tuple[str, bool]]:
    return [(r.content, r.is_error) for r in scripted.requests[1] if isinstance(r, ToolResult)]


async def test_the_context_follows_the_result_and_the_hooks_after_it_still_decide() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Annotate(text="the branch is main"))

    @registry.on(events.PRE_TOOL_CALL)
    def no_rm(call: ToolCallSummary) -> Skip | Continue:
        if str(call.argument("command")).startswith("rm"):
            return Skip(reason="no rm")
        return Continue()

    scripted = client("ls", "rm -rf /")
    result = await Pod(scripted, tools=[shell], hooks=registry).run("go")

    assert isinstance(result, Finished)
    assert ran == ["ls"]  # the annotation did not let rm past the guard after it
    assert results(scripted) == [
        ("ran ls\n\n[hook context] the branch is main", False),
        ("tool call skipped: no rm\n\n[hook context] the branch is main", True),
    ]


async def test_annotations_join_and_carry_a_rewrite_and_the_text_is_bounded() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Annotate(text="one"))
    registry.on(
        events.PRE_TOOL_CALL,
        lambda call: Annotate(text="two", then=Rewrite.of({"command": "ls -a"}, reason="pin")),
    )
    registry.on(events.PRE_TOOL_CALL, lambda call: Annotate(text="x" * (REASON_BYTES + 10)))
    scripted = client("ls")
    pod = Pod(scripted, tools=[shell], hooks=registry)

    await pod.run("go")

    assert ran == ["ls -a"]
    [(content, _)] = results(scripted)
    assert content.startswith("ran ls -a\n\n[hook context] one\ntwo\nxxx")
    assert len(content.encode()) < REASON_BYTES + 100  # bounded, with a marker
    assert_well_formed(pod.history)


async def test_the_context_of_a_paused_call_survives_a_snapshot_and_follows_its_result() -> None:
    registry = HookRegistry()
    registry.on(
        events.PRE_TOOL_CALL,
        lambda call: Annotate(
            text="careful: prod", then=Rewrite.of({"command": "deploy --dry-run"}, reason="dry")
        ),
    )
    registry.on(events.PRE_TOOL_CALL, lambda call: Pause(reason="approve?"))
    scripted = client("deploy")
    pod = Pod(scripted, tools=[shell], hooks=registry)
    paused = await pod.run("go")
    assert isinstance(paused, Paused)
    (pending,) = paused.pending_calls
    saved = pod.snapshot().model_dump_json()

    restored = Pod(scripted, tools=[shell], hooks=registry)
    restored.restore(PodSnapshot.model_validate_json(saved))
    finished = await restored.resume({"c0": Approve(digest=pending.digest)})

    assert finished == Finished(text="done", turn=0)
    assert ran == ["deploy --dry-run"]
    assert results(scripted) == [("ran deploy --dry-run\n\n[hook context] careful: prod", False)]
