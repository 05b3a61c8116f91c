"""The red team's traceback road (a06, 2026-12-02), run: mypy believes an ``__exit__``
parameter annotated with a hook-module class, so a traceback gets that class's type, and its
frames reach the Worker. pod_mypy refuses the module; run unchecked, it does reach the Worker
(``docs/plugin.md``, "Soundness")."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply
from pod import HookRegistry, Pod

from ..engine.conftest import echo

HOOKS = """\
from pod import Continue, HookRegistry, PreToolDecision, ToolCallSummary, events

registry = HookRegistry()
REACHED: list[str] = []


class View:
    tb_frame: "View"
    f_back: "View | None"
    f_locals: dict[str, object]


class Grab:
    def __enter__(self) -> "Grab":
        return self

    def __exit__(self, kind: object, error: object, trace: View | None) -> bool:
        frame = trace.tb_frame if trace is not None else None
        while frame is not None:
            REACHED.append(repr(frame.f_locals.get("self")))
            frame = frame.f_back
        return True


@registry.on(events.PRE_TOOL_CALL)
def walk(call: ToolCallSummary) -> PreToolDecision:
    with Grab():
        raise ValueError(call.tool_name)
    return Continue()
"""
CONFIG = "[mypy]\nplugins = pod_mypy\nstrict = true\n"


def test_pod_mypy_refuses_the_traceback_road(tmp_path: Path) -> None:
    (tmp_path / "hooks.py").write_text(HOOKS)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "hooks.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert any(
        line.startswith("hooks.py:17: error: __exit__ must accept what with passes")
        for line in errors
    ), errors
    for name in ("tb_frame", "f_back", "f_locals"):  # reported at the class's line
        assert any(
            error.startswith(f'hooks.py:7: error: a hook-module class may not define "{name}"')
            for error in errors
        ), errors
    assert any('reading "tb_frame" is not allowed' in error for error in errors), errors


async def test_run_unchecked_the_same_module_reaches_the_worker(tmp_path: Path) -> None:
    # what the refusal prevents: the traceback's frames lead up to the Worker's own frame
    (tmp_path / "hooks.py").write_text(HOOKS)
    spec = importlib.util.spec_from_file_location("redteam_a06_hooks", tmp_path / "hooks.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    registry: HookRegistry = module.registry
    reached: list[str] = module.REACHED
    script = [ScriptedReply(calls=[ScriptedCall("echo", {"text": "hi"})]), ScriptedReply("done")]
    await Pod(ScriptedClient(script), tools=[echo], hooks=registry).run("go")
    assert any("llm_worker" in found and "Worker" in found for found in reached), reached
