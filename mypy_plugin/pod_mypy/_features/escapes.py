"""``hook-escape``: the constructs that let hook code reach what its types do not show.

A cast, reflection by name (``getattr``, ``vars``, ``eval``...), raw
attribute access (``object.__setattr__``, ``__dict__``), frames and closures (``sys._getframe``,
``inspect``, ``__closure__``) and whole-heap access (``gc``, ``ctypes``) all hide from the
type map what a hook can touch, so none of them is allowed in hook code.
"""

from __future__ import annotations

import functools
import re
import string
from typing import Final

from mypy.nodes import CastExpr, Expression, MemberExpr, RefExpr, StrExpr, TypeInfo
from mypy.types import CallableType, Instance, Type, TypeOfAny, UnionType, get_proper_type

from .._consts import ESCAPE_ATTRIBUTES, ESCAPE_CALLABLES, ESCAPE_MODULES, ESCAPE_TYPES

__all__ = ["HARMLESS_ANY", "escape", "escaping_class"]

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
    if isinstance(expr, MemberExpr) and isinstance(proper, CallableType):
        return _format_escape(expr, proper)
    members = proper.items if isinstance(proper, UnionType) else [proper]
    for item in members:
        member = get_proper_type(item)
        if isinstance(member, Instance):
            found = escaping_class(member.type)
            if found is not None:
                return found
    return None


def escaping_class(info: TypeInfo) -> str | None:
    """Describe why a value of class ``info`` is an escape hatch itself, or return ``None``."""
    if info.fullname in ESCAPE_TYPES:
        return f'expression of type "{info.name}"'
    if info.has_base(_FORMATTER):
        # Formatter.get_field follows attribute fields of any format string.
        return f'expression of type "{info.name}" (a string.Formatter)'
    return None


_FORMATTER: Final = "string.Formatter"
_FORMAT_METHODS: Final = frozenset({"builtins.str.format", "builtins.str.format_map"})


def _format_escape(expr: MemberExpr, method: CallableType) -> str | None:
    """``"{0.__class__.__init__.__globals__}".format(x)``: a replacement field walks
    attributes the type map never sees, so a field may not name a private or dunder
    attribute, and the template must be a literal the plugin can read."""
    definition = method.definition
    if definition is None or definition.fullname not in _FORMAT_METHODS:
        return None
    template = expr.expr
    if not isinstance(template, StrExpr):
        return f"str.{expr.name}() with a format string that is not a literal"
    return _hidden_field(template.value)


@functools.lru_cache(maxsize=4096)  # f-strings are str.format calls: the same few templates
def _hidden_field(template: str) -> str | None:
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return "a malformed format string"
    for _, field, spec, _ in parsed:
        hidden = next((name for name in _field_attributes(field or "") if name[:1] == "_"), None)
        if hidden is not None:
            return f'format field "{{{field}}}" (attribute "{hidden}")'
        nested = _hidden_field(spec) if spec else None
        if nested is not None:
            return nested
    return None


def _field_attributes(field: str) -> list[str]:
    """The attribute names a replacement field reads (``0.a[k].b`` reads ``a`` and ``b``;
    an index is ``__getitem__``, which the plugin follows like any other call)."""
    outside_index = _INDEX.sub("", field)
    return outside_index.split(".")[1:]


_INDEX: Final = re.compile(r"\[[^\]]*\]")


def _named_escape(expr: RefExpr) -> str | None:
    fullname = expr.fullname
    if fullname in ESCAPE_CALLABLES:
        return f"{fullname.removeprefix('builtins.')}()"
    if fullname and fullname.partition(".")[0] in ESCAPE_MODULES:
        return f'module "{fullname.partition(".")[0]}"'
    if isinstance(expr, MemberExpr) and expr.name in ESCAPE_ATTRIBUTES:
        return f'attribute "{expr.name}"'
    return None
