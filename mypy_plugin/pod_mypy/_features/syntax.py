"""The syntax rules: calls that reach by name (``getattr``, ``str.format``), operators and
assignments on what is not the module's own, class definitions, conditions mypy and the run
could read differently, and ``# type: ignore``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from mypy.nodes import (
    CallExpr,
    CastExpr,
    ClassDef,
    ComparisonExpr,
    Context,
    Expression,
    IndexExpr,
    ListExpr,
    Lvalue,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    StrExpr,
    TupleExpr,
    TypeInfo,
    Var,
)
from mypy.server.subexpr import get_subexpressions
from mypy.subtypes import is_same_type

from .._consts import HOOK_ESCAPE, HOOK_UNTAMED, MESSAGES
from .base import FORMAT_METHODS, dunder, format_fields, is_str
from .names import NameRules

__all__ = ["SyntaxRules"]

_GETATTR: Final = frozenset({"builtins.getattr", "builtins.hasattr"})
_CONDITIONS: Final = frozenset({"TYPE_CHECKING", "MYPY"})
_ISINSTANCE_HOOKS: Final = frozenset(
    {"__subclasshook__", "__instancecheck__", "__subclasscheck__", "__mro_entries__", "__class__"}
)
"""Methods that change what ``isinstance`` answers, which mypy's narrowing believes (an
instance's ``__class__`` is what ``isinstance`` reads after its type)."""
_SPECIAL_BASES: Final = frozenset({"builtins.object", "typing._TypedDict", "typing.Generic"})


