"""The flow rules: where what the run stores, keeps or skips differs from what mypy models
(``docs/plugin.md``, "Soundness"; found by the thirteenth round, 2026-12-03 night):

- ``x.a = v`` through a union whose classes type ``a`` differently: mypy checks ``v``
  against the union of their types (mypy issue 17859), not against each class's;
- ``a & b`` (``intersection``) on sets: typed by ``a``'s elements, while CPython keeps the
  smaller set's, and two objects of one class with other type arguments can be equal;
- a descriptor of the hook module held under another declared type (a base without
  ``__get__``, a union), or stored on an instance, where mypy applies ``__get__`` and the
  run does not;
- ``with``: a manager whose ``__exit__`` is typed ``bool | None`` (or wider) may swallow the
  body's exception, which mypy then assumes never happens, so assignments the body did not
  reach are believed; under one typed ``bool`` mypy knows, but an unpacking target that
  fails is swallowed too; and a ``@contextmanager`` generator swallows what it catches at
  its ``yield`` while typeshed types it ``bool | None``.
"""

from __future__ import annotations

from typing import Final

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import (
    ARG_POS,
    AssignmentStmt,
    Block,
    BreakStmt,
    CallExpr,
    ClassDef,
    Context,
    ContinueStmt,
    Decorator,
    Expression,
    ForStmt,
    FuncDef,
    GeneratorExpr,
    IfStmt,
    ListComprehension,
    ListExpr,
    Lvalue,
    MatchStmt,
    MemberExpr,
    NameExpr,
    Node,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    RefExpr,
    ReturnStmt,
    SetComprehension,
    SetExpr,
    Statement,
    TryStmt,
    TupleExpr,
    TypeInfo,
    Var,
    WhileStmt,
    WithStmt,
    YieldExpr,
    YieldFromExpr,
)
from mypy.operators import op_methods, ops_with_inplace_method
from mypy.server.subexpr import get_subexpressions
from mypy.subtypes import find_member, is_same_type, is_subtype
from mypy.types import (
    CallableType,
    Instance,
    LiteralType,
    NoneType,
    ProperType,
    TupleType,
    Type,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_ESCAPE, MESSAGES
from .base import mangled
from .soundness import SoundnessRules

__all__ = ["FlowRules", "elements"]

_MAPPING_BUILDERS: Final = {
    "builtins.dict": 0,
    "collections.OrderedDict": 0,
    "collections.defaultdict": 1,
}
"""Constructors that take a mapping or pairs: the index of that argument."""
_DISPLAYS: Final = (
    ListExpr,
    TupleExpr,
    SetExpr,
    ListComprehension,
    SetComprehension,
    GeneratorExpr,
)
_ABSTRACT_MODULES: Final = frozenset(
    {"typing", "typing_extensions", "collections.abc", "_collections_abc", "_typeshed"}
)
"""Where the abstract classes live (``AbstractSet``, ``Collection``): a value declared as one
of them is often a library class with in-place operators (``set``, ``list``, ``deque``)."""
_DESCRIPTOR_METHODS: Final = ("__get__", "__set__", "__delete__")
_INTERSECTIONS: Final = frozenset({"intersection", "intersection_update"})
_MANAGER_DECORATORS: Final = frozenset(
    {"contextlib.contextmanager", "contextlib.asynccontextmanager"}
)
_GENERATOR_MANAGERS: Final = frozenset(
    {"contextlib._GeneratorContextManager", "contextlib._AsyncGeneratorContextManager"}
)
"""What a ``@contextmanager`` function returns: the hook module's are judged where they are
defined (no ``yield`` where an exception can be caught), so they swallow nothing."""
_SCOPES: Final = (FuncDef, Decorator, OverloadedFuncDef, ClassDef)


class FlowRules(SoundnessRules):
    # -- x.a = v through a union ----------------------------------------------------------

    def _target(self, lvalue: Lvalue, item_dunder: str) -> None:
        if isinstance(lvalue, MemberExpr) and self._union_disagrees(lvalue):
            message = MESSAGES["assign_union"].format(name=lvalue.name)
            self._report(lvalue, message, HOOK_ESCAPE)
        if isinstance(lvalue, MemberExpr):
            self._descriptor_on_instance(lvalue)
        super()._target(lvalue, item_dunder)

    def _union_disagrees(self, lvalue: MemberExpr) -> bool:
        typ = self.types.get(lvalue.expr)
        items = _union_items(typ) if typ is not None else []
        if len(items) < 2:
            return False
        first, *others = (_member_type(lvalue.name, item) for item in items)
        return first is None or any(
            other is None or not is_same_type(first, other) for other in others
        )

    # -- descriptors ----------------------------------------------------------------------

    def _class_rules(self, o: ClassDef) -> None:
        """``item: Holder = Slot()`` with ``Slot(Holder)`` adding ``__get__``: mypy types
        ``Box().item`` by the declaration, the run asks ``Slot.__get__``. A descriptor of the
        hook module is held only under its own class (``label = Named()``)."""
        super()._class_rules(o)
        if len(o.info.mro) > 3:  # more than one base: a mixin's setter may answer another's
            self._setters_over_attributes(o)
        keys = o.info.names.get("keys")
        if keys is not None and not o.info.has_base("typing.Mapping"):
            self._report(o, MESSAGES["keys_method"].format(cls=o.name), HOOK_ESCAPE)
        for statement in o.defs.body:
            defined = statement.name if isinstance(statement, (FuncDef, Decorator)) else None
            if defined is not None and mangled(defined):
                self._report(statement, MESSAGES["mangled"].format(name=defined), HOOK_ESCAPE)
            if not isinstance(statement, AssignmentStmt):
                continue
            for lvalue in statement.lvalues:
                if isinstance(lvalue, NameExpr) and mangled(lvalue.name):
                    message = MESSAGES["mangled"].format(name=lvalue.name)
                    self._report(statement, message, HOOK_ESCAPE)
            value = get_proper_type(self.types.get(statement.rvalue))
            if not (isinstance(value, Instance) and self._descriptor(value.type)):
                continue
            for lvalue in statement.lvalues:
                declared = (
                    lvalue.node.type
                    if isinstance(lvalue, NameExpr) and isinstance(lvalue.node, Var)
                    else None
                )
                if declared is None or not is_same_type(declared, value):
                    message = MESSAGES["descriptor"].format(name=value.type.name)
                    self._report(statement, message, HOOK_ESCAPE)

    def _setters_over_attributes(self, o: ClassDef) -> None:
        """``class Tapped(Tap, Record)``: ``Record``'s ``self.payload = payload`` runs
        ``Tap``'s property setter, whose parameter mypy never compares with ``Record``'s
        declaration (it compares the getter)."""
        mro = o.info.mro
        for index, owner in enumerate(mro):
            for name, symbol in owner.names.items():
                value = _setter_value(symbol.node)
                if value is None or mro[0].get(name) is not symbol:
                    continue  # not a settable property, or not the one the run finds
                for later in mro[index + 1 :]:
                    declared = later.names.get(name)
                    var = declared.node if declared is not None else None
                    if (
                        isinstance(var, Var)
                        and var.type is not None
                        and not is_subtype(var.type, value)
                    ):
                        message = MESSAGES["setter_over_attribute"].format(
                            name=name, setter=owner.name, base=later.name
                        )
                        self._report(o, message, HOOK_ESCAPE)
                        return

    def _descriptor(self, info: TypeInfo) -> bool:
        return self.grants.own_code(info.fullname, self.here) and any(
            info.get_method(name) is not None for name in _DESCRIPTOR_METHODS
        )

    def _descriptor_on_instance(self, lvalue: MemberExpr) -> None:
        """``self.desc = Desc()`` under ``desc: Desc``: mypy applies ``Desc.__get__`` to
        reads, and the run, which finds the value on the instance, does not."""
        receiver = lvalue.expr
        if isinstance(receiver, RefExpr) and isinstance(receiver.node, TypeInfo):
            return  # Box.desc = Desc(): on the class, where the run applies it too
        typ = self.types.get(receiver)
        if typ is None:
            return
        for info in self._classes(typ):
            symbol = info.get(lvalue.name)
            var = symbol.node if symbol is not None else None
            declared = get_proper_type(var.type) if isinstance(var, Var) and var.type else None
            if isinstance(declared, Instance) and self._descriptor(declared.type):
                message = MESSAGES["descriptor_on_instance"].format(name=lvalue.name)
                self._report(lvalue, message, HOOK_ESCAPE)
                return

    # -- set intersection -----------------------------------------------------------------

    def _op_expr(self, o: OpExpr) -> None:
        if o.op == "&":
            self._intersection(o, o.left, [o.right])

    def operated(self, o: OperatorAssignmentStmt) -> None:
        if o.op == "&":
            self._intersection(o, o.lvalue, [o.rvalue])
        typ = self.types.get(o.lvalue)
        if o.op not in ops_with_inplace_method or typ is None:
            return
        name = op_methods[o.op][2:]  # "or__"
        for item in _union_items(typ):
            if not isinstance(item, Instance) or item.type.get(f"__i{name}") is not None:
                continue  # a TypedDict's |= has a rule of its own
            if item.type.module_name not in _ABSTRACT_MODULES:
                continue  # a concrete class: its subclasses are the hook module's (checked)
            message = MESSAGES["in_place_fallback"].format(op=o.op, name=f"__i{name}")
            self._report(o, message, HOOK_ESCAPE)
            return

    def _call(self, o: CallExpr) -> None:
        super()._call(o)
        callee = o.callee
        if isinstance(callee, MemberExpr) and callee.name in _INTERSECTIONS:
            self._intersection(o, callee.expr, o.args)
        pairs = None
        if isinstance(callee, RefExpr) and callee.fullname in _MAPPING_BUILDERS:
            index = _MAPPING_BUILDERS[callee.fullname]
            pairs = o.args[index] if len(o.args) > index and o.arg_kinds[index] == ARG_POS else None
        elif isinstance(callee, MemberExpr) and callee.name == "update" and o.args:
            receiver = get_proper_type(self.types.get(callee.expr))
            if isinstance(receiver, Instance) and receiver.type.has_base("typing.MutableMapping"):
                pairs = o.args[0] if o.arg_kinds[0] == ARG_POS else None
        if pairs is not None and self._may_be_a_mapping(pairs):
            self._report(pairs, MESSAGES["pairs_mapping"], HOOK_ESCAPE)

    def _may_be_a_mapping(self, pairs: Expression) -> bool:
        """``dict(pairs)`` with ``pairs: Iterable[tuple[K, V]]``: mypy picks the overload of
        pairs, the run asks ``pairs.keys()`` first, and a dict (its keys the pairs) passes
        its values, which nothing typed. A display or a comprehension is no mapping."""
        if isinstance(pairs, _DISPLAYS):
            return False
        typ = self.types.get(pairs)
        builtins = self.grants.modules.file("builtins")
        symbol = builtins.names.get("dict") if builtins is not None else None
        dict_class = symbol.node if symbol is not None else None
        if typ is None or not isinstance(dict_class, TypeInfo):
            return True
        return any(
            not isinstance(item, Instance)
            or (item.type in dict_class.mro and item.type.get("keys") is None)
            for item in _union_items(typ)
        )

    def _intersection(
        self, context: Context, receiver: Expression, others: list[Expression]
    ) -> None:
        mine = elements(self.types.get(receiver), "typing.AbstractSet")
        if mine is None:
            return
        for other in others:
            if isinstance(other, (SetExpr, ListExpr, TupleExpr)):  # typed from the context
                theirs = [self.types.get(item) for item in other.items]
            elif isinstance(other, (SetComprehension, ListComprehension, GeneratorExpr)):
                generator = other if isinstance(other, GeneratorExpr) else other.generator
                theirs = [self.types.get(generator.left_expr)]
            else:
                theirs = [elements(self.types.get(other), "typing.Iterable")]
            if not all(typ is not None and is_subtype(typ, mine) for typ in theirs):
                self._report(context, MESSAGES["intersection"], HOOK_ESCAPE)
                return

    # -- with -----------------------------------------------------------------------------

    def managed(self, o: WithStmt) -> None:
        for expr, target in zip(o.expr, o.target, strict=False):
            typ = self.types.get(expr)
            swallows = _swallows(typ, o.is_async) if typ is not None else None
            if swallows is None:
                self._report(expr, MESSAGES["with_hidden_suppression"], HOOK_ESCAPE)
            elif swallows and target is not None and not isinstance(target, NameExpr):
                self._report(target, MESSAGES["with_target"], HOOK_ESCAPE)

    def decorated(self, o: Decorator) -> None:
        super().decorated(o)
        if any(
            isinstance(decorator, RefExpr) and decorator.fullname in _MANAGER_DECORATORS
            for decorator in o.decorators
        ):
            found = _caught_yield(o.func.body.body, catching=False)
            if found is not None:
                self._report(found, MESSAGES["manager_swallows"], HOOK_ESCAPE)


def _setter_value(node: object) -> Type | None:
    """The value type of a property's setter, or None."""
    if not isinstance(node, OverloadedFuncDef) or not node.is_property or len(node.items) < 2:
        return None
    setter = node.items[1]
    signature = setter.func.type if isinstance(setter, Decorator) else None
    if isinstance(signature, CallableType) and len(signature.arg_types) >= 2:
        return signature.arg_types[1]
    return None


def _swallows(typ: Type, is_async: bool) -> bool | None:
    """Whether a ``with`` over ``typ`` may swallow the body's exception as mypy knows it
    (False: never; True: typed ``bool``, which mypy accounts for), or None: it may, and mypy
    assumes it does not (``bool | None``, ``object``, a manager it cannot read)."""
    answers: set[bool | None] = set()
    for item in _union_items(typ):
        if isinstance(item, Instance) and item.type.fullname in _GENERATOR_MANAGERS:
            answers.add(False)
            continue
        member = _member_type("__aexit__" if is_async else "__exit__", item)
        exit_type = get_proper_type(member) if member is not None else None
        returned = exit_type.ret_type if isinstance(exit_type, CallableType) else None
        result = get_proper_type(returned) if returned is not None else None
        if is_async and isinstance(result, Instance) and result.args:  # Coroutine[.., .., R]
            result = get_proper_type(result.args[-1])
        answers.add(_exit_answer(result))
    if None in answers:
        return None
    return True in answers


def _exit_answer(result: ProperType | None) -> bool | None:
    parts = result.items if isinstance(result, UnionType) else [result]
    if all(_never_true(get_proper_type(part)) for part in parts):
        return False
    if isinstance(result, Instance) and result.type.fullname == "builtins.bool":
        return True
    if isinstance(result, LiteralType) and result.value is True:
        return True
    return None


def _never_true(part: ProperType | None) -> bool:
    return isinstance(part, NoneType) or (isinstance(part, LiteralType) and part.value is False)


def _caught_yield(body: list[Statement], *, catching: bool) -> Node | None:
    """The first ``yield`` of a generator where an exception thrown in at it can be caught:
    inside a ``try`` with a handler (or a ``finally`` that returns, breaks or continues), or
    inside a ``with``."""
    for statement in body:
        found = _statement_yield(statement, catching)
        if found is not None:
            return found
    return None


def _statement_yield(o: Statement, catching: bool) -> Node | None:
    if isinstance(o, _SCOPES):
        return None  # a scope of its own
    if isinstance(o, TryStmt):
        inner = catching or bool(o.handlers) or _leaves(o.finally_body)
        rest = [*o.handlers, o.else_body, o.finally_body]
        return _block_yield(o.body, inner) or _blocks_yield(rest, catching)
    if isinstance(o, WithStmt):
        return _expressions_yield(o.expr, catching) or _block_yield(o.body, True)
    if isinstance(o, IfStmt):
        exprs = list(o.expr)
    elif isinstance(o, WhileStmt):
        exprs = [o.expr]
    elif isinstance(o, ForStmt):
        exprs = [o.expr, o.index]
    elif isinstance(o, MatchStmt):
        exprs = [o.subject]
    else:
        return o if catching and _has_yield(o) else None
    return _expressions_yield(exprs, catching) or _blocks_yield(_blocks(o), catching)


def _blocks_yield(blocks: list[Block | None], catching: bool) -> Node | None:
    return next((found for block in blocks if (found := _block_yield(block, catching))), None)


def _block_yield(block: Block | None, catching: bool) -> Node | None:
    return _caught_yield(block.body, catching=catching) if block is not None else None


def _expressions_yield(exprs: list[Expression], catching: bool) -> Node | None:
    return next((expr for expr in exprs if catching and _has_yield(expr)), None)


def _has_yield(node: Node) -> bool:
    return any(isinstance(expr, (YieldExpr, YieldFromExpr)) for expr in get_subexpressions(node))


def _leaves(block: Block | None) -> bool:
    """A ``finally`` that returns, breaks or continues drops the exception it runs for."""
    if block is None:
        return False
    return any(
        isinstance(statement, (ReturnStmt, BreakStmt, ContinueStmt))
        or (not isinstance(statement, _SCOPES) and any(map(_leaves, _blocks(statement))))
        for statement in block.body
    )


def _blocks(o: Statement) -> list[Block | None]:
    if isinstance(o, TryStmt):
        return [o.body, *o.handlers, o.else_body, o.finally_body]
    if isinstance(o, IfStmt):
        return [*o.body, o.else_body]
    if isinstance(o, (WhileStmt, ForStmt)):
        return [o.body, o.else_body]
    if isinstance(o, WithStmt):
        return [o.body]
    if isinstance(o, MatchStmt):
        return list(o.bodies)
    return []


def elements(typ: Type | None, collection: str) -> Type | None:
    """The item type of ``typ`` seen as ``collection`` (a fullname), or None."""
    proper = get_proper_type(typ) if typ is not None else None
    if isinstance(proper, TupleType):
        proper = proper.partial_fallback
    if not isinstance(proper, Instance):
        return None
    base = next((base for base in proper.type.mro if base.fullname == collection), None)
    as_collection = map_instance_to_supertype(proper, base) if base is not None else None
    return as_collection.args[0] if as_collection is not None and as_collection.args else None


def _union_items(typ: Type) -> list[ProperType]:
    """The classes a value may be: a union's items, a type variable's bound or values."""
    proper = get_proper_type(typ)
    if isinstance(proper, TypeVarType):
        parts = proper.values or [proper.upper_bound]
        return [item for part in parts for item in _union_items(part)]
    if isinstance(proper, UnionType):
        return [item for part in proper.items for item in _union_items(part)]
    return [proper]


def _member_type(name: str, item: ProperType) -> Type | None:
    if isinstance(item, TupleType):
        item = item.partial_fallback
    return find_member(name, item, item) if isinstance(item, Instance) else None
