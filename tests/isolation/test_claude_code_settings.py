"""Claude Code settings files: the hook scripts of Claude Code's hooks guide (a Bash command
validator, file protection, a prompt guard), written to its contract, run unchanged through
the ``hooks`` section of ``.claude/settings.json`` with the outcomes they have in Claude Code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult, tool
from llm_worker.testing import assert_well_formed
from pod import Aborted, CommandHook, Finished, HookRegistry, Pod, PodUsageError, events
from pod.command._claude_code import CLAUDE_CODE_EVENTS
from pod.command._claude_code_settings import (
    load_claude_settings,
    read_claude_plugin,
    read_claude_settings,
)

BASH_VALIDATOR = """
#!/usr/bin/env python3
import json
import re
import sys

# Each rule: (regex, message) -- as in Claude Code's hooks guide.
_VALIDATION_RULES = [
    (r"\\bgrep\\b(?!.*\\|)", "Use 'rg' (ripgrep) instead of 'grep' for better performance"),
    (r"\\bfind\\s+\\S+\\s+-name\\b", "Use 'rg --files -g pattern' instead of 'find -name'"),
]


def _validate_command(command):
    return [message for pattern, message in _VALIDATION_RULES if re.search(pattern, command)]


try:
    input_data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

tool_name = input_data.get("tool_name", "")
tool_input = input_data.get("tool_input", {})
command = tool_input.get("command", "")

if tool_name != "Bash" or not command:
    sys.exit(1)

issues = _validate_command(command)
if issues:
    for message in issues:
        print(f"• {message}", file=sys.stderr)
    # Exit code 2 blocks tool call and shows stderr to Claude
    sys.exit(2)
"""

PROMPT_GUARD = """
#!/usr/bin/env python3
import datetime
import json
import re
import sys

try:
    input_data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

prompt = input_data.get("prompt", "")

sensitive_patterns = [
    (r"(?i)\\b(password|secret|key|token)\\s*[:=]", "Prompt contains potential secrets"),
]

for pattern, message in sensitive_patterns:
    if re.search(pattern, prompt):
        output = {
            "decision": "block",
            "reason": f"Security policy violation: {message}. Please rephrase your request "
            "without sensitive information.",
        }
        print(json.dumps(output))
        sys.exit(0)

# Add current time to context
context = f"Current time: {datetime.datetime.now()}"
print(context)
sys.exit(0)
"""

FILE_PROTECTION = (
    'python3 -c "import json, sys; data=json.load(sys.stdin); '
    "path=data.get('tool_input',{}).get('file_path',''); "
    "sys.exit(2 if any(p in path for p in ['.env', 'package-lock.json', '.git/']) else 0)\""
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with ``.claude/settings.json`` and its hook scripts, as Claude Code has it."""
    hooks = tmp_path / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "bash_command_validator.py").write_text(BASH_VALIDATOR.lstrip())
    (hooks / "prompt_guard.py").write_text(PROMPT_GUARD.lstrip())
    settings = {
        "permissions": {"allow": ["Bash(rg:*)"]},  # not read: only the hooks section is
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": "python3 "
                            '"$CLAUDE_PROJECT_DIR"/.claude/hooks/bash_command_validator.py',
                        }
                    ],
                },
                {
                    "matcher": "Edit|MultiEdit|Write",
                    "hooks": [{"type": "command", "command": FILE_PROTECTION, "timeout": 20}],
                },
            ],
            "UserPromptSubmit": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": "python3 .claude/hooks/prompt_guard.py",
                        }
                    ]
                }
            ],
        },
    }
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    return tmp_path


def make_pod(project: Path, calls: list[ScriptedCall], ran: list[str]) -> Pod:
    @tool
    def Bash(command: str) -> str:  # Claude Code's tool names
        """Run a shell command."""
        ran.append(f"Bash {command}")
        return "ok"

    @tool
    def Write(file_path: str, content: str) -> str:
        """Write a file."""
        ran.append(f"Write {file_path}")
        return "written"

    @tool
    def Read(file_path: str) -> str:
        """Read a file."""
        ran.append(f"Read {file_path}")
        return "text"

    registry = HookRegistry()
    for configured in load_claude_settings(
        project / ".claude" / "settings.json", project_dir=project
    ):
        configured.register(registry)
    client = ScriptedClient([ScriptedReply(calls=calls), ScriptedReply(text="done")])
    return Pod(client, tools=[Bash, Write, Read], hooks=registry)


