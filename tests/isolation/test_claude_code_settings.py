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
from pod import Aborted, Finished, HookRegistry, Pod, PodUsageError, events
from pod.command._claude_code_settings import load_claude_settings

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
    assert [c.hook.timeout for c in configured] == [60.0, 20.0, 60.0]
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
            {"Notification": [{"hooks": [{"type": "command", "command": "true"}]}]},
            r"hooks\.Notification: this runtime has no Notification event \(it runs: "
            r"PreToolUse, PostToolUse, UserPromptSubmit, Stop, PreCompact\); remove it",
            id="unknown-event",
        ),
        pytest.param(
            {"PreToolUse": [{"hooks": [{"type": "prompt", "prompt": "is it safe?"}]}]},
            r"hooks\.PreToolUse\[0\]: hooks\.0\.type: Input should be 'command'",
            id="prompt-hook",
        ),
        pytest.param(
            {"PreToolUse": [{"matcher": "((", "hooks": [{"type": "command", "command": "x"}]}]},
            r"hooks\.PreToolUse\[0\]\.hooks\[0\]: matcher '\(\(' is not a regular expression",
            id="bad-matcher",
        ),
        pytest.param(
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]},
            r"hooks\.Stop\[0\]: hooks\.0\.timeout: Input should be greater than 0",
            id="bad-timeout",
        ),
        pytest.param(
            {"Stop": [{"hooks": [{"type": "command", "command": "x", "async": True}]}]},
            r"hooks\.Stop\[0\]: hooks\.0\.async: Extra inputs are not permitted",
            id="unknown-key",
        ),
        pytest.param({"Stop": {"hooks": []}}, r"hooks\.Stop: must be a list", id="not-a-list"),
    ],
)
def test_a_settings_file_this_runtime_cannot_honour_is_refused(
    tmp_path: Path, hooks: object, message: str
) -> None:
    path = write_settings(tmp_path, hooks)
    with pytest.raises(PodUsageError, match=rf"^{path}: {message}"):
        load_claude_settings(path, project_dir=tmp_path)


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
