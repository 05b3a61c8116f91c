"""What counts as hook code, and ``hook-signature``.

Hook code is found where mypy type-checks the call that makes it a hook:

- ``registry.on(EVENT, fn)``: ``fn`` is a function or method of this module, a lambda, or an
  instance of a class of this module (its whole class is hook code);
- ``@registry.on(EVENT)`` and ``@hook(EVENT)``: the decorated function;
- a subclass of ``pod.Hook``: the whole class (mypy checks a call to ``Hook.__init_subclass__``
  for every subclass, and that call is the trigger).

A ``@hook`` function or a ``Hook`` instance was checked where it was defined, so registering
it anywhere is fine. Anything else whose body is not in this module cannot be checked here
and is reported as unverifiable (``hook-boundary``): it never passes silently.

``hook-signature``: the hook's parameter must be exactly the event's Input (mypy alone
accepts ``object`` or ``Any`` there) and its result must not be ``Any`` (which admits every
decision, including those the event forbids; other wrong decisions are mypy's own errors).
"""

from __future__ import annotations

import sys

from mypy.checker import TypeChecker
from mypy.maptype import map_instance_to_supertype
from mypy.messages import format_type
from mypy.nodes import (
    ARG_POS,
    ARG_STAR,
    CallExpr,
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
from mypy.plugin import MethodContext
from mypy.subtypes import find_member, is_same_type, is_subtype
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    Overloaded,
    ProperType,
    Type,
    TypeAliasType,
    UnionType,
    get_proper_type,
)
from mypy.typevars import fill_typevars

from .._consts import (
    DECLARED_HOOK_TYPES,
    HOOK_BASE,
    HOOK_BOUNDARY,
    HOOK_DECORATOR,
    HOOK_EVENT,
    HOOK_SIGNATURE,
    SIGNATURE_EVENT,
    SIGNATURE_INPUT,
    SIGNATURE_OUTPUT,
    UNTRUSTED_PACKAGE,
    UNVERIFIABLE_DECLARED,
    UNVERIFIABLE_EXPRESSION,
)
from .._defs import definition, event_name, instance_class
from .._hooks import Collector, HookSite, ModuleHooks
from .._modules import HOST_PACKAGES, is_installed
from .._report import HookEntry, active

__all__ = ["on_class_defined", "on_decorator_applied", "on_registration"]

_AWAITABLES = frozenset({"typing.Coroutine", "typing.Awaitable"})
_STDLIB = frozenset(sys.stdlib_module_names)


def on_registration(collector: Collector, ctx: MethodContext) -> Type:
    """``registry.on(EVENT, fn)``; also the first half of ``@registry.on(EVENT)``."""
    # Formals: (event, hook, /, *, on_error, timeout), or (event, /, *, ...) for the decorator
    # form; positional-only formals have no name.
    names = ctx.callee_arg_names
    if len(names) < 2 or names[1] not in (None, "hook"):
        return ctx.default_return_type
    hooks = collector.module(ctx.api, ctx.context)
    if hooks is None:
        return ctx.default_return_type
    if ctx.args[1] and ctx.arg_types[0]:
        expr, event_type, hook_type = ctx.args[1][0], ctx.arg_types[0][0], ctx.arg_types[1][0]
        if not hooks.repeated(ctx.context, expr, event_type, hook_type):
            event = _event_types(event_type, hooks, ctx.context)
            _register(hooks, expr, hook_type, event, ctx.context)
    return ctx.default_return_type


def on_decorator_applied(collector: Collector, ctx: MethodContext) -> Type:
    """Applying what ``registry.on(EVENT)`` or ``hook(EVENT)`` returned to a function."""
    hooks = collector.module(ctx.api, ctx.context)
    if hooks is None or not ctx.args or not ctx.args[0]:
        return ctx.default_return_type
    receiver, expr, hook_type = ctx.type, ctx.args[0][0], ctx.arg_types[0][0]
    if hooks.repeated(ctx.context, receiver, expr, hook_type):
        return ctx.default_return_type
    event = (
        (receiver.args[0], receiver.args[1])
        if isinstance(receiver, Instance) and len(receiver.args) == 2
        else None
    )
    if isinstance(ctx.context, Decorator):
        func = ctx.context.func
        hooks.add(HookSite(func.name, func))
        if event is not None:
            _check_signature(func.name, hook_type, event, hooks, ctx.context)
    else:
        _register(hooks, expr, hook_type, event, ctx.context)
    return ctx.default_return_type


