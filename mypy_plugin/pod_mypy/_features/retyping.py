"""The retyping rules: calls mypy does not check against the callable that runs, so that a
value reaches hook code under a type it does not have (``docs/plugin.md``, "Soundness").

- a ``functools`` cache takes ``*args: Hashable``: its calls are checked here against the
  function it wraps, and it may not be handed on; a ``functools.partial`` neither;
- a hook-module callable handed to a parameter that does not type its parameters
  (``Callable[..., T]``, ``Any``), by a call or as a decorator, and ``Callable[..., T]`` in
  hook code's own annotations;
- variant type variables (declared, or inferred by mypy from attributes it wrongly reads as
  read-only), and calls of ``type[tuple[...]]`` (a NamedTuple built unchecked).
"""

from __future__ import annotations

from typing import Final

from mypy.argmap import map_actuals_to_formals
from mypy.nodes import (
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    FUNC_NO_INFO,
    INVARIANT,
    ArgKind,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Context,
    Decorator,
    Expression,
    LambdaExpr,
    MemberExpr,
    NameExpr,
    RefExpr,
    TypeInfo,
    Var,
)
from mypy.subtypes import has_underscore_prefix, is_subtype
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    NoneType,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypeOfAny,
    TypeType,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_ESCAPE, MESSAGES
from .syntax import SyntaxRules
from .types import some_part

__all__ = ["RetypingRules", "called_only", "dispatch_register"]

_CACHE_WRAPPER: Final = "functools._lru_cache_wrapper"
_DISPATCHERS: Final = frozenset(
    {"functools._SingleDispatchCallable", "functools.singledispatchmethod"}
)
_TYPE_VARS: Final = frozenset({"typing.TypeVar", "typing_extensions.TypeVar"})
_VARIANCE: Final = frozenset({"covariant", "contravariant", "infer_variance"})
_CHECKS_ITS_CALLS: Final = frozenset({"functools.partial"})
"""Library callables mypy checks the calls of against the callable they are handed."""
_CALLED_ONLY: Final = frozenset({_CACHE_WRAPPER, "functools.partial"})
"""Callables whose ``__call__`` takes any argument: mypy (or this rule, for caches) checks a
call only where it is written, so they may be called, bound to a name and have members read,
but not handed on (``map(partial(f), xs)`` calls ``f`` unchecked)."""


