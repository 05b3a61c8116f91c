"""Which modules pod_mypy checks as hook code is decided by where their file is, not by their
name, and a stub cannot stand in for the code that runs (``docs/plugin.md``, "What voids it").
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CONFIG = "[mypy]\nplugins = pod_mypy\nstrict = true\n"
HOOKS = """\
import gc

from pod import Continue, HookRegistry, PreToolDecision, ToolCallSummary, events

registry = HookRegistry()


@registry.on(events.PRE_TOOL_CALL)
def audit(call: ToolCallSummary) -> PreToolDecision:
    print(len(gc.get_objects()))
    return Continue()
"""
STUB = """\
from pod import HookRegistry, PreToolDecision, ToolCallSummary

registry: HookRegistry

def audit(call: ToolCallSummary) -> PreToolDecision: ...
"""


def _mypy(project: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    (project / "mypy.ini").write_text(CONFIG)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental", *targets],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("path", ["cgi.py", "secrets.py", "email/hooks.py"])
def test_a_project_module_named_like_a_standard_one_is_hook_code(tmp_path: Path, path: str) -> None:
    # the standard library's names were once enough to be trusted as the library
    target = tmp_path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.parent != tmp_path:
        (target.parent / "__init__.py").write_text("")  # the module is email.hooks
    target.write_text(HOOKS)
    done = _mypy(tmp_path, path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f'{path}:1: error: module "gc" is not tamed' in done.stdout, done.stdout


def test_a_stub_beside_a_hook_module_is_refused(tmp_path: Path) -> None:
    # mypy reads hooks.pyi and never checks hooks.py, which is what the host imports
    (tmp_path / "hooks.py").write_text(HOOKS)
    (tmp_path / "hooks.pyi").write_text(STUB)
    (tmp_path / "host.py").write_text("import hooks\n\nprint(hooks.registry)\n")
    done = _mypy(tmp_path, ".")
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors == [
        'hooks.pyi:1: error: cannot verify hook module "hooks": mypy reads its stub '
        "(./hooks.pyi), not the code that runs; remove the .pyi (a hook module is checked "
        "from its .py)  [hook-boundary]"
    ], done.stdout + done.stderr