class SyntaxRules(NameRules):
    def _call(self, o: CallExpr) -> None:
        callee = o.callee
        if isinstance(callee, NameExpr) and callee.fullname in _GETATTR:
            self._getattr(o, callee.name)
            self._skip.add(id(callee))
        elif isinstance(callee, MemberExpr) and callee.name in FORMAT_METHODS:
            self._format(o, callee)
        elif isinstance(callee, RefExpr) and isinstance(callee.node, TypeInfo):
            info = callee.node
            constructors = {(info.fullname, "__init__"), (info.fullname, "__new__")}
            if info.fullname in self.tamed.types and not constructors & self.tamed.members:
                self._untamed(o, f'building "{info.name}"', f"{info.fullname}.__init__")
        elif not isinstance(callee, RefExpr):
            self._operator(o, callee, "__call__")
        warns = isinstance(callee, RefExpr) and callee.fullname in (
            "warnings.warn",
            "_warnings.warn",
        )
        if warns and ("stacklevel" in o.arg_names or len(o.args) > 2):
            self._report(o, MESSAGES["stacklevel"], HOOK_ESCAPE)

    def _getattr(self, o: CallExpr, function: str) -> None:
        name = o.args[1] if len(o.args) >= 2 else None
        if not isinstance(name, StrExpr) or dunder(name.value) or len(o.args) > 3:
            self._report(o, MESSAGES["getattr"].format(function=function), HOOK_ESCAPE)
            return
        self._value_member(o, o.args[0], name.value)

    def _format(self, o: CallExpr, callee: MemberExpr) -> None:
        self._skip.add(id(callee))
        receiver = callee.expr
        if isinstance(receiver, RefExpr) and isinstance(receiver.node, TypeInfo):
            if receiver.node.has_base("builtins.str"):  # str.format(template, ...)
                self._report(o, MESSAGES["format_computed"].format(method=callee.name), HOOK_ESCAPE)
            return
        if not is_str(self.types.get(receiver)):
            return
        template = receiver
        if not isinstance(template, StrExpr):
            self._report(o, MESSAGES["format_computed"].format(method=callee.name), HOOK_ESCAPE)
            return
        for field in format_fields(template.value):
            if any(mark in field for mark in ".["):
                self._report(o, MESSAGES["format_field"].format(field=field), HOOK_ESCAPE)

    def _cast(self, o: CastExpr) -> None:
        self._untamed(o, '"typing.cast"', "typing.cast")

    def _index(self, o: IndexExpr) -> None:
        if o.analyzed is None:
            self._operator(o, o.base, "__getitem__")

    def _comparison(self, o: ComparisonExpr) -> None:
        for operator, right in zip(o.operators, o.operands[1:], strict=False):
            if operator in ("in", "not in"):
                self._operator(o, right, "__contains__")

    def _target(self, lvalue: Lvalue, item_dunder: str) -> None:
        """An assignment or ``del`` target: only the hook module's own may change."""
        if isinstance(lvalue, (TupleExpr, ListExpr)):
            for item in lvalue.items:
                self._target(item, item_dunder)
        elif isinstance(lvalue, IndexExpr):
            self._operator(lvalue, lvalue.base, item_dunder)
        elif isinstance(lvalue, MemberExpr):
            receiver = lvalue.expr
            if isinstance(receiver, RefExpr) and isinstance(receiver.node, MypyFile):
                if receiver.node.fullname != self.here:
                    self._report(
                        lvalue,
                        MESSAGES["assign_module"].format(
                            name=lvalue.name, module=receiver.node.fullname
                        ),
                        HOOK_ESCAPE,
                    )
                return
            typ = self.types.get(receiver)
            if isinstance(receiver, RefExpr) and isinstance(receiver.node, TypeInfo):
                infos = [receiver.node]
            else:
                infos = list(self._classes(typ)) if typ is not None else []
            for info in infos:
                if not self.grants.own_code(info.fullname, self.here):
                    self._report(
                        lvalue,
                        MESSAGES["assign_foreign"].format(name=lvalue.name, cls=info.name),
                        HOOK_ESCAPE,
                    )

    def _class_rules(self, o: ClassDef) -> None:
        """Bases, ``metaclass=``, isinstance hooks and attribute overrides of a class."""
        if o.metaclass is not None:
            self._report(o, MESSAGES["metaclass"].format(cls=o.name), HOOK_ESCAPE)
        for base in o.info.bases:
            fullname = base.type.fullname
            if fullname in _SPECIAL_BASES or fullname in self.tamed.whole:
                continue
            if self.grants.own_code(fullname, self.here) or self.grants.granted(fullname):
                continue
            self._report(o, MESSAGES["base"].format(cls=o.name, base=base.type.name), HOOK_UNTAMED)
        for name, symbol in o.info.names.items():
            if name in _ISINSTANCE_HOOKS:
                self._report(
                    o, MESSAGES["isinstance_hook"].format(cls=o.name, name=name), HOOK_ESCAPE
                )
            elif name == "__class_getitem__":  # Box[int]() would call what it returns
                self._report(o, MESSAGES["class_getitem"].format(cls=o.name), HOOK_ESCAPE)
            elif isinstance(symbol.node, Var) and not symbol.node.is_classvar and not dunder(name):
                self._narrowed_override(o, name, symbol.node)

    def _narrowed_override(self, o: ClassDef, name: str, var: Var) -> None:
        """An attribute redeclared with another type: through the base, any value of the base's
        type can be stored, and read back through the subclass as the narrower one."""
        for base in o.info.mro[1:]:
            declared = base.names.get(name)
            node = declared.node if declared is not None else None
            if not isinstance(node, Var) or node.type is None or var.type is None:
                continue
            if not is_same_type(node.type, var.type):
                self._report(
                    o,
                    MESSAGES["override"].format(cls=o.name, name=name, base=base.name),
                    HOOK_ESCAPE,
                )
            return

    def check_ignores(self) -> None:
        ignored = self.file.ignored_lines
        if not ignored:
            return
        clear = next(
            (line for line in range(1, max(ignored) + 2) if line not in ignored), max(ignored) + 1
        )
        for line in sorted(ignored):
            context = Context(clear, 0)
            self._report(context, MESSAGES["ignore"].format(line=line), HOOK_ESCAPE)

    def _conditions(self, condition: Expression) -> None:
        for name in _names(condition):
            if name in _CONDITIONS:
                self._report(condition, MESSAGES["condition"].format(name=name), HOOK_ESCAPE)


def _names(expr: Expression) -> Iterator[str]:
    """Every name and attribute name in ``expr`` (``typing.TYPE_CHECKING`` gives both)."""
    for sub in get_subexpressions(expr):
        if isinstance(sub, (NameExpr, MemberExpr)):
            yield sub.name
