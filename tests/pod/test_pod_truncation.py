"""Truncation: long tool outputs are cut UTF-8-safely, with a marker; hooks see the cut."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult, tool, utf8_len
from pod import (
    Continue,
    Finished,
    HookRegistry,
    Pod,
    PodSettings,
    ToolResultSummary,
    events,
)
from pod.runtime._interceptors import truncate_output

MARKER = re.compile(r"\n\[output truncated: (\d+) of (\d+) bytes cut\]$")


def check_cut(original: str, cut: str, max_bytes: int) -> None:
    """The cut fits, keeps a prefix of the original and says truthfully how much it dropped."""
    found = MARKER.search(cut)
    assert found is not None, cut[-80:]
    kept = cut[: found.start()]
    assert original.startswith(kept)
    assert int(found.group(2)) == utf8_len(original)
    assert utf8_len(kept) + int(found.group(1)) == utf8_len(original)
    assert utf8_len(cut) <= max_bytes


def test_multibyte_text_is_cut_on_a_character_boundary() -> None:
    original = "é" * 300 + "🙂" * 100  # 600 + 400 bytes
    cut = truncate_output(original, 257)
    check_cut(original, cut, 257)
    found = MARKER.search(cut)
    assert found is not None
    kept = cut[: found.start()]
    assert kept == "é" * len(kept)  # no half character, no replacement character
    assert utf8_len(kept) % 2 == 0


def test_output_within_the_limit_is_left_alone() -> None:
    text = "ü" * 64  # 128 bytes
    assert truncate_output(text, 128) is text


def test_a_limit_too_small_for_the_marker_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^max_bytes must be at least 128, not 127$"):
        truncate_output("x" * 1000, 127)
    with pytest.raises(ValidationError):
        PodSettings(max_tool_output_bytes=64)


@given(text=st.text(), max_bytes=st.integers(min_value=128, max_value=600))
def test_truncation_never_grows_and_always_fits(text: str, max_bytes: int) -> None:
    cut = truncate_output(text, max_bytes)
    assert utf8_len(cut) <= utf8_len(text)
    if utf8_len(text) > max_bytes:
        check_cut(text, cut, max_bytes)
    else:
        assert cut == text


async def test_the_hook_sees_the_truncated_result_and_the_history_keeps_it() -> None:
    long_output = "日本語のテキスト" * 200  # 24 bytes a repeat: 4,800 bytes

    @tool
    def read(name: str) -> str:
        """Read a document."""
        return long_output

    @tool
    def fail() -> str:
        """Fail with a long message."""
        raise RuntimeError("ошибка " * 100)

    seen: list[ToolResultSummary] = []
    registry = HookRegistry()

    @registry.on(events.POST_TOOL_CALL)
    def observe(result: ToolResultSummary) -> Continue:
        seen.append(result)
        return Continue()

    client = ScriptedClient(
        [
            ScriptedReply(calls=[ScriptedCall("read", {"name": "a"}), ScriptedCall("fail")]),
            ScriptedReply(text="ok"),
        ]
    )
    limit = 300
    pod = Pod(
        client,
        tools=[read, fail],
        hooks=registry,
        settings=PodSettings(max_tool_output_bytes=limit),
    )
    assert isinstance(await pod.run("read a"), Finished)

    results = [item for item in pod.history if isinstance(item, ToolResult)]
    assert [r.is_error for r in results] == [False, True]  # is_error survives the cut
    for result, summary in zip(results, seen, strict=True):
        assert utf8_len(result.content) <= limit
        assert summary.output_length == utf8_len(result.content)
        assert summary.output_preview == result.content[: len(summary.output_preview)]
    check_cut(long_output, results[0].content, limit)
    # The model got the cut text too: the second request carries it.
    assert results[0] in client.requests[1]
