"""``hook-escape``: the constructs that let hook code reach what its types do not show.

A cast, reflection by name (``getattr``, ``vars``, ``eval``...), raw
attribute access (``object.__setattr__``, ``__dict__``), frames and closures (``sys._getframe``,
``inspect``, ``__closure__``) and whole-heap access (``gc``, ``ctypes``) all hide from the
type map what a hook can touch, so none of them is allowed in hook code.
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import CastExpr, Expression, MemberExpr, RefExpr
from mypy.types import Instance, Type, TypeOfAny, UnionType, get_proper_type

from .._consts import ESCAPE_ATTRIBUTES, ESCAPE_CALLABLES, ESCAPE_MODULES, ESCAPE_TYPES

__all__ = ["HARMLESS_ANY", "escape"]

HARMLESS_ANY: Final = frozenset(
    {
        TypeOfAny.from_error,  # mypy already reported the error that produced it
        TypeOfAny.special_form,  # the type of a typing construct such as ``Literal``
        TypeOfAny.implementation_artifact,
    }
)


def escape(expr: Expression, typ: Type | None) -> str | None:
    """Describe the escape hatch ``expr`` (of type ``typ``) is, or return ``None``."""
    if isinstance(expr, CastExpr):
        return "cast()"
    if isinstance(expr, RefExpr):
        named = _named_escape(expr)
        if named is not None:
            return named
    if typ is None:
        return None
    proper = get_proper_type(typ)
    members = proper.items if isinstance(proper, UnionType) else [proper]
    for item in members:
        member = get_proper_type(item)
        if isinstance(member, Instance) and member.type.fullname in ESCAPE_TYPES:
            return f'expression of type "{member.type.name}"'
    return None


def _named_escape(expr: RefExpr) -> str | None:
    fullname = expr.fullname
    if fullname in ESCAPE_CALLABLES:
        return f"{fullname.removeprefix('builtins.')}()"
    if fullname and fullname.partition(".")[0] in ESCAPE_MODULES:
        return f'module "{fullname.partition(".")[0]}"'
    if isinstance(expr, MemberExpr) and expr.name in ESCAPE_ATTRIBUTES:
        return f'attribute "{expr.name}"'
    return None
