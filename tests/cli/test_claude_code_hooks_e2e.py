"""Claude Code hooks end to end: scripts written to Claude Code's contract (shell, Python,
Node), loaded from a settings file or a plugin folder, run by ``pod run`` against a local
OpenAI-style server. Each test asserts what the model received and what the tool did.

The tools are this file's own ``Bash``/``Read``/``Write`` (Claude Code's names and
parameters); each records what it did in ``tool_log.jsonl``.
"""

from __future__ import annotations

import http.server
import json
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.cli.conftest import ReplayServer, chat_reply, pod_command
from tests.cli.test_saved_runs import saved_path

TOOLS = '''
import json
from pathlib import Path

from llm_worker import tool

LOG = Path(__file__).with_name("tool_log.jsonl")


def _log(**entry):
    with LOG.open("a") as file:
        file.write(json.dumps(entry) + "\\n")


@tool
def Bash(command: str) -> str:
    """Run a shell command (recorded, not run)."""
    _log(tool="Bash", command=command)
    return "ran: " + command


@tool
def Read(file_path: str) -> str:
    """Read a file."""
    _log(tool="Read", file_path=file_path)
    return Path(file_path).read_text()


@tool
def Write(file_path: str, content: str) -> str:
    """Write a file."""
    _log(tool="Write", file_path=file_path)
    Path(file_path).parent.mkdir(parents=True, exist_ok=True)
    Path(file_path).write_text(content)
    return json.dumps({"type": "create", "filePath": file_path})


TOOLS = [Bash, Read, Write]
'''

# A shell guard, as the hooks guide writes them: jq-free, reads stdin, exit 2 blocks.
NO_RM = """#!/bin/bash
input=$(cat)
case "$input" in
  *'rm -rf'*) echo "rm -rf is not allowed here" >&2; exit 2 ;;
esac
exit 0
"""

# Python: deny reading secrets with a JSON permission decision.
NO_SECRETS = """
import json, sys
data = json.load(sys.stdin)
path = data["tool_input"].get("file_path", "")
if path.endswith(".env"):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "secrets stay secret: " + path}}))
"""

# Node: rewrite every write into the sandbox folder (updatedInput).
SANDBOX_WRITES = """
let text = "";
process.stdin.on("data", (chunk) => (text += chunk));
process.stdin.on("end", () => {
  const data = JSON.parse(text);
  const input = data.tool_input;
  if (!input.file_path.includes("/sandbox/")) {
    const name = input.file_path.split("/").pop();
    const rewritten = { ...input, file_path: data.cwd + "/sandbox/" + name };
    console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse",
      permissionDecision: "allow", permissionDecisionReason: "writes go to sandbox/",
      updatedInput: rewritten } }));
  }
});
"""

# Python: the "format the file just written" hook; it needs tool_input on PostToolUse.
FORMAT_CHECK = """
import json, sys
data = json.load(sys.stdin)
path = data["tool_input"]["file_path"]
kind = data["tool_response"]["type"]
print(json.dumps({"decision": "block",
    "reason": f"{path} ({kind}): line 1 is longer than 10 characters",
    "systemMessage": "format check ran on " + path}))
"""

# Python: a Stop rule that reads the transcript; blocks once until the tests were run.
TESTS_BEFORE_STOP = """
import json, sys
data = json.load(sys.stdin)
ran_tests = False
last_text = ""
with open(data["transcript_path"]) as transcript:
    for line in transcript:
        entry = json.loads(line)
        if entry["type"] != "assistant":
            continue
        for block in entry["message"]["content"]:
            if block["type"] == "tool_use" and "pytest" in block["input"].get("command", ""):
                ran_tests = True
            if block["type"] == "text":
                last_text = block["text"]
with open(data["cwd"] + "/stop_seen.jsonl", "a") as seen:
    seen.write(json.dumps({"active": data["stop_hook_active"], "ran_tests": ran_tests,
        "last": data["last_assistant_message"], "transcript_last": last_text}) + "\\n")
if not ran_tests and not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run pytest before you stop"}))
"""


def node_or_skip() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    return node


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "claude_tools.py").write_text(TOOLS)
    (folder / ".env").write_text("TOKEN=secret\n")
    (folder / "README.md").write_text("hello\n")
    return folder


def settings_file(folder: Path, hooks: dict[str, Any]) -> Path:
    path = folder / "settings.json"
    path.write_text(json.dumps({"hooks": hooks}))
    return path


