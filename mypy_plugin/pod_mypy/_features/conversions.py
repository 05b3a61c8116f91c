"""The conversion rules: where a value takes a type no check gave it (``docs/plugin.md``,
"Soundness"). The third red team (2026-12-03) re-typed objects as hook classes through each:

- **an ``Any`` becoming a hook class**: ``isinstance(o, list)`` makes ``o`` a ``list[Any]``,
  and mypy lets an ``Any`` be every type. An expression carrying an ``Any`` may not flow where
  the type holds a hook-module class (or a type variable of the code around it): an
  assignment's target, a parameter, a return or ``yield``, a display's items, a default;
- **a module object as a value** (``stash(os.path)``): a module's attributes lead to every
  module of the process (``posixpath.os``). Modules are named only to read a member;
- **a TypedDict unpacked** (``{"k": v, **plain}``, ``f(**plain)``) or merged in place
  (``a |= b``): any TypedDict with more keys is a value of the type, and its undeclared keys
  override;
- **one value shared by every type argument**: a default of a generic parameter, a class
  attribute of a generic class, a ``functools`` cache on a generic function. Each use
  believes the value holds its own type argument.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final

from mypy.argmap import map_actuals_to_formals
from mypy.maptype import map_instance_to_supertype
from mypy.nodes import (
    ARG_STAR2,
    AssignmentExpr,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    ConditionalExpr,
    Decorator,
    DictExpr,
    DictionaryComprehension,
    Expression,
    FuncDef,
    GeneratorExpr,
    LambdaExpr,
    ListComprehension,
    ListExpr,
    MatchStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    OperatorAssignmentStmt,
    OpExpr,
    RefExpr,
    SetComprehension,
    SetExpr,
    StarExpr,
    StrExpr,
    TempNode,
    TupleExpr,
    Var,
    YieldExpr,
    YieldFromExpr,
)
from mypy.patterns import (
    AsPattern,
    ClassPattern,
    MappingPattern,
    OrPattern,
    Pattern,
    SequencePattern,
    StarredPattern,
)
from mypy.subtypes import is_subtype
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    NoneType,
    ProperType,
    TupleType,
    Type,
    TypedDictType,
    TypeOfAny,
    TypeVarId,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_ESCAPE, MESSAGES
from .base import type_shown
from .flow import FlowRules
from .grants import Grants
from .types import some_part

__all__ = ["ConversionRules", "has_any"]

_CACHES: Final = frozenset({"functools.cache", "functools.lru_cache"})
_FIELD: Final = frozenset({"dataclasses.field"})
_MODULE_TYPE: Final = "types.ModuleType"
_NO_FREE: Final[frozenset[TypeVarId]] = frozenset()


class ConversionRules(FlowRules):
    def __init__(self, file: MypyFile, types: dict[Expression, Type], grants: Grants) -> None:
        super().__init__(file, types, grants)
        self._returns: list[Type | None] = []
        """The declared result of each function the walk is in (innermost last)."""
        self._module_receivers: set[int] = set()
        self._any_types: dict[tuple[int, bool], bool] = {}
        """has_any's answer by the id of a type in the module's type map."""

    # -- an Any becoming a hook class ----------------------------------------------------

    def _carries_any(self, expr: Expression | None) -> bool:
        """``expr``'s value may be an ``Any`` mypy believes (an operand of ``or``, a branch
        of ``x if c else y`` included: their join can hide it)."""
        if expr is None:
            return False
        if isinstance(expr, ConditionalExpr):
            return self._carries_any(expr.if_expr) or self._carries_any(expr.else_expr)
        if isinstance(expr, OpExpr) and expr.op in ("and", "or"):
            return self._carries_any(expr.left) or self._carries_any(expr.right)
        if isinstance(expr, (AssignmentExpr, StarExpr)):
            return self._carries_any(expr.value if isinstance(expr, AssignmentExpr) else expr.expr)
        typ = self.types.get(expr)
        if typ is None:
            return False
        errors = expr.line not in self.error_lines
        key = (id(typ), errors)  # the map keeps typ alive: its id is its own
        known = self._any_types.get(key)
        if known is None:
            known = self._any_types[key] = has_any(typ, errors=errors)
        return known

    def _holds(self, typ: Type | None, free: frozenset[TypeVarId] = _NO_FREE) -> bool:
        """``typ`` holds a hook-module class, or a type variable not in ``free`` (a type
        variable of the code around it: a caller chooses it)."""
        return typ is not None and _holds(typ, free, self.grants.own_code, self.here)

    def _converted(self, expr: Expression | None, target: Type | None) -> None:
        # The Any test first: most values carry none, and _holds walks the target's type.
        if expr is not None and self._carries_any(expr) and self._holds(target):
            self._report_any(expr, target)

    def _report_any(self, expr: Expression, target: Type | None) -> None:
        shown = type_shown(target) if target is not None else "a hook class"
        self._report(expr, MESSAGES["any_converted"].format(target=shown), HOOK_ESCAPE)

    def _lvalue_type(self, lvalue: Expression) -> Type | None:
        if isinstance(lvalue, (NameExpr, MemberExpr)) and isinstance(lvalue.node, Var):
            declared = lvalue.node.type
            if declared is not None and not isinstance(get_proper_type(declared), AnyType):
                return declared
        return self.types.get(lvalue)

    def _stored(self, lvalue: Expression, value: Expression | None) -> None:
        """``value`` is stored into ``lvalue`` (and each of its items, if it unpacks)."""
        if isinstance(lvalue, (TupleExpr, ListExpr)):
            for item in lvalue.items:
                self._stored(item, value)
        elif isinstance(lvalue, StarExpr):
            self._stored(lvalue.expr, value)
        elif isinstance(lvalue, NameExpr | MemberExpr):
            self._converted(value, self._lvalue_type(lvalue))
        elif self._carries_any(value):  # xs[i] = value: judged by the container
            base = getattr(lvalue, "base", None)
            if isinstance(base, Expression) and self._holds(self.types.get(base)):
                self._report_any(lvalue, self.types.get(base))

    def assigned(self, o: AssignmentStmt) -> None:
        if isinstance(o.rvalue, TempNode) or o.is_alias_def:
            return
        for lvalue in o.lvalues:
            self._stored(lvalue, o.rvalue)

    def bound(self, target: Expression | None, source: Expression | None) -> None:
        """``for target in source``, ``with source as target``, ``target += source``."""
        if target is not None:
            self._stored(target, source)

    def operated(self, o: OperatorAssignmentStmt) -> None:
        """``a |= b`` on a TypedDict: ``dict.update`` with every key ``b`` holds, into the
        object ``a`` is (a wider TypedDict's too: width subtyping)."""
        super().operated(o)
        if o.op == "|" and isinstance(get_proper_type(self.types.get(o.lvalue)), TypedDictType):
            self._report(o, MESSAGES["typeddict_merge"], HOOK_ESCAPE)

    def returned(self, value: Expression | None) -> None:
        if self._returns:
            self._converted(value, self._returns[-1])

    def enter_function(self, o: FuncDef) -> None:
        super().enter_function(o)
        signature = o.type
        result = signature.ret_type if isinstance(signature, CallableType) else None
        self._returns.append(result)
        if not isinstance(signature, CallableType):
            return
        for argument, formal in zip(o.arguments, signature.arg_types, strict=False):
            default = argument.initializer
            if default is None or default.line < 1:  # a plugin's method (a dataclass __init__)
                continue
            self._converted(default, formal)
            if _has_type_variable(formal) and not _is_none(default):
                message = MESSAGES["generic_default"].format(name=argument.variable.name)
                self._report(default, message, HOOK_ESCAPE)

    def leave_function(self) -> None:
        super().leave_function()
        self._returns.pop()

    def _call(self, o: CallExpr) -> None:
        super()._call(o)
        callee_name = o.callee.fullname if isinstance(o.callee, RefExpr) else None
        if callee_name == "builtins.pow" and any(map(self._holds, map(self.types.get, o.args))):
            # typed by the left operand's __pow__; the run may ask the right one's __rpow__
            self._report(o, MESSAGES["pow_call"], HOOK_ESCAPE)
        for kind, arg in zip(o.arg_kinds, o.args, strict=False):
            if kind == ARG_STAR2 and isinstance(
                get_proper_type(self.types.get(arg)), TypedDictType
            ):
                self._report(arg, MESSAGES["typeddict_unpack"], HOOK_ESCAPE)
        if not any(self._carries_any(arg) for arg in o.args):
            return  # most calls
        callee = get_proper_type(self.types.get(o.callee))
        if isinstance(callee, CallableType):
            free = frozenset(variable.id for variable in callee.variables)
            formals = map_actuals_to_formals(
                o.arg_kinds,
                o.arg_names,
                callee.arg_kinds,
                callee.arg_names,
                lambda index: self.types.get(o.args[index]) or AnyType(TypeOfAny.special_form),
            )
            for formal, actuals in zip(callee.arg_types, formals, strict=False):
                if not self._holds(formal, free):
                    continue
                for index in actuals:
                    if self._carries_any(o.args[index]):
                        self._report_any(o.args[index], formal)
                        return
            if not callee.variables:
                return
        # A generic or overloaded callee: the item and the type arguments mypy chose are
        # not kept, so the call is judged by its result.
        result = self.types.get(o)
        if self._holds(result):
            culprit = next(arg for arg in o.args if self._carries_any(arg))
            self._report_any(culprit, result)

    def _displayed(self, o: Expression) -> None:
        """The items of a display or comprehension, against the display's own type (which
        mypy takes from the context: ``views: list[View] = [o[0]]``)."""
        typ = get_proper_type(self.types.get(o))
        if isinstance(o, TupleExpr) and isinstance(typ, TupleType):
            for item, item_type in zip(o.items, typ.items, strict=False):
                self._converted(item, item_type)
            return
        if not isinstance(typ, Instance) or not typ.args:
            return
        first = typ.args[0]
        last = typ.args[1] if len(typ.args) > 1 else first
        if isinstance(o, (ListExpr, SetExpr, TupleExpr)):
            for item in o.items:
                self._converted(item, first)
        elif isinstance(o, DictExpr):
            for key, value in o.items:
                if key is None:
                    self._unpacked(value)
                else:
                    self._converted(key, first)
                    self._converted(value, last)
        elif isinstance(o, (ListComprehension, SetComprehension)):
            self._converted(o.generator.left_expr, first)
        elif isinstance(o, GeneratorExpr):
            self._converted(o.left_expr, first)
        elif isinstance(o, DictionaryComprehension):
            self._converted(o.key, first)
            self._converted(o.value, last)

    def _dict_display(self, o: DictExpr) -> None:
        typ = get_proper_type(self.types.get(o))
        if isinstance(typ, TypedDictType):  # a TypedDict built from a display
            for key, value in o.items:
                if key is None:
                    self._unpacked(value)
                else:
                    item_type = typ.items.get(key.value) if isinstance(key, StrExpr) else None
                    self._converted(value, item_type)
            return
        self._displayed(o)

    def _unpacked(self, value: Expression) -> None:
        if isinstance(get_proper_type(self.types.get(value)), TypedDictType):
            self._report(value, MESSAGES["typeddict_unpack"], HOOK_ESCAPE)
        elif self._carries_any(value):
            self._report_any(value, None)

    def _lambda(self, o: LambdaExpr) -> None:
        typ = get_proper_type(self.types.get(o))
        if isinstance(typ, CallableType):
            self._converted(o.expr(), typ.ret_type)

    def _yield(self, o: YieldExpr) -> None:
        self.returned(o.expr)

    def _yield_from(self, o: YieldFromExpr) -> None:
        """``yield from`` hands every value sent to this generator to the inner one, whose
        send type mypy never compares with this one's; and an inner iterator that is no
        generator ends with whatever ``StopIteration`` its ``__next__`` raises, which mypy
        types ``None``."""
        declared = get_proper_type(self._returns[-1]) if self._returns else None
        sent: Type = NoneType()
        if isinstance(declared, Instance) and declared.type.fullname == "typing.Generator":
            sent = declared.args[1]
        inner = self.types.get(o.expr)
        result = get_proper_type(self.types.get(o))
        for item in _items(inner) if inner is not None else []:
            generator = _generator(item)
            if generator is None:
                if not isinstance(get_proper_type(sent), NoneType) or not isinstance(
                    result, NoneType
                ):
                    self._report(o, MESSAGES["yield_from_iterator"], HOOK_ESCAPE)
                    return
            elif not is_subtype(sent, generator.args[1]):
                self._report(o, MESSAGES["yield_from_send"], HOOK_ESCAPE)
                return

    def _walrus(self, o: AssignmentExpr) -> None:
        self._stored(o.target, o.value)

    def matched(self, o: MatchStmt) -> None:
        """A capture binds what the pattern took from the subject, and a name bound before the
        capture keeps its type: the item of a ``list[Any]`` (or an attribute typed ``Any``, under a
        class pattern) becomes that type unchecked, and stays it after the ``match``."""
        subject_any = self._carries_any(o.subject)
        for pattern in o.patterns:
            for name, under_class in _captures(pattern, under_class=False):
                var = name.node
                if name.is_new_def:  # its first binding: the variable takes what it captured
                    continue
                if (subject_any or under_class) and isinstance(var, Var) and self._holds(var.type):
                    shown = type_shown(var.type) if var.type else "a hook class"
                    message = MESSAGES["any_captured"].format(name=name.name, target=shown)
                    self._report(name, message, HOOK_ESCAPE)

    # -- a module object as a value -------------------------------------------------------

    def _member_expr(self, o: MemberExpr) -> None:
        receiver = o.expr
        if isinstance(receiver, RefExpr) and isinstance(receiver.node, MypyFile):
            self._module_receivers.add(id(receiver))
        super()._member_expr(o)

    def check_module_values(self) -> None:
        receivers = self._module_receivers
        candidates: list[Expression] = []  # one pass over the map: most entries are neither
        for expr in self.types:
            if isinstance(expr, MemberExpr):
                receivers.add(id(expr.expr))
                candidates.append(expr)
            elif isinstance(expr, (NameExpr, CallExpr)):
                candidates.append(expr)
        found = {finding[0] for finding in self.findings}
        lines: set[int] = set()
        for expr in candidates:
            if id(expr) in receivers or expr.line in lines:
                continue
            node = expr.node if isinstance(expr, RefExpr) else None
            if isinstance(node, MypyFile):
                what = f'module "{node.fullname}"'
            elif expr.line not in found and self._module_from_elsewhere(expr, self.types[expr]):
                what = "a module"
            else:
                continue
            lines.add(expr.line)  # X = json: one error, not one for each side
            self._report(expr, MESSAGES["module_value"].format(what=what), HOOK_ESCAPE)

    def _module_from_elsewhere(self, expr: Expression, typ: Type) -> bool:
        """A module a call returns (no tamed function should: this is the second line). A
        variable holding one is judged where the module is stored in it, an item of
        ``sys.modules`` and a refused call (``import_module``) where they are imported."""
        proper = get_proper_type(typ)
        if not isinstance(proper, Instance) or proper.type.fullname != _MODULE_TYPE:
            return False
        if not isinstance(expr, CallExpr):
            return False
        callee = expr.callee
        return not (isinstance(callee, RefExpr) and self._was_refused(callee.fullname))

    # -- one value shared by every type argument ------------------------------------------

    def _class_rules(self, o: ClassDef) -> None:
        """A class attribute whose type holds a type variable of a generic class, or
        ``Self`` (one list for every subclass, each typed its own)."""
        super()._class_rules(o)
        for statement in o.defs.body:
            if not isinstance(statement, AssignmentStmt) or isinstance(statement.rvalue, TempNode):
                continue
            if _is_none(statement.rvalue) or _is_field_factory(statement.rvalue):
                continue
            for lvalue in statement.lvalues:
                var = lvalue.node if isinstance(lvalue, NameExpr) else None
                if isinstance(var, Var) and var.type and _has_type_variable(var.type):
                    key = "generic_class_value" if o.info.type_vars else "self_class_value"
                    message = MESSAGES[key].format(name=var.name, cls=o.name)
                    self._report(statement, message, HOOK_ESCAPE)

    def decorated(self, o: Decorator) -> None:
        super().decorated(o)
        function = o.func.type
        if not isinstance(function, CallableType) or not any(
            _has_type_variable(part) for part in [*function.arg_types, function.ret_type]
        ):
            return
        for decorator in o.decorators:
            callee = decorator.callee if isinstance(decorator, CallExpr) else decorator
            if isinstance(callee, RefExpr) and callee.fullname in _CACHES:
                message = MESSAGES["generic_cache"].format(name=o.func.name)
                self._report(decorator, message, HOOK_ESCAPE)

    def check_soundness(self) -> None:
        super().check_soundness()
        self.check_module_values()


def _captures(pattern: Pattern | None, *, under_class: bool) -> Iterator[tuple[NameExpr, bool]]:
    """The names ``pattern`` binds, each with whether a class pattern is around it."""
    if isinstance(pattern, AsPattern):
        if pattern.name is not None:
            yield pattern.name, under_class
        yield from _captures(pattern.pattern, under_class=under_class)
    elif isinstance(pattern, StarredPattern):
        if pattern.capture is not None:
            yield pattern.capture, under_class
    elif isinstance(pattern, MappingPattern):
        if pattern.rest is not None:
            yield pattern.rest, under_class
        for sub in pattern.values:
            yield from _captures(sub, under_class=under_class)
    elif isinstance(pattern, (OrPattern, SequencePattern)):
        for sub in pattern.patterns:
            yield from _captures(sub, under_class=under_class)
    elif isinstance(pattern, ClassPattern):
        for sub in [*pattern.positionals, *pattern.keyword_values]:
            yield from _captures(sub, under_class=True)


def has_any(typ: Type, *, errors: bool = True) -> bool:
    """Whether a value of ``typ`` may be an ``Any``; with ``errors=False``, not counting one
    mypy made of an error (where it reported that error)."""
    return some_part(typ, _any_test if errors else _any_test_past_errors)


def _any_test(proper: ProperType) -> bool | None:
    return True if isinstance(proper, AnyType) else None


def _any_test_past_errors(proper: ProperType) -> bool | None:
    if isinstance(proper, AnyType):
        return proper.type_of_any != TypeOfAny.from_error
    return None


def _holds(
    typ: Type, free: frozenset[TypeVarId], own: Callable[[str, str], bool], here: str
) -> bool:
    def test(proper: ProperType) -> bool | None:
        if isinstance(proper, TypeVarType):
            return proper.id not in free
        if isinstance(proper, Instance) and own(proper.type.fullname, here):
            return True
        return None

    return some_part(typ, test)


def _items(typ: Type) -> list[ProperType]:
    proper = get_proper_type(typ)
    return (
        [get_proper_type(item) for item in proper.items]
        if isinstance(proper, UnionType)
        else [proper]
    )


def _generator(item: ProperType) -> Instance | None:
    """``item`` as a ``Generator[Y, S, R]``, or None for another iterable."""
    if not isinstance(item, Instance):
        return None
    base = next((base for base in item.type.mro if base.fullname == "typing.Generator"), None)
    return map_instance_to_supertype(item, base) if base is not None else None


def _has_type_variable(typ: Type) -> bool:
    return some_part(typ, _type_variable_test)


def _type_variable_test(proper: ProperType) -> bool | None:
    return True if isinstance(proper, TypeVarType) else None


def _is_none(expr: Expression) -> bool:
    return isinstance(expr, NameExpr) and expr.fullname == "builtins.None"


def _is_field_factory(expr: Expression) -> bool:
    """``dataclasses.field(default_factory=...)``: a fresh value each instance."""
    return (
        isinstance(expr, CallExpr)
        and isinstance(expr.callee, RefExpr)
        and expr.callee.fullname in _FIELD
        and "default" not in expr.arg_names
    )