def results(pod: Pod) -> dict[str, str]:
    return {i.call_id: i.content for i in pod.history if isinstance(i, ToolResult)}


async def test_the_guides_validators_block_and_allow_as_in_claude_code(project: Path) -> None:
    ran: list[str] = []
    pod = make_pod(
        project,
        [
            ScriptedCall("Bash", {"command": "grep -r TODO src"}),
            ScriptedCall("Bash", {"command": "rg TODO src"}),
            ScriptedCall("Bash", {"command": "find . -name '*.py'"}),
            ScriptedCall("Write", {"file_path": f"{project}/.env", "content": "KEY=1"}),
            ScriptedCall("Write", {"file_path": f"{project}/src/app.py", "content": "x"}),
            ScriptedCall("Read", {"file_path": f"{project}/.env"}),  # no matcher: not asked
        ],
        ran,
    )
    assert isinstance(await pod.run("tidy up"), Finished)
    assert ran == ["Bash rg TODO src", f"Write {project}/src/app.py", f"Read {project}/.env"]
    content = results(pod)
    assert content["call_1"] == (
        "tool call skipped: • Use 'rg' (ripgrep) instead of 'grep' for better performance"
    )
    assert content["call_3"] == (
        "tool call skipped: • Use 'rg --files -g pattern' instead of 'find -name'"
    )
    assert content["call_4"] == "tool call skipped: blocked by a PreToolUse hook (exit status 2)"
    assert_well_formed(pod.history)


async def test_the_prompt_guard_blocks_secrets_and_lets_other_prompts_through(
    project: Path,
) -> None:
    ran: list[str] = []
    blocked = make_pod(project, [], ran)
    result = await blocked.run("deploy with password: hunter2")
    assert isinstance(result, Aborted)
    assert result.reason.endswith(
        "Security policy violation: Prompt contains potential secrets. Please rephrase your "
        "request without sensitive information."
    )
    assert_well_formed(blocked.history)
    allowed = make_pod(project, [], ran)
    assert isinstance(await allowed.run("what time is it?"), Finished)  # context text ignored


def test_settings_register_claude_code_hooks_with_their_matchers(project: Path) -> None:
    configured = load_claude_settings(project / ".claude" / "settings.json", project_dir=project)
    assert [(c.event, c.on_error, c.hook.protocol) for c in configured] == [
        (events.PRE_TOOL_CALL, "abort", "claude-code"),
        (events.PRE_TOOL_CALL, "abort", "claude-code"),
        (events.PROMPT_SUBMIT, "abort", "claude-code"),
    ]
    # Claude Code's defaults: 600 s, 30 s at UserPromptSubmit; the second sets 20 s itself.
    assert [c.hook.timeout for c in configured] == [600.0, 20.0, 30.0]
    assert configured[0].hook.environment["CLAUDE_PROJECT_DIR"] == str(project.resolve())
    assert configured[1].source.endswith("settings.json: hooks.PreToolUse[1].hooks[0]")


