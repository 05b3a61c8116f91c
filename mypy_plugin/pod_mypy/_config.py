"""The plugin's own settings, read from the mypy configuration file.

``trusted_packages``: installed packages whose declared hooks (``@hook`` functions, ``Hook``
subclasses) are trusted as checked. mypy does not show errors in installed packages, so
without this a hook from one is unverifiable.

```toml
[tool.pod_mypy]
trusted_packages = ["acme_policies"]
```

or, in ``mypy.ini``/``setup.cfg``: a ``[pod_mypy]`` section with
``trusted_packages = acme_policies, other``.
"""

from __future__ import annotations

import configparser
import tomllib
from typing import Final, cast

__all__ = ["trusted_packages"]

_SETTING: Final = b"trusted_packages"


def trusted_packages(config_file: str | None) -> frozenset[str]:
    """The ``trusted_packages`` setting of the mypy configuration file, if any."""
    if not config_file:
        return frozenset()
    try:
        with open(config_file, "rb") as file:
            data = file.read()
        # mypy parsed this file already; parse it again only if the setting can be there
        # (ini keys are case-insensitive; a TOML key spelled with escapes is missed, which
        # trusts less, never more).
        if _SETTING not in data.lower():
            return frozenset()
        if config_file.endswith(".toml"):
            return _toml_names(tomllib.loads(data.decode()))
        parser = configparser.ConfigParser()
        parser.read_string(data.decode(), source=config_file)
        raw = parser.get("pod_mypy", "trusted_packages", fallback="")
    except (OSError, ValueError, configparser.Error):
        return frozenset()
    return frozenset(name.strip() for name in raw.replace("\n", ",").split(",") if name.strip())


def _toml_names(document: object) -> frozenset[str]:
    for key in ("tool", "pod_mypy", "trusted_packages"):
        if not isinstance(document, dict):
            return frozenset()
        document = cast(dict[str, object], document).get(key)
    if not isinstance(document, list):
        return frozenset()
    return frozenset(str(name) for name in cast(list[object], document))