def on_class_defined(collector: Collector, ctx: MethodContext) -> Type:
    """The call mypy simulates to ``__init_subclass__`` of a base, once per subclass."""
    api = ctx.api
    classes = api.tscope.classes if isinstance(api, TypeChecker) else []
    info = classes[-1] if classes else None
    if info is None or not info.has_base(HOOK_BASE):
        return ctx.default_return_type
    hooks = collector.module(api, ctx.context)
    if hooks is None:
        return ctx.default_return_type
    hooks.add(HookSite(info.name, info))
    call = info.get_method("__call__")
    own = fill_typevars(info)
    if call is not None and call.info.fullname != HOOK_BASE and isinstance(own, Instance):
        declared = _hook_arguments(info, own)
        if len(declared) == 2:
            _check_signature(info.name, own, (declared[0], declared[1]), hooks, ctx.context)
    return ctx.default_return_type


def _hook_arguments(info: TypeInfo, own: Instance) -> tuple[Type, ...]:
    """The ``Input``/``Output`` a ``Hook`` subclass declares: as written in its bases when it
    subclasses ``Hook[...]`` directly (the common case), else mapped along its MRO."""
    for base in info.bases:
        if base.type.fullname == HOOK_BASE:
            return tuple(base.args)
    hook = next(b for b in info.mro if b.fullname == HOOK_BASE)
    return tuple(map_instance_to_supertype(own, hook).args)


def _register(
    hooks: ModuleHooks,
    expr: Expression,
    typ: Type,
    event: tuple[Type, Type] | None,
    context: Context,
) -> None:
    proper = get_proper_type(typ)
    if hooks.is_host and isinstance(proper, Instance):
        return  # llm-pod registering its own hooks (the host's library)
    shown = _shown_name(expr)
    if isinstance(proper, Instance) and proper.type.fullname in DECLARED_HOOK_TYPES:
        problem = _declared_function(expr, hooks)
        _declared(hooks, context, event, shown, problem)
        return  # checked (code and signature) where it was declared
    if isinstance(proper, Instance) and proper.type.has_base(HOOK_BASE):
        problem = _hook_instance(expr, proper.type, hooks)
        _declared(hooks, context, event, proper.type.name, problem)
        if problem is None and event is not None:
            _check_signature(proper.type.name, typ, event, hooks, context)
        return  # its code is checked where the class is defined
    site = _site(expr, typ, hooks)
    if isinstance(site, str):
        _declared(hooks, context, event, shown, site)
        return
    hooks.add(site)
    if event is not None:
        _check_signature(site.name, typ, event, hooks, context)


def _shown_name(expr: Expression) -> str:
    if isinstance(expr, (NameExpr, MemberExpr)):
        return expr.name
    return type(expr).__name__


def _declared(
    hooks: ModuleHooks,
    context: Context,
    event: tuple[Type, Type] | None,
    name: str,
    problem: str | None,
) -> None:
    """A registration of hook code checked elsewhere, or not checkable: into the report."""
    if problem is not None:
        hooks.defer(problem, context, HOOK_BOUNDARY)
    if active() is None:
        return  # no boundary report is being written
    checker = hooks.checker
    shown_event = event_name(event[0] if event else None, checker.modules)
    path, line = checker.path, context.line
    if problem is None:
        why = "checked where it is declared"
        hooks.record(context, HookEntry(path, line, shown_event, name, "verified", why))
    else:
        hooks.record(context, HookEntry(path, line, shown_event, name, "unverifiable", problem))


def _declared_function(expr: Expression, hooks: ModuleHooks) -> str | None:
    """Why a value typed as a ``@hook`` function cannot be trusted as one, if it cannot."""
    node = expr.node if isinstance(expr, RefExpr) else None
    if not isinstance(node, Decorator):
        return UNVERIFIABLE_DECLARED.format(what="a value typed as a @hook function")
    # A module loaded from mypy's cache keeps no decorator expressions; it was checked with
    # them when it was written.
    if node.decorators and not any(_is_hook_call(d) for d in node.decorators):
        return UNVERIFIABLE_DECLARED.format(what=f'"{node.name}", not declared with @hook(EVENT),')
    return _untrusted_package(node.func.fullname.rpartition(".")[0], node.name, hooks)


def _is_hook_call(decorator: Expression) -> bool:
    return (
        isinstance(decorator, CallExpr)
        and isinstance(decorator.callee, RefExpr)
        and decorator.callee.fullname == HOOK_DECORATOR
    )


def _hook_instance(expr: Expression, info: TypeInfo, hooks: ModuleHooks) -> str | None:
    """Why a value typed as a ``Hook`` subclass cannot be trusted as one, if it cannot: it
    must be built right there, or be a variable (typed as mypy types it: hook modules have
    no ``cast`` and no ``Any``; docs/plugin.md, "Known escapes", lists where mypy is
    unsound all the same)."""
    if isinstance(expr, CallExpr) and isinstance(expr.callee, RefExpr):
        built = expr.callee.node
        if isinstance(built, TypeInfo) and built.has_base(HOOK_BASE):
            return _untrusted_package(built.module_name, built.name, hooks)
    if isinstance(expr, NameExpr) and isinstance(expr.node, Var):
        return _untrusted_package(info.module_name, info.name, hooks)
    return UNVERIFIABLE_DECLARED.format(what=f"a value typed {info.name}")