def write_settings(tmp_path: Path, hooks: object) -> Path:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hooks": hooks}))
    return path


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        pytest.param(
            {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "is it safe?"}]}]},
            r'hooks\.PreToolUse\[0\]\.hooks\[0\]: a "prompt" hook needs a model to ask, and '
            r"none is configured here",
            id="prompt-hook-without-a-model",
        ),
        pytest.param(
            {"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "greet"}]}]},
            r'hooks\.SessionStart\[0\]\.hooks\[0\]: a "prompt" hook of SessionStart cannot run',
            id="prompt-session-hook",
        ),
        pytest.param(
            {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "args": "-v"}]}]},
            r"hooks\.PreToolUse\[0\]\.hooks\[0\]: args: Input should be a valid list",
            id="args-not-a-list",
        ),
        pytest.param(
            {"Stop": [{"hooks": [{"type": "agent", "prompt": "verify"}]}]},
            r'hooks\.Stop\[0\]\.hooks\[0\]: an "agent" hook cannot run here: llm-pod runs '
            r'"command", "http" and "prompt" hooks only \(remove it, or make it a "prompt" hook',
            id="agent-hook",
        ),
        pytest.param(
            {
                "PostToolUse": [
                    {"hooks": [{"type": "command", "command": "x"}]},
                    {"hooks": [{"type": "mcp_tool", "server": "s", "tool": "t"}]},
                ]
            },
            r'hooks\.PostToolUse\[1\]\.hooks\[0\]: an "mcp_tool" hook cannot run here: '
            r".* \(remove it, or make it a command that calls the tool\)$",
            id="mcp-tool-hook",
        ),
        pytest.param(
            {"PostToolUse": [{"hooks": [{"type": "http", "url": "file:///etc/passwd"}]}]},
            r"hooks\.PostToolUse\[0\]\.hooks\[0\]: url: String should match pattern",
            id="http-hook-not-http",
        ),
        pytest.param(
            {"SessionEnd": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1/"}]}]},
            r'hooks\.SessionEnd\[0\]\.hooks\[0\]: an "http" hook of SessionEnd cannot run',
            id="http-session-hook",
        ),
        pytest.param(
            {"PreToolUse": [{"hooks": [{"type": "shell", "command": "x"}]}]},
            r"hooks\.PreToolUse\[0\]\.hooks\[0\]: type: Input should be 'command'",
            id="unknown-type",
        ),
        pytest.param(
            {"PreToolUse": [{"matcher": "((", "hooks": [{"type": "command", "command": "x"}]}]},
            r"hooks\.PreToolUse\[0\]: matcher '\(\(' is not a regular expression",
            id="bad-matcher",
        ),
        pytest.param(
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]},
            r"hooks\.Stop\[0\]\.hooks\[0\]: timeout: Input should be greater than 0",
            id="bad-timeout",
        ),
        pytest.param(
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "async": True}]}]},
            r"hooks\.Stop\[0\]\.hooks\[0\]: async: Extra inputs are not permitted",
            id="unknown-key",
        ),
        pytest.param({"Stop": {"hooks": []}}, r"hooks\.Stop: must be a list", id="not-a-list"),
        pytest.param(
            {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "onFailure": "ok"}]}]},
            r"hooks\.PreToolUse\[0\]\.hooks\[0\]: onFailure: Input should be 'block' or "
            r"'continue'",
            id="bad-on-failure",
        ),
    ],
)
def test_a_settings_file_this_runtime_cannot_honour_is_refused(
    tmp_path: Path, hooks: object, message: str
) -> None:
    path = write_settings(tmp_path, hooks)
    with pytest.raises(PodUsageError, match=rf"^{path}: {message}"):
        load_claude_settings(path, project_dir=tmp_path)


async def _never(system: str, prompt: str) -> str:
    raise AssertionError("not asked")


def test_a_prompt_hooks_model_needs_a_way_to_ask_that_model(tmp_path: Path) -> None:
    hooks = {"Stop": [{"hooks": [{"type": "prompt", "prompt": "done?", "model": "haiku"}]}]}
    path = write_settings(tmp_path, hooks)
    message = (
        rf"^{path}: hooks\.Stop\[0\]\.hooks\[0\]: a \"prompt\" hook's model 'haiku' cannot be "
        r"chosen here \(no way to ask another model is configured\): drop \"model\""
    )
    with pytest.raises(PodUsageError, match=message):
        read_claude_settings(path, project_dir=tmp_path, ask=_never)
    chosen: list[str] = []

    def ask_model(model: str) -> Any:
        chosen.append(model)
        return _never

    read_claude_settings(path, project_dir=tmp_path, ask=_never, ask_model=ask_model)
    assert chosen == ["haiku"]


def test_matchers_of_events_without_tools_are_ignored_as_claude_code_does(
    tmp_path: Path,
) -> None:
    hooks: dict[str, Any] = {
        "Stop": [{"matcher": "anything", "hooks": [{"type": "command", "command": "x"}]}],
        "PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "x"}]}],
    }
    configured = load_claude_settings(write_settings(tmp_path, hooks), project_dir=tmp_path)
    assert len(configured) == 2


def test_disabled_hooks_and_unreadable_files(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"disableAllHooks": True, "hooks": {"Nope": []}}))
    assert load_claude_settings(path) == []
    path.write_text("{not json")
    with pytest.raises(PodUsageError, match=r"settings\.json: not a Claude Code settings file"):
        load_claude_settings(path)
    with pytest.raises(PodUsageError, match=r"^cannot read Claude Code settings .*missing"):
        load_claude_settings(tmp_path / "missing.json")