def command(argv: str) -> dict[str, Any]:
    return {"type": "command", "command": argv}


def script(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    path.chmod(0o755)
    return path


def run(
    server: ReplayServer, workspace: Path, *options: str, prompt: str = "go"
) -> tuple[int, str, str]:
    done = pod_command(
        "run",
        prompt,
        "--model=openai:m",
        f"--base-url={server.url}/v1",
        "--api-key=k",
        f"--tools={workspace / 'claude_tools.py'}:TOOLS",
        # These recording Bash/Read/Write stand in for the claude-code toolset (tested on its
        # own in tests/cli/test_claude_code_toolset.py): the workspace toolset has no such names.
        "--toolset=workspace",
        f"--workdir={workspace}",
        "--max-retries=0",
        *options,
        cwd=workspace,
    )
    return done.returncode, done.stdout, done.stderr


def run_settings(
    server: ReplayServer, workspace: Path, hooks: dict[str, Any]
) -> tuple[int, str, str]:
    return run(server, workspace, f"--claude-settings={settings_file(workspace, hooks)}")


def tool_log(workspace: Path) -> list[dict[str, Any]]:
    path = workspace / "tool_log.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def tool_messages(server: ReplayServer, request: int) -> dict[str, str]:
    """The tool results the model received in request ``request``, by call id."""
    messages = server.requests[request].body["messages"]
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def test_guards_in_three_languages_block_allow_and_rewrite(
    server: ReplayServer, workspace: Path
) -> None:
    node = node_or_skip()
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [command(str(script(workspace, "no_rm.sh", NO_RM)))]},
            {
                "matcher": "Read",
                "hooks": [command(f"{sys.executable} {script(workspace, 'ns.py', NO_SECRETS)}")],
            },
            {
                "matcher": "Edit|Write",
                "hooks": [command(f"{node} {script(workspace, 'sb.js', SANDBOX_WRITES)}")],
            },
        ],
        "SubagentStop": [{"hooks": [command("true")]}],
    }
    server.reply_json(
        chat_reply(
            calls=(
                ("c_rm", "Bash", {"command": "rm -rf /"}),
                ("c_ls", "Bash", {"command": "ls"}),
                ("c_env", "Read", {"file_path": str(workspace / ".env")}),
                ("c_readme", "Read", {"file_path": str(workspace / "README.md")}),
                ("c_write", "Write", {"file_path": str(workspace / "notes.md"), "content": "x"}),
            )
        )
    )
    server.reply_json(chat_reply(text="done"))
    status, out, err = run(
        server, workspace, f"--claude-settings={settings_file(workspace, hooks)}"
    )
    assert status == 0, err
    assert out.strip() == "done"
    # The file loaded whole; the event without a counterpart is named once.
    assert err.count("these events will not run") == 1
    assert "SubagentStop" in err
    seen = tool_messages(server, 1)
    assert "rm -rf is not allowed here" in seen["c_rm"]
    assert seen["c_ls"] == "ran: ls"
    assert f"secrets stay secret: {workspace / '.env'}" in seen["c_env"]
    assert seen["c_readme"] == "hello\n"
    assert sorted(tool_log(workspace), key=lambda entry: entry["tool"]) == [  # run together
        {"tool": "Bash", "command": "ls"},
        {"tool": "Read", "file_path": str(workspace / "README.md")},
        {"tool": "Write", "file_path": str(workspace / "sandbox" / "notes.md")},
    ]
    assert (workspace / "sandbox" / "notes.md").read_text() == "x"
    assert not (workspace / "notes.md").exists()
    # The model's own history shows the call as it ran.
    [call] = [
        c
        for m in server.requests[1].body["messages"]
        for c in m.get("tool_calls") or ()
        if c["id"] == "c_write"
    ]
    assert json.loads(call["function"]["arguments"])["file_path"].endswith("/sandbox/notes.md")


