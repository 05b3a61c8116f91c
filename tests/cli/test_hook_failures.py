"""Hook failures name the place, and a hook registered for the wrong event is refused."""

from __future__ import annotations

import importlib
import sys
import textwrap
from pathlib import Path

import pytest

from pod import (
    Continue,
    Hook,
    HookFailedError,
    HookRegistry,
    PermissionHook,
    PodUsageError,
    PreToolDecision,
    PromptSubmitInfo,
    ToolCallSummary,
    events,
)

CALL = ToolCallSummary(call_id="c1", tool_name="shell", arguments='{"a": 1}', turn=0)


def test_a_hook_registered_for_another_events_input_is_refused_at_registration() -> None:
    registry = HookRegistry()

    def on_prompt(info: PromptSubmitInfo) -> Continue:
        return Continue()

    with pytest.raises(PodUsageError) as raised:
        registry.on(events.PRE_TOOL_CALL, on_prompt)  # type: ignore[arg-type]
    assert str(raised.value).endswith(
        "cannot be registered on PRE_TOOL_CALL: it takes PromptSubmitInfo "
        "(the Input of PROMPT_SUBMIT), but PRE_TOOL_CALL gives ToolCallSummary"
    )


def test_unannotated_and_object_annotated_hooks_are_accepted() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, lambda info: Continue())

    def anything(info: object) -> Continue:
        return Continue()

    registry.on(events.TURN_END, anything)  # type: ignore[hook-signature]  # run time accepts it
    assert len(registry.freeze().hooks_for(events.TURN_END)) == 1


def test_a_policy_hook_is_named_by_its_public_path() -> None:
    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, PermissionHook.from_toml_text('default = "allow"'))
    assert registry.freeze().hooks_for(events.PRE_TOOL_CALL) == ("pod.PermissionHook",)


async def test_the_failure_names_the_line_in_the_hooks_own_file_not_the_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The hook calls json.loads, which raises deep inside the standard library: the reason
    # points at the hook's line, the innermost frame in the hook's own file.
    (tmp_path / "deep_hooks.py").write_text(
        textwrap.dedent(
            """
            import json
            from pod import Continue, ToolCallSummary

            def helper(text):
                return json.loads(text)

            def parse_then_decide(call: ToolCallSummary) -> Continue:
                helper("{not json")
                return Continue()
            """
        )
    )
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.chdir(tmp_path)
    parse_then_decide = importlib.import_module("deep_hooks").parse_then_decide
    monkeypatch.delitem(sys.modules, "deep_hooks")

    registry = HookRegistry()
    registry.on(events.PRE_TOOL_CALL, parse_then_decide)  # type: ignore[hook-boundary]
    with pytest.raises(HookFailedError) as raised:
        await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL)
    assert str(raised.value).startswith(
        "hook deep_hooks.parse_then_decide on PRE_TOOL_CALL failed: raised JSONDecodeError:"
    )
    assert str(raised.value).endswith(" at deep_hooks.py:6")


def test_a_hook_object_and_a_bound_method_are_checked_too() -> None:
    class AskFirst(Hook[ToolCallSummary, PreToolDecision]):
        def __call__(self, call: ToolCallSummary) -> PreToolDecision:
            return Continue()

    class Audit:
        def on_prompt(self, info: PromptSubmitInfo) -> Continue:
            return Continue()

    registry = HookRegistry()
    with pytest.raises(PodUsageError, match=r"it takes ToolCallSummary \(the Input of "):
        registry.on(events.PROMPT_SUBMIT, AskFirst())  # type: ignore[arg-type]
    with pytest.raises(PodUsageError, match=r"it takes PromptSubmitInfo \(the Input of "):
        registry.on(events.TURN_END, Audit().on_prompt)  # type: ignore[arg-type]
    registry.on(events.PRE_TOOL_CALL, AskFirst())
    registry.on(events.PROMPT_SUBMIT, Audit().on_prompt)
