"""Which types reach a privileged type, and along which path.

A type *reaches* a privileged type if it is one (its class inherits the marker), or if one
is reachable through its type arguments, union or tuple members, a callable's return type,
a type variable's bound, or an attribute, property or method result of its class (or of a
base class). So a ``Session`` holding a ``Worker`` reaches ``Worker`` via ``Session.worker``.

Results per class are memoised for the whole build, together with the modules the answer
depended on: the plugin reports those as indirect dependencies, so a warm cache re-checks a
hook module when a class its hooks reach changes. Classes of the standard library and of
llm-pod's own dependencies are not scanned: they cannot import ``llm_worker`` (that would be an
import cycle), so they cannot name a privileged type. Their type arguments still are checked.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Final, NamedTuple, TypeVar, cast, final

from mypy.nodes import Decorator, FuncDef, OverloadedFuncDef, TypeInfo, Var
from mypy.types import (
    CallableType,
    Instance,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypeAliasType,
    TypedDictType,
    TypeType,
    TypeVarType,
    UnionType,
    UnpackType,
    get_proper_type,
)

__all__ = ["Path", "Reach"]

_NOT_SCANNED: Final = frozenset(sys.stdlib_module_names) | {
    "builtins",
    "_typeshed",
    "typing_extensions",
    "mypy_extensions",
    # llm-pod's dependencies (and the SDKs of its extras, with theirs)
    "pydantic",
    "pydantic_core",
    "annotated_types",
    "typing_inspection",
    "rich",
    "openai",
    "anthropic",
    "httpx",
    "httpcore",
    "anyio",
}


_COMPOSITES: Final = frozenset({CallableType, Overloaded, UnionType})
_Key = TypeVar("_Key")


@final
class Path(NamedTuple):
    """How a type reaches a privileged class."""

    target: str
    """Short name of the privileged class reached."""
    via: tuple[str, ...]
    """Attribute steps from the type to it (``("Session.worker",)``); empty if the type
    contains the privileged class directly (itself, a type argument, a union member...)."""
    direct: bool
    """The type itself is a privileged class."""


@final
class _Memo(NamedTuple):
    path: Path | None
    modules: frozenset[str]


@final
class Reach:
    """Answers "does this type reach a privileged class?", memoised per class."""

    def __init__(self, is_privileged: Callable[[TypeInfo], bool]) -> None:
        self._is_privileged = is_privileged
        self._memo: dict[str, _Memo] = {}
        self._in_progress: dict[str, int] = {}
        self._module_stack: list[set[str]] = []
        self._cycle_hits = 0
        self._pending: set[str] = set()
        self._by_type: dict[int, tuple[Type, Path | None]] = {}
        self._plain: dict[str, tuple[Path | None, frozenset[str]]] = {}
        """Answers for instances of classes without type arguments, for the whole build."""
        self._aliases: dict[str, tuple[Path | None, frozenset[str]]] = {}
        """Answers for type aliases without type arguments, for the whole build."""
        self._variables: dict[TypeVarType, tuple[Path | None, frozenset[str]]] = {}
        """Answers for type variables (by value: their bound and values), for the whole
        build."""
        self.touched: set[str] = set()
        """Modules whose classes the answers since :meth:`start_module` depended on."""

    def start_module(self) -> None:
        """Start answering for another module (resets :attr:`touched`)."""
        self.touched = set()
        self._by_type.clear()

    def path(self, typ: Type) -> Path | None:
        """Return how ``typ`` reaches a privileged class, or ``None`` if it does not."""
        # Expressions of a module share type objects (a parameter's type, ``str``...).
        known = self._by_type.get(id(typ))
        if known is not None and known[0] is typ:
            return known[1]
        kind = type(typ)  # mypy's type classes have no subclasses
        if type(typ) is TypeAliasType:  # (not ``kind``: mypy narrows on this spelling)
            if typ.alias is not None and not typ.args:
                return self._once(self._aliases, typ.alias.fullname, typ)
        elif kind in _COMPOSITES:
            composite = cast(CallableType | Overloaded | UnionType, typ)
            # Composites of a module are mostly new objects around the same few members
            # (a function's result, a union's items): answer from the members' answers.
            found = _indirect(self._first_path(_members(composite)))
            self._by_type[id(typ)] = (typ, found)
            return found
        elif kind is TypeVarType:
            # A generic library function's variable (``AnyStr`` of ``re.compile``), named
            # in every module that calls it: decided by its bound and values, once a build.
            variable = cast(TypeVarType, typ)
            return self._once(self._variables, variable, variable)
        elif kind is Instance:
            instance = cast(Instance, typ)
            if instance.args and not self._is_privileged(instance.type):
                # As ``_instance``: the type arguments, then the class (answered once a
                # build).
                found = _indirect(self._first_path(instance.args)) or self._class_path(
                    instance.type
                )
                self._by_type[id(typ)] = (typ, found)
                return found
        proper = get_proper_type(typ)
        plain = proper.type.fullname if isinstance(proper, Instance) and not proper.args else None
        if plain is not None:
            hit = self._plain.get(plain)
            if hit is not None:
                self.touched |= hit[1]
                return hit[0]
        found, modules = self._query(typ)
        self._by_type[id(typ)] = (typ, found)
        if plain is not None:
            self._plain[plain] = (found, frozenset(modules))
        return found

    def _once(
        self, table: dict[_Key, tuple[Path | None, frozenset[str]]], key: _Key, typ: Type
    ) -> Path | None:
        """The answer for ``typ`` kept in ``table`` under ``key`` for the whole build (found
        on first use); its modules join :attr:`touched`."""
        hit = table.get(key)
        if hit is None:
            found, modules = self._query(typ)
            hit = table[key] = (found, frozenset(modules))
        self.touched |= hit[1]
        return hit[0]

    def reaches_privileged(self, typ: Type) -> bool:
        return self.path(typ) is not None

    def _class_path(self, info: TypeInfo) -> Path | None:
        """How an instance of ``info`` (not privileged itself) reaches a privileged class
        through its members and bases, whatever its type arguments."""
        hit = self._plain.get(info.fullname)
        if hit is None:
            found, modules = self._query(Instance(info, []))
            hit = self._plain[info.fullname] = (found, frozenset(modules))
        self.touched |= hit[1]
        return hit[0]

    def _first_path(self, types: Iterable[Type]) -> Path | None:
        for item in types:
            found = self.path(item)
            if found is not None:
                return found
        return None

    def _query(self, typ: Type) -> tuple[Path | None, set[str]]:
        self._module_stack.append(set())
        try:
            found = self._type(typ, ())
        finally:
            modules = self._module_stack.pop()
        self.touched |= modules
        if self._pending:
            if found is None:
                # The whole closure was explored without a hit: every class whose answer
                # waited on a cycle really reaches nothing.
                settled = frozenset(modules)
                for fullname in self._pending:
                    self._memo[fullname] = _Memo(None, settled)
            self._pending.clear()
        return found, modules

    def _type(self, typ: Type, aliases: tuple[str, ...]) -> Path | None:
        if isinstance(typ, TypeAliasType):
            alias = typ.alias
            if alias is None:
                return None
            if typ.is_recursive:
                # Recursive aliases (pydantic's JsonValue) would expand forever.
                if alias.fullname in aliases:
                    return None
                aliases = (*aliases, alias.fullname)
            return self._type(get_proper_type(typ), aliases)
        proper = get_proper_type(typ)
        if isinstance(proper, Instance):
            return self._instance(proper, aliases)
        return _indirect(self._composite(proper, aliases))

    def _composite(self, proper: ProperType, aliases: tuple[str, ...]) -> Path | None:
        if isinstance(proper, UnionType):
            return self._first(proper.items, aliases)
        if isinstance(proper, TupleType):
            return self._first(proper.items, aliases) or self._type(
                proper.partial_fallback, aliases
            )
        if isinstance(proper, CallableType):
            return self._type(proper.ret_type, aliases)
        if isinstance(proper, Overloaded):
            return self._first([item.ret_type for item in proper.items], aliases)
        if isinstance(proper, TypeType):
            return self._type(proper.item, aliases)
        if isinstance(proper, TypeVarType):
            return self._first([proper.upper_bound, *proper.values], aliases)
        if isinstance(proper, TypedDictType):
            return self._first(list(proper.items.values()), aliases)
        if isinstance(proper, UnpackType):
            return self._type(proper.type, aliases)
        return None

    def _first(self, types: list[Type], aliases: tuple[str, ...]) -> Path | None:
        for item in types:
            found = self._type(item, aliases)
            if found is not None:
                return found
        return None

    def _instance(self, typ: Instance, aliases: tuple[str, ...]) -> Path | None:
        info = typ.type
        if self._is_privileged(info):
            self._module_stack[-1].add(info.module_name)
            return Path(info.name, (), direct=True)
        found = _indirect(self._first(list(typ.args), aliases))
        if found is not None:
            return found
        if info.module_name.partition(".")[0] in _NOT_SCANNED:
            return None
        return self._class(info)

    def _class(self, info: TypeInfo) -> Path | None:
        memo = self._memo.get(info.fullname)
        if memo is not None:
            self._module_stack[-1] |= memo.modules
            return memo.path
        if info.fullname in self._in_progress or info.fullname in self._pending:
            # Inside a cycle, or already found to reach nothing so far in this query: the
            # answer is settled when the query ends.
            self._cycle_hits += 1
            self._module_stack[-1].add(info.module_name)
            return None
        hits_before = self._cycle_hits
        self._in_progress[info.fullname] = 0
        self._module_stack.append({info.module_name})
        try:
            found = self._members(info)
        finally:
            del self._in_progress[info.fullname]
            modules = self._module_stack.pop()
        self._module_stack[-1] |= modules
        if found is not None or self._cycle_hits == hits_before:
            self._memo[info.fullname] = _Memo(found, frozenset(modules))
        else:
            self._pending.add(info.fullname)
        return found

    def _members(self, info: TypeInfo) -> Path | None:
        for base in info.bases:
            found = self._type(base, ())
            if found is not None:
                return Path(found.target, (f"{info.name}({base.type.name})", *found.via), False)
        # Public members first: the path a message names should be the one users know.
        members = sorted(info.names.items(), key=lambda member: member[0].startswith("_"))
        for name, symbol in members:
            member_type, called = _member_type(symbol.node)
            if member_type is None:
                continue
            found = self._type(member_type, ())
            if found is not None:
                step = f"{info.name}.{name}()" if called else f"{info.name}.{name}"
                return Path(found.target, (step, *found.via), direct=False)
        return None


def _members(typ: CallableType | Overloaded | UnionType) -> list[Type]:
    """The types a composite's reach is decided by (as in ``Reach._composite``)."""
    if isinstance(typ, CallableType):
        return [typ.ret_type]
    if isinstance(typ, Overloaded):
        return [item.ret_type for item in typ.items]
    return list(typ.items)


def _indirect(found: Path | None) -> Path | None:
    return Path(found.target, found.via, direct=False) if found is not None else None


def _member_type(node: object) -> tuple[Type | None, bool]:
    """The type a hook gets by using a member (a method's: its result), and whether it is
    got by calling the member (the path then names ``Class.name()``)."""
    if isinstance(node, Var):
        return node.type, False
    if isinstance(node, Decorator):
        if node.func.is_property:
            return _result(node.func.type), False
        return node.var.type, True
    if isinstance(node, FuncDef):
        if node.is_property:
            return _result(node.type), False
        return node.type, True
    if isinstance(node, OverloadedFuncDef):
        return node.type, True
    return None, False


def _result(typ: Type | None) -> Type | None:
    proper = get_proper_type(typ)
    return proper.ret_type if isinstance(proper, CallableType) else typ