def _untrusted_package(module: str, name: str, hooks: ModuleHooks) -> str | None:
    modules = hooks.checker.modules
    if not is_installed(module, modules) or module.partition(".")[0] in HOST_PACKAGES:
        return None
    if module.partition(".")[0] in hooks.trusted:
        return None
    return UNTRUSTED_PACKAGE.format(name=name, package=module.partition(".")[0])


def _site(expr: Expression, typ: Type, hooks: ModuleHooks) -> HookSite | str:
    """The hook code ``expr`` designates, or why it cannot be checked here."""
    checker = hooks.checker
    module = checker.tree.fullname
    if isinstance(expr, LambdaExpr):
        return HookSite("<lambda>", expr)
    target = definition(expr, checker)
    if target is not None and not isinstance(target.node, TypeInfo):
        if target.module != module:
            return HookSite(target.name, target.node, target.module, expr.line)
        return HookSite(target.name, target.node)
    owner = instance_class(expr, typ)
    if owner is not None and owner.module_name.partition(".")[0] not in _STDLIB:
        if owner.module_name != module:
            return HookSite(owner.name, owner, owner.module_name, expr.line)
        return HookSite(owner.name, owner)
    return UNVERIFIABLE_EXPRESSION.format(type=format_type(typ, checker.options))


def _event_types(typ: Type, hooks: ModuleHooks, context: Context) -> tuple[Type, Type] | None:
    proper = get_proper_type(typ)
    if isinstance(proper, Instance) and proper.type.fullname == HOOK_EVENT:
        return proper.args[0], proper.args[1]
    hooks.defer(
        SIGNATURE_EVENT.format(actual=format_type(typ, hooks.checker.options)),
        context,
        HOOK_SIGNATURE,
    )
    return None


def _check_signature(
    name: str,
    hook_type: Type,
    event: tuple[Type, Type],
    hooks: ModuleHooks,
    context: Context,
) -> None:
    expected_input, allowed = event
    proper: ProperType | None = get_proper_type(hook_type)
    if isinstance(proper, Instance):
        proper = get_proper_type(find_member("__call__", proper, proper, is_operator=True))
    signatures = (
        proper.items
        if isinstance(proper, Overloaded)
        else [proper]
        if isinstance(proper, CallableType)
        else []
    )
    options = hooks.checker.options
    for signature in signatures:
        parameter = _first_parameter(signature)
        # A parameter mypy rejects is mypy's own arg-type error; report only those it accepts
        # (the exact Input, the common case, is settled by the cheaper test).
        if (
            parameter is not None
            and not is_same_type(parameter, expected_input)
            and is_subtype(expected_input, parameter)
        ):
            message = SIGNATURE_INPUT.format(
                hook=name,
                expected=format_type(expected_input, options),
                actual=format_type(parameter, options),
            )
            hooks.defer(message, context, HOOK_SIGNATURE)
        result, expanded = _awaited(signature.ret_type)
        if _admits_any(expanded):
            message = SIGNATURE_OUTPUT.format(
                hook=name,
                actual=format_type(result, options),
                expected=format_type(allowed, options),
            )
            hooks.defer(message, context, HOOK_SIGNATURE)


def _first_parameter(signature: CallableType) -> Type | None:
    kinds = signature.arg_kinds
    if kinds and kinds[0] is ARG_POS:
        return signature.arg_types[0]  # the usual hook: ``def h(call: ToolCallSummary)``
    for kind, typ in zip(kinds, signature.arg_types, strict=True):
        if kind.is_positional() or kind == ARG_STAR:
            return typ
    return None


def _awaited(typ: Type) -> tuple[Type, ProperType]:
    """The result a hook's return type stands for (an awaitable's awaited type), as written
    and expanded."""
    proper = _expanded(typ)
    if isinstance(proper, Instance) and proper.type.fullname in _AWAITABLES and proper.args:
        return proper.args[-1], _expanded(proper.args[-1])
    return typ, proper


def _expanded(typ: Type) -> ProperType:
    """``get_proper_type`` without its copy of an alias's target when the alias has no type
    parameters (``PreToolDecision``): such an alias stands for its target as it is."""
    while (
        isinstance(typ, TypeAliasType)
        and typ.alias is not None
        and not typ.alias.alias_tvars
        and not typ.alias.no_args
    ):
        typ = typ.alias.target
    return get_proper_type(typ)


def _admits_any(proper: ProperType) -> bool:
    if isinstance(proper, UnionType):
        return any(isinstance(get_proper_type(item), AnyType) for item in proper.items)
    return isinstance(proper, AnyType)