class RetypingRules(SyntaxRules):
    def _call(self, o: CallExpr) -> None:
        super()._call(o)
        callee = o.callee
        callee_type = get_proper_type(self.types.get(callee))
        if isinstance(callee, RefExpr) and callee.fullname in _TYPE_VARS:
            self._variance(o)
        if called_only(callee_type):
            self._cache_uses.add(id(callee))
        if _is_cache(callee_type):
            self._cache_call(o)
        elif isinstance(callee_type, TypeType) and _is_tuple(callee_type.item):
            self._report(o, MESSAGES["tuple_type_call"], HOOK_ESCAPE)
        if isinstance(callee_type, (CallableType, Overloaded)) and not (
            isinstance(callee, RefExpr) and callee.fullname in _CHECKS_ITS_CALLS
        ):
            self._untyped_callbacks(o, callee_type)

    def _class_rules(self, o: ClassDef) -> None:
        super()._class_rules(o)
        if o.type_args:  # class Box[T]: mypy infers T's variance, reading "_x" as read-only
            self._inferred_variance(o)

    def _inferred_variance(self, o: ClassDef) -> None:
        variant = {
            variable.id: variable.name
            for variable in o.info.defn.type_vars
            if isinstance(variable, TypeVarType) and variable.variance != INVARIANT
        }
        found: list[str] = []

        def variant_part(part: ProperType) -> bool | None:
            if isinstance(part, TypeVarType) and part.id in variant:
                found.append(variant[part.id])
                return True
            return None

        for name, symbol in o.info.names.items():
            node = symbol.node
            if not isinstance(node, Var) or node.is_final or node.is_property or node.type is None:
                continue
            if has_underscore_prefix(name) and some_part(node.type, variant_part, parameters=True):
                message = MESSAGES["variance_inferred"].format(
                    cls=o.name, variable=found[-1], name=name
                )
                self._report(o, message, HOOK_ESCAPE)

    def _variance(self, o: CallExpr) -> None:
        for name, value in zip(o.arg_names, o.args, strict=False):
            if name in _VARIANCE and not (isinstance(value, NameExpr) and value.name == "False"):
                self._report(o, MESSAGES["variance"].format(name=name), HOOK_ESCAPE)

    def _cache_call(self, o: CallExpr) -> None:
        """A functools cache takes ``*args: Hashable``: its calls are checked here against the
        function it wraps, which must be named where it is called."""
        parameters = self._cached_parameters(o.callee)
        if parameters is None:
            self._report(o, MESSAGES["cache_indirect"], HOOK_ESCAPE)
            return
        kinds, names, formal_types = parameters
        if any(kind in (ARG_STAR, ARG_STAR2) for kind in o.arg_kinds):
            self._report(o, MESSAGES["cache_arguments"], HOOK_ESCAPE)
            return
        formals = map_actuals_to_formals(
            o.arg_kinds,
            o.arg_names,
            kinds,
            names,
            lambda index: self.types.get(o.args[index]) or AnyType(TypeOfAny.special_form),
        )
        mapped = {index for actuals in formals for index in actuals}
        if len(mapped) != len(o.args):
            self._report(o, MESSAGES["cache_arguments"], HOOK_ESCAPE)
            return
        for formal, actuals in zip(formal_types, formals, strict=False):
            for index in actuals:
                actual = self.types.get(o.args[index])
                if actual is None or not is_subtype(actual, formal):
                    self._report(o, MESSAGES["cache_arguments"], HOOK_ESCAPE)
                    return

    def _cached_parameters(
        self, callee: Expression
    ) -> tuple[list[ArgKind], list[str | None], list[Type]] | None:
        """The parameters of the function a cache called as ``callee`` wraps (without the
        instance or class a method is bound to)."""
        node = callee.node if isinstance(callee, RefExpr) else None
        bound = False
        if isinstance(callee, MemberExpr) and not isinstance(node, Decorator):
            receiver = callee.expr
            bound = not (isinstance(receiver, RefExpr) and isinstance(receiver.node, TypeInfo))
            infos = list(self._classes(self.types.get(receiver) or NoneType()))
            symbol = infos[0].get(callee.name) if len(infos) == 1 else None
            node = symbol.node if symbol is not None else None
        if not isinstance(node, Decorator) or not isinstance(node.func.type, CallableType):
            return None
        signature = node.func.type
        skip = 1 if node.func.info is not FUNC_NO_INFO and (bound or node.func.is_class) else 0
        return (
            signature.arg_kinds[skip:],
            signature.arg_names[skip:],
            signature.arg_types[skip:],
        )

    def _untyped_callbacks(self, o: CallExpr, callee: CallableType | Overloaded) -> None:
        """A hook-module callable handed to a formal that does not type its parameters
        (``Callable[..., T]``, ``Callable[[Any], Any]``) is called with what mypy never
        checked against the callable's parameters."""
        signatures = callee.items if isinstance(callee, Overloaded) else [callee]
        for signature in signatures:
            if not any(_untyped_callable(formal) for formal in signature.arg_types):
                continue  # most calls: nothing to map
            formals = map_actuals_to_formals(
                o.arg_kinds,
                o.arg_names,
                signature.arg_kinds,
                signature.arg_names,
                lambda index: self.types.get(o.args[index]) or AnyType(TypeOfAny.special_form),
            )
            for formal, actuals in zip(signature.arg_types, formals, strict=False):
                if not _untyped_callable(formal):
                    continue
                for index in actuals:
                    if self._hook_callable(o.args[index]):
                        self._report(o.args[index], MESSAGES["untyped_callback"], HOOK_ESCAPE)
                        return

    def decorated(self, o: Decorator) -> None:
        """A decorator is a call too: one whose parameter does not type the function's
        parameters (``@dispatch.register(str)``, ``@functools.singledispatch``) calls it with
        what mypy never checked. ``functools`` caches are checked where they are called, and a
        bare ``@dispatch.register`` dispatches on the function's own annotation."""
        function = o.func.type
        first = 1 if o.func.info is not FUNC_NO_INFO else 0
        if not isinstance(function, CallableType) or all(
            _is_object(arg) for arg in function.arg_types[first:]
        ):
            return
        decorator = o.decorators[-1] if o.decorators else None  # the one handed the function
        if decorator is None:
            return
        if dispatch_register(decorator, self.types):
            # the dispatcher takes *args: Any: only the first parameter is its class's
            if not all(_is_object(arg) for arg in function.arg_types[first + 1 :]):
                self._report(decorator, MESSAGES["dispatch_extra"], HOOK_ESCAPE)
            return
        typ = get_proper_type(self.types.get(decorator))
        signatures = (
            typ.items
            if isinstance(typ, Overloaded)
            else [typ]
            if isinstance(typ, CallableType)
            else []
        )
        for signature in signatures:
            if _is_cache(signature.ret_type) or not signature.arg_types:
                continue
            if signature.arg_kinds[0] in (ARG_POS, ARG_OPT) and _untyped_callable(
                signature.arg_types[0]
            ):
                self._report(decorator, MESSAGES["untyped_callback"], HOOK_ESCAPE)
                return

    def _hook_callable(self, expr: Expression) -> bool:
        """Whether calling ``expr`` runs hook-module code that trusts its parameters' types."""
        if isinstance(expr, LambdaExpr):
            return True
        typ = get_proper_type(self.types.get(expr))
        if isinstance(typ, Instance):
            if typ.type.fullname in _CHECKS_ITS_CALLS:
                return True  # partial(...) held as a value: its calls are no longer checked
            method = typ.type.get_method("__call__")
            return method is not None and self.grants.own_code(method.fullname, self.here)
        if isinstance(typ, (CallableType, Overloaded)):
            items = typ.items if isinstance(typ, Overloaded) else [typ]
            for item in items:
                if item.is_type_obj():
                    if self.grants.own_code(item.type_object().fullname, self.here):
                        return True
                    continue
                definition = item.definition
                if definition is None or not self.grants.own_code(definition.fullname, self.here):
                    continue
                if not all(_is_object(arg) for arg in item.arg_types):
                    return True
        return False

    def annotation_callables(self, context: Context, typ: Type | None) -> None:
        """A ``Callable[..., T]`` declared in hook code holds a typed function and calls it
        unchecked."""
        if typ is not None and _has_ellipsis_callable(typ):
            self._report(context, MESSAGES["ellipsis_annotation"], HOOK_ESCAPE)

    def check_handed_on(self) -> None:
        """Caches and partials anywhere but where they are called, bound or asked."""
        uses = self._cache_uses
        for expr, typ in self.types.items():
            if type(typ) is not Instance or typ.type.fullname not in _CALLED_ONLY:
                continue
            if id(expr) not in uses:
                key = "cache_value" if typ.type.fullname == _CACHE_WRAPPER else "partial_value"
                self._report(expr, MESSAGES[key], HOOK_ESCAPE)

    def bind(self, o: AssignmentStmt) -> None:
        """``p = functools.partial(f, x)``: a name holds it, and its uses are judged."""
        if all(isinstance(lvalue, NameExpr) for lvalue in o.lvalues):
            self._cache_uses.update(id(expr) for expr in [o.rvalue, *o.lvalues])