def test_post_tool_use_feedback_and_a_transcript_reading_stop_hook(
    server: ReplayServer, workspace: Path
) -> None:
    post = script(workspace, "fmt.py", FORMAT_CHECK)
    stop = script(workspace, "stop.py", TESTS_BEFORE_STOP)
    hooks = {
        "PostToolUse": [{"matcher": "Write", "hooks": [command(f"{sys.executable} {post}")]}],
        "Stop": [{"hooks": [command(f"{sys.executable} {stop}")]}],
    }
    target = str(workspace / "a.py")
    server.reply_json(
        chat_reply(calls=(("c_w", "Write", {"file_path": target, "content": "x = 1\n"}),))
    )
    server.reply_json(chat_reply(text="written"))  # Stop: blocked, the tests were not run
    server.reply_json(chat_reply(calls=(("c_t", "Bash", {"command": "pytest -q"}),)))
    server.reply_json(chat_reply(text="tests pass"))  # Stop: allowed
    status, out, err = run(
        server, workspace, f"--claude-settings={settings_file(workspace, hooks)}"
    )
    assert status == 0, err
    assert out.strip() == "tests pass"
    # PostToolUse block: the model got the result and the feedback, and the run went on.
    assert tool_messages(server, 1)["c_w"] == (
        '{"type": "create", "filePath": "' + target + '"}\n\n[hook feedback] '
        f"{target} (create): line 1 is longer than 10 characters"
    )
    assert f"format check ran on {target}" in err  # systemMessage: shown to the user
    # Stop block: the reason is the model's next instruction.
    last = server.requests[2].body["messages"][-1]
    assert (last["role"], last["content"]) == ("user", "run pytest before you stop")
    assert [entry["tool"] for entry in tool_log(workspace)] == ["Write", "Bash"]
    seen = [json.loads(line) for line in (workspace / "stop_seen.jsonl").read_text().splitlines()]
    assert seen == [
        {"active": False, "ran_tests": False, "last": "written", "transcript_last": "written"},
        {"active": True, "ran_tests": True, "last": "tests pass", "transcript_last": "tests pass"},
    ]
    [transcript] = (workspace / ".pod" / "transcripts").iterdir()
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert {line["sessionId"] for line in lines} == {transcript.stem}
    assert lines[0]["message"] == {"role": "user", "content": "go"}


def test_a_plugin_hook_finds_its_scripts_through_claude_plugin_root(
    server: ReplayServer, workspace: Path, tmp_path: Path
) -> None:
    plugin = tmp_path / "my-plugin"
    (plugin / "hooks").mkdir(parents=True)
    (plugin / "scripts").mkdir()
    (plugin / "scripts" / "guard.py").write_text(
        "import json, os, sys\n"
        "data = json.load(sys.stdin)\n"
        "if 'curl' in data['tool_input']['command']:\n"
        "    sys.stderr.write('no network from ' + os.environ['CLAUDE_PLUGIN_ROOT'])\n"
        "    sys.exit(2)\n"
    )
    guard = "${CLAUDE_PLUGIN_ROOT}/scripts/guard.py"  # as plugins write it
    (plugin / "hooks" / "hooks.json").write_text(
        json.dumps(
            {
                "description": "network guard",
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [command(f"{sys.executable} {guard}")],
                        }
                    ]
                },
            }
        )
    )
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "curl example.com"}),)))
    server.reply_json(chat_reply(text="ok"))
    status, _, err = run(server, workspace, f"--claude-plugin={plugin}")
    assert status == 0, err
    assert f"no network from {plugin.resolve()}" in tool_messages(server, 1)["c1"]
    assert tool_log(workspace) == []


@pytest.mark.parametrize(
    ("hook", "problem"),
    [
        pytest.param(
            f"{sys.executable} -c 'print(\"{{not json\")'",
            "printed an invalid Claude Code answer",
            id="invalid-json",
        ),
        pytest.param(
            "no-such-interpreter check.py",
            "exited with status 127; stderr: ",
            id="missing-interpreter",
        ),
        pytest.param(
            "echo 'policy service down' >&2; exit 1",
            "exited with status 1; stderr: policy service down",
            id="exit-1",
        ),
    ],
)
def test_a_failing_guard_fails_closed_in_one_line_naming_the_hook(
    server: ReplayServer, workspace: Path, hook: str, problem: str
) -> None:
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [command(hook)]}]}
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    status, _, err = run_settings(server, workspace, hooks)
    assert status != 0
    assert tool_log(workspace) == []
    [line] = [line for line in err.splitlines() if problem in line]
    assert hook in line  # the hook's command
    if "127" in problem:
        assert line.endswith("no-such-interpreter: command not found")
    assert "Traceback" not in err
    assert ".py:" not in line.replace("check.py", "")  # no source location of pod's


