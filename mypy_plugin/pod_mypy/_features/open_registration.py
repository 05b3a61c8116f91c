"""Registration in the open: ``registry.on`` is called directly, in any module.

A registration the plugin does not see is a hook it never checks. So, in every module of the
project (hook code or not, importing llm-pod or only another module's registry), these are
errors (``hook-boundary``):

- ``registry.on`` used as a value (``on = registry.on``, ``register(registry.on)``);
- ``getattr(registry, ...)``;
- a registry cast, or assigned or passed to something typed ``Any``, ``object`` or a
  Protocol, where mypy no longer knows it is one.

This scan reads the types mypy stored on the module's variables and functions (it needs no
type map), so it also runs for modules that register nothing.
"""

from __future__ import annotations

from typing import Final, cast

from mypy.expandtype import expand_type_by_instance
from mypy.nodes import (
    ARG_POS,
    AssignmentStmt,
    CallExpr,
    CastExpr,
    Expression,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    Var,
)
from mypy.server.subexpr import get_subexpressions
from mypy.types import AnyType, CallableType, Instance, Type, get_proper_type

from .._consts import REGISTRY_CLASS
from .._defs import function_of

__all__ = ["open_registrations"]

ALIASED: Final = (
    '"registry.on" used as a value: call registry.on(EVENT, hook) or @registry.on(EVENT) '
    "directly, so pod_mypy sees every registration"
)
REFLECTED: Final = (
    "getattr() on a HookRegistry hides its registrations from pod_mypy: call registry.on directly"
)
HIDDEN: Final = (
    "a HookRegistry {how} loses its type, and pod_mypy no longer sees its registrations: "
    "keep it typed HookRegistry"
)


def _is_registry(typ: Type | None) -> bool:
    proper = get_proper_type(typ)
    return isinstance(proper, Instance) and proper.type.fullname == REGISTRY_CLASS


def _opaque(typ: Type | None) -> bool:
    proper = get_proper_type(typ)
    if isinstance(proper, AnyType):
        return True
    return isinstance(proper, Instance) and (
        proper.type.fullname == "builtins.object" or proper.type.is_protocol
    )


def _registry_value(expr: Expression, variables: dict[Var, bool] | None = None) -> bool:
    """Whether ``expr`` holds a registry; ``variables`` keeps the answers by variable (a
    module passes the same ones often)."""
    kind = type(expr)  # mypy has no subclasses of these node classes
    if kind is NameExpr or kind is MemberExpr:
        node = cast(RefExpr, expr).node
        if type(node) is Var:  # a variable, or a module's attribute: its stored type
            if variables is None:
                return _is_registry(node.type)
            known = variables.get(node)
            if known is None:
                known = variables[node] = _is_registry(node.type)
            return known
        if kind is NameExpr:
            return False
    return _is_registry(_stored_type(expr))


def _stored_type(expr: Expression) -> Type | None:
    """The type mypy stored on the variable ``expr`` names, also through an attribute chain
    (``self.app.registry``: each step is an attribute of the previous one's class)."""
    if isinstance(expr, NameExpr):
        return expr.node.type if isinstance(expr.node, Var) else None
    if not isinstance(expr, MemberExpr):
        return None
    if isinstance(expr.node, Var):
        return expr.node.type  # a module's attribute
    owner = get_proper_type(_stored_type(expr.expr))
    if not isinstance(owner, Instance):
        return None
    symbol = owner.type.get(expr.name)
    if symbol is None or not isinstance(symbol.node, Var) or symbol.node.type is None:
        return None
    return expand_type_by_instance(symbol.node.type, owner)


def open_registrations(file: MypyFile) -> list[tuple[int, int, str]]:
    """``(line, column, message)`` for every registration the plugin could not see."""
    calls: list[CallExpr] = []
    casts: list[CastExpr] = []
    members: list[MemberExpr] = []
    for expr in get_subexpressions(file):
        if isinstance(expr, CallExpr):
            calls.append(expr)
        elif isinstance(expr, MemberExpr):
            members.append(expr)
        elif isinstance(expr, CastExpr):
            casts.append(expr)
    found: list[tuple[int, int, str]] = []
    variables: dict[Var, bool] = {}
    for call in calls:
        for argument in call.args:
            kind = type(argument)
            if (kind is NameExpr or kind is MemberExpr) and _registry_value(argument, variables):
                found.extend(_call(call))
                break
    for cast_expr in casts:
        if _registry_value(cast_expr.expr):
            found.append(
                (cast_expr.line, cast_expr.column, HIDDEN.format(how="cast to another type"))
            )
    named_on = [
        member for member in members if member.name == "on" and _registry_value(member.expr)
    ]
    if named_on:
        callees = {id(call.callee) for call in calls}
        found.extend((m.line, m.column, ALIASED) for m in named_on if id(m) not in callees)
    for statement in file.defs:
        if type(statement) is not AssignmentStmt or len(statement.lvalues) != 1:
            continue
        target = statement.lvalues[0]
        if (
            isinstance(target, NameExpr)
            and isinstance(target.node, Var)
            and _opaque(target.node.type)
            and _registry_value(statement.rvalue)
        ):
            how = "assigned to a variable typed Any, object or a Protocol"
            found.append((statement.line, statement.column, HIDDEN.format(how=how)))
    return found


def _call(call: CallExpr) -> list[tuple[int, int, str]]:
    """For a call given a registry: reflection on it, or a parameter that loses its type."""
    callee = call.callee
    if isinstance(callee, RefExpr) and callee.fullname == "builtins.getattr":
        return [(call.line, call.column, REFLECTED)] if _registry_value(call.args[0]) else []
    signature = _signature(callee)
    if signature is None:
        return []
    found: list[tuple[int, int, str]] = []
    for index, (argument, kind) in enumerate(zip(call.args, call.arg_kinds, strict=True)):
        if kind != ARG_POS or index >= len(signature.arg_types):
            continue
        if _registry_value(argument) and _opaque(signature.arg_types[index]):
            how = "passed as a parameter typed Any, object or a Protocol"
            found.append((argument.line, argument.column, HIDDEN.format(how=how)))
    return found


def _signature(callee: Expression) -> CallableType | None:
    if not isinstance(callee, RefExpr):
        return None
    func = function_of(callee.node)
    if func is None or func.type is None:
        return None
    return func.type if isinstance(func.type, CallableType) else None
