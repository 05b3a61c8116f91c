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
        self._members: dict[tuple[TypeInfo, str], tuple[str, str, str] | None] = {}

    def forget(self) -> None:
        """Drop the answers given before more database entries resolved."""
        self.types.forget()
        self._members.clear()

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
        return module is not None and (module == here or self._hook_code(module))

    def _hook_code(self, module: str) -> bool:
        modules = self.modules
        if modules.is_trusted(module):
            return True
        return not modules.is_library(module) and modules.is_hook_module(module)

    def member_refusal(self, info: TypeInfo, name: str) -> tuple[str, str, str] | None:
        """Why reading ``name`` on an instance or the class ``info`` is refused, unless the
        class defining it is the reading module's own: (that class, what, full name).

        The class defining ``name`` along the MRO decides: tamed whole (public members),
        member by member, granted, or a hook module's. One answer per class and name a build.
        """
        key = (info, name)
        if key in self._members:
            return self._members[key]
        owner = next((base for base in info.mro if name in base.names), None)
        refusal: tuple[str, str, str] | None
        if owner is None:
            # Not along the MRO: a metaclass's (``Mapping.register``) or a __getattr__'s.
            refusal = (info.fullname, f'"{info.name}.{name}"', f"{info.fullname}.{name}")
        else:
            fullname = owner.fullname
            tamed = self.tamed
            allowed = (
                self.granted(f"{fullname}.{name}")
                or (fullname in tamed.whole and not name.startswith("_"))
                or (fullname, name) in tamed.members
                or self.granted(fullname)
            )
            refusal = (
                None if allowed else (fullname, f'"{owner.name}.{name}"', f"{fullname}.{name}")
            )
        if refusal is not None:
            module = self.modules.module_of(refusal[0])
            if module is not None and self._hook_code(module):
                refusal = None
        self._members[key] = refusal
        return refusal

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