def test_a_failing_observe_only_hook_warns_in_one_line_and_the_run_goes_on(
    server: ReplayServer, workspace: Path
) -> None:
    hooks = {
        "PostToolUse": [{"hooks": [command("echo 'formatter crashed' >&2; exit 3")]}],
        "Stop": [{"hooks": [{"type": "command", "command": "sleep 5", "timeout": 0.5}]}],
    }
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(text="done"))
    status, out, err = run(
        server, workspace, f"--claude-settings={settings_file(workspace, hooks)}"
    )
    assert status == 0, err
    assert out.strip() == "done"
    assert tool_messages(server, 1)["c1"] == "ran: ls"
    [crash] = [line for line in err.splitlines() if "formatter crashed" in line]
    assert "exited with status 3" in crash
    [slow] = [line for line in err.splitlines() if "timed out after 0.5s" in line]
    assert "sleep 5" in slow


def test_the_session_id_and_transcript_survive_a_resume(
    server: ReplayServer, workspace: Path
) -> None:
    ask = script(
        workspace,
        "ask.py",
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "open(data['cwd'] + '/sessions.txt', 'a').write(data['session_id'] + ' '"
        " + data['transcript_path'] + '\\n')\n"
        "print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'ask',"
        " 'permissionDecisionReason': 'a human looks at every command'}}))\n",
    )
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [command(f"{sys.executable} {ask}")]}]}
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    status, _, err = run_settings(server, workspace, hooks)
    assert status == 5, err
    assert "a human looks at every command" in err
    # Approved; the model's next call is put to the hook again, in the resumed process.
    server.reply_json(chat_reply(calls=(("c2", "Bash", {"command": "pwd"}),)))
    again = pod_command(
        "resume", str(workspace / saved_path(err)), "--api-key=k", "--approve=c1", cwd=workspace
    )
    assert again.returncode == 5, again.stderr
    assert tool_log(workspace) == [{"tool": "Bash", "command": "ls"}]
    sessions = (workspace / "sessions.txt").read_text().splitlines()
    assert len(sessions) == 2
    assert len(set(sessions)) == 1  # one session, one transcript, across the resume
    transcript = Path(sessions[0].split(" ", 1)[1])
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    # Written once each, before and after the resume: the prompt, the call, its result, the
    # next call (the one the hook was asked about).
    assert [line["type"] for line in lines] == ["user", "assistant", "user", "assistant"]
    assert lines[3]["message"]["content"][0]["input"] == {"command": "pwd"}
    assert [line["parentUuid"] for line in lines[1:]] == [line["uuid"] for line in lines[:-1]]


def test_session_start_context_reaches_the_model_and_notification_and_session_end_run(
    server: ReplayServer, workspace: Path
) -> None:
    record = script(
        workspace,
        "record.py",
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "open(data['cwd'] + '/session_events.jsonl', 'a').write(json.dumps(data) + '\\n')\n"
        "if data['hook_event_name'] == 'SessionStart':\n"
        "    print('Project rule: answer in French.')\n",
    )
    ask = {
        "type": "command",
        "command": """echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'""",
    }
    hooks = {
        "SessionStart": [{"matcher": "startup", "hooks": [command(f"{sys.executable} {record}")]}],
        "Notification": [{"hooks": [command(f"{sys.executable} {record}")]}],
        "SessionEnd": [{"hooks": [command(f"{sys.executable} {record}")]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [ask]}],
    }
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    status, _, err = run_settings(server, workspace, hooks)
    assert status == 5, err  # paused: the PreToolUse hook asks for a human
    assert "these events will not run" not in err
    first = server.requests[0].body["messages"]
    assert any("Project rule: answer in French." in str(m["content"]) for m in first)
    seen = [
        json.loads(line) for line in (workspace / "session_events.jsonl").read_text().splitlines()
    ]
    assert [entry["hook_event_name"] for entry in seen] == [
        "SessionStart",
        "Notification",
        "SessionEnd",
    ]
    assert seen[0]["source"] == "startup"
    assert seen[1]["notification_type"] == "permission_prompt"
    assert seen[2]["reason"] == "other"
    assert len({entry["session_id"] for entry in seen}) == 1


