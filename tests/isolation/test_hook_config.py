"""Command hooks from TOML ``[[hook]]`` tables: checked in full, with errors naming the table."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from pod import (
    HookRegistry,
    PermissionRulesError,
    Skip,
    events,
    load_command_hooks,
)
from pod.policy._hook_config import command_hook_from_config
from pod.policy._loader import parse_policy

from .conftest import CALL


def write_toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pod.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_hooks_load_in_order_with_their_settings(tmp_path: Path) -> None:
    path = write_toml(
        tmp_path,
        """
        default = "allow"

        [[rule]]                      # the same loader reads rules
        action = "deny"
        tool = "shell"

        [[hook]]
        event = "pre_tool_call"
        command = ["python3", "policy.py"]
        timeout = 5
        on_error = "deny"

        [[hook]]
        event = "ABORT"
        command = ["notify-send", "run aborted"]
        mode = "persistent"
        cwd = "scripts"
        """,
    )
    (tmp_path / "scripts").mkdir()
    first, second = load_command_hooks(path)
    assert first.event is events.PRE_TOOL_CALL
    assert first.hook.event is events.PRE_TOOL_CALL
    assert (first.hook.command, first.hook.timeout, first.hook.mode) == (
        ("python3", "policy.py"),
        5.0,
        "per-call",
    )
    assert (first.on_error, first.source) == ("deny", f"{path}: [[hook]] 1")
    assert (second.event, second.on_error, second.hook.mode) == (
        events.ABORT,
        "abort",
        "persistent",
    )
    assert second.hook.timeout == 30.0

    registry = HookRegistry()
    for configured in (first, second):
        configured.register(registry)
    frozen = registry.freeze()
    assert frozen.hooks_for(events.PRE_TOOL_CALL) == (
        "pod.command._hook.CommandHook(python3 policy.py)",
    )
    assert frozen.hooks_for(events.ABORT) == (
        "pod.command._hook.CommandHook(notify-send 'run aborted')",
    )


async def test_a_relative_cwd_is_relative_to_the_file_and_the_hook_runs(tmp_path: Path) -> None:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "deny_shell.py").write_text(
        'print(\'{"decision": "skip", "reason": "no shell"}\')', encoding="utf-8"
    )
    path = write_toml(
        tmp_path,
        f"""
        [[hook]]
        event = "pre_tool_call"
        command = [{sys.executable!r}, "deny_shell.py"]
        cwd = "policies"
        on_error = "deny"
        """,
    )
    [configured] = load_command_hooks(path)
    registry = HookRegistry()
    configured.register(registry)
    assert await registry.freeze().dispatch(events.PRE_TOOL_CALL, CALL) == Skip(reason="no shell")


def test_a_file_without_hooks_gives_none(tmp_path: Path) -> None:
    text = "[[rule]]\naction = 'allow'\ntool = 'x'\n"
    assert load_command_hooks(write_toml(tmp_path, text)) == []


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        (
            {"event": "pre_tool_call", "command": "python3 policy.py"},
            'command must be a list of arguments, e.g. ["python3", "policy.py"]: no shell is '
            'used (write ["sh", "-c", "..."] to use one)',
        ),
        (
            {"event": "pre_tool_cal", "command": ["x"]},
            "no hook event 'pre_tool_cal'; events: "
            + ", ".join(event.name for event in events.CATALOGUE),
        ),
        (
            {"event": "turn_end", "command": ["x"], "on_error": "deny"},
            "on_error = 'deny' is only meaningful for pre_tool_call, not turn_end",
        ),
        (
            {"event": "pre_tool_call", "command": ["x"], "timeout": "5"},
            "timeout: Input should be a valid number",
        ),
        (
            {"event": "pre_tool_call", "command": ["x"], "timeout": 0},
            "timeout: Input should be greater than 0",
        ),
        (
            {"event": "pre_tool_call", "command": []},
            "command: List should have at least 1 item after validation, not 0",
        ),
        (
            {"event": "pre_tool_call", "command": [""]},
            "a CommandHook command is a non-empty list of strings with a program first, not ['']",
        ),
        (
            {"command": ["x"], "mode": "forever", "on_eror": "ignore"},
            "missing field 'event'; mode: Input should be 'per-call' or 'persistent'; "
            "unknown field 'on_eror' (fields: event, command, timeout, on_error, mode, "
            "protocol, matcher, cwd, env, inherit_env)",
        ),
    ],
)
def test_an_invalid_table_is_refused_with_every_problem(
    table: dict[str, object], problem: str
) -> None:
    with pytest.raises(PermissionRulesError) as error:
        command_hook_from_config(table, source="pod.toml")
    assert str(error.value) == f"pod.toml: {problem}"


def test_one_bad_table_refuses_the_whole_file(tmp_path: Path) -> None:
    path = write_toml(
        tmp_path,
        """
        [[hook]]
        event = "pre_tool_call"
        command = ["ok"]

        [[hook]]
        event = "pre_tool_call"
        command = ["ok"]
        timeout = -1
        """,
    )
    with pytest.raises(
        PermissionRulesError,
        match=r"pod\.toml, line 9: \[\[hook\]\] 2: timeout: Input should be greater than 0$",
    ):
        load_command_hooks(path)


def test_hook_must_be_an_array_of_tables() -> None:
    for text in ('[hook]\nevent = "abort"\n', 'hook = ["abort"]\n'):
        with pytest.raises(
            PermissionRulesError,
            match=r"^x\.toml, line 1: 'hook' must be an array of tables: write each one under",
        ):
            parse_policy(text, source="x.toml")


def test_unreadable_or_invalid_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_command_hooks(tmp_path / "missing.toml")
    broken = write_toml(tmp_path, "[[hook]\nevent = 1\n")
    with pytest.raises(PermissionRulesError, match=r"pod\.toml, line 1: invalid TOML: "):
        load_command_hooks(broken)
