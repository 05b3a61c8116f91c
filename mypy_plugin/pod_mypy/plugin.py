"""The ``pod_mypy`` plugin class and its entry point.

The class answers mypy's ``get_*_hook`` questions from the name sets in ``_consts`` and hands
the callbacks over from :mod:`._checks` (imported on the first hook only). mypy calls the
registration callbacks (``registry.on``, the ``@registry.on``/``@hook``
decorators, ``Hook.__init_subclass__``) and the event constructor while it checks a module,
then ``get_additional_indirect_deps`` once the module is fully checked: that is when hook
bodies are walked, and the modules the answers depended on become indirect dependencies.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Final, final

import mypy
from mypy.checker import TypeChecker
from mypy.lookup import lookup_fully_qualified
from mypy.nodes import MypyFile, TypeAlias
from mypy.options import Options
from mypy.plugin import FunctionContext, MethodContext, Plugin, ReportConfigContext
from mypy.types import NoneType, Type, TypeAliasType, UnionType

from ._config import read_settings
from ._consts import FUNCTION_HOOK_NAMES, METHOD_HOOK_NAMES, SUPPORTED_MYPY
from ._database import database_path, file_digest, load

if TYPE_CHECKING:
    from ._checks import Checks

__all__ = ["PodPlugin", "plugin"]

_INIT_SUBCLASS: Final = ".__init_subclass__"
_PACKAGE: Final = os.path.dirname(__file__)


def _scan_sources() -> tuple[str, list[str]]:
    """A fingerprint of the plugin's files, and the compiled modules among them.

    The fingerprint hashes every ``.py`` file's path, size and modification time: an edit of
    any of them changes it (as mypy itself judges source files first by size and time).
    Reading the files would cost a warm run more than the rest of the plugin does;
    ``os.scandir`` lists a directory without a ``stat`` per entry, so only the ``.py`` files
    are stat'ed."""
    parts: list[str] = []
    compiled: list[str] = []
    pending = [_PACKAGE]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.name.endswith(".py"):
                    stat = entry.stat()
                    parts.append(f"{entry.path}:{stat.st_size}:{stat.st_mtime_ns}")
                elif entry.name.endswith((".so", ".pyd")):
                    compiled.append(entry.path)
                elif entry.name != "__pycache__" and entry.is_dir():
                    pending.append(entry.path)
    parts.sort()
    return hashlib.sha256("\n".join(parts).encode()).hexdigest(), sorted(compiled)


_SOURCE_HASH, _COMPILED = _scan_sources()
"""The hash is part of every module's cache entry: editing any plugin file invalidates the
cache (mypy itself only notices changes to the entry module)."""
_CHECKOUT_MARK: Final = os.path.join(os.path.dirname(_PACKAGE), "compile_plugin.py")
"""A file only a source checkout has beside the package."""


