"""`make demo` (``pod demo``): the trace shows interceptors, then hooks, and a skipped call."""

from __future__ import annotations

import io

from rich.console import Console

from pod._demo import run_demo


def test_demo_trace_shows_the_order_and_a_hook_skipping_a_call() -> None:
    out = io.StringIO()
    run_demo(Console(file=out, width=200, color_system=None))
    lines = [line.strip() for line in out.getvalue().splitlines()]
    rewrite = lines.index("interceptor WorkspacePaths: rewrote path 'build' -> '/workspace/build'")
    audit = lines.index(
        'hook audit on PRE_TOOL_CALL: Continue (logged delete_path {"path": "/workspace/build"})'
    )
    skip = lines.index("hook no_deletes on PRE_TOOL_CALL: Skip (deleting is not allowed)")
    assert rewrite < audit < skip
    assert any(
        "tool call skipped: deleting is not allowed in this workspace" in line for line in lines
    )
    assert lines[-1].startswith("Finished after turn 0:")
