"""The plugin's own settings, read from the mypy configuration file.

```toml
[tool.pod_mypy]
capabilities = ["acme.audit.record", "httpx.AsyncClient"]  # names hook code may use
host_modules = ["app.main", "tests.*"]     # host-written: hooks there are trusted
hook_modules = ["acme.policies.*"]         # checked as hook code though they declare no hook
trusted_packages = ["acme_policies"]       # installed packages whose declared hooks are trusted
```

or, in ``mypy.ini``/``setup.cfg``: a ``[pod_mypy]`` section with comma- or line-separated
values. Every setting is part of each module's cache key (``PodPlugin.report_config_data``):
changing one re-checks every module, so a warm run and a cold one agree.
"""

from __future__ import annotations

import configparser
import fnmatch
import tomllib
from typing import Final, NamedTuple, cast, final

__all__ = ["Settings", "matches", "read_settings"]

_KEYS: Final = ("capabilities", "host_modules", "hook_modules", "trusted_packages")


@final
class Settings(NamedTuple):
    capabilities: frozenset[str] = frozenset()
    """Fully qualified names (a module, a class or a function) hook code may use."""
    host_modules: tuple[str, ...] = ()
    """Globs of host-written modules: their hooks are trusted; hook modules may not import them."""
    hook_modules: tuple[str, ...] = ()
    """Globs of modules checked as hook code whatever they declare (shared helpers)."""
    trusted_packages: frozenset[str] = frozenset()
    """Installed packages whose declared hooks are trusted as checked."""

    def cache_key(self) -> str:
        return ";".join(
            f"{key}={','.join(sorted(getattr(self, key)))}" for key in _KEYS if getattr(self, key)
        )


def matches(module: str, globs: tuple[str, ...]) -> bool:
    """Whether ``module`` matches one of ``globs`` (``pkg.*`` also matches ``pkg``)."""
    for glob in globs:
        if fnmatch.fnmatchcase(module, glob):
            return True
        if glob.endswith(".*") and module == glob[:-2]:
            return True
    return False


def read_settings(config_file: str | None) -> Settings:
    """The ``pod_mypy`` settings of the mypy configuration file, if any.

    Raises:
        SystemExit: a setting of the wrong shape (failing closed: a grant the plugin cannot
            read must not be read as no grant at all, nor a host module as a hook module).
    """
    if not config_file:
        return Settings()
    try:
        with open(config_file, "rb") as file:
            data = file.read()
    except OSError:
        return Settings()
    if b"pod_mypy" not in data:
        return Settings()
    try:
        if config_file.endswith(".toml"):
            values = _toml_values(tomllib.loads(data.decode()), config_file)
        else:
            values = _ini_values(data.decode(), config_file)
    except (ValueError, configparser.Error) as error:
        raise SystemExit(f"pod_mypy: cannot read {config_file}: {error}") from error
    return Settings(
        capabilities=frozenset(values.get("capabilities", ())),
        host_modules=tuple(values.get("host_modules", ())),
        hook_modules=tuple(values.get("hook_modules", ())),
        trusted_packages=frozenset(values.get("trusted_packages", ())),
    )


def _toml_values(document: dict[str, object], path: str) -> dict[str, list[str]]:
    tool = document.get("tool")
    section = cast(dict[str, object], tool).get("pod_mypy") if isinstance(tool, dict) else None
    if section is None:
        return {}
    if not isinstance(section, dict):
        raise ValueError("[tool.pod_mypy] must be a table")
    values: dict[str, list[str]] = {}
    for key, value in cast(dict[str, object], section).items():
        if key not in _KEYS:
            raise ValueError(f"unknown setting [tool.pod_mypy] {key} (known: {', '.join(_KEYS)})")
        items = cast(list[object], value) if isinstance(value, list) else None
        if items is None or not all(isinstance(item, str) for item in items):
            raise ValueError(f"[tool.pod_mypy] {key} must be a list of strings")
        values[key] = [cast(str, item).strip() for item in items if cast(str, item).strip()]
    return values


def _ini_values(text: str, path: str) -> dict[str, list[str]]:
    parser = configparser.ConfigParser()
    parser.read_string(text, source=path)
    if not parser.has_section("pod_mypy"):
        return {}
    values: dict[str, list[str]] = {}
    for key, raw in parser.items("pod_mypy"):
        if key not in _KEYS:
            raise ValueError(f"unknown setting [pod_mypy] {key} (known: {', '.join(_KEYS)})")
        values[key] = [name.strip() for name in raw.replace("\n", ",").split(",") if name.strip()]
    return values
