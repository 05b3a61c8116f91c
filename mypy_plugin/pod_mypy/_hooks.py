"""The hook code found in each module while mypy checks it, waiting for the body walk.

Registration callbacks run in mypy's checker phase, before function bodies are checked
(mypy 2.x checks top levels first). They record each hook and keep the module's
``TypeChecker``; once the module is fully checked, the plugin takes the record back
(:meth:`Collector.take`) and walks the bodies against the checker's type map. State is per
module and dropped as soon as it is used, so nothing survives into another build.

Callbacks never report errors themselves: mypy runs them while it tries the items of an
overloaded function (``registry.on`` has three), and an error reported during such a trial
makes mypy reject that item. Errors are deferred (:meth:`ModuleHooks.defer`), de-duplicated,
and reported with the walk.
"""

from __future__ import annotations

from typing import NamedTuple, TypeAlias, final

from mypy.checker import TypeChecker
from mypy.errorcodes import ErrorCode
from mypy.nodes import Context, FuncItem, TypeInfo
from mypy.plugin import CheckerPluginInterface

from ._consts import HOOK_BOUNDARY, NEEDS_TYPE_CHECKER
from ._modules import HOST_PACKAGES
from ._report import HookEntry, fail, record_hook

__all__ = ["Collector", "HookNode", "HookSite", "ModuleHooks"]

HookNode: TypeAlias = FuncItem | TypeInfo
"""Hook code: a function or lambda, or a whole class."""


@final
class HookSite(NamedTuple):
    """One piece of hook code."""

    name: str
    """What messages call it: the function's or class's name, or ``<lambda>``."""
    node: HookNode
    module: str = ""
    """The module defining it, when it is not the registering module (checked there)."""
    line: int = 0
    """Where it is registered, when ``module`` is set."""

    @property
    def first_line(self) -> int:
        return self.node.defn.line if isinstance(self.node, TypeInfo) else self.node.line


@final
class ModuleHooks:
    """The hook code of one module and the checker that checked it."""

    __slots__ = (
        "_calls",
        "_entries",
        "checker",
        "errors",
        "is_host",
        "sites",
        "trusted",
    )

    def __init__(self, checker: TypeChecker, trusted: frozenset[str]) -> None:
        self.checker = checker
        self.trusted = trusted
        self.is_host = checker.tree.fullname.partition(".")[0] in HOST_PACKAGES
        """The module is llm-pod's own (the host's library)."""
        self._calls: dict[int, tuple[object, ...]] = {}
        self._entries: set[tuple[int, HookEntry]] = set()
        self.sites: dict[int, HookSite] = {}
        """By node identity: callbacks may run more than once for a call (overloads, lambdas)."""
        self.errors: dict[tuple[int, str], tuple[Context, ErrorCode]] = {}
        """Deferred errors, by context identity and message."""

    def add(self, site: HookSite) -> None:
        self.sites.setdefault(id(site.node), site)

    def repeated(self, context: Context, *inputs: object) -> bool:
        """Whether a callback already ran for the call at ``context`` with these very objects
        (compared by identity) as its inputs. mypy runs a method hook once per overload item it
        tries, mostly with the same argument types: what the first run found stands."""
        call = (context, *inputs)  # held, so no id here is reused while compared
        previous = self._calls.get(id(context))
        if previous is not None and len(previous) == len(call):
            for before, now in zip(previous, call, strict=True):
                if before is not now:
                    break
            else:
                return True
        self._calls[id(context)] = call
        return False

    def record(self, context: Context, entry: HookEntry) -> None:
        """Put a registration into the boundary report once, however often it is tried."""
        key = (id(context), entry)
        if key not in self._entries:
            self._entries.add(key)
            record_hook(entry)

    def defer(self, message: str, context: Context, code: ErrorCode) -> None:
        """Report ``message`` at ``context`` once the module is checked."""
        self.errors[(id(context), message)] = (context, code)

    def report_deferred(self) -> None:
        """Report the deferred errors, in line order."""
        ordered = sorted(self.errors.items(), key=lambda entry: entry[1][0].line)
        for (_, message), (context, code) in ordered:
            fail(self.checker, message, context, code)


@final
class Collector:
    """Hook code per module, from registration until the module's body walk."""

    def __init__(self, trusted: frozenset[str] = frozenset()) -> None:
        self._modules: dict[str, ModuleHooks] = {}
        self._last: ModuleHooks | None = None
        self.trusted = trusted
        """Installed packages whose declared hooks the user trusts (``trusted_packages``)."""

    def module(self, api: CheckerPluginInterface, context: Context) -> ModuleHooks | None:
        """The record of the module ``api`` is checking; ``None`` (and an error) if the
        caller is not mypy's own type checker, whose type map the walk needs."""
        if not isinstance(api, TypeChecker):
            api.fail(NEEDS_TYPE_CHECKER.format(api=type(api).__name__), context, code=HOOK_BOUNDARY)
            return None
        last = self._last
        if last is not None and last.checker is api:
            return last  # the module of the previous callback: the common case
        fullname = api.tree.fullname
        hooks = self._modules.get(fullname)
        if hooks is None or hooks.checker is not api:
            hooks = self._modules[fullname] = ModuleHooks(api, self.trusted)
        self._last = hooks
        return hooks

    def take(self, fullname: str) -> ModuleHooks | None:
        """Remove and return the record of module ``fullname``."""
        self._last = None
        return self._modules.pop(fullname, None)
