"""The narrowing rules: where mypy narrows a type that the run does not keep
(``docs/plugin.md``, "Soundness").

- a global, an attribute of hook code, a literal-index item or a local a nested function
  rebinds, read under a type narrowed (beyond removing ``None``) to one that holds a hook
  class: a call between the check and the read can store another value;
- ``==``, ``!=``, ``in``, ``not in`` and value patterns (``case Holder.view:``) narrow an
  operand to the other side's type, but the operands' ``__eq__`` gives the answer (a hook
  class's may answer ``True`` to anything);
- ``@final`` on a TypedDict: mypy then narrows a union by ``"key" in d``, and a value with
  extra keys (any TypedDict with fewer keys accepts one) breaks it;
- ``isinstance`` (or a class pattern) against a class with an invariant type parameter
  (``list``, ``dict``, ``set``, ``deque``, ``asyncio.Queue``...) from a type that does not fix
  its arguments (``object``, ``Sequence[object]``, an unrelated class): mypy invents the
  arguments, and a container typed otherwise elsewhere (``views: list[View]``) is written
  through the narrowed one (the eighth red team, 2026-12-03).
"""

from __future__ import annotations

from typing import Final

from mypy.expandtype import expand_type, expand_type_by_instance
from mypy.maptype import map_instance_to_supertype
from mypy.nodes import (
    INVARIANT,
    LDEF,
    AssignmentExpr,
    CallExpr,
    ClassDef,
    ComparisonExpr,
    Context,
    Expression,
    FuncDef,
    IndexExpr,
    IntExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    StrExpr,
    TupleExpr,
    TypeAlias,
    TypeInfo,
    Var,
)
from mypy.patterns import ValuePattern
from mypy.subtypes import is_same_type, is_subtype
from mypy.typeops import make_simplified_union
from mypy.types import (
    CallableType,
    Instance,
    LiteralType,
    NoneType,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypedDictType,
    TypeType,
    TypeVarType,
    UninhabitedType,
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_ESCAPE, MESSAGES
from .base import type_shown
from .retyping import RetypingRules
from .types import some_part

__all__ = ["NarrowingRules"]

_BY_EQUALITY: Final = frozenset({"==", "!=", "in", "not in"})
_ISINSTANCE: Final = "builtins.isinstance"
_READ_ONLY_GENERICS: Final = frozenset({"typing.Mapping", "re.Pattern", "re.Match"})
"""Invariant in a type parameter, but nothing can be written into them."""
_NEVER_NARROWED: Final = (
    NoneType,
    LiteralType,
    TupleType,
    TypedDictType,
    TypeType,
    UninhabitedType,
)
"""Kept as they are by the narrowing, or never an instance of a container (a callable may be
one: a list subclass with ``__call__``)."""
_SCALARS: Final = frozenset(
    {"builtins.str", "builtins.int", "builtins.float", "builtins.bytes", "builtins.bool"}
)
"""Classes whose values, narrowed by ``==`` to a hook Enum, are still what they were."""


class NarrowingRules(RetypingRules):
    # -- narrowing to a class whose type arguments mypy invents ---------------------------

    def _call(self, o: CallExpr) -> None:
        super()._call(o)
        callee = o.callee
        if isinstance(callee, RefExpr) and callee.fullname == _ISINSTANCE and len(o.args) == 2:
            for info in _named_classes(o.args[1]):
                self.narrowed_to(o, o.args[0], info)

    def narrowed_to(self, context: Context, subject: Expression | None, info: TypeInfo) -> None:
        """``subject`` narrowed to class ``info`` (by ``isinstance`` or a class pattern;
        ``subject`` None: a nested pattern's, not known)."""
        if not _invariant_generic(info):
            return
        typ = self.types.get(subject) if subject is not None else None
        member = "the value" if typ is None else _inventing_member(typ, info)
        if member is not None:
            message = MESSAGES["invented_arguments"].format(cls=info.name, member=member)
            self._report(context, message, HOOK_ESCAPE)

    # -- narrowing that a call can undo ---------------------------------------------------

    def _member_expr(self, o: MemberExpr) -> None:
        self._narrowed_attribute(o)
        super()._member_expr(o)

    def _name(self, o: NameExpr) -> None:
        super()._name(o)
        node = o.node
        if not isinstance(node, Var) or node.is_final:
            return
        if node.is_inferred and node.type is None:
            return
        if o.kind == LDEF:  # judged at the end, and only if a nested function rebinds it
            self._narrowed_locals.append((o, node))
            self._captured(o, node)
        elif node.fullname.startswith(self.own) and self._narrowing_undone(o, node):
            self._report(o, MESSAGES["narrowed"].format(name=o.name), HOOK_ESCAPE)

    def _narrowed_attribute(self, o: MemberExpr) -> None:
        """``self.x``, ``Class.x`` or ``module.x`` of hook code, read under a narrowed type."""
        receiver = o.expr
        node = receiver.node if isinstance(receiver, RefExpr) else None
        if isinstance(node, MypyFile):
            owner = node.fullname
            found = o.node
        else:
            typ = get_proper_type(self.types.get(receiver))
            info = node if isinstance(node, TypeInfo) else None
            if info is None and isinstance(typ, Instance):
                info = typ.type
            if info is None:
                return
            owner = info.fullname
            symbol = info.get(o.name)
            found = symbol.node if symbol is not None else None
        if not self.grants.own_code(owner, self.here) and owner != self.here:
            return
        mutable = isinstance(found, Var) and not found.is_final and not found.is_property
        if mutable and isinstance(found, Var):
            declared = _as_read_on(found, get_proper_type(self.types.get(receiver)))
            if self._narrowing_undone(o, found, declared):
                self._report(o, MESSAGES["narrowed"].format(name=o.name), HOOK_ESCAPE)

    def _index(self, o: IndexExpr) -> None:
        """``d["k"]``, ``xs[0]``: mypy narrows an item read with a literal index too."""
        super()._index(o)
        if o.analyzed is not None or not isinstance(o.index, (StrExpr, IntExpr)):
            return
        read = self.types.get(o)
        if read is None or not self._holds_own_class(read):
            return
        base = get_proper_type(self.types.get(o.base))
        declared: list[Type] = []
        if isinstance(base, TypedDictType) and isinstance(o.index, StrExpr):
            item = base.items.get(o.index.value)
            declared = [item] if item is not None else []
        elif isinstance(base, Instance):
            method = base.type.get_method("__getitem__")
            signature = get_proper_type(method.type) if method is not None else None
            items = signature.items if isinstance(signature, Overloaded) else [signature]
            declared = [
                expand_type_by_instance(item.ret_type, base)
                for item in items
                if isinstance(item, CallableType)
            ]
        elif isinstance(base, TupleType):
            return  # a tuple's items do not change
        if declared and not any(self._same_or_optional(read, typ) for typ in declared):
            index = o.index
            shown = f'["{index.value}"]' if isinstance(index, StrExpr) else f"[{index.value}]"
            self._report(o, MESSAGES["narrowed"].format(name=shown), HOOK_ESCAPE)

    def _narrowing_undone(self, expr: Expression, var: Var, declared: Type | None = None) -> bool:
        """A read whose type mypy narrowed (beyond removing None) to one that holds a hook
        class: a call between the check and the read can store a value of another class.
        ``declared``: the variable's type as read on the receiver (its type arguments and
        ``Self`` filled in), where that is not ``var.type``."""
        read = self.types.get(expr)
        if var.type is None or read is None or self._same_or_optional(read, var.type):
            return False
        if declared is not None and self._same_or_optional(read, declared):
            return False
        return self._holds_own_class(read)

    def _same_or_optional(self, read: Type, declared: Type) -> bool:
        """``read`` is ``declared``, ``None``, or ``declared`` without ``None``."""
        if is_same_type(read, declared) or isinstance(get_proper_type(read), NoneType):
            return True
        proper = get_proper_type(declared)
        if isinstance(proper, UnionType):
            kept = [
                item for item in proper.items if not isinstance(get_proper_type(item), NoneType)
            ]
            return is_same_type(read, make_simplified_union(kept))
        return False

    def enter_function(self, o: FuncDef) -> None:
        self._local_owners.append({id(argument.variable) for argument in o.arguments})

    def leave_function(self) -> None:
        self._local_owners.pop()

    def _captured(self, o: NameExpr, var: Var) -> None:
        """A nested function reading a local of the function around it: mypy keeps the outer
        narrowing there unless it sees a later assignment by line, and misses a loop's next
        turn and an ``except ... as`` rebinding (the run reads the cell when it is called)."""
        if not self._local_owners:
            return
        if not any(id(var) in owned for owned in self._local_owners):
            self._local_owners[-1].add(id(var))  # first seen: this function's own
        elif id(var) not in self._local_owners[-1] and self._narrowing_undone(o, var):
            self._report(o, MESSAGES["narrowed_capture"].format(name=var.name), HOOK_ESCAPE)

    def note_nonlocals(self, names: list[str]) -> None:
        self._nonlocals.update(names)

    def _holds_own_class(self, typ: Type) -> bool:
        def test(proper: ProperType) -> bool | None:
            if isinstance(proper, TypeVarType):
                return True
            if isinstance(proper, Instance) and self.grants.own_code(
                proper.type.fullname, self.here
            ):
                return True
            return None

        return some_part(typ, test)

    def check_narrowed_locals(self) -> None:
        for read, var in self._narrowed_locals:
            if var.name in self._nonlocals and self._narrowing_undone(read, var):
                self._report(read, MESSAGES["narrowed"].format(name=var.name), HOOK_ESCAPE)

    # -- narrowing by ==, in, and TypedDict keys ------------------------------------------

    def _comparison(self, o: ComparisonExpr) -> None:
        super()._comparison(o)
        for operator, left, right in zip(o.operators, o.operands, o.operands[1:], strict=False):
            if operator not in _BY_EQUALITY:
                continue
            if operator.endswith("in"):
                pairs = [(left, self._items(self.types.get(right)))]
            else:
                pairs = [(left, [self.types.get(right)]), (right, [self.types.get(left)])]
            for operand, targets in pairs:
                if self._narrowed_by_equality(operand, targets):
                    shown = operand.target if isinstance(operand, AssignmentExpr) else operand
                    name = _shown(shown)
                    self._report(
                        o,
                        MESSAGES["narrowed_equality"].format(operator=operator, name=name),
                        HOOK_ESCAPE,
                    )

    def _narrowed_by_equality(self, operand: Expression, targets: list[Type | None]) -> bool:
        """mypy narrows ``operand`` to a target that holds a hook class it is not already."""
        if isinstance(operand, AssignmentExpr):
            operand = operand.target  # (y := x) in views narrows y
        typ = self.types.get(operand)
        return typ is not None and any(self._equality_narrows(typ, target) for target in targets)

    def _equality_narrows(self, typ: Type, target: Type | None) -> bool:
        if target is None or _scalar(typ) or not self._equality_target(target):
            return False
        return not is_subtype(_without_none(typ), target)

    def _equality_target(self, target: Type) -> bool:
        """A type that holds a hook class whose ``==`` may be more than identity."""
        return self._holds_own_class(target) and not self._identity_only(target)

    def _identity_only(self, target: Type) -> bool:
        """A hook Enum's members that keep ``object.__eq__``: equal only to themselves (an
        Enum with members has no subclasses)."""
        proper = get_proper_type(target)
        if isinstance(proper, UnionType):
            return all(self._identity_only(item) for item in proper.items)
        if isinstance(proper, LiteralType):
            proper = proper.fallback
        if not isinstance(proper, Instance) or not proper.type.is_enum:
            return False
        info = proper.type
        owner = next((base for base in info.mro if "__eq__" in base.names), None)
        own_eq = owner is not None and self.grants.own_code(owner.fullname, self.here)
        return bool(info.enum_members) and not own_eq

    def value_pattern(self, pattern: ValuePattern, subject: Expression | None) -> None:
        """``case Holder.view:`` compares with ``==`` and narrows the subject (and what the
        pattern captures) to the value's type; a nested pattern's subject is not known."""
        target = self.types.get(pattern.expr)
        if target is None or not self._equality_target(target):
            return
        typ = self.types.get(subject) if subject is not None else None
        if typ is None or self._equality_narrows(typ, target):
            name = _shown(subject)
            message = MESSAGES["narrowed_equality"].format(operator="case", name=name)
            self._report(pattern, message, HOOK_ESCAPE)

    def _items(self, typ: Type | None) -> list[Type | None]:
        """What ``x in container`` narrows ``x`` to: the item types (mypy's are Container's)."""
        proper = get_proper_type(typ)
        if isinstance(proper, UnionType):
            return [item for part in proper.items for item in self._items(part)]
        if isinstance(proper, TupleType):
            return list(proper.items)
        if isinstance(proper, Instance):
            container = next((b for b in proper.type.mro if b.fullname == "typing.Container"), None)
            if container is not None:
                return list(map_instance_to_supertype(proper, container).args)
        return []

    def _class_rules(self, o: ClassDef) -> None:
        super()._class_rules(o)
        if o.info.typeddict_type is not None and o.info.is_final:
            self._report(o, MESSAGES["typeddict_final"].format(cls=o.name), HOOK_ESCAPE)


def _shown(expr: Expression | None) -> str:
    return f'"{expr.name}"' if isinstance(expr, (NameExpr, MemberExpr)) else "the value"


def _without_none(typ: Type) -> Type:
    proper = get_proper_type(typ)
    if isinstance(proper, UnionType):
        kept = [item for item in proper.items if not isinstance(get_proper_type(item), NoneType)]
        return make_simplified_union(kept)
    return typ


def _scalar(typ: Type) -> bool:
    """``str``, ``int``, ... (a literal, a union of them, ``None`` included)."""
    proper = get_proper_type(typ)
    if isinstance(proper, UnionType):
        return all(_scalar(item) for item in proper.items)
    if isinstance(proper, LiteralType):
        proper = proper.fallback
    if isinstance(proper, NoneType):
        return True
    return isinstance(proper, Instance) and proper.type.fullname in _SCALARS


def _named_classes(expr: Expression) -> list[TypeInfo]:
    """The classes ``isinstance``'s second argument names (a class, an alias, a tuple)."""
    if isinstance(expr, TupleExpr):
        return [info for item in expr.items for info in _named_classes(item)]
    node = expr.node if isinstance(expr, RefExpr) else None
    if isinstance(node, TypeAlias):
        target = get_proper_type(node.target)
        return [target.type] if isinstance(target, Instance) else []
    return [node] if isinstance(node, TypeInfo) else []


def _invariant_generic(info: TypeInfo) -> bool:
    """A class with an invariant type parameter, its own or a base's (``class Shelf(dict[str,
    View])``: ``Shelf.fromkeys`` builds one holding anything): what it holds can be
    written."""
    return any(
        base.fullname not in _READ_ONLY_GENERICS
        and any(
            isinstance(variable, TypeVarType) and variable.variance == INVARIANT
            for variable in base.defn.type_vars
        )
        for base in info.mro
    )


def _inventing_member(typ: Type, info: TypeInfo) -> str | None:
    """A member of ``typ`` whose narrowing to ``info`` has arguments mypy made up, shown."""
    proper = get_proper_type(typ)
    for member in proper.items if isinstance(proper, UnionType) else [proper]:
        part = get_proper_type(member)
        if isinstance(part, TypeVarType):
            part = get_proper_type(part.upper_bound)
        if isinstance(part, _NEVER_NARROWED):
            continue  # mypy keeps it, or it cannot be an instance of a class
        if isinstance(part, Instance) and (
            part.type.has_base(info.fullname)  # its own arguments: real
            or part.type.is_final
            or (part.type.module_name == "builtins" == info.module_name and not _is_object(part))
        ):  # builtins' layouts exclude each other: no object is both
            continue
        return type_shown(part)
    return None


def _is_object(typ: Instance) -> bool:
    return typ.type.fullname == "builtins.object"


def _as_read_on(var: Var, receiver: ProperType | None) -> Type | None:
    """``var``'s declared type as mypy gives it to a read on ``receiver`` (an instance):
    its class's type arguments and ``Self`` are the receiver's."""
    declared = var.type
    if declared is None or not isinstance(receiver, Instance):
        return declared
    owner = var.info
    if owner.self_type is not None:
        declared = expand_type(declared, {owner.self_type.id: receiver})
    if receiver.type.has_base(owner.fullname):
        declared = expand_type_by_instance(declared, map_instance_to_supertype(receiver, owner))
    return declared
