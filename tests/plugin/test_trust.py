"""pod_mypy's ``trusted_packages`` setting, and where a module's code comes from."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy.nodes import MypyFile

from pod_mypy._config import trusted_packages
from pod_mypy._origin import hook_may_use, is_installed, is_library


def _module(path: str) -> MypyFile:
    file = MypyFile([], [])
    file.path = path
    return file


def test_trusted_packages_from_pyproject(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.pod_mypy]\ntrusted_packages = ["acme_policies", "other"]\n')
    assert trusted_packages(str(config)) == {"acme_policies", "other"}


def test_trusted_packages_from_mypy_ini(tmp_path: Path) -> None:
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nstrict = true\n\n[pod_mypy]\ntrusted_packages = acme, other\n")
    assert trusted_packages(str(config)) == {"acme", "other"}


def test_an_ini_key_in_any_case_is_read(tmp_path: Path) -> None:
    # configparser folds keys to lower case: the plugin's look-ahead for the setting must too.
    config = tmp_path / "setup.cfg"
    config.write_text("[pod_mypy]\nTrusted_Packages = acme\n")
    assert trusted_packages(str(config)) == {"acme"}


def test_an_unreadable_config_trusts_nothing(tmp_path: Path) -> None:
    assert trusted_packages(str(tmp_path / "missing.ini")) == frozenset()
    (tmp_path / "bad.toml").write_bytes(b'[tool.pod_mypy]\ntrusted_packages = ["\xff"]\n')
    assert trusted_packages(str(tmp_path / "bad.toml")) == frozenset()


@pytest.mark.parametrize(
    "text", ["", "[tool.mypy]\nstrict = true\n", "[tool.pod_mypy]\ntrusted_packages = 3\n"]
)
def test_no_or_malformed_setting_trusts_nothing(tmp_path: Path, text: str) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text(text)
    assert trusted_packages(str(config)) == frozenset()
    assert trusted_packages(None) == frozenset()


def test_installed_packages_stdlib_and_llm_pod_are_library_code() -> None:
    modules = {
        "acme.hooks": _module("/venv/lib/python3.11/site-packages/acme/hooks.py"),
        "app.hooks": _module("/work/app/hooks.py"),
    }
    assert is_installed("acme.hooks", modules)
    assert is_library("acme.hooks", modules)
    assert is_library("json.decoder", modules)
    assert is_library("pod.policy._permissions", modules)
    assert not is_library("app.hooks", modules)


@pytest.mark.parametrize(
    ("fullname", "allowed"),
    [
        ("re.findall", True),
        ("_struct.unpack", True),  # struct's C accelerator
        ("_thread.allocate_lock", True),  # threading's
        ("asyncio.sleep", True),
        ("_asyncio.get_running_loop", False),
        ("asyncio.tasks.all_tasks", False),
        ("sys.modules", False),
        ("_pickle.loads", False),
        ("inspect.stack", False),
    ],
)
def test_the_standard_library_allow_list(fullname: str, allowed: bool) -> None:
    assert hook_may_use(fullname) is allowed
