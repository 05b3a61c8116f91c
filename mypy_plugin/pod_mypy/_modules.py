"""Whose code a module is: the library, a host module, a hook module, or other project code.

A **hook module** is a project module that defines, at its top level, a ``HookRegistry``, a
function declared with ``@hook(EVENT)`` or a ``Hook`` subclass, or one the configuration lists
in ``hook_modules``. The answer reads only the module's own symbol table (which mypy's cache
keeps) and the configuration: the module itself and every module importing it get the same
answer in a warm run and a cold one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Final, final

from mypy.build import default_data_dir
from mypy.nodes import (
    AssignmentStmt,
    CallExpr,
    Decorator,
    Expression,
    MypyFile,
    RefExpr,
    TypeInfo,
    Var,
)
from mypy.types import Instance, get_proper_type

from ._config import Settings, matches
from ._consts import DECLARED_HOOK_TYPES, HOOK_BASE, HOOK_DECORATOR, REGISTRY_CLASS
from ._database import prefixes

__all__ = ["HOST_PACKAGES", "POD_HOOK_MODULES", "Modules", "is_installed"]

HOST_PACKAGES: Final = frozenset({"llm_worker", "pod"})
"""llm-pod's own packages: the host's library."""
POD_HOOK_MODULES: Final = frozenset({"pod", "pod.events", "pod.hooks"})
"""The modules of ``pod``'s public hook API: hook modules may import them."""
_STDLIB: Final = frozenset(sys.stdlib_module_names) | {"builtins", "_typeshed"}
_THIRD_PARTY_TYPING: Final = frozenset({"typing_extensions", "mypy_extensions"})
_TYPESHED: Final = os.path.join(os.path.realpath(default_data_dir()), "typeshed") + os.sep
"""A module named like a standard one is the library's only if mypy read it from typeshed: a
project file named ``cgi.py`` or ``email/hooks.py`` is the project's (the answer is the file's
place, not its name)."""
_PACKAGE_FOLDERS: Final = frozenset({"site-packages", "dist-packages"})


def _top(module: str) -> str:
    return module.partition(".")[0]


def _under(file: MypyFile, roots: tuple[str, ...]) -> bool:
    return os.path.realpath(file.path).startswith(roots)


def is_installed(module: str, modules: Mapping[str, MypyFile]) -> bool:
    """A module of an installed third-party package (not llm-pod, not the project)."""
    file = modules.get(module)
    if file is None:
        return _top(module) in _THIRD_PARTY_TYPING
    return _under(file, (_TYPESHED,)) or not _PACKAGE_FOLDERS.isdisjoint(Path(file.path).parts)


@final
class Modules:
    """Answers about the modules of one build (each answer once per module)."""

    def __init__(self, modules: Mapping[str, MypyFile], settings: Settings) -> None:
        self._modules = modules
        self._settings = settings
        self._hook: dict[str, bool] = {}
        self._library: dict[str, bool] = {}
        self._defining: dict[str, str] = {}

    def is_library(self, module: str) -> bool:
        """The standard library, an installed package or llm-pod itself: code the host trusts
        as it trusts the interpreter (hook code may still use only what is tamed of it)."""
        known = self._library.get(module)
        if known is None:
            top = _top(module)
            file = self._modules.get(module)
            known = self._library[module] = (
                top in HOST_PACKAGES
                or (top in _STDLIB and (file is None or _under(file, (_TYPESHED,))))
                or self.is_installed(module)
            )
        return known

    def is_installed(self, module: str) -> bool:
        return is_installed(module, self._modules)

    def file(self, module: str) -> MypyFile | None:
        return self._modules.get(module)

    def is_host(self, module: str) -> bool:
        """llm-pod's own code, or a module the configuration lists in ``host_modules``."""
        return _top(module) in HOST_PACKAGES or matches(module, self._settings.host_modules)

    def is_trusted(self, module: str) -> bool:
        return _top(module) in self._settings.trusted_packages

    def is_hook_module(self, module: str) -> bool:
        known = self._hook.get(module)
        if known is None:
            known = self._hook[module] = self._decide(module)
        return known

    def _decide(self, module: str) -> bool:
        if self.is_host(module):
            return False
        if matches(module, self._settings.hook_modules):
            return True
        file = self._modules.get(module)
        if file is None:
            return False
        own = f"{module}."
        for symbol in file.names.values():
            node = symbol.node
            if node is None or not node.fullname.startswith(own):
                continue  # imported, not defined here
            if isinstance(node, TypeInfo):
                if node.fullname != HOOK_BASE and node.has_base(HOOK_BASE):
                    return True
                continue
            var = node.var if isinstance(node, Decorator) else node
            if isinstance(var, Var) and var.type is not None:
                proper = get_proper_type(var.type)
                if isinstance(proper, Instance) and (
                    proper.type.fullname in DECLARED_HOOK_TYPES
                    or proper.type.has_base(REGISTRY_CLASS)
                ):
                    return True
        return self._declares_while_checked(file)

    def _declares_while_checked(self, file: MypyFile) -> bool:
        """While mypy checks a module, a variable gets its type only when its assignment is
        checked: a ``[json]`` call above ``registry = HookRegistry()`` is asked about first.
        The module's statements (which a cached module no longer has, but then its variables
        are typed) say what its variables will be."""
        for statement in file.defs:
            value: Expression | None
            if isinstance(statement, AssignmentStmt):
                value = statement.rvalue
            elif isinstance(statement, Decorator):
                value = next(iter(statement.decorators), None)
            else:
                continue
            if (
                isinstance(value, CallExpr)
                and isinstance(value.callee, RefExpr)
                and value.callee.fullname in (REGISTRY_CLASS, HOOK_DECORATOR)
            ):
                return True
        return False

    def module_of(self, fullname: str) -> str | None:
        """The module in this build that defines ``fullname`` (its longest such prefix)."""
        known = self._defining.get(fullname)
        if known is None:
            known = next((name for name in prefixes(fullname) if name in self._modules), None)
            if known is not None:  # a module mypy adds later may answer a miss
                self._defining[fullname] = known
        return known