@final
class PodPlugin(Plugin):
    """Checks that hook code cannot reach the run's context (see ``docs/plugin.md``)."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        typesheds = [os.path.join(os.path.dirname(mypy.__file__), "typeshed", "")]
        if options.custom_typeshed_dir:
            typesheds.append(os.path.join(os.path.abspath(options.custom_typeshed_dir), ""))
        self._typesheds = tuple(typesheds)
        self._settings = read_settings(options.config_file)
        self._database_path = database_path()
        digest = file_digest(self._database_path)
        self._config_data = f"{_SOURCE_HASH} {digest} {self._settings.cache_key()}"
        self._json_names: set[str] | None = None
        """The ``[json]`` functions, once a call is checked (the database is parsed then)."""
        self._loaded: Checks | None = None
        # mypy asks for a hook at every call it checks: a miss costs one set lookup, a hit one
        # more. Until a hook is first used, these stand-ins load the checks (a warm run that
        # re-checks nothing never imports them).
        self._function_hooks: dict[str, Callable[[FunctionContext], Type]] = {
            name: partial(self._first_function_call, name) for name in FUNCTION_HOOK_NAMES
        }
        self._method_hooks: dict[str, Callable[[MethodContext], Type]] = {
            name: partial(self._first_method_call, name) for name in METHOD_HOOK_NAMES
        }

    def _checks(self) -> Checks:
        if self._loaded is None:
            from ._checks import Checks

            checks = self._loaded = Checks(self._settings, load(self._database_path))
            self._function_hooks = dict(checks.function_hooks)
            self._method_hooks = dict(checks.method_hooks)
        return self._loaded

    def _first_function_call(self, fullname: str, ctx: FunctionContext) -> Type:
        self._checks()
        return self._function_hooks[fullname](ctx)

    def _first_method_call(self, fullname: str, ctx: MethodContext) -> Type:
        self._checks()
        return self._method_hooks[fullname](ctx)

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if fullname in FUNCTION_HOOK_NAMES:
            return self._function_hooks[fullname]
        json_names = self._json_names
        if json_names is None:
            entries = load(self._database_path).table("json")
            json_names = self._json_names = {entry.name for entry in entries}
        if fullname in json_names:
            return partial(self._json_value, fullname.startswith("tomllib."))
        return None

    def _json_value(self, document: bool, ctx: FunctionContext) -> Type:
        """A ``[json]`` function's result in a hook module: a JSON value (a TOML document
        for ``tomllib``), not ``Any``."""
        api = ctx.api
        if not isinstance(api, TypeChecker) or not self._checks().is_hook_module(api):
            return ctx.default_return_type
        if any(name in _CALLBACK_ARGUMENTS for names in ctx.arg_names for name in names if name):
            return ctx.default_return_type  # what a callback returns is anything (Any: refused)
        if document:
            text = api.named_generic_type("builtins.str", [])
            value = api.named_generic_type("builtins.object", [])
            return api.named_generic_type("builtins.dict", [text, value])
        return _json_value(ctx)

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        if fullname in METHOD_HOOK_NAMES:
            return self._method_hooks[fullname]
        # Asked at every method call mypy checks: ``in`` (no method call) settles most names.
        if (
            _INIT_SUBCLASS in fullname
            and fullname.endswith(_INIT_SUBCLASS)
            and not fullname.startswith("builtins.")
        ):
            return self._checks().class_defined  # maybe a Hook subclass of a user class
        return None

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        # Every checked module is scanned, so the checks load with the first one.
        return self._checks().module_checked(file, self._modules or {})

    def report_config_data(self, ctx: ReportConfigContext) -> str | None:
        # The standard library never holds hook code: keep its cache across plugin changes.
        if ctx.path.startswith(self._typesheds):
            return None
        return self._config_data


_JSON_VALUE: Final = "pydantic.types.JsonValue"
_CALLBACK_ARGUMENTS: Final = frozenset(
    {"cls", "object_hook", "object_pairs_hook", "parse_float", "parse_int", "parse_constant"}
)


def _json_value(ctx: FunctionContext) -> Type:
    """What the database's ``[json]`` functions return in place of typeshed's ``Any``:
    pydantic's recursive ``JsonValue`` (``pod`` depends on pydantic, so a hook module's build
    has it), whose containers hold JSON values: narrowing one with ``isinstance(v, list)``
    gives ``list[JsonValue]``. Without pydantic in the build, a JSON value whose containers
    hold ``object``."""
    api = ctx.api
    if isinstance(api, TypeChecker):
        symbol = lookup_fully_qualified(_JSON_VALUE, api.modules)
        if symbol is not None and isinstance(symbol.node, TypeAlias):
            return TypeAliasType(symbol.node, [])
    named = api.named_generic_type
    obj = named("builtins.object", [])
    items: list[Type] = [
        named("builtins.str", []),
        named("builtins.int", []),
        named("builtins.float", []),
        named("builtins.bool", []),
        NoneType(),
        named("builtins.list", [obj]),
        named("builtins.dict", [named("builtins.str", []), obj]),
    ]
    return UnionType.make_union(items)


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point: the plugin class, if this mypy is one the plugin supports.

    Raises:
        SystemExit: an unsupported mypy version (the plugin relies on mypy internals).
    """
    if _COMPILED and os.path.exists(_CHECKOUT_MARK):
        # Python prefers a compiled module to its source: after an edit, a build left in the
        # checkout would run the old code without a word.
        raise SystemExit(
            f"pod_mypy: compiled modules in the source checkout shadow its sources "
            f"({_COMPILED[0]}, {len(_COMPILED)} in all): delete them "
            f"(find {os.path.dirname(_PACKAGE)} -name '*.so' -delete); "
            f"mypy_plugin/compile_plugin.py builds the compiled plugin from a copy"
        )
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