def test_a_precompact_matcher_selects_automatic_compaction_only(tmp_path: Path) -> None:
    entry = [{"type": "command", "command": "x"}]
    hooks: dict[str, Any] = {
        "PreCompact": [
            {"matcher": "manual", "hooks": entry},  # never fires here: not registered
            {"matcher": "auto", "hooks": entry},
            {"hooks": entry},
        ]
    }
    configured = load_claude_settings(write_settings(tmp_path, hooks), project_dir=tmp_path)
    assert [c.source.rsplit(": ", 1)[1] for c in configured] == [
        "hooks.PreCompact[1].hooks[0]",
        "hooks.PreCompact[2].hooks[0]",
    ]
    assert {c.event for c in configured} == {events.PRE_COMPACT}


# Claude Code's own matcher examples: (matcher, tools it selects, tools it does not).
MATCHER_EXAMPLES = [
    ("Bash", ["Bash"], ["BashOutput", "bash", "MyBash"]),
    ("Write", ["Write"], ["TodoWrite", "NotebookWrite"]),
    ("Edit|Write", ["Edit", "Write"], ["NotebookEdit", "TodoWrite", "Read"]),
    ("Edit, Write", ["Edit", "Write"], ["Edit, Write", "NotebookEdit"]),
    ("Read,Grep , Glob", ["Read", "Grep", "Glob"], ["ReadMe", "Bash"]),
    ("^Notebook", ["Notebook", "NotebookEdit", "NotebookRead"], ["MyNotebook", "Edit"]),
    ("Notebook.*", ["NotebookEdit", "MyNotebookEdit"], ["Edit"]),
    ("Output$", ["BashOutput"], ["OutputBash"]),
    ("^Bash$", ["Bash"], ["BashOutput"]),
    (".*write.*", ["overwrite", "write_file"], ["Write", "TodoWrite"]),
    ("mcp__memory__.*", ["mcp__memory__create_entities", "mcp__memory__"], ["mcp__github__x"]),
    ("mcp__.*__write.*", ["mcp__filesystem__write_file", "mcp__fs__write"], ["mcp__fs__read"]),
    ("mcp__.*", ["mcp__github__search", "mcp__a__b"], ["Bash", "xmcp_"]),
    ("mcp__memory", [], ["mcp__memory__create_entities", "mcp__memory_x"]),
    ("*", ["Bash", "mcp__a__b", "anything"], []),
    ("", ["Bash", "Read"], []),
]


@pytest.mark.parametrize(("matcher", "selected", "left"), MATCHER_EXAMPLES)
def test_matchers_select_the_tools_claude_code_selects(
    tmp_path: Path, matcher: str, selected: list[str], left: list[str]
) -> None:
    hooks = {"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": "x"}]}]}
    (configured,) = load_claude_settings(write_settings(tmp_path, hooks), project_dir=tmp_path)
    assert [name for name in selected if configured.hook.selects(name)] == selected
    assert [name for name in left if configured.hook.selects(name)] == []


async def test_a_matcher_that_selects_a_tool_makes_its_hook_run(tmp_path: Path) -> None:
    """End to end: ``Edit, Write`` and ``^Notebook`` guard their tools (no full match)."""
    writes: list[str] = []

    @tool
    def Write(file_path: str, content: str) -> str:  # Claude Code's tool name
        """Write a file."""
        writes.append(file_path)
        return "written"

    @tool
    def NotebookEdit(notebook_path: str) -> str:
        """Edit a notebook."""
        writes.append(notebook_path)
        return "edited"

    block = {"type": "command", "command": "echo 'guarded' >&2; exit 2"}
    hooks = {
        "PreToolUse": [
            {"matcher": "Edit, Write", "hooks": [block]},
            {"matcher": "^Notebook", "hooks": [block]},
        ]
    }
    registry = HookRegistry()
    for configured in load_claude_settings(write_settings(tmp_path, hooks), project_dir=tmp_path):
        configured.register(registry)
    client = ScriptedClient(
        [
            ScriptedReply(
                calls=[
                    ScriptedCall("Write", {"file_path": "a.txt", "content": "x"}),
                    ScriptedCall("NotebookEdit", {"notebook_path": "n.ipynb"}),
                ]
            ),
            ScriptedReply(text="done"),
        ]
    )
    pod = Pod(client, tools=[Write, NotebookEdit], hooks=registry)
    result = await pod.run("write")
    assert isinstance(result, Finished)
    assert writes == []
    results = [item for item in pod.history if isinstance(item, ToolResult)]
    assert [r.is_error for r in results] == [True, True]
    assert all("guarded" in r.content for r in results)
    assert_well_formed(pod.history)


