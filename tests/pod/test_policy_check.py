"""Rules that can never apply refuse to start: checked against the Pod's tools, with the file,
the line and the fix; an empty rule set must say its default; ``pod rules check``."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import ClassVar

import pytest

from llm_worker import ScriptedClient, tool
from pod import (
    PermissionHook,
    PermissionRule,
    PermissionRulesError,
    Pod,
    PodUsageError,
    Skip,
    ToolCallSummary,
)
from pod.cli._main import main
from pod.policy._loader import load_policy, parse_policy


@tool
def read_file(path: str) -> str:
    """Read a file."""
    return path


@tool
def shell(command: str, timeout: int = 10) -> str:
    """Run a command."""
    return command


TOOLS = [read_file, shell]


def write(tmp_path: Path, text: str, name: str = "policy.toml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        pytest.param(
            """
            default = "allow"

            [[rule]]
            action = "deny"
            tool = "read-file"
            """,
            r"^{file}, line 3: \[\[rule\]\] 1: tool 'read-file' matches no tool of this run "
            r"\(tools: read_file, shell\); fix the name or remove the rule$",
            id="misspelt-tool",
        ),
        pytest.param(
            """
            default = "allow"

            [[rule]]
            action = "deny"
            tool = "read_file"
            arguments = { pth = "/etc/*" }
            """,
            r"^{file}, line 3: \[\[rule\]\] 1: argument 'pth' is not a parameter of any tool "
            r"'read_file' matches \(read_file: path\); fix the argument name or the tool glob$",
            id="misspelt-argument",
        ),
        pytest.param(
            """
            [[rule]]
            action = "allow"
            tool = "read_*"
            path = "docs/*"
            command_prefix = "cat"
            """,
            r"^{file}, line 1: \[\[rule\]\] 1: argument 'command' is not a parameter of any "
            r"tool 'read_\*' matches \(read_file: path\); fix",
            id="command-prefix-on-a-tool-without-command",
        ),
    ],
)
def test_a_rule_that_can_never_apply_refuses_the_pod(
    tmp_path: Path, rules: str, message: str
) -> None:
    path = write(tmp_path, rules)
    permissions = PermissionHook.from_toml(path)
    with pytest.raises(PermissionRulesError, match=message.format(file=str(path))):
        Pod(ScriptedClient(), tools=TOOLS, permissions=permissions)


def test_a_glob_is_sound_when_one_tool_it_matches_has_the_argument() -> None:
    permissions = PermissionHook(
        [PermissionRule(action="deny", tool="*", command_prefix="rm")], default="allow"
    )
    Pod(ScriptedClient(), tools=TOOLS, permissions=permissions)  # shell has `command`


def test_a_rule_in_code_names_its_number_without_a_line() -> None:
    permissions = PermissionHook(
        [PermissionRule(action="allow", tool="read_file"), PermissionRule(action="deny", tool="x")]
    )
    with pytest.raises(PermissionRulesError, match=r"^<rules>: \[\[rule\]\] 2: tool 'x' ") as e:
        Pod(ScriptedClient(), tools=TOOLS, permissions=permissions)
    assert (e.value.line, e.value.rule) == (None, 2)


def test_a_tool_that_admits_any_argument_accepts_every_name() -> None:
    class Open:
        name = "open_tool"
        description = "takes anything"
        parameters: ClassVar[dict[str, object]] = {"type": "object", "additionalProperties": True}

        async def call(self, arguments: dict[str, object]) -> str:
            return ""

    permissions = PermissionHook(
        [PermissionRule(action="deny", tool="open_tool", arguments={"anything": "*"})],
        default="allow",
    )
    Pod(ScriptedClient(), tools=[Open()], permissions=permissions)  # type: ignore[list-item]


@pytest.mark.parametrize(
    "text",
    ["", '[[hook]]\nevent = "abort"\ncommand = ["true"]\n', "# nothing but a comment\n"],
    ids=["empty", "hooks-only", "comment"],
)
def test_no_rules_and_no_default_is_refused(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(
        PermissionRulesError,
        match=r"^.*policy\.toml: no \[\[rule\]\] tables and no default: every tool call would "
        r'be denied\. Write default = "deny" to confirm that, default = "allow" to leave the '
        r"calls to the hooks, or add \[\[rule\]\] tables$",
    ):
        PermissionHook.from_toml(path)
    with pytest.raises(PodUsageError, match=r"no permission rules and no default"):
        PermissionHook([])


@pytest.mark.parametrize("default", ["deny", "allow"])
def test_an_explicit_default_with_no_rules_is_accepted(tmp_path: Path, default: str) -> None:
    permissions = PermissionHook.from_toml(write(tmp_path, f'default = "{default}"\n'))
    assert (permissions.rules, permissions.default) == ((), default)
    Pod(ScriptedClient(), tools=TOOLS, permissions=permissions)


def test_relative_globs_that_leave_the_workspace_are_refused_with_the_fix(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        [[rule]]
        action = "allow"
        tool = "read_file"
        path = "../secrets/*"
        """,
    )
    with pytest.raises(
        PermissionRulesError,
        match=r"line 4: \[\[rule\]\] 1: path: Value error, the relative glob '\.\./secrets/\*' "
        r"leaves the workspace: relative globs match inside the workspace only; write an "
        r"absolute glob for paths outside it$",
    ):
        PermissionHook.from_toml(path)


