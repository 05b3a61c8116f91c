"""The checks a build runs: dispatch tables from mypy fullnames to the feature callbacks, and
what one build shares (the hooks found per module, the database resolved for the build).

Imported only once mypy asks for a hook, so a warm run that re-checks nothing never pays
for it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Mapping
from functools import partial
from typing import Final, final

from mypy.checker import TypeChecker
from mypy.lookup import lookup_fully_qualified
from mypy.nodes import Context, MypyFile, TypeInfo
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import Type

from ._config import Settings
from ._consts import (
    HOOK_BASE_INIT_SUBCLASS,
    HOOK_BOUNDARY,
    HOOK_DECORATOR_CALL,
    HOOK_EVENT,
    MISSING_LIBRARY_NAME,
    NOT_HOOK_MODULE,
    PRIVILEGED,
    REGISTRY_DECORATOR_CALL,
    REGISTRY_ON,
    STUB_HOOK_MODULE,
    UNCHECKED_MODULE,
    UNVERIFIABLE_IMPORTED,
)
from ._database import RawDatabase, Tamed, resolve
from ._features import immutability, open_registration, registration
from ._features.tamed import Grants, check_hook_module
from ._hooks import Collector, ModuleHooks
from ._modules import Modules
from ._report import HookEntry, HookModule, active, fail, record_finding, record_module

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


_REQUIRED: Final = ((PRIVILEGED, "the privilege marker"), (HOOK_EVENT, "the event catalogue"))


def _is_privileged(info: TypeInfo) -> bool:
    return info.has_base(PRIVILEGED)


@final
class Checks:
    """Everything one build of the plugin checks with."""

    def __init__(self, settings: Settings, database: RawDatabase) -> None:
        self._settings = settings
        self._database = database
        self._collector = Collector(settings.trusted_packages)
        self.function_hooks: Mapping[str, Callable[[FunctionContext], Type]] = FUNCTION_HOOKS
        self.method_hooks: Mapping[str, Callable[[MethodContext], Type]] = {
            name: partial(callback, self._collector) for name, callback in METHOD_HOOKS.items()
        }
        self.class_defined = partial(registration.on_class_defined, self._collector)
        """For a ``Hook`` subclass whose nearest ``__init_subclass__`` is a user class's."""
        self._build: tuple[int, Grants] | None = None
        self._missing_names: list[str] | None = None

    def grants(self, modules: dict[str, MypyFile], checker: TypeChecker) -> Grants:
        """The build's grants (one per module table: one per build)."""
        if self._build is None or self._build[0] != id(modules):
            capabilities = self._settings.capabilities
            resolved = {
                node.fullname
                for node in (resolve(name, modules) for name in capabilities)
                if node is not None
            }
            grants = Grants(
                Tamed(self._database, modules),
                Modules(modules, self._settings),
                capabilities,
                frozenset(resolved),
                _is_privileged,
                checker.options,
            )
            self._build = (id(modules), grants)
        grants = self._build[1]
        if grants.tamed.refresh(modules):
            grants.forget()  # answers given before these entries resolved
        return grants

    def is_hook_module(self, checker: TypeChecker) -> bool:
        modules = checker.modules
        if self._build is not None and self._build[0] == id(modules):
            answers = self._build[1].modules
        else:
            answers = Modules(modules, self._settings)
        name = checker.tree.fullname
        return not answers.is_library(name) and answers.is_hook_module(name)

    def module_checked(self, file: MypyFile, modules: dict[str, MypyFile]) -> set[str]:
        """Check ``file`` if it is a hook module; return its extra indirect dependencies."""
        name = file.fullname
        hooks = self._collector.take(name)
        probe = Modules(modules, self._settings) if self._build is None else self._build[1].modules
        if probe.is_library(name) or probe.is_host(name):
            if hooks is not None:
                self._record(hooks, "trusted", "host-written")
                hooks.report_deferred()
            return set()
        if not probe.is_hook_module(name):
            if hooks is not None:
                for site in hooks.sites.values():
                    message = NOT_HOOK_MODULE.format(name=site.name, module=name)
                    hooks.defer(message, Context(site.first_line, 0), HOOK_BOUNDARY)
                self._record(hooks, "unverifiable", "not in a hook module")
                hooks.report_deferred()
            self._report_open_registrations(file, modules, hooks)
            return set()
        checker = hooks.checker if hooks is not None else _find_checker(file)
        if checker is None:
            return set()
        grants = self.grants(modules, checker)
        missing = self._missing(modules)
        if missing:
            first = (
                min((site.first_line for site in hooks.sites.values()), default=1) if hooks else 1
            )
            for message in missing:
                fail(checker, message, Context(first, 0), HOOK_BOUNDARY)
            return set()
        if file.is_stub:  # a .pyi beside the hook module: its code is never checked
            message = STUB_HOOK_MODULE.format(module=name, path=file.path)
            scope = checker.tscope
            with scope.module_scope(name) if scope.module is None else contextlib.nullcontext():
                fail(checker, message, Context(1, 0), HOOK_BOUNDARY)
            record_module(HookModule(file.path, name, 1))
            if hooks is not None:
                self._record(hooks, "unverifiable", "its module is a stub")
            return set()
        if checker.options.ignore_errors:
            record_finding(file.path, 1, UNCHECKED_MODULE, HOOK_BOUNDARY)
            if hooks is not None:
                self._record(hooks, "unverifiable", UNCHECKED_MODULE)
            return set()
        types = checker._type_maps[0]  # pyright: ignore[reportPrivateUsage]
        reported = checker.errors.error_info_map.get(file.path, [])
        error_lines = frozenset(info.line for info in reported if info.severity == "error")
        findings = check_hook_module(file, types, grants, error_lines)
        for line, column, message, code in findings:
            fail(checker, message, Context(line, column), code)
        record_module(HookModule(file.path, name, len(findings)))
        if hooks is not None:
            self._foreign_sites(hooks, grants)
            status = "verified" if not findings else "unverifiable"
            why = "" if not findings else f"{len(findings)} finding(s) in its hook module"
            self._record(hooks, status, why)
            hooks.report_deferred()
        return set()

    def _missing(self, modules: dict[str, MypyFile]) -> list[str]:
        """Messages for the classes of ``llm_worker``/``pod`` the checks rely on and the build
        lacks (a mismatched install): without them no answer could be trusted."""
        if self._missing_names is None:
            catalogue = modules.get(HOOK_EVENT.rpartition(".")[0])
            if catalogue is None or not catalogue.names:
                return []  # pod not analysed yet (mypy analyses one import cycle at a time)
            self._missing_names = [
                MISSING_LIBRARY_NAME.format(fullname=fullname, what=what)
                for fullname, what in _REQUIRED
                if not isinstance(
                    getattr(lookup_fully_qualified(fullname, modules), "node", None), TypeInfo
                )
            ]
        return self._missing_names

    def _foreign_sites(self, hooks: ModuleHooks, grants: Grants) -> None:
        """Registered functions of other modules: checked there, if those are hook modules."""
        for key, site in list(hooks.sites.items()):
            if site.module and site.module != hooks.checker.tree.fullname:
                if not grants.modules.is_hook_module(site.module):
                    message = UNVERIFIABLE_IMPORTED.format(name=site.name, module=site.module)
                    hooks.defer(message, Context(site.line, 0), HOOK_BOUNDARY)
                del hooks.sites[key]

    def _record(self, hooks: ModuleHooks, status: str, why: str) -> None:
        if active() is None:
            return
        from ._defs import event_name, hook_input

        checker = hooks.checker
        for site in hooks.sites.values():
            event = event_name(hook_input(site.node, checker), checker.modules)
            entry = HookEntry(checker.path, site.first_line, event, site.name, status, why)  # type: ignore[arg-type]
            hooks.record(Context(site.first_line, 0), entry)

    def _report_open_registrations(
        self, file: MypyFile, modules: dict[str, MypyFile], hooks: ModuleHooks | None
    ) -> None:
        """A project module that is not a hook module may still hand a registry's ``on`` to
        code the plugin cannot see: that is refused wherever it happens."""
        if file.path.endswith(".pyi") or not file.defs:
            return
        found = open_registration.open_registrations(file)
        if not found:
            return
        checker = hooks.checker if hooks is not None else _find_checker(file)
        for line, column, message in found:
            if checker is not None:
                fail(checker, message, Context(line, column), HOOK_BOUNDARY)
            else:
                record_finding(file.path, line, message, HOOK_BOUNDARY)


def _find_checker(file: MypyFile) -> TypeChecker | None:
    """The type checker of ``file``, for a hook module no registration callback ran in (a
    module listed in ``hook_modules``): mypy's build state holding the tree holds it."""
    for holder in gc.get_referrers(file):
        checker = getattr(holder, "_type_checker", None)
        if isinstance(checker, TypeChecker) and checker.tree is file:
            return checker
    return None