def test_events_without_a_counterpart_load_and_are_listed_once(tmp_path: Path) -> None:
    entry = [{"type": "command", "command": "x"}]
    hooks = {
        "Notification": [{"hooks": entry}],
        "PreToolUse": [{"matcher": "Bash", "hooks": entry}],
        "SessionStart": [{"matcher": "startup", "hooks": entry}],
        "SubagentStop": [{"hooks": entry}],
        "PreToolUs": [{"hooks": entry}],
    }
    settings = read_claude_settings(write_settings(tmp_path, hooks), project_dir=tmp_path)
    assert [c.event for c in settings.hooks] == [events.PRE_TOOL_CALL]
    assert [
        (h.event_name, h.selects("startup"), h.selects("resume")) for h in settings.session_hooks
    ] == [
        ("Notification", True, True),
        ("SessionStart", True, False),
    ]
    assert settings.not_run == ("SubagentStop", "PreToolUs (not a Claude Code event)")
    assert settings.warning() == (
        f"{settings.source}: these events will not run (no counterpart in llm-pod): "
        "SubagentStop, PreToolUs (not a Claude Code event)"
    )


def test_observe_only_hooks_warn_and_guard_hooks_fail_closed(tmp_path: Path) -> None:
    entry = [{"type": "command", "command": "x"}]
    hooks = {name: [{"hooks": entry}] for name in CLAUDE_CODE_EVENTS}
    configured = load_claude_settings(write_settings(tmp_path, hooks), project_dir=tmp_path)
    assert {c.source.rsplit(": hooks.", 1)[1]: c.on_error for c in configured} == {
        "PreToolUse[0].hooks[0]": "abort",
        "UserPromptSubmit[0].hooks[0]": "abort",
        "PostToolUse[0].hooks[0]": "ignore",
        "Stop[0].hooks[0]": "ignore",
        "PreCompact[0].hooks[0]": "ignore",
        "PostToolUseFailure[0].hooks[0]": "ignore",
    }


def test_on_failure_overrides_the_events_policy(tmp_path: Path) -> None:
    def entry(on_failure: str) -> list[object]:
        return [{"type": "command", "command": "x", "onFailure": on_failure}]

    hooks = {
        "PreToolUse": [{"hooks": entry("continue")}],
        "PostToolUse": [{"hooks": entry("block")}],
        "Stop": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:1/", "onFailure": "block"}]}],
    }
    configured = load_claude_settings(write_settings(tmp_path, hooks), project_dir=tmp_path)
    assert {c.source.rsplit(": hooks.", 1)[1]: c.on_error for c in configured} == {
        "PreToolUse[0].hooks[0]": "ignore",
        "PostToolUse[0].hooks[0]": "abort",
        "Stop[0].hooks[0]": "abort",
    }


def test_the_exec_form_fills_in_claude_variables_and_nothing_else(tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    (plugin / "hooks").mkdir(parents=True)
    entry = {
        "type": "command",
        "command": "${CLAUDE_PLUGIN_ROOT}/bin/check",
        "args": ["$CLAUDE_PROJECT_DIR/src", "${HOME}", "$(id)", "a b", "${CLAUDE_UNKNOWN}"],
    }
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"hooks": [entry]}]}})
    )
    project = tmp_path / "project"
    project.mkdir()
    [configured] = read_claude_plugin(plugin, project_dir=project).hooks
    hook = configured.hook
    assert isinstance(hook, CommandHook)
    assert hook.command == (  # no shell: the program and its arguments
        f"{plugin}/bin/check",
        f"{project}/src",
        "${HOME}",
        "$(id)",
        "a b",
        "${CLAUDE_UNKNOWN}",
    )
