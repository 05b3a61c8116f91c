"""`--hooks file.py:attr` behaves like importing a module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pod import events
from pod.cli._load import LoadError, load_hooks, load_tools


def test_a_hooks_file_with_dataclasses_postponed_annotations_and_a_sibling_import(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    registry = load_hooks([f"{project / 'approval_hooks.py'}:registry"])
    assert registry.hooks_for(events.PRE_TOOL_CALL) == ("approval_hooks.ask_first",)
    module = sys.modules["approval_hooks"]
    assert module.POLICY.tools == frozenset({"get_weather"})  # the @dataclass was built
    assert str(project) in sys.path  # its folder is importable: `from helpers import ...`
    [tool] = load_tools([f"{project / 'weather_tools.py'}:TOOLS"])
    assert tool.name == "get_weather"
    for name in ("approval_hooks", "helpers", "weather_tools"):
        del sys.modules[name]  # other tests load their own copies


def test_a_file_that_fails_to_import_is_a_load_error_and_leaves_no_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    broken = tmp_path / "broken_module_x.py"
    broken.write_text("import helpers_that_do_not_exist\n")
    with pytest.raises(LoadError) as raised:
        load_hooks([f"{broken}:registry"], trust_hooks=True)  # the import fails
    assert str(raised.value) == (
        f"cannot import '{broken}': ModuleNotFoundError: "
        "No module named 'helpers_that_do_not_exist'"
    )
    assert "broken_module_x" not in sys.modules
