"""A hook's exception cannot escape the failure policy, whatever its ``__str__`` does."""

from __future__ import annotations

import pytest

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult, tool
from pod import Aborted, Finished, HookRegistry, Pod, ToolCallSummary, events
from pod.hooks._registry import FailurePolicy

RUNS: list[str] = []


@tool
def shell(command: str) -> str:
    """Run a command."""
    RUNS.append(command)
    return f"ran {command}"


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise AttributeError("no message for you")


class _ShapeShifter(type):
    @property
    def __name__(cls) -> str:  # type: ignore[override]  # the hostile part
        raise RuntimeError("no name either")


class NamelessError(Exception, metaclass=_ShapeShifter):
    def __str__(self) -> str:
        raise RuntimeError("nor a message")


def _pod(error: type[Exception], on_error: FailurePolicy) -> tuple[Pod, ScriptedClient]:
    registry = HookRegistry()

    def hostile(call: ToolCallSummary) -> None:
        raise error

    registry.on(events.PRE_TOOL_CALL, hostile, on_error=on_error)  # type: ignore[arg-type]
    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("shell", {"command": "ls"}, call_id="c1")])],
        then=ScriptedReply(text="done"),
    )
    return Pod(client, tools=[shell], hooks=registry), client


@pytest.fixture(autouse=True)
def _no_runs() -> None:
    RUNS.clear()


async def test_an_exception_whose_str_raises_aborts_the_run_named_by_its_type() -> None:
    pod, _ = _pod(UnprintableError, "abort")
    result = await pod.run("go")
    assert isinstance(result, Aborted)
    assert "raised UnprintableError (its message could not be formatted)" in result.reason
    assert RUNS == []


async def test_an_exception_whose_class_name_raises_too_still_aborts() -> None:
    pod, _ = _pod(NamelessError, "abort")
    result = await pod.run("go")
    assert isinstance(result, Aborted)
    assert "raised an exception (its message could not be formatted)" in result.reason
    assert RUNS == []


async def test_under_deny_the_model_is_told_the_call_was_skipped() -> None:
    pod, client = _pod(UnprintableError, "deny")
    assert await pod.run("go") == Finished(text="done", turn=0)
    result = next(item for item in client.requests[-1] if isinstance(item, ToolResult))
    assert result.content.startswith("tool call skipped: hook ")
    assert "UnprintableError (its message could not be formatted)" in result.content
    assert RUNS == []


async def test_under_ignore_the_call_runs_once() -> None:
    pod, _ = _pod(UnprintableError, "ignore")
    assert await pod.run("go") == Finished(text="done", turn=0)
    assert RUNS == ["ls"]