@pytest.mark.parametrize(
    ("table", "line", "problem"),
    [
        ('event = "pre_tool_call"\ncommand = ["x"]\ncwd = "nowhere"', 5, "cwd 'nowhere' is not"),
        ('event = "turn_end"\ncommand = ["x"]\nmatcher = "shell"', 5, "a matcher selects tools"),
        ('event = "pre_tool_call"\ncommand = ["x"]\nmatcher = "(("', 5, "not a regular expr"),
        ('event = "pre_tool_call"\ncommand = ["x"]\nevn = {}', 5, "unknown field 'evn'"),
        ('event = "abort"\ncommand = ["x"]\nprotocol = "claude-code"', 3, "Claude Code has no"),
        ('event = "pre_tool_call"\ncommand = ["x"]\ninherit_env = "yes"', 5, "inherit_env"),
    ],
)
def test_every_hook_mistake_names_the_file_line_and_table(
    tmp_path: Path, table: str, line: int, problem: str
) -> None:
    path = write(tmp_path, f'default = "allow"\n[[hook]]\n{table}\n')
    with pytest.raises(PermissionRulesError) as caught:
        load_policy(path)
    assert str(caught.value).startswith(f"{path}, line {line}: [[hook]] 1: ")
    assert problem in caught.value.problem
    assert (caught.value.table, caught.value.rule) == ("hook", 1)


def test_a_relative_cwd_is_checked_against_the_declaring_files_folder(tmp_path: Path) -> None:
    (tmp_path / "conf" / "scripts").mkdir(parents=True)
    path = write(
        tmp_path / "conf",
        '[[hook]]\nevent = "abort"\ncommand = ["true"]\ncwd = "scripts"\n',
    )
    [configured] = load_policy(path).hooks
    assert configured.source == f"{path}: [[hook]] 1"
    # The same text read as if it sat elsewhere: the folder is not found there.
    with pytest.raises(PermissionRulesError, match=r"cwd 'scripts' is not a folder"):
        parse_policy(path.read_text(), source="elsewhere.toml", base_dir=tmp_path)


