"""`make demo` (``pod demo``): the showcase trace shows each mechanism and the hooks deciding."""

from __future__ import annotations

import io

from rich.console import Console

from llm_worker import Finished
from pod.cli._demo import run_demo


def test_demo_traces_interceptors_and_hooks_and_ends_finished() -> None:
    out = io.StringIO()
    result = run_demo(Console(file=out, width=240, color_system=None))
    assert isinstance(result, Finished)
    lines = [" ".join(line.split()) for line in out.getvalue().splitlines()]
    text = "\n".join(lines)
    deny = 'hooks PRE_TOOL_CALL call_2 shell({"command": "rm -rf /work/build"}) -> Skip: deleting'
    assert any(line.startswith(deny) for line in lines)
    truncated = next(i for i, line in enumerate(lines) if line.startswith("interceptor truncation"))
    observed = next(i for i, line in enumerate(lines) if line.startswith("hooks POST_TOOL_CALL"))
    assert truncated < observed  # the hook saw the result after the interceptor cut it
    yielded = next(i for i, line in enumerate(lines) if "yield to the Pod" in line)
    compacted = next(i for i, line in enumerate(lines) if "by one summary" in line)
    after = lines[compacted + 1]
    assert yielded < compacted
    assert after.startswith("hooks PRE_LLM_REQUEST request 4: 5 items")
    assert "interceptor notification flushed 1 notification(s)" in text
    assert "[notification] CI: build 42 passed on main" in text
    asked = next(
        i for i, line in enumerate(lines) if "-> Pause: shell commands need a human" in line
    )
    assert lines[asked].startswith('hooks PRE_TOOL_CALL call_3 shell({"command": "ls /work/src"})')
    answered = lines.index("shell: approve, skip or abort? approve (scripted)")
    ran = next(i for i, line in enumerate(lines) if line.startswith("hooks POST_TOOL_CALL call_3"))
    assert asked < answered < ran  # approved by the scripted human, then the call ran
    assert lines[-1] == "Finished after turn 0"
