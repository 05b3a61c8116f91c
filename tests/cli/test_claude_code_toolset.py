"""``pod run`` with Claude Code hooks guards Claude Code's tools, end to end.

A local OpenAI-compatible server plays the model; the hook scripts are real processes that
read Claude Code's stdin JSON. With ``--claude-settings``, the built-in tools are the
``claude-code`` toolset (no ``read_file`` or ``list_files`` beside them), so a guard written
for Claude Code's tools sees every call that could read a file, and ``.env`` reaches the
model through none of them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pod.cli._main import main
from tests.cli.conftest import ReplayServer, chat_reply

SECRET = "hunter2-very-secret"

# Written to the contract of published "protect sensitive files" hooks: a PreToolUse
# script that reads tool_input and blocks (exit 2, the reason on stderr) any call naming
# .env in a path, a glob or a command.
GUARD = """
import json, sys
data = json.load(sys.stdin)
tool_input = data["tool_input"]
named = [str(tool_input.get(key, "")) for key in ("file_path", "path", "glob", "command")]
if any(".env" in value for value in named):
    print(f"{data['tool_name']}: .env is off limits", file=sys.stderr)
    sys.exit(2)
"""

# A PostToolUse hook as "format the file just written" hooks are: it reads the path from
# tool_response (Claude Code's Write and Edit give filePath) and logs what it got.
AFTER_WRITE = """
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(data["tool_response"]) + "\\n")
"""


def settings_file(folder: Path, groups: dict[str, list[tuple[str, str]]]) -> Path:
    """A Claude Code settings file: per event, (matcher, script source) pairs."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    for event, entries in groups.items():
        for number, (matcher, source) in enumerate(entries):
            script = folder / f"{event}_{number}.py"
            script.write_text(source)
            command = f"{sys.executable} {script} {folder / 'post.log'}"
            hooks.setdefault(event, []).append(
                {"matcher": matcher, "hooks": [{"type": "command", "command": command}]}
            )
    path = folder / "settings.json"
    path.write_text(json.dumps({"hooks": hooks}))
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / ".env").write_text(f"API_KEY={SECRET}\n")
    (folder / "app.py").write_text("print('hi')\n")
    return folder


def run(server: ReplayServer, workspace: Path, *options: str) -> int:
    return main(
        [
            "run",
            "What is in .env?",
            "--model=openai:m",
            f"--base-url={server.url}/v1",
            "--api-key=k",
            "--max-retries=0",
            f"--workdir={workspace}",
            *options,
        ]
    )


def offered_tools(server: ReplayServer) -> list[str]:
    return sorted(tool["function"]["name"] for tool in server.requests[0].body["tools"])