def test_the_file_is_parsed_once_for_rules_and_hooks(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        default = "deny"

        [[hook]]
        event = "abort"
        command = ["true"]

        [[rule]]
        action = "allow"
        tool = "read_file"
        """,
    )
    policy = load_policy(path)
    assert policy.permissions is not None
    assert [r.tool for r in policy.permissions.rules] == ["read_file"]
    assert [h.event.name for h in policy.hooks] == ["abort"]


# -- pod rules check --------------------------------------------------------------------------


def test_rules_check_accepts_a_sound_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '[[rule]]\naction = "allow"\ntool = "read_file"\npath = "*.md"\n')
    assert main(["rules", "check", str(path), "--workdir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert " ".join(out.split()) == (
        f"{path}: ok: 1 rules (default deny), 0 command hooks; checked against tools "
        "list_files, read_file"
    )
    assert err == ""
    assert main(["rules", "check", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "ok": True,
        "file": str(path),
        "claude_settings": [],
        "rules": 1,
        "default": "deny",
        "hooks": [],
        "warnings": [],
        "tools": ["list_files", "read_file"],
    }


def test_rules_check_refuses_a_rule_for_a_missing_tool_unless_tools_bring_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '[[rule]]\naction = "deny"\ntool = "shell"\ncommand_prefix = "rm"\n')
    assert main(["rules", "check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert " ".join(err.split()) == (
        f"error: {path}, line 1: [[rule]] 1: tool 'shell' matches no tool of this run "
        "(tools: list_files, read_file); fix the name or remove the rule"
    )
    tools = tmp_path / "more_tools.py"
    tools.write_text(
        "from llm_worker import tool\n\n@tool\ndef shell(command: str) -> str:\n"
        '    """Run."""\n    return command\n'
    )
    assert main(["rules", "check", str(path), f"--tools={tools}:shell"]) == 0
    capsys.readouterr()
    assert main(["rules", "check", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    problem = " ".join(err.split())[len("error: ") :]
    assert json.loads(out) == {"ok": False, "error": problem, "errors": [problem]}


async def test_a_hook_runs_in_its_files_folder_wherever_pod_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "deny.py").write_text(
        'import json, os\nprint(json.dumps({"decision": "skip", "reason": os.getcwd()}))\n'
    )
    path = write(
        folder,
        f'default = "allow"\n[[hook]]\nevent = "pre_tool_call"\n'
        f'command = [{json.dumps(sys.executable)}, "deny.py"]\n',
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    [configured] = load_policy(path).hooks
    call = ToolCallSummary(call_id="c", tool_name="shell", arguments="{}", turn=0)
    assert await configured.hook(call) == Skip(reason=str(folder))


def test_a_relative_program_that_is_not_there_refuses_to_load(tmp_path: Path) -> None:
    path = write(
        tmp_path, 'default = "allow"\n[[hook]]\nevent = "abort"\ncommand = ["./notify.sh"]\n'
    )
    with pytest.raises(
        PermissionRulesError,
        match=rf"^{path}, line 4: \[\[hook\]\] 1: the program '\./notify\.sh' does not exist "
        rf"\(looked for {tmp_path}/\./notify\.sh; a relative program path is relative to the "
        r"cwd\)$",
    ):
        load_policy(path)
    (tmp_path / "notify.sh").write_text("#!/bin/sh\n")
    assert len(load_policy(path).hooks) == 1


def test_rules_check_validates_a_claude_code_settings_file_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "settings.json"
    hook = {"type": "command", "command": "true"}
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [hook]}]}}))
    assert main(["rules", "check", f"--claude-settings={settings}"]) == 0
    assert " ".join(capsys.readouterr().out.split()) == (
        f"{settings}: ok: 1 command hooks; checked against tools Bash, Edit, Glob, Grep, "
        "Read, Write"
    )
    # Loaded whole: events without a counterpart are named in one line, and so is every
    # hook whose matcher selects no tool of the run (a guard that would never fire).
    groups = {
        "SubagentStop": [{"hooks": [hook]}],
        "TeammateIdle": [{"hooks": [hook]}],
        "SessionStart": [{"hooks": [hook]}],  # runs: pod run runs it before the run
        "PreToolUse": [
            {"matcher": "Bash|Read", "hooks": [hook]},
            {"matcher": "read_.*", "hooks": [hook]},
        ],
        "PostToolUse": [{"matcher": "mcp__.*__write", "hooks": [hook]}],
    }
    settings.write_text(json.dumps({"hooks": groups}))
    assert main(["rules", "check", f"--claude-settings={settings}"]) == 0
    out, err = capsys.readouterr()
    assert " ".join(out.split()) == (
        f"{settings}: ok: 3 command hooks; checked against tools Bash, Edit, Glob, Grep, "
        "Read, Write"
    )
    assert [" ".join(line.split()) for line in err.strip().split("warning: ")[1:]] == [
        f"{settings}: these events will not run (no counterpart in llm-pod): SubagentStop, "
        "TeammateIdle",
        f"{settings}: hooks.PreToolUse[1].hooks[0]: matcher 'read_.*' matches no tool of "
        "this run (tools: Bash, Edit, Glob, Grep, Read, Write); the hook never runs",
        f"{settings}: hooks.PostToolUse[0].hooks[0]: matcher 'mcp__.*__write' matches no tool "
        "of this run (tools: Bash, Edit, Glob, Grep, Read, Write); the hook never runs",
    ]
    assert main(["rules", "check", f"--claude-settings={settings}", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["warnings"]) == 3
    assert main(["rules", "check"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: give a policy FILE, --claude-settings PATH, or both"
    )


def test_rules_check_loads_prompt_hooks_without_asking_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "settings.json"
    hook = {"type": "prompt", "prompt": "Is this call safe? $ARGUMENTS"}
    judged = {**hook, "model": "judge-small"}  # a model of its own: checked, not asked either
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [hook, judged]}]}}))
    assert main(["rules", "check", f"--claude-settings={settings}"]) == 0
    assert f"{settings}: ok: 2 command hooks" in " ".join(capsys.readouterr().out.split())
    agent = {"type": "agent", "prompt": "verify"}
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [agent]}]}}))
    assert main(["rules", "check", f"--claude-settings={settings}"]) == 2
    assert 'an "agent" hook cannot run here' in capsys.readouterr().err
