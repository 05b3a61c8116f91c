"""pod_mypy's entry point and the library names it depends on."""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path

import pytest
from mypy.plugin import Plugin

from pod_mypy import plugin
from pod_mypy._checks import FUNCTION_HOOKS, METHOD_HOOKS
from pod_mypy._consts import FUNCTION_HOOK_NAMES, LIBRARY_FULLNAMES, METHOD_HOOK_NAMES

plugin_module = sys.modules["pod_mypy.plugin"]  # the package exports the entry function


@pytest.mark.parametrize("fullname", LIBRARY_FULLNAMES)
def test_every_library_fullname_the_plugin_uses_exists(fullname: str) -> None:
    module_name, _, rest = fullname.partition(".")
    parts = rest.split(".")
    # the longest importable module prefix, then attributes
    while parts and _importable(f"{module_name}.{parts[0]}"):
        module_name = f"{module_name}.{parts.pop(0)}"
    value: object = importlib.import_module(module_name)
    for part in parts:
        value = getattr(value, part)
    assert value is not None


def test_the_plugin_asks_for_exactly_the_hooks_it_has() -> None:
    assert set(FUNCTION_HOOKS) == FUNCTION_HOOK_NAMES
    assert set(METHOD_HOOKS) == METHOD_HOOK_NAMES


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("version", ["2.4.0", "2.4.1", "2.4.1+dev.0123abc"])
def test_a_supported_mypy_gets_the_plugin(version: str) -> None:
    assert issubclass(plugin(version), Plugin)


@pytest.mark.parametrize("version", ["2.5.0", "2.3.9", "1.19.1", "3.0"])
def test_an_unsupported_mypy_is_refused_with_a_clear_message(version: str) -> None:
    expected = (
        r"^pod_mypy supports mypy >=2\.4,<2\.5 \(it relies on mypy internals\), "
        rf"but this is mypy {re.escape(version)}: install a supported mypy"
    )
    with pytest.raises(SystemExit, match=expected):
        plugin(version)


def test_editing_any_plugin_file_changes_the_cache_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy of the package layout: a module at the top and one in a subpackage.
    (tmp_path / "_features").mkdir()
    top, nested = tmp_path / "plugin.py", tmp_path / "_features" / "boundary.py"
    top.write_text("A = 1\n")
    nested.write_text("B = 1\n")
    (tmp_path / "notes.txt").write_text("not code\n")
    monkeypatch.setattr(plugin_module, "_PACKAGE", str(tmp_path))
    keys = [plugin_module._source_fingerprint()]  # pyright: ignore[reportPrivateUsage]

    nested.write_text("B = 22\n")
    keys.append(plugin_module._source_fingerprint())  # pyright: ignore[reportPrivateUsage]
    os.utime(top, ns=(0, 0))  # same size, another time: an edit mypy's cache cannot see
    keys.append(plugin_module._source_fingerprint())  # pyright: ignore[reportPrivateUsage]
    (tmp_path / "notes.txt").write_text("still not code\n")
    keys.append(plugin_module._source_fingerprint())  # pyright: ignore[reportPrivateUsage]

    assert len(set(keys[:3])) == 3
    assert keys[3] == keys[2]
