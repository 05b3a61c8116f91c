"""The transcript Claude Code hooks read at ``transcript_path``: Claude Code's JSONL lines,
appended as the history grows, a boundary after a compaction, continued after a resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from llm_worker import Message, Summary, ToolCall, ToolResult
from pod.command._claude_transcript import ClaudeTranscript


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_transcript_grows_with_the_history_and_marks_a_compaction(tmp_path: Path) -> None:
    path = tmp_path / "t" / "s.jsonl"
    transcript = ClaudeTranscript(path, session_id="s", cwd=str(tmp_path))
    prompt = Message(role="user", text="list")
    call = ToolCall(call_id="c1", name="Bash", arguments='{"command": "ls"}')
    result = ToolResult(call_id="c1", name="Bash", content="a.py")
    transcript.update([prompt, call])
    transcript.update([prompt, call])  # nothing new: nothing written
    transcript.update([prompt, call, result])
    assert [line["message"] for line in lines(path)] == [
        {"role": "user", "content": "list"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "ls"}}
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "a.py", "is_error": False}
            ],
        },
    ]
    summary = Summary(text="earlier: listed files", replaced_items=3)
    answer = Message(role="assistant", text="done")
    transcript.update([summary, answer])
    written = lines(path)
    assert [line.get("subtype") for line in written[3:]] == ["compact_boundary", None, None]
    assert written[-1]["message"] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "done"}],
    }
    assert [line["parentUuid"] for line in written[1:]] == [line["uuid"] for line in written[:-1]]
    # A resumed run's transcript object carries on from the file, writing nothing twice.
    again = ClaudeTranscript(path, session_id="s", cwd=str(tmp_path))
    again.update([summary, answer, Message(role="user", text="next")])
    more = lines(path)
    assert len(more) == len(written) + 1
    assert more[-1]["parentUuid"] == written[-1]["uuid"]


def test_a_recovered_run_catches_up_with_the_file_before_writing(tmp_path: Path) -> None:
    """A recovered durable run rebuilds its history from its last checkpoint, which may be
    short of what the crashed process wrote: nothing is written until it is past the file,
    and a history that went otherwise (a model asked again) starts over after a boundary."""
    path = tmp_path / "s.jsonl"
    prompt = Message(role="user", text="go")
    call = ToolCall(call_id="c1", name="Bash", arguments='{"command": "ls"}')
    result = ToolResult(call_id="c1", name="Bash", content="a.py")
    ClaudeTranscript(path, session_id="s", cwd=str(tmp_path)).update([prompt, call, result])
    written = lines(path)

    recovered = ClaudeTranscript(path, session_id="s", cwd=str(tmp_path))
    recovered.update([prompt, call])  # short of the file: nothing new
    assert lines(path) == written
    answer = Message(role="assistant", text="done")
    recovered.update([prompt, call, result, answer])
    assert lines(path)[:3] == written
    assert [line["message"]["content"] for line in lines(path)[3:]] == [
        [{"type": "text", "text": "done"}]
    ]

    otherwise = ClaudeTranscript(path, session_id="s", cwd=str(tmp_path))
    other_call = ToolCall(call_id="c9", name="Bash", arguments='{"command": "pwd"}')
    otherwise.update([prompt, other_call])
    after = lines(path)[4:]
    assert [line.get("subtype") for line in after] == ["compact_boundary", None, None]
    assert after[2]["message"]["content"][0]["id"] == "c9"