def test_a_permission_request_hook_answers_the_approval_pause(
    server: ReplayServer, workspace: Path
) -> None:
    ask = {
        "type": "command",
        "command": """echo '{"hookSpecificOutput": {"permissionDecision": "ask"}}'""",
    }
    approver = script(
        workspace,
        "approver.py",
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "command = data['tool_input']['command']\n"
        "behavior = 'deny' if command.startswith('rm') else 'allow'\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PermissionRequest',"
        " 'decision': {'behavior': behavior, 'message': 'no deleting'}}}))\n",
    )
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [ask]}],
        "PermissionRequest": [
            {"matcher": "Bash", "hooks": [command(f"{sys.executable} {approver}")]}
        ],
    }
    server.reply_json(
        chat_reply(
            calls=(("c_ls", "Bash", {"command": "ls"}), ("c_rm", "Bash", {"command": "rm x"}))
        )
    )
    server.reply_json(chat_reply(text="done"))
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err  # nobody was asked: the hook answered the pause
    assert out.strip() == "done"
    assert tool_log(workspace) == [{"tool": "Bash", "command": "ls"}]
    seen = tool_messages(server, 1)
    assert seen["c_ls"] == "ran: ls"
    assert "no deleting" in seen["c_rm"]


class _PolicyServer(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append({"path": self.path, "headers": dict(self.headers), "body": body})
        if self.path == "/down":
            answer, status = b"policy store unavailable", 503
        elif body["hook_event_name"] == "PreToolUse" and "rm " in body["tool_input"]["command"]:
            decision = {"permissionDecision": "deny", "permissionDecisionReason": "rm refused"}
            answer, status = json.dumps({"hookSpecificOutput": decision}).encode(), 200
        elif body["hook_event_name"] == "PostToolUse":
            context = {"additionalContext": "audited " + body["tool_use_id"]}
            answer, status = json.dumps({"hookSpecificOutput": context}).encode(), 200
        else:
            answer, status = b"", 200
        self.send_response(status)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def policy_server() -> Iterator[str]:
    _PolicyServer.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PolicyServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_http_hooks_post_the_event_and_answer_as_scripts_do(
    server: ReplayServer,
    workspace: Path,
    policy_server: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOOK_TOKEN", "t0ken")
    monkeypatch.setenv("SECRET_VAR", "must-not-leak")
    http_hook = {
        "type": "http",
        "url": f"{policy_server}/check",
        "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${SECRET_VAR}"},
        "allowedEnvVars": ["HOOK_TOKEN"],
    }
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [http_hook]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [http_hook]}],
    }
    server.reply_json(
        chat_reply(
            calls=(("c_rm", "Bash", {"command": "rm -r x"}), ("c_ls", "Bash", {"command": "ls"}))
        )
    )
    server.reply_json(chat_reply(text="done"))
    status, _, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    seen = tool_messages(server, 1)
    assert "rm refused" in seen["c_rm"]
    assert seen["c_ls"] == "ran: ls\n\n[hook feedback] audited c_ls"
    assert tool_log(workspace) == [{"tool": "Bash", "command": "ls"}]
    [header] = {entry["headers"]["Authorization"] for entry in _PolicyServer.seen}
    assert header == "Bearer t0ken"
    assert {entry["headers"]["X-Other"] for entry in _PolicyServer.seen} == {""}
    assert [entry["body"]["hook_event_name"] for entry in _PolicyServer.seen] == [
        "PreToolUse",
        "PreToolUse",
        "PostToolUse",
    ]


@pytest.mark.parametrize("where", ["/down", "unreachable"])
def test_a_failing_http_guard_fails_closed(
    server: ReplayServer, workspace: Path, policy_server: str, where: str
) -> None:
    url = f"{policy_server}/down" if where == "/down" else "http://127.0.0.1:9/"
    hooks = {"PreToolUse": [{"hooks": [{"type": "http", "url": url}]}]}
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    status, _, err = run_settings(server, workspace, hooks)
    assert status != 0
    assert tool_log(workspace) == []
    problem = (
        "answered HTTP 503; stderr: policy store unavailable"
        if where == "/down"
        else "could not be reached"
    )
    [line] = [line for line in err.splitlines() if problem in line]
    assert f"POST {url}" in line


# Python, exec form: the arguments arrive as written, one argv element each.
ARGV_GUARD = """
import json, sys
data = json.load(sys.stdin)
with open(data["cwd"] + "/argv_seen.jsonl", "a") as seen:
    seen.write(json.dumps(sys.argv) + "\\n")
banned = sys.argv[1]
if banned in data["tool_input"]["command"]:
    sys.stderr.write("refused by an exec-form hook: " + banned)
    sys.exit(2)
"""


