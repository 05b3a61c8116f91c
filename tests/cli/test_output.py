"""Where `pod run` prints: results on stdout, the trace and diagnostics on stderr, whole
lines when not a terminal, and --debug for hook authors."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from tests.cli.conftest import (
    FINAL_TEXT,
    PROMPT,
    ReplayServer,
    chat_reply,
    pod_command,
    queue_weather_session,
    run_arguments,
)


def test_long_trace_lines_are_not_wrapped_when_not_a_terminal(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    city = "Llanfairpwllgwyngyll" * 6
    server.reply_json(chat_reply(calls=(("call_1", "get_weather", {"city": city}),)))
    server.reply_json(chat_reply(text="done"))
    done = pod_command(
        "run", PROMPT, *run_arguments(server, project, "no_pause"), cwd=tmp_path, columns=60
    )
    [line] = [line for line in done.stderr.splitlines() if "PRE_TOOL_CALL" in line]
    assert city[:60] in line
    assert line.endswith("-> Continue")


def test_a_failing_hook_names_its_file_and_line_and_debug_shows_the_traceback(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    (project / "broken_hooks.py").write_text(
        textwrap.dedent(
            """
            from pod import Continue, HookRegistry, ToolCallSummary, events

            registry = HookRegistry()

            @registry.on(events.PRE_TOOL_CALL)
            def look_up(call: ToolCallSummary) -> Continue:
                limits = {"a": 1}
                return Continue() if limits["b"] else Continue()
            """
        )
    )
    options = [
        "--model=openai:m",
        f"--base-url={server.url}/v1",
        "--api-key=k",
        "--hooks=broken_hooks.py:registry",
        "--max-retries=0",
    ]
    server.reply_json(
        chat_reply(calls=(("call_1", "read_file", {"path": "x"}),)), x_request_id="req_abc123"
    )
    plain = pod_command("run", PROMPT, *options, cwd=project)
    assert plain.returncode == 1
    reason = (
        "aborted: hook broken_hooks.look_up on PRE_TOOL_CALL failed: raised KeyError: 'b' "
        "at broken_hooks.py:9"
    )
    assert reason in plain.stderr
    assert plain.stderr.count("KeyError") == 1  # the reason is printed once
    assert "Traceback" not in plain.stderr

    server.reply_json(
        chat_reply(calls=(("call_1", "read_file", {"path": "x"}),)), x_request_id="req_abc123"
    )
    debug = pod_command("run", PROMPT, *options, "--debug", cwd=project)
    assert debug.returncode == 1
    assert reason in debug.stderr
    assert "Traceback (most recent call last)" in debug.stderr
    assert re.search(r'File ".*broken_hooks.py", line 9, in look_up', debug.stderr)
    assert "request_id: req_abc123" in debug.stderr  # the provider's request id
    assert re.search(r"^\s*\d+\.\d{3}s\s+hooks\s+PRE_LLM_REQUEST", debug.stderr, re.MULTILINE)


def test_quiet_prints_only_the_answer(server: ReplayServer, project: Path, tmp_path: Path) -> None:
    queue_weather_session(server)
    done = pod_command(
        "run", PROMPT, *run_arguments(server, project, "no_pause"), "--quiet", cwd=tmp_path
    )
    assert done.returncode == 0
    assert done.stdout == FINAL_TEXT + "\n"
    assert done.stderr == ""


def test_a_run_that_cannot_be_saved_still_gives_its_answer_and_says_why(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    # --save into a file under a regular file cannot be written.
    blocker = tmp_path / "file"
    blocker.write_text("")
    queue_weather_session(server)
    done = pod_command(
        "run",
        PROMPT,
        *run_arguments(server, project, "no_pause"),
        f"--save={blocker / 'run.json'}",
        cwd=tmp_path,
    )
    assert done.stdout == FINAL_TEXT + "\n"  # the answer is not lost
    assert "Traceback" not in done.stderr
    [problem] = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert problem.startswith("error: could not save the run: ")
    assert done.returncode == 0
