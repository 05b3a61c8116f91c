"""``Rewrite`` at ``PRE_TOOL_CALL`` and approvals bound to what the approver was shown.

A hook declares new arguments; the engine applies them: the history holds the rewritten
call, the trace says who rewrote it, later hooks and a pause see it, and the tool validates
it as it validates the model's. An approval names the pending call's digest: a digest for
other arguments, another call, another run or a stale state is refused, ``Continue``
approves nothing, and an approval cannot be replayed once its call is decided or closed.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from llm_worker import (
    ApprovalMismatchError,
    Approve,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    SnapshotError,
    ToolCall,
    ToolResult,
    UsageError,
    WorkerStateError,
    call_digest,
    tool,
)
from llm_worker.testing import assert_well_formed
from pod import (
    Aborted,
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
    TraceEvent,
    events,
)

ran: list[str] = []


@tool
def shell(command: str, timeout: int = 10) -> str:
    """Run a command."""
    ran.append(f"{command} (timeout {timeout})")
    return f"ran {command}"


@pytest.fixture(autouse=True)
def _forget_runs() -> None:
    ran.clear()


def client(arguments: dict[str, object] | None = None) -> ScriptedClient:
    return ScriptedClient(
        [
            ScriptedReply(
                calls=(ScriptedCall("shell", arguments or {"command": "git push"}, call_id="c1"),)
            ),
            ScriptedReply("done"),
        ]
    )


def pin_dry_run(call: ToolCallSummary) -> Continue | Rewrite:
    command = str(call.argument("command"))
    if "--dry-run" in command:
        return Continue()
    return Rewrite.of({"command": f"{command} --dry-run"}, reason="dry runs only")


def calls_in(pod: Pod) -> list[ToolCall]:
    return [item for item in pod.history if isinstance(item, ToolCall)]


def results_in(pod: Pod) -> list[ToolResult]:
    return [item for item in pod.history if isinstance(item, ToolResult)]


async def test_a_rewrite_runs_the_new_arguments_and_is_recorded_in_history_and_trace() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, pin_dry_run)
    trace: list[TraceEvent] = []
    pod = Pod(client(), tools=[shell], hooks=registry, trace=trace.append)

    assert await pod.run("push") == Finished(text="done", turn=0)

    assert ran == ["git push --dry-run (timeout 10)"]
    assert [json.loads(c.arguments) for c in calls_in(pod)] == [{"command": "git push --dry-run"}]
    assert_well_formed(pod.history)
    decisions = [e.decision for e in trace if e.actor == "PRE_TOOL_CALL"]
    assert decisions == [
        'Rewrite: dry runs only -> {"command":"git push --dry-run"} (by '
        "test_rewrite_and_approval.pin_dry_run)"
    ]


async def test_later_hooks_are_asked_about_the_rewritten_call() -> None:
    seen: list[str] = []
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, pin_dry_run)

    @registry.on(events.PRE_TOOL_CALL)
    def audit(call: ToolCallSummary) -> Continue:
        seen.append(call.arguments)
        return Continue()

    await Pod(client(), tools=[shell], hooks=registry).run("push")

    assert seen == ['{"command":"git push --dry-run"}']


async def test_a_pause_after_a_rewrite_shows_the_approver_the_rewritten_call() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, pin_dry_run)
    registry.on(events.PRE_TOOL_CALL, lambda call: Pause(reason="approve?"))
    pod = Pod(client(), tools=[shell], hooks=registry)

    paused = await pod.run("push")

    assert isinstance(paused, Paused)
    (pending,) = paused.pending_calls
    assert json.loads(pending.arguments) == {"command": "git push --dry-run"}
    assert pending.digest == call_digest(
        run_id=pod.run_id,
        turn=0,
        call_id="c1",
        tool_name="shell",
        arguments='{"command":"git push --dry-run"}',
    )
    assert await pod.resume({"c1": Approve(digest=pending.digest)}) == Finished(text="done", turn=0)
    assert ran == ["git push --dry-run (timeout 10)"]


async def test_a_rewrite_then_skip_records_the_rewrite_and_runs_nothing() -> None:
    registry = HookRegistry()
    registry.on(
        events.PRE_TOOL_CALL,
        lambda call: Rewrite.of({"command": "true"}, reason="defused", then=Skip(reason="no")),
    )
    pod = Pod(client(), tools=[shell], hooks=registry)

    await pod.run("push")

    assert ran == []
    assert [c.arguments for c in calls_in(pod)] == ['{"command":"true"}']
    assert results_in(pod)[0].content == "tool call skipped: no"
    assert_well_formed(pod.history)


async def test_rewritten_arguments_are_validated_by_the_tool_like_the_models() -> None:
    registry = HookRegistry()
    registry.on(
        events.PRE_TOOL_CALL,
        lambda call: Rewrite.of({"command": "ls", "timeout": "soon"}, reason="bad"),
    )
    pod = Pod(client(), tools=[shell], hooks=registry)

    assert await pod.run("push") == Finished(text="done", turn=0)

    assert ran == []
    (result,) = results_in(pod)
    assert result.is_error
    assert result.content.startswith("invalid arguments for shell: timeout:")
    assert_well_formed(pod.history)


async def test_a_rewrite_to_text_that_is_not_an_object_fails_closed_naming_the_hook() -> None:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def broken(call: ToolCallSummary) -> Rewrite:
        return Rewrite(arguments="[1, 2]", reason="oops")

    pod = Pod(client(), tools=[shell], hooks=registry)
    result = await pod.run("push")

    assert isinstance(result, Aborted)
    assert result.reason == (
        "hook test_rewrite_and_approval.test_a_rewrite_to_text_that_is_not_an_object_fails_"
        "closed_naming_the_hook.<locals>.broken on PRE_TOOL_CALL failed: returned a Rewrite "
        "whose arguments are not a JSON object"
    )
    assert ran == []
    assert [c.arguments for c in calls_in(pod)] == ['{"command": "git push"}']
    assert_well_formed(pod.history)


def test_rewrite_is_not_legal_where_the_contract_has_no_arguments_to_rewrite() -> None:
    legal = {event.name: event.decision_types for event in events.CATALOGUE}
    assert [name for name, types in legal.items() if Rewrite in types] == ["pre_tool_call"]


def ask_first() -> HookRegistry:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Pause(reason="approve?"))
    return registry


async def test_an_approval_names_the_digest_of_what_was_shown() -> None:
    pod = Pod(client(), tools=[shell], hooks=ask_first())
    paused = await pod.run("push")
    assert isinstance(paused, Paused)
    shown = paused.pending_calls[0].digest

    assert await pod.resume({"c1": Approve(digest=shown)}) == Finished(text="done", turn=0)
    assert ran == ["git push (timeout 10)"]


async def test_an_approval_of_other_arguments_is_refused_with_both_digests() -> None:
    pod = Pod(client(), tools=[shell], hooks=ask_first())
    paused = await pod.run("push")
    assert isinstance(paused, Paused)
    current = paused.pending_calls[0].digest
    other = call_digest(
        run_id=pod.run_id, turn=0, call_id="c1", tool_name="shell", arguments='{"command": "ls"}'
    )

    with pytest.raises(ApprovalMismatchError) as refused:
        await pod.resume({"c1": Approve(digest=other)})

    assert str(refused.value) == (
        f"approval of tool call c1 refused: it names digest {other}, but the pending call's "
        f"digest is {current} (what was shown is not what would run)"
    )
    assert ran == []
    assert pod.status == "paused"  # nothing changed: the right approval still works
    assert await pod.resume({"c1": Approve(digest=current)}) == Finished(text="done", turn=0)


async def test_a_digest_does_not_depend_on_how_the_arguments_are_spelled() -> None:
    def digest(arguments: str, *, turn: int = 0, run_id: str = "run-a") -> str:
        return call_digest(
            run_id=run_id, turn=turn, call_id="c1", tool_name="t", arguments=arguments
        )

    spaced = digest('{"b": 1, "a": [1.0]}')
    tight = digest('{"a":[1],"b":1}')
    changed = digest('{"a":[2],"b":1}')
    later_turn = digest('{"a":[1],"b":1}', turn=1)
    other_run = digest('{"a":[1],"b":1}', run_id="run-b")

    assert spaced == tight
    assert len({tight, changed, later_turn, other_run}) == 4
    assert tight.startswith("jcs-sha256:")


async def test_continue_approves_nothing_and_says_to_name_the_digest() -> None:
    pod = Pod(client(), tools=[shell], hooks=ask_first())
    paused = await pod.run("push")
    assert isinstance(paused, Paused)

    with pytest.raises(UsageError) as refused:
        await pod.resume({"c1": Continue()})  # type: ignore[dict-item]  # untyped callers

    assert str(refused.value) == (
        "Continue does not approve pending call 'c1' (shell): approve it with "
        "Approve(digest=pending.digest), the digest of the PendingCall the approver was shown"
    )
    assert (ran, pod.status) == ([], "paused")  # nothing changed
    assert await pod.resume({"c1": paused.pending_calls[0].approve()}) == Finished(
        text="done", turn=0
    )
    assert ran == ["git push (timeout 10)"]


@pytest.mark.parametrize(
    "decision",
    [Pause(reason="later"), Rewrite.of({"command": "ls"}, reason="mine")],
    ids=["Pause", "Rewrite"],
)
async def test_only_approve_skip_and_abort_decide_a_pending_call(decision: object) -> None:
    pod = Pod(client(), tools=[shell], hooks=ask_first())
    assert isinstance(await pod.run("push"), Paused)

    with pytest.raises(UsageError) as refused:
        await pod.resume({"c1": decision})  # type: ignore[dict-item]  # untyped callers

    assert str(refused.value) == (
        f"{type(decision).__name__} is not a decision for pending call 'c1' (shell): "
        "give Approve(digest=...), Skip or Abort"
    )
    assert (ran, pod.status) == ([], "paused")


async def test_an_approval_of_one_run_is_refused_in_another_with_both_digests() -> None:
    run_a = Pod(client(), tools=[shell], hooks=ask_first(), run_id="run-a")
    run_b = Pod(client(), tools=[shell], hooks=ask_first(), run_id="run-b")
    paused_a = await run_a.run("push")
    paused_b = await run_b.run("push")
    assert isinstance(paused_a, Paused)
    assert isinstance(paused_b, Paused)
    # The same turn, call id, tool and arguments: only the run tells them apart.
    (shown_a,) = paused_a.pending_calls
    (shown_b,) = paused_b.pending_calls
    assert shown_a.model_dump(exclude={"digest"}) == shown_b.model_dump(exclude={"digest"})
    assert shown_a.digest != shown_b.digest

    with pytest.raises(ApprovalMismatchError) as refused:
        await run_b.resume({"c1": shown_a.approve()})

    assert (refused.value.shown, refused.value.current) == (shown_a.digest, shown_b.digest)
    assert shown_a.digest in str(refused.value)
    assert shown_b.digest in str(refused.value)
    assert (ran, run_b.status) == ([], "paused")


async def test_a_snapshot_of_one_run_is_refused_by_a_pod_of_another() -> None:
    run_a = Pod(client(), tools=[shell], hooks=ask_first(), run_id="run-a")
    assert isinstance(await run_a.run("push"), Paused)
    run_b = Pod(client(), tools=[shell], hooks=ask_first(), run_id="run-b")

    with pytest.raises(
        SnapshotError, match="the snapshot is of run 'run-a', this Worker is run 'run-b'"
    ):
        run_b.restore(PodSnapshot.from_json(run_a.snapshot().to_json()))
    assert run_b.history == ()

    # A Pod given no run id takes the snapshot's: the digest shown before the save approves.
    fresh = Pod(client(), tools=[shell], hooks=ask_first())
    fresh.restore(PodSnapshot.from_json(run_a.snapshot().to_json()))
    assert fresh.run_id == "run-a"


async def test_an_approval_replayed_after_its_call_was_decided_is_refused() -> None:
    pod = Pod(client(), tools=[shell], hooks=ask_first())
    paused = await pod.run("push")
    assert isinstance(paused, Paused)
    approval = {"c1": Approve(digest=paused.pending_calls[0].digest)}
    await pod.resume(approval)

    with pytest.raises(WorkerStateError, match="nothing to resume"):
        await pod.resume(approval)
    assert ran == ["git push (timeout 10)"]


async def test_an_approval_replayed_after_a_cancelled_resume_is_refused() -> None:
    started = asyncio.Event()

    @tool
    async def slow(command: str) -> str:
        """Hang until cancelled."""
        started.set()
        await asyncio.sleep(60)
        return "never"

    scripted = ScriptedClient(
        [ScriptedReply(calls=(ScriptedCall("slow", {"command": "x"}, call_id="c1"),))]
    )
    pod = Pod(scripted, tools=[slow], hooks=ask_first())
    paused = await pod.run("go")
    assert isinstance(paused, Paused)
    approval = {"c1": Approve(digest=paused.pending_calls[0].digest)}

    task = asyncio.create_task(pod.resume(approval))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    with pytest.raises(WorkerStateError, match="nothing to resume"):
        await pod.resume(approval)
    assert_well_formed(pod.history)
    assert results_in(pod)[0].content == "not run: the run was cancelled"


async def test_an_approval_with_arguments_runs_the_call_with_them_as_a_rewrite_would() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda call: Pause(reason="approve?"))
    pod = Pod(client(), tools=[shell], hooks=registry)
    paused = await pod.run("push")
    assert isinstance(paused, Paused)
    (pending,) = paused.pending_calls

    with pytest.raises(UsageError, match="not a JSON object"):  # refused, nothing changed
        await pod.resume({"c1": Approve(digest=pending.digest, arguments="[1]")})
    approved = Approve(digest=pending.digest, arguments='{"command": "git push --dry-run"}')
    assert await pod.resume({"c1": approved}) == Finished(text="done", turn=0)

    assert ran == ["git push --dry-run (timeout 10)"]
    [call] = [item for item in pod.history if isinstance(item, ToolCall)]
    assert json.loads(call.arguments) == {"command": "git push --dry-run"}
    assert_well_formed(pod.history)
