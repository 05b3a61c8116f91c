"""pod_mypy's entry point and the library names it depends on."""

from __future__ import annotations

import ast
import importlib
import os
import re
import shutil
import subprocess
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
    keys = [_fingerprint()]

    nested.write_text("B = 22\n")
    keys.append(_fingerprint())
    os.utime(top, ns=(0, 0))  # same size, another time: an edit mypy's cache cannot see
    keys.append(_fingerprint())
    (tmp_path / "notes.txt").write_text("still not code\n")
    keys.append(_fingerprint())

    assert len(set(keys[:3])) == 3
    assert keys[3] == keys[2]


def _fingerprint() -> str:
    fingerprint, _ = plugin_module._scan_sources()  # pyright: ignore[reportPrivateUsage]
    return fingerprint


def test_compiled_modules_left_in_a_checkout_stop_mypy_with_the_fix(tmp_path: Path) -> None:
    # A checkout's layout (the package beside compile_plugin.py) with a compiled module left by
    # a wheel built in place: Python would load it instead of the edited source.
    source = Path(plugin_module.__file__).parent
    checkout = tmp_path / "mypy_plugin"
    shutil.copytree(source, checkout / "pod_mypy", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(source.parent / "compile_plugin.py", checkout / "compile_plugin.py")
    left = checkout / "pod_mypy" / "_features" / "boundary.cpython-311-x86_64-linux-gnu.so"
    left.write_bytes(b"")
    entry = "import pod_mypy, mypy.version; pod_mypy.plugin(mypy.version.__version__)"

    def run() -> subprocess.CompletedProcess[str]:
        environment = {**os.environ, "PYTHONPATH": str(checkout)}
        command = [sys.executable, "-c", entry]
        return subprocess.run(command, env=environment, capture_output=True, text=True, check=False)

    refused = run()
    assert refused.returncode == 1
    assert refused.stderr.startswith(
        f"pod_mypy: compiled modules in the source checkout shadow its sources ({left}, 1 in all)"
    )
    assert "mypy_plugin/compile_plugin.py builds the compiled plugin from a copy" in refused.stderr

    left.unlink()  # the fix the message names
    assert run().returncode == 0
    # An installed wheel holds compiled modules but no compile_plugin.py beside the package.
    left.write_bytes(b"")
    (checkout / "compile_plugin.py").unlink()
    assert run().returncode == 0


def test_no_compiled_module_subclasses_a_class_of_mypy() -> None:
    # mypyc crashes (a segmentation fault) constructing a compiled subclass of a class
    # compiled in another build: a TypeQuery subclass did, on the first annotation it met.
    # plugin.py is the one module left interpreted, so it alone may subclass Plugin.
    package = Path(importlib.import_module("pod_mypy").__file__ or "").parent
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text())
        from_mypy = {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mypy")
            for alias in node.names
        }
        found += [
            f"{path.relative_to(package)} {node.name}({base.id})"
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            for base in node.bases
            if isinstance(base, ast.Name) and base.id in from_mypy
        ]
    assert found == ["plugin.py PodPlugin(Plugin)"]
