"""Where the function or class an expression refers to is defined, and whether its body can
be checked from the module being checked.

Only bodies of the module being checked can be walked: by the time a module is checked, the
type maps of the modules it imports are gone (and a cached module has no bodies at all).
"""

from __future__ import annotations

from typing import NamedTuple, final

from mypy.checker import TypeChecker
from mypy.maptype import map_instance_to_supertype
from mypy.nodes import (
    FUNC_NO_INFO,
    LDEF,
    CallExpr,
    Decorator,
    Expression,
    FuncDef,
    FuncItem,
    LambdaExpr,
    MemberExpr,
    MypyFile,
    Node,
    OverloadedFuncDef,
    RefExpr,
    TypeInfo,
    Var,
)
from mypy.subtypes import is_same_type
from mypy.types import CallableType, Instance, Type, TypeType, get_proper_type
from mypy.typevars import fill_typevars

from ._consts import EVENTS_MODULE, HOOK_BASE, HOOK_EVENT

__all__ = [
    "Definition",
    "class_of",
    "definition",
    "event_name",
    "function_of",
    "hook_input",
    "instance_class",
]


@final
class Definition(NamedTuple):
    """A function or class an expression refers to."""

    name: str
    """Its name as messages show it (``helper``, ``Session.load``)."""
    module: str
    """The module that defines it."""
    node: FuncItem | TypeInfo


def function_of(node: Node | None) -> FuncDef | None:
    """The function that runs when ``node`` (a def, decorated def or overload) is called."""
    if isinstance(node, Decorator):
        return node.func
    if isinstance(node, FuncDef):
        return node
    if isinstance(node, OverloadedFuncDef):
        return function_of(node.impl)
    return None


def definition(expr: Expression, checker: TypeChecker) -> Definition | None:
    """The function, method or class ``expr`` refers to, if any."""
    if not isinstance(expr, RefExpr):
        return None
    node = expr.node
    if isinstance(node, TypeInfo):
        return Definition(node.name, node.module_name, node)
    func = function_of(node)
    if func is not None:
        return _function_definition(func, expr, checker)
    if isinstance(expr, MemberExpr):
        owner = class_of(checker.lookup_type_or_none(expr.expr))
        if owner is not None:
            return _method(owner, expr.name)
    return None


def instance_class(expr: Expression, typ: Type) -> TypeInfo | None:
    """The class of the object ``expr`` (of type ``typ``) evaluates to, when it is built
    right there (``Guard()``) or named (``GUARD``, a parameter)."""
    if isinstance(expr, CallExpr) and isinstance(expr.callee, RefExpr):
        callee = expr.callee.node
        return callee if isinstance(callee, TypeInfo) else None
    if isinstance(expr, RefExpr):
        proper = get_proper_type(typ)
        return proper.type if isinstance(proper, Instance) else None
    return None


def _method(owner: TypeInfo, name: str) -> Definition | None:
    member = owner.get(name)
    method = function_of(member.node if member is not None else None)
    if method is None or method.info is FUNC_NO_INFO:
        return None
    return Definition(f"{method.info.name}.{method.name}", method.info.module_name, method)


def class_of(typ: Type | None) -> TypeInfo | None:
    """The class of an instance type, a class object or a constructor."""
    proper = get_proper_type(typ)
    if isinstance(proper, Instance):
        return proper.type
    if isinstance(proper, TypeType):
        return class_of(proper.item)
    if isinstance(proper, CallableType) and proper.is_type_obj():
        return proper.type_object()
    return None


def _function_definition(func: FuncDef, expr: RefExpr, checker: TypeChecker) -> Definition:
    if func.info is not FUNC_NO_INFO:
        return Definition(f"{func.info.name}.{func.name}", func.info.module_name, func)
    module = checker.tree.fullname
    if expr.kind == LDEF:
        return Definition(func.name, module, func)
    here = func.fullname == f"{module}.{func.name}"
    return Definition(func.name, module if here else func.fullname.rpartition(".")[0], func)


def event_name(input_type: Type | None, modules: dict[str, MypyFile]) -> str:
    """The name of the event in ``pod.events`` whose Input is ``input_type`` ("?" if none):
    derived from the catalogue module, so a new event is named without a change here."""
    events = modules.get(EVENTS_MODULE)
    if input_type is None or events is None:
        return "?"
    for name, symbol in events.names.items():
        node = symbol.node
        proper = get_proper_type(node.type) if isinstance(node, Var) else None
        if (
            isinstance(proper, Instance)
            and proper.type.fullname == HOOK_EVENT
            and proper.args
            and is_same_type(proper.args[0], input_type)
        ):
            return name
    return "?"


def hook_input(node: FuncItem | TypeInfo, checker: TypeChecker) -> Type | None:
    """The Input type a hook function or ``Hook`` subclass takes."""
    if isinstance(node, TypeInfo):
        own = fill_typevars(node)
        base = next((b for b in node.mro if b.fullname == HOOK_BASE), None)
        if base is None or not isinstance(own, Instance):
            return None
        declared = map_instance_to_supertype(own, base).args
        return declared[0] if declared else None
    typ = checker.lookup_type_or_none(node) if isinstance(node, LambdaExpr) else node.type
    signature = get_proper_type(typ)
    if not isinstance(signature, CallableType) or not signature.arg_types:
        return None
    bound = isinstance(node, FuncDef) and node.info is not FUNC_NO_INFO and not node.is_static
    index = 1 if bound and len(signature.arg_types) > 1 else 0
    return signature.arg_types[index]
