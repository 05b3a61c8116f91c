"""What every rule of the hook-module walk shares: the module, its types, the grants, the
findings, and the member rule (the class defining ``x.name`` decides).

The rules live one family a file (:mod:`.names`, :mod:`.syntax`, :mod:`.types`); the walk
that calls them is :mod:`.tamed`.
"""

from __future__ import annotations

import string
from collections.abc import Iterator
from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.messages import format_type
from mypy.nodes import (
    Context,
    Expression,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    TypeInfo,
    Var,
)
from mypy.options import Options
from mypy.types import (
    CallableType,
    Instance,
    LiteralType,
    TupleType,
    Type,
    TypedDictType,
    TypeType,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_ESCAPE, HOOK_UNTAMED, MESSAGES
from .._database import prefixes
from .grants import Grants

__all__ = [
    "CONSTANTS",
    "FORMAT_METHODS",
    "MODULE_DUNDERS",
    "Finding",
    "Rules",
    "dunder",
    "format_fields",
    "is_str",
    "type_shown",
]

Finding = tuple[int, int, str, ErrorCode]
"""line, column, message, code."""

MODULE_DUNDERS: Final = frozenset({"__name__", "__doc__"})

CONSTANTS: Final = frozenset({"builtins.None", "builtins.True", "builtins.False"})
"""A module's own ``__name__`` and ``__doc__``: plain strings (``getLogger(__name__)``)."""

FORMAT_METHODS: Final = frozenset({"format", "format_map"})


_SHOWN: Final = Options()
"""Only for showing a type in a message (short names)."""


def type_shown(typ: Type) -> str:
    """``typ`` as an error message shows it."""
    return format_type(typ, _SHOWN)


def dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def mangled(name: str) -> bool:
    """``_Box__item``: what Python renames ``__item`` to inside class ``Box``, which mypy
    keeps as two names."""
    head, separator, tail = name.lstrip("_").partition("__")
    return name.startswith("_") and not name.startswith("__") and bool(head and separator and tail)


class Rules:
    """The state of one hook module's walk, and the helpers every rule family uses."""

    def __init__(self, file: MypyFile, types: dict[Expression, Type], grants: Grants) -> None:
        self.file = file
        self.here = file.fullname
        self.own = f"{file.fullname}."
        """What this module's own names start with."""
        self.types = types
        self.grants = grants
        self.tamed = grants.tamed
        self.findings: list[Finding] = []
        self._reported: set[tuple[int, str]] = set()
        self._functions: list[str] = []
        self._tries = 0
        self._refused: set[str] = set()
        """Modules and names refused at their import: their uses say nothing more."""
        self._skip: set[int] = set()
        """Expressions already judged by an enclosing rule (``getattr``'s callee, ...)."""
        self._nonlocals: set[str] = set()
        self._local_owners: list[set[int]] = []
        """Per enclosing function, the locals first seen in it (a read elsewhere is a
        nested function's capture)."""
        self._narrowed_locals: list[tuple[NameExpr, Var]] = []
        """Reads of typed locals: refused at the end if narrowed and rebound (nonlocal)."""
        self.error_lines: frozenset[int] = frozenset()
        """The lines mypy reported an error on: an ``Any`` mypy made of an error is passed
        there only (mypy makes some without a report, e.g. for a ``__match_args__`` it cannot
        read)."""
        self._declared: set[int] = set()
        """The names of declarations without a value (``k: int``): no value is read."""
        self._alias_sides: set[int] = set()
        """Both sides of a type alias's definition (``Rule: TypeAlias = A | B``; mypy adds a
        ``TypeAliasExpr`` for the value): a type, judged where it is used as a value."""
        self._cache_uses: set[int] = set()
        """Expressions of a cache or a partial where they may be: called, bound to a name, or
        the receiver of a member read."""

    def _report(self, context: Context, message: str, code: ErrorCode) -> None:
        key = (context.line, message)
        if key not in self._reported:
            self._reported.add(key)
            self.findings.append((context.line, context.column, message, code))

    def _untamed(self, context: Context, what: str, fullname: str) -> None:
        fix = self.tamed.refusal(fullname) or self.tamed.refusal(what)
        message = MESSAGES["untamed"].format(what=what)
        self._report(
            context,
            f"{message}: {fix}" if fix else f"{message}{MESSAGES['untamed_fix']}",
            HOOK_UNTAMED,
        )

    def _was_refused(self, fullname: str) -> bool:
        refused = self._refused
        return bool(refused) and any(name in refused for name in prefixes(fullname))

    def _value_member(self, context: Context, receiver: Expression, name: str) -> None:
        typ = self.types.get(receiver)
        if typ is None:
            self._report(context, MESSAGES["untyped"].format(name=name), HOOK_ESCAPE)
        elif type(typ) is Instance:  # the common case, without the generator
            self._member(context, typ.type, name)
        else:
            for info in self._classes(typ):
                self._member(context, info, name)

    def _classes(self, typ: Type) -> Iterator[TypeInfo]:
        proper = get_proper_type(typ)
        if isinstance(proper, UnionType):
            for item in proper.items:
                yield from self._classes(item)
        elif isinstance(proper, Instance):
            yield proper.type
        elif isinstance(proper, (TupleType, LiteralType, TypedDictType)):
            yield from self._classes(
                proper.partial_fallback if isinstance(proper, TupleType) else proper.fallback
            )
        elif isinstance(proper, TypeType):
            yield from self._classes(proper.item)
        elif isinstance(proper, TypeVarType):
            yield from self._classes(proper.upper_bound)
        elif isinstance(proper, CallableType):
            if proper.is_type_obj():
                yield proper.type_object()
            else:
                yield from self._classes(proper.fallback)

    def _member(self, context: Context, info: TypeInfo, name: str) -> None:
        """``name`` read on an instance or the class ``info``."""
        refusal = self.grants.member_refusal(info, name)
        if refusal is not None and self.grants.modules.module_of(refusal[0]) != self.here:
            self._untamed(context, refusal[1], refusal[2])

    def _operator(self, context: Context, receiver: Expression, dunder: str) -> None:
        """An operator on a value of a class tamed member by member needs its dunder listed."""
        typ = self.types.get(receiver)
        if typ is None:
            return
        for info in self._classes(typ):
            owner = next((base for base in info.mro if dunder in base.names), info)
            if (
                owner.fullname in self.tamed.types
                and (owner.fullname, dunder) not in self.tamed.members
            ):
                self._untamed(context, f'"{owner.name}.{dunder}"', f"{owner.fullname}.{dunder}")

    def _format_value(self, o: MemberExpr) -> bool:
        """``"...".format`` not called right there (held, passed): its format is not seen."""
        if o.name not in FORMAT_METHODS:
            return False
        receiver = o.expr
        node = receiver.node if isinstance(receiver, RefExpr) else None
        is_str_class = isinstance(node, TypeInfo) and node.has_base("builtins.str")
        if is_str_class or is_str(self.types.get(receiver)):
            self._report(o, MESSAGES["format_computed"].format(method=o.name), HOOK_ESCAPE)
            return True
        return False


def format_fields(template: str) -> Iterator[str]:
    """Every replacement field of a format, those nested in format specs included."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return  # mypy reports a malformed format itself
    for _, field, spec, _ in parsed:
        if field:
            yield field
        if spec and "{" in spec:
            yield from format_fields(spec)


def is_str(typ: Type | None) -> bool:
    """Whether ``typ`` may be a ``str`` (a subclass, a TypeVar bound to one, a union)."""
    proper = get_proper_type(typ)
    if isinstance(proper, Instance):
        return proper.type.has_base("builtins.str")
    if isinstance(proper, LiteralType):
        return proper.fallback.type.has_base("builtins.str")
    if isinstance(proper, TypeVarType):
        return is_str(proper.upper_bound) or any(is_str(value) for value in proper.values)
    if isinstance(proper, UnionType):
        return any(is_str(item) for item in proper.items)
    return False