def dispatch_register(decorator: Expression, types: dict[Expression, Type]) -> bool:
    """``@dispatch.register`` written bare: singledispatch dispatches on the annotation."""
    if not isinstance(decorator, MemberExpr) or decorator.name != "register":
        return False
    receiver = get_proper_type(types.get(decorator.expr))
    return isinstance(receiver, Instance) and receiver.type.fullname in _DISPATCHERS


def called_only(typ: Type | None) -> bool:
    proper = get_proper_type(typ)
    return isinstance(proper, Instance) and proper.type.fullname in _CALLED_ONLY


def _is_cache(typ: Type | None) -> bool:
    proper = get_proper_type(typ)
    return isinstance(proper, Instance) and proper.type.fullname == _CACHE_WRAPPER


def _is_tuple(typ: Type) -> bool:
    proper = get_proper_type(typ)
    if isinstance(proper, TupleType):
        return True
    return isinstance(proper, Instance) and proper.type.fullname == "builtins.tuple"


def _is_object(typ: Type) -> bool:
    proper = get_proper_type(typ)
    return isinstance(proper, Instance) and proper.type.fullname == "builtins.object"


def _untyped_callable(typ: Type) -> bool:
    proper = get_proper_type(typ)
    if isinstance(proper, UnionType):
        return any(_untyped_callable(item) for item in proper.items)
    if isinstance(proper, CallableType):
        return proper.is_ellipsis_args or any(
            isinstance(get_proper_type(arg), AnyType) for arg in proper.arg_types
        )
    return False


def _has_ellipsis_callable(typ: Type) -> bool:
    return some_part(typ, _ellipsis_test, parameters=True)


def _ellipsis_test(proper: ProperType) -> bool | None:
    if isinstance(proper, CallableType) and proper.is_ellipsis_args and not proper.is_type_obj():
        return True
    return None
