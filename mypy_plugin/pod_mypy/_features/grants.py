"""What one build lets hook modules name: the taming database, the capabilities, the
answers about modules, and the type rule."""

from __future__ import annotations

from collections.abc import Callable
from typing import final

from mypy.nodes import (
    TypeInfo,
)
from mypy.options import Options

from .._database import Tamed, prefixes
from .._modules import Modules
from .types import TypeRule

__all__ = ["Grants"]


@final
class Grants:
    """What one build allows hook modules to name: the database, the capabilities, the
    modules' answers, and the type rule."""

    def __init__(  # noqa: PLR0917 (one call site, in _checks)
        self,
        tamed: Tamed,
        modules: Modules,
        capabilities: frozenset[str],
        resolved_capabilities: frozenset[str],
        is_privileged: Callable[[TypeInfo], bool],
        options: Options,
    ) -> None:
        self.tamed = tamed
        self.modules = modules
        self._capabilities = capabilities | resolved_capabilities
        self._granted: dict[str, bool] = {}
        self.is_privileged = is_privileged
        self.options = options
        self.types = TypeRule(is_privileged, self.class_allowed, options)

    def granted(self, fullname: str) -> bool:
        """Whether a capability covers ``fullname`` (it or a name above it is granted)."""
        known = self._granted.get(fullname)
        if known is None:
            capabilities = self._capabilities
            known = self._granted[fullname] = any(
                name in capabilities for name in prefixes(fullname)
            )
        return known

    def grants_within(self, module: str) -> bool:
        """Whether some capability lies in ``module`` (so hook code may import it)."""
        prefix = f"{module}."
        return any(name == module or name.startswith(prefix) for name in self._capabilities)

    def own_code(self, fullname: str, here: str) -> bool:
        """A definition of this module or of another hook module (or a trusted package)."""
        module = self.modules.module_of(fullname)
        if module is None:
            return False
        if module == here:
            return True
        if self.modules.is_trusted(module):
            return True
        return not self.modules.is_library(module) and self.modules.is_hook_module(module)

    def class_allowed(self, info: TypeInfo) -> bool:
        fullname = info.fullname
        tamed = self.tamed
        if fullname in tamed.whole or fullname in tamed.types or self.granted(fullname):
            return True
        module = info.module_name
        if self.modules.is_trusted(module):
            return True
        return not self.modules.is_library(module) and self.modules.is_hook_module(module)

    def name_allowed(self, fullname: str, here: str) -> bool:
        return (
            fullname in self.tamed.names or self.granted(fullname) or self.own_code(fullname, here)
        )
