"""pod_mypy's settings (``[tool.pod_mypy]``, ``[pod_mypy]``) and whose code a module is."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from mypy.nodes import MypyFile, SymbolTable

from pod_mypy._config import Settings, matches, read_settings
from pod_mypy._modules import Modules


def _module(path: str) -> MypyFile:
    file = MypyFile([], [])
    file.path = path
    file.names = SymbolTable()
    return file


def test_every_setting_from_pyproject(tmp_path: Path) -> None:
    config = tmp_path / "pyproject.toml"
    config.write_text(
        "[tool.pod_mypy]\n"
        'capabilities = ["acme.audit.record"]\n'
        'host_modules = ["app.main", "tests.*"]\n'
        'hook_modules = ["acme.policies.*"]\n'
        'trusted_packages = ["acme_policies"]\n'
    )
    assert read_settings(str(config)) == Settings(
        capabilities=frozenset({"acme.audit.record"}),
        host_modules=("app.main", "tests.*"),
        hook_modules=("acme.policies.*",),
        trusted_packages=frozenset({"acme_policies"}),
    )


def test_every_setting_from_mypy_ini(tmp_path: Path) -> None:
    config = tmp_path / "mypy.ini"
    config.write_text(
        "[mypy]\nstrict = true\n\n[pod_mypy]\n"
        "capabilities = acme.audit.record,\n  httpx.AsyncClient\nhost_modules = app.main\n"
    )
    settings = read_settings(str(config))
    assert settings.capabilities == {"acme.audit.record", "httpx.AsyncClient"}
    assert settings.host_modules == ("app.main",)


def test_no_file_or_no_section_grants_nothing(tmp_path: Path) -> None:
    assert read_settings(None) == Settings()
    assert read_settings(str(tmp_path / "missing.ini")) == Settings()
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    assert read_settings(str(tmp_path / "pyproject.toml")) == Settings()


@pytest.mark.parametrize(
    "text",
    [
        "[tool.pod_mypy]\ncapabilities = 3\n",
        '[tool.pod_mypy]\nhost_module = ["app"]\n',  # a misspelt key
        "[tool.pod_mypy]\ncapabilities = [1]\n",
        "tool = 1\n[tool.pod_mypy\n",
    ],
)
def test_a_malformed_setting_stops_mypy_with_its_cause(tmp_path: Path, text: str) -> None:
    # Failing closed: a grant the plugin cannot read is neither a grant nor no grant.
    config = tmp_path / "pyproject.toml"
    config.write_text(text)
    with pytest.raises(SystemExit, match="pod_mypy: cannot read"):
        read_settings(str(config))


def test_settings_are_in_the_cache_key() -> None:
    assert Settings().cache_key() == ""
    assert Settings(host_modules=("a",)).cache_key() != Settings(hook_modules=("a",)).cache_key()


def test_globs_match_a_package_and_its_modules() -> None:
    assert matches("tests", ("tests.*",))
    assert matches("tests.unit.test_x", ("tests.*",))
    assert not matches("testsuite", ("tests.*",))


def test_installed_packages_stdlib_and_llm_pod_are_library_code() -> None:
    modules = {
        "acme.hooks": _module("/venv/lib/python3.11/site-packages/acme/hooks.py"),
        "app.hooks": _module("/work/app/hooks.py"),
    }
    answers = Modules(modules, Settings(host_modules=("app.main",)))
    assert answers.is_library("acme.hooks")
    assert answers.is_library("json")
    assert answers.is_library("pod.events")
    assert not answers.is_library("app.hooks")
    assert answers.is_host("app.main")
    assert answers.is_host("pod")
    assert not answers.is_hook_module("app.hooks")  # defines no hook
    assert not answers.is_hook_module("app.main")  # a host module never is one


def test_a_listed_module_is_a_hook_module_unless_it_is_a_host_module() -> None:
    modules = {"app.policy": _module("/work/app/policy.py")}
    answers = Modules(modules, Settings(hook_modules=("app.*",), host_modules=("app.main",)))
    assert answers.is_hook_module("app.policy")
    assert not answers.is_hook_module("app.main")


def test_the_taming_database_is_in_every_modules_cache_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an edited database must re-check every hook module: a warm cache would keep old verdicts
    from mypy.options import Options
    from mypy.plugin import ReportConfigContext

    from pod_mypy._database import database_path

    plugin = importlib.import_module("pod_mypy.plugin")  # the package's `plugin` is the entry

    copy = tmp_path / "taming.toml"
    copy.write_bytes(Path(database_path()).read_bytes())
    monkeypatch.setattr(plugin, "database_path", lambda: str(copy))
    context = ReportConfigContext("hooks", str(tmp_path / "hooks.py"), is_check=False)

    def key() -> str | None:
        return plugin.PodPlugin(Options()).report_config_data(context)

    before = key()
    assert key() == before
    copy.write_text(copy.read_text().replace('"builtins.str" =', '"builtins.str"  =', 1))
    assert key() != before
