"""The checks a build runs: dispatch tables from mypy fullnames to the feature callbacks,
and the state one build shares (hooks found per module, the reach memo).

Imported only once mypy asks for a hook, so a warm run that re-checks nothing never pays
for it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Final, final

from mypy.nodes import MypyFile, TypeInfo
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import Type

from ._consts import (
    HOOK_BASE_INIT_SUBCLASS,
    HOOK_BOUNDARY,
    HOOK_DECORATOR_CALL,
    HOOK_EVENT,
    PRIVILEGED,
    REGISTRY_DECORATOR_CALL,
    REGISTRY_ON,
)
from ._features import boundary, immutability, open_registration, registration
from ._hooks import Collector
from ._origin import is_library
from ._reach import Reach
from ._report import record_finding
from ._scan import ModuleExpressions

__all__ = ["FUNCTION_HOOKS", "METHOD_HOOKS", "Checks"]

FUNCTION_HOOKS: Final[Mapping[str, Callable[[FunctionContext], Type]]] = {
    HOOK_EVENT: immutability.on_event_declared,
}
METHOD_HOOKS: Final[Mapping[str, Callable[[Collector, MethodContext], Type]]] = {
    REGISTRY_ON: registration.on_registration,
    REGISTRY_DECORATOR_CALL: registration.on_decorator_applied,
    HOOK_DECORATOR_CALL: registration.on_decorator_applied,
    HOOK_BASE_INIT_SUBCLASS: registration.on_class_defined,
}


def _is_privileged(info: TypeInfo) -> bool:
    return info.has_base(PRIVILEGED)


@final
class Checks:
    """Everything one build of the plugin checks with."""

    def __init__(self, trusted: frozenset[str] = frozenset()) -> None:
        self._collector = Collector(trusted)
        self._reach = Reach(_is_privileged)
        self._subclasses = boundary.ProjectSubclasses()
        self._library = boundary.LibraryAnswers()
        self._method_hooks = {
            name: partial(callback, self._collector) for name, callback in METHOD_HOOKS.items()
        }
        self.class_defined = partial(registration.on_class_defined, self._collector)
        """For a ``Hook`` subclass whose nearest ``__init_subclass__`` is a user class's."""

    def function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return FUNCTION_HOOKS.get(fullname)

    def method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return self._method_hooks.get(fullname)

    def module_checked(self, file: MypyFile, modules: dict[str, MypyFile]) -> set[str]:
        """Check the hook code of ``file``; return its extra indirect dependencies."""
        hooks = self._collector.take(file.fullname)
        scan = not is_library(file.fullname, modules) and open_registration.imports_pod(file)
        if hooks is None and not scan:
            return set()
        # One traversal of the module serves both checks.
        expressions = ModuleExpressions(file)
        if scan:
            self._report_open_registrations(file, expressions)
        if hooks is None:
            return set()
        return boundary.check_module(
            hooks, self._reach, self._subclasses, self._library, expressions
        ) - {file.fullname}

    def _report_open_registrations(self, file: MypyFile, expressions: ModuleExpressions) -> None:
        found = open_registration.open_registrations(file, expressions)
        checker = self._collector.any_checker
        if not found or checker is None:
            return
        errors = checker.errors
        errors.set_file(file.path, file.fullname, checker.options)
        for line, column, message in found:
            record_finding(file.path, line, message, HOOK_BOUNDARY)
            errors.report(line, column, message, code=HOOK_BOUNDARY)
