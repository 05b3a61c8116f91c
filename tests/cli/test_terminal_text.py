"""What the terminal shows of hook and model text: escape sequences and control characters
are written out, never sent raw (``pod run``'s trace on stderr, as bytes)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

from pod.cli._output import RunOutput
from tests.cli.conftest import ReplayServer, chat_reply, pod_command

CLEAR_SCREEN = "\x1b[2J\x1b[31m"
SHOWN = "\\x1b[2J\\x1b[31m"


def _run(server: ReplayServer, folder: Path, *options: str, tool: str = "read_file") -> str:
    server.reply_json(chat_reply(calls=(("call_1", tool, {"path": "x"}),)))
    server.reply_json(chat_reply(text="done"))
    done = pod_command(
        "run",
        "go",
        "--model=openai:m",
        f"--base-url={server.url}/v1",
        "--api-key=k",
        "--max-retries=0",
        *options,
        cwd=folder,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def _raw_escape_free(stderr: str) -> None:
    assert "\x1b" not in stderr
    assert "\x07" not in stderr


def test_a_skip_reason_with_an_escape_sequence_is_shown_not_obeyed(
    server: ReplayServer, tmp_path: Path
) -> None:
    (tmp_path / "hooks.py").write_text(
        "from pod import HookRegistry, Skip, ToolCallSummary, events\n\n"
        "registry = HookRegistry()\n\n\n"
        "@registry.on(events.PRE_TOOL_CALL)\n"
        "def no(call: ToolCallSummary) -> Skip:\n"
        f"    return Skip(reason={'no' + CLEAR_SCREEN + 'red'!r})\n"
    )
    stderr = _run(server, tmp_path, "--hooks=hooks.py:registry")
    _raw_escape_free(stderr)
    assert f"-> Skip: no{SHOWN}red (by hooks.no)" in stderr


def test_a_tool_name_chosen_by_the_model_is_shown_not_obeyed(
    server: ReplayServer, tmp_path: Path
) -> None:
    stderr = _run(server, tmp_path, tool="read\x1b]0;pwned\x07_file")
    _raw_escape_free(stderr)
    assert "call_1 read\\x1b]0;pwned\\x07_file(" in stderr


def test_a_command_hooks_stderr_is_shown_not_obeyed(server: ReplayServer, tmp_path: Path) -> None:
    command = [sys.executable, "-c", f"import sys; sys.stderr.write({CLEAR_SCREEN!r}); exit(1)"]
    (tmp_path / "policy.toml").write_text(
        'default = "allow"\n\n'
        f'[[hook]]\nevent = "pre_tool_call"\ncommand = {json.dumps(command)}\non_error = "deny"\n'
    )
    stderr = _run(server, tmp_path, "--rules=policy.toml")
    _raw_escape_free(stderr)
    assert f"stderr: {SHOWN}" in stderr


def test_a_claude_code_scripts_exit_2_message_is_shown_not_obeyed(
    server: ReplayServer, tmp_path: Path
) -> None:
    script = tmp_path / "block.py"
    script.write_text(f"import sys\nsys.stderr.write({'blocked' + CLEAR_SCREEN!r})\nsys.exit(2)\n")
    hook = {"type": "command", "command": f"{sys.executable} {script}"}
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"hooks": [hook]}]}}))
    stderr = _run(server, tmp_path, f"--claude-settings={settings}")
    _raw_escape_free(stderr)
    assert f"-> Skip: blocked{SHOWN}" in stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_answer_is_written_out_on_a_terminal_and_byte_for_byte_into_a_pipe() -> None:
    answer = f"line one{CLEAR_SCREEN}\n\tline two"
    terminal, pipe = _Terminal(), io.StringIO()
    for stdout in (terminal, pipe):
        output = RunOutput(json_lines=False, quiet=False, debug=False, stdout=stdout)
        output.text(answer)
        output.answer(answer)
    assert terminal.getvalue() == f"line one{SHOWN}\n\tline two\n"
    assert pipe.getvalue() == answer + "\n"
