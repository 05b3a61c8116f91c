"""The ``pod_mypy`` plugin class and its entry point: dispatch tables, nothing else.

mypy calls the registration callbacks (``registry.on``, the ``@registry.on``/``@hook``
decorators, ``Hook.__init_subclass__``) and the event constructor while it checks a module,
then ``get_additional_indirect_deps`` once the module is fully checked: that is when hook
bodies are walked, and the modules the answers depended on become indirect dependencies.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Final, final

from mypy.nodes import MypyFile, TypeInfo
from mypy.options import Options
from mypy.plugin import FunctionContext, MethodContext, Plugin, ReportConfigContext
from mypy.types import Type

from ._consts import (
    HOOK_BASE_INIT_SUBCLASS,
    HOOK_DECORATOR_CALL,
    HOOK_EVENT,
    PRIVILEGED,
    REGISTRY_DECORATOR_CALL,
    REGISTRY_ON,
    SUPPORTED_MYPY,
)
from ._features import boundary, immutability, registration
from ._hooks import Collector
from ._reach import Reach

__all__ = ["PodPlugin", "plugin"]

_FUNCTION_HOOKS: Final[Mapping[str, Callable[[FunctionContext], Type]]] = {
    HOOK_EVENT: immutability.on_event_declared,
}
_METHOD_HOOKS: Final[Mapping[str, Callable[[Collector, MethodContext], Type]]] = {
    REGISTRY_ON: registration.on_registration,
    REGISTRY_DECORATOR_CALL: registration.on_decorator_applied,
    HOOK_DECORATOR_CALL: registration.on_decorator_applied,
    HOOK_BASE_INIT_SUBCLASS: registration.on_class_defined,
}
_INIT_SUBCLASS: Final = ".__init_subclass__"

_SOURCE_HASH: Final = hashlib.sha256(
    b"".join(path.read_bytes() for path in sorted(Path(__file__).parent.rglob("*.py")))
).hexdigest()
"""Part of every module's cache entry: editing any plugin file invalidates the cache (mypy
itself only notices changes to the entry module)."""


def _is_privileged(info: TypeInfo) -> bool:
    return info.has_base(PRIVILEGED)


@final
class PodPlugin(Plugin):
    """Checks that hook code cannot reach the run's context (see ``docs/plugin.md``)."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self._collector = Collector()
        self._reach = Reach(_is_privileged)
        self._method_hooks = {
            name: partial(callback, self._collector) for name, callback in _METHOD_HOOKS.items()
        }
        # A Hook subclass whose nearest __init_subclass__ is a user class's.
        self._any_init_subclass = partial(registration.on_class_defined, self._collector)

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return _FUNCTION_HOOKS.get(fullname)

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        hook = self._method_hooks.get(fullname)
        if hook is None and fullname.endswith(_INIT_SUBCLASS) and "." in fullname[:-18]:
            return None if fullname.startswith("builtins.") else self._any_init_subclass
        return hook

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        hooks = self._collector.take(file.fullname)
        if hooks is None:
            return set()
        return boundary.check_module(hooks, self._reach) - {file.fullname}

    def report_config_data(self, ctx: ReportConfigContext) -> str | None:
        # The standard library never holds hook code: keep its cache across plugin changes.
        return None if "typeshed" in Path(ctx.path).parts else _SOURCE_HASH


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point: the plugin class, if this mypy is one the plugin supports.

    Raises:
        SystemExit: an unsupported mypy version (the plugin relies on mypy internals).
    """
    lowest, above = SUPPORTED_MYPY
    numbers = re.match(r"(\d+)\.(\d+)", version)
    parts = (int(numbers[1]), int(numbers[2])) if numbers else (0, 0)
    if not lowest <= parts < above:
        raise SystemExit(
            f"pod_mypy supports mypy >={lowest[0]}.{lowest[1]},<{above[0]}.{above[1]} "
            f"(it relies on mypy internals), but this is mypy {version}: "
            f'install a supported mypy, e.g. pip install "llm-pod[mypy]"'
        )
    return PodPlugin