def tool_results(server: ReplayServer) -> dict[str, str]:
    """What the model was told of each call, by call id (from the last request)."""
    messages = server.requests[-1].body["messages"]
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def test_a_read_guard_blocks_reading_env_and_the_model_never_sees_it(
    server: ReplayServer, workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = settings_file(tmp_path, {"PreToolUse": [("Read", GUARD)]})
    server.reply_json(chat_reply(calls=(("c1", "Read", {"file_path": ".env"}),)))
    server.reply_json(chat_reply(text="I may not read .env."))
    code = run(server, workspace, f"--claude-settings={settings}")
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0, err
    assert offered_tools(server) == ["Bash", "Edit", "Glob", "Grep", "Read", "Write"]
    assert 'Read({"file_path": ".env"}) -> Skip: Read: .env is off limits' in err
    assert ".env is off limits" in tool_results(server)["c1"]
    assert all(SECRET not in json.dumps(request.body) for request in server.requests)


def test_no_other_built_in_tool_reads_env_past_the_guard(
    server: ReplayServer, workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = settings_file(tmp_path, {"PreToolUse": [("", GUARD)]})
    attempts = (
        ("c1", "Read", {"file_path": ".env"}),
        ("c2", "Read", {"file_path": str(workspace / ".env")}),
        ("c3", "read_file", {"path": "app.py"}),
        ("c4", "list_files", {"path": "."}),
        ("c5", "Grep", {"pattern": "API_KEY", "path": ".env", "output_mode": "content"}),
        ("c6", "Grep", {"pattern": "API_KEY", "output_mode": "content"}),
        ("c7", "Grep", {"pattern": "API_KEY", "glob": ".env*", "output_mode": "content"}),
        ("c8", "Bash", {"command": "cat .env"}),
        ("c9", "Edit", {"file_path": ".env", "old_string": "API_KEY=h", "new_string": "x"}),
        ("c10", "Write", {"file_path": ".env", "content": "stolen"}),
        ("c11", "Edit", {"file_path": "app.py", "old_string": "hi", "new_string": "yo"}),
        ("c12", "Glob", {"pattern": "**/*"}),
    )
    server.reply_json(chat_reply(calls=attempts))
    server.reply_json(chat_reply(text="Nothing to report."))
    code = run(server, workspace, f"--claude-settings={settings}")
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0, err
    results = tool_results(server)
    for call_id in ("c1", "c2", "c5", "c7", "c8", "c9", "c10"):
        assert ".env is off limits" in results[call_id], (call_id, results[call_id])
    assert results["c3"].startswith("unknown tool 'read_file'")
    assert results["c4"].startswith("unknown tool 'list_files'")
    assert results["c6"] == "No matches found"  # a folder walk skips hidden files
    assert "has not been read yet" in results["c11"]  # Edit needs a Read first
    assert str(workspace / ".env") in results["c12"]  # Glob lists names, never contents
    assert all(SECRET not in json.dumps(request.body) for request in server.requests)
    assert (workspace / ".env").read_text() == f"API_KEY={SECRET}\n"


def test_post_tool_use_hooks_read_claude_codes_tool_response(
    server: ReplayServer, workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = settings_file(tmp_path, {"PostToolUse": [("Write|Edit", AFTER_WRITE)]})
    server.reply_json(
        chat_reply(calls=(("c1", "Write", {"file_path": "out/new.py", "content": "x = 1\n"}),))
    )
    server.reply_json(chat_reply(text="Written."))
    code = run(server, workspace, f"--claude-settings={settings}")
    assert code == 0, capsys.readouterr().err
    (logged,) = [json.loads(line) for line in (tmp_path / "post.log").read_text().splitlines()]
    assert logged["type"] == "create"
    assert logged["filePath"] == str(workspace / "out" / "new.py")
    assert logged["content"] == "x = 1\n"
    assert (workspace / "out" / "new.py").read_text() == "x = 1\n"


def test_the_toolset_is_workspace_without_claude_settings_and_can_be_chosen(
    server: ReplayServer, workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server.reply_json(chat_reply(text="ok"))
    assert run(server, workspace) == 0
    assert offered_tools(server) == ["list_files", "read_file"]
    server.requests.clear()
    server.reply_json(chat_reply(text="ok"))
    assert run(server, workspace, "--toolset=claude-code") == 0
    assert offered_tools(server) == ["Bash", "Edit", "Glob", "Grep", "Read", "Write"]
    server.requests.clear()
    settings = settings_file(tmp_path, {"PreToolUse": [("Read", GUARD)]})
    server.reply_json(chat_reply(text="ok"))
    assert run(server, workspace, f"--claude-settings={settings}", "--toolset=workspace") == 0
    assert offered_tools(server) == ["list_files", "read_file"]
    capsys.readouterr()


def test_a_tool_named_like_a_claude_code_tool_is_refused(
    server: ReplayServer, workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "my_tools.py"
    tools.write_text(
        "from llm_worker import tool\n\n@tool\ndef Read(file_path: str) -> str:\n"
        '    """Read."""\n    return open(file_path).read()\n'
    )
    code = run(server, workspace, "--toolset=claude-code", f"--tools={tools}:Read")
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert (
        f"pod run: error: --tools {tools}:Read: 'Read' is already the name of a claude-code "
        "tool; rename the tool"
    ) in err
    assert server.requests == []


def test_a_saved_run_resumes_with_its_toolset(
    server: ReplayServer, workspace: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "run.json"
    server.reply_json(chat_reply(text="ok"))
    assert run(server, workspace, "--toolset=claude-code", f"--save={saved}") == 0
    assert json.loads(saved.read_text())["options"]["toolset"] == "claude-code"
    server.requests.clear()
    server.reply_json(chat_reply(text="again"))
    assert main(["resume", str(saved), "And now?", "--api-key=k"]) == 0
    assert offered_tools(server) == ["Bash", "Edit", "Glob", "Grep", "Read", "Write"]
    # Another toolset cannot take over a saved history: the snapshot names its tools.
    capsys.readouterr()
    assert main(["resume", str(saved), "Now?", "--api-key=k", "--toolset=workspace"]) == 2
    assert "build it with the same tools" in capsys.readouterr().err
    # A run saved before --toolset existed, with Claude Code hooks, ran with read_file and
    # list_files: with no toolset recorded it resumes with them, not with the new default.
    settings = settings_file(tmp_path, {"PreToolUse": [("Read", GUARD)]})
    server.reply_json(chat_reply(text="ok"))
    assert (
        run(
            server,
            workspace,
            f"--claude-settings={settings}",
            "--toolset=workspace",
            f"--save={saved}",
        )
        == 0
    )
    old = json.loads(saved.read_text())
    del old["options"]["toolset"]
    saved.write_text(json.dumps(old))
    server.requests.clear()
    server.reply_json(chat_reply(text="once more"))
    assert main(["resume", str(saved), "And then?", "--api-key=k"]) == 0
    assert offered_tools(server) == ["list_files", "read_file"]
    capsys.readouterr()


def test_rules_check_checks_against_the_toolset_a_run_would_have(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = settings_file(tmp_path, {"PreToolUse": [("Read", GUARD)]})
    rules = tmp_path / "rules.toml"
    rules.write_text('default = "allow"\n[[rule]]\naction = "deny"\ntool = "Bash"\n')
    assert main(["rules", "check", str(rules), f"--claude-settings={settings}"]) == 0
    assert "checked against tools Bash, Edit, Glob, Grep, Read, Write" in capsys.readouterr().out
    # With the workspace toolset there is no Bash for the rule to govern: a usage error.
    code = main(
        ["rules", "check", str(rules), f"--claude-settings={settings}", "--toolset=workspace"]
    )
    assert code == 2
    assert "tool 'Bash' matches no tool of this run (tools: list_files, read_file)" in " ".join(
        capsys.readouterr().err.split()
    )
