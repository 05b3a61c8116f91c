"""Incremental correctness: on a warm cache, editing a module a hook depends on re-checks it.

The hook uses ``SESSION``, a ``Session`` holding an ``Engine``. Giving ``Engine`` a ``Worker``
leaves ``session.py`` and ``hooks.py`` untouched (and ``Session``'s interface unchanged), so
only the plugin's indirect dependencies make mypy re-check ``hooks.py``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

CONFIG = """\
[mypy]
plugins = pod_mypy
strict = true
"""
ENGINE = """\
class Engine:
    label: str = "engine"
"""
ENGINE_WITH_WORKER = """\
from llm_worker import ScriptedClient, Worker


class Engine:
    label: str = "engine"
    worker = Worker(ScriptedClient([]))
"""
SESSION = """\
from engine import Engine


class Session:
    def __init__(self) -> None:
        self.engine = Engine()


SESSION = Session()
"""
HOOKS = """\
from pod import Continue, HookRegistry, PreToolDecision, ToolCallSummary, events
from session import SESSION

registry = HookRegistry()


@registry.on(events.PRE_TOOL_CALL)
def audit(call: ToolCallSummary) -> PreToolDecision:
    print(SESSION, call.tool_name)
    return Continue()
"""
ERROR = (
    'hooks.py:9: error: expression of type "Session" reaches privileged type "Worker" '
    'via Session.engine -> Engine.worker (in hook "audit")  [hook-boundary]'
)


def _mypy(project: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "mypy.ini",
            "--cache-dir",
            ".cache",
            "--verbose",
            "hooks.py",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_warm_cache_rechecks_a_hook_when_a_class_it_reaches_changes(tmp_path: Path) -> None:
    (tmp_path / "mypy.ini").write_text(CONFIG)
    (tmp_path / "engine.py").write_text(ENGINE)
    (tmp_path / "session.py").write_text(SESSION)
    (tmp_path / "hooks.py").write_text(HOOKS)

    status, out, _ = _mypy(tmp_path)
    assert (status, out.strip()) == (0, "Success: no issues found in 1 source file")

    (tmp_path / "engine.py").write_text(ENGINE_WITH_WORKER)
    status, out, log = _mypy(tmp_path)
    assert "Metadata fresh for hooks:" in log  # a warm run: hooks.py itself is unchanged
    assert "Scheduling SCC singleton (hooks) as stale due to deps (engine)" in log
    assert (status, out.splitlines()[0]) == (1, ERROR)

    (tmp_path / "engine.py").write_text(ENGINE)
    status, out, _ = _mypy(tmp_path)
    assert (status, out.strip()) == (0, "Success: no issues found in 1 source file")


CONFIG_MODULE = """\
LIMIT = 3
"""
CONFIG_MODULE_DERIVED = """\
from llm_worker import ScriptedClient, Worker

WORKER = Worker(ScriptedClient([]))
LIMIT = WORKER.context.clear
"""
LIMIT_HOOKS = """\
from config import LIMIT
from pod import Continue, HookRegistry, PreToolDecision, ToolCallSummary, events

registry = HookRegistry()


@registry.on(events.PRE_TOOL_CALL)
def limit(call: ToolCallSummary) -> PreToolDecision:
    print(LIMIT)
    return Continue()
"""
LIMIT_ERROR = (
    'hooks.py:9: error: "LIMIT" of module "config" has type "Callable[[], None]", which could '
    "hold anything: hook code may use another module's values only when their type is deeply "
    'immutable or closed (in hook "limit")  [hook-boundary]'
)


def test_a_warm_cache_answers_as_a_cold_one_for_an_imported_value(tmp_path: Path) -> None:
    (tmp_path / "mypy.ini").write_text(CONFIG)
    (tmp_path / "config.py").write_text(CONFIG_MODULE)
    (tmp_path / "hooks.py").write_text(LIMIT_HOOKS)

    status, out, _ = _mypy(tmp_path)
    assert (status, out.strip()) == (0, "Success: no issues found in 1 source file")

    (tmp_path / "config.py").write_text(CONFIG_MODULE_DERIVED)
    status, out, log = _mypy(tmp_path)
    assert "Metadata fresh for hooks:" in log  # a warm run: hooks.py itself is unchanged
    assert (status, out.splitlines()[0]) == (1, LIMIT_ERROR)

    shutil.rmtree(tmp_path / ".cache")
    status, cold, _ = _mypy(tmp_path)
    assert (status, cold) == (1, out)