def test_the_exec_form_runs_the_program_with_its_args_and_no_shell(
    server: ReplayServer, workspace: Path
) -> None:
    script(workspace, "argv_guard.py", ARGV_GUARD)
    # Shell metacharacters in an argument: a shell would run `touch`, exec form does not.
    verbatim = "curl; touch pwned $(touch pwned2) 'q'"
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": sys.executable,
                        "args": ["${CLAUDE_PROJECT_DIR}/argv_guard.py", "curl", verbatim],
                    }
                ],
            }
        ]
    }
    server.reply_json(
        chat_reply(
            calls=(
                ("c_curl", "Bash", {"command": "curl example.com"}),
                ("c_ls", "Bash", {"command": "ls"}),
            )
        )
    )
    server.reply_json(chat_reply(text="done"))
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    assert out.strip() == "done"
    seen = tool_messages(server, 1)
    assert "refused by an exec-form hook: curl" in seen["c_curl"]
    assert seen["c_ls"] == "ran: ls"
    assert tool_log(workspace) == [{"tool": "Bash", "command": "ls"}]
    argv = [json.loads(line) for line in (workspace / "argv_seen.jsonl").read_text().splitlines()]
    assert argv == [[str(workspace / "argv_guard.py"), "curl", verbatim]] * 2
    assert not (workspace / "pwned").exists()
    assert not (workspace / "pwned2").exists()


def test_an_exec_form_hook_whose_program_is_missing_fails_closed_naming_it(
    server: ReplayServer, workspace: Path
) -> None:
    hooks = {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "no-such-program", "args": ["-x"]}],
            }
        ]
    }
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    status, _, err = run_settings(server, workspace, hooks)
    assert status != 0
    assert tool_log(workspace) == []
    [line] = [line for line in err.splitlines() if "no-such-program -x" in line]
    assert "could not start" in line
    assert "Traceback" not in err


def prompt_hook(prompt: str) -> dict[str, Any]:
    return {"type": "prompt", "prompt": prompt}


def test_a_prompt_hook_asks_the_pods_own_model_and_its_answer_decides(
    server: ReplayServer, workspace: Path
) -> None:
    hooks = {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [prompt_hook("Refuse network access. $ARGUMENTS")]}
        ]
    }
    server.reply_json(chat_reply(calls=(("c_curl", "Bash", {"command": "curl example.com"}),)))
    server.reply_json(chat_reply(text='{"ok": false, "reason": "no network access"}'))  # hook
    server.reply_json(chat_reply(calls=(("c_ls", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(text='```json\n{"ok": true}\n```'))  # hook, fenced
    server.reply_json(chat_reply(text="done"))
    status, out, err = run_settings(server, workspace, hooks)
    assert status == 0, err
    assert out.strip() == "done"
    # The hook's own request: Claude Code's contract, the event's JSON in the prompt.
    asked = server.requests[1].body
    assert "tools" not in asked or not asked["tools"]
    system, question = asked["messages"]
    assert system["role"] == "system"
    assert '{"ok": false, "reason":' in system["content"]
    assert question["role"] == "user"
    assert question["content"].startswith("Refuse network access. {")
    event = json.loads(question["content"].removeprefix("Refuse network access. "))
    assert event["hook_event_name"] == "PreToolUse"
    assert (event["tool_name"], event["tool_input"]) == ("Bash", {"command": "curl example.com"})
    # ok: false skipped the call with the reason; ok: true let the next one run.
    assert "no network access" in tool_messages(server, 2)["c_curl"]
    assert tool_messages(server, 4)["c_ls"] == "ran: ls"
    assert tool_log(workspace) == [{"tool": "Bash", "command": "ls"}]
    # The hook's question never entered the run's history.
    assert all(
        "Refuse network access" not in str(m.get("content"))
        for m in server.requests[4].body["messages"]
    )


def test_a_prompt_guard_whose_answer_is_not_ok_or_reason_fails_closed(
    server: ReplayServer, workspace: Path
) -> None:
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [prompt_hook("Is this safe?")]}]}
    server.reply_json(chat_reply(calls=(("c1", "Bash", {"command": "ls"}),)))
    server.reply_json(chat_reply(text="Looks fine to me."))  # the hook's answer: no JSON
    status, _, err = run_settings(server, workspace, hooks)
    assert status != 0
    assert tool_log(workspace) == []
    [line] = [line for line in err.splitlines() if "Looks fine to me." in line]
    assert "prompt 'Is this safe?'" in line
    assert '{"ok": true}' in line
    assert "Traceback" not in err
