"""Registrations hidden in a module the plugin gets no callback for are still reported."""

from __future__ import annotations

from pathlib import Path

from mypy import api

WORLD = """\
from pod import HookRegistry

registry = HookRegistry()
"""
ALIAS = """\
from world import registry

on = registry.on
"""


def test_an_alias_is_reported_in_a_build_without_a_single_registration(tmp_path: Path) -> None:
    # No module registers a hook, so no registration callback ever hands the plugin a type
    # checker: the error must reach mypy's error list all the same.
    (tmp_path / "world.py").write_text(WORLD)
    (tmp_path / "alias.py").write_text(ALIAS)
    (tmp_path / "mypy.ini").write_text("[mypy]\nstrict = true\nplugins = pod_mypy\n")

    stdout, _, status = api.run(
        [
            "--config-file",
            str(tmp_path / "mypy.ini"),
            "--cache-dir",
            str(tmp_path / ".cache"),
            str(tmp_path / "alias.py"),
            str(tmp_path / "world.py"),
        ]
    )

    assert status == 1, stdout
    assert 'alias.py:3: error: "registry.on" used as a value' in stdout
    assert stdout.rstrip().endswith("Found 1 error in 1 file (checked 2 source files)")
