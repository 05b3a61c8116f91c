"""The soundness rules: where mypy believes a type the run does not keep, and the reflective
members that reach every frame from a wrongly typed object (``docs/plugin.md``, "Soundness").

mypy is not sound everywhere: an object can get a hook-module class as its static type while
being a traceback, a logger or another class's instance. Two layers answer that:

- the reflective members of frames, tracebacks, generators, coroutines, cells and tasks
  (the database's ``[reflective]`` table) are refused by name, whatever the receiver's type,
  and a hook class may not define them;
- the unsound spots the red team of 2026-12-02 used are closed one by one: ``__exit__``'s
  parameters, calls of ``functools`` caches, callbacks handed to formals that do not type
  their parameters, ``NamedTuple._make``, variant type variables, narrowings of globals and
  attributes a call can undo, constructors called through ``type[Base]``, and methods of a
  library base overridden (an ``int`` whose ``__hash__`` lies poisons ``re``'s cache).
"""

from __future__ import annotations

from typing import Final

from mypy.argmap import map_actuals_to_formals
from mypy.nodes import (
    ARG_NAMED,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    FUNC_NO_INFO,
    LDEF,
    NOT_ABSTRACT,
    ArgKind,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Context,
    Decorator,
    Expression,
    FuncDef,
    LambdaExpr,
    MemberExpr,
    MypyFile,
    NameExpr,
    OverloadedFuncDef,
    RefExpr,
    StrExpr,
    SuperExpr,
    TypeInfo,
    Var,
)
from mypy.patterns import (
    AsPattern,
    ClassPattern,
    MappingPattern,
    OrPattern,
    Pattern,
    SequencePattern,
)
from mypy.subtypes import is_same_type, is_subtype
from mypy.typeops import make_simplified_union
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    NoneType,
    Overloaded,
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

__all__ = ["SoundnessRules"]

_EXITS: Final = frozenset({"__exit__", "__aexit__"})
_CACHE_WRAPPER: Final = "functools._lru_cache_wrapper"
_DISPATCHERS: Final = frozenset(
    {"functools._SingleDispatchCallable", "functools.singledispatchmethod"}
)
_TYPE_VARS: Final = frozenset({"typing.TypeVar", "typing_extensions.TypeVar"})
_VARIANCE: Final = frozenset({"covariant", "contravariant"})
_CHECKS_ITS_CALLS: Final = frozenset({"functools.partial"})
"""Library callables mypy checks the calls of against the callable they are handed."""
_CALLED_ONLY: Final = frozenset({_CACHE_WRAPPER, "functools.partial"})
"""Callables whose ``__call__`` takes any argument: mypy (or this rule, for caches) checks a
call only where it is written, so they may be called, bound to a name and have members read,
but not handed on (``map(partial(f), xs)`` calls ``f`` unchecked)."""
_OVERRIDABLE: Final = frozenset(
    {
        "__init__",
        "__new__",
        "__post_init__",
        "__init_subclass__",
        "__repr__",
        "__str__",
        "_missing_",
        "_generate_next_value_",
        "__slots__",
        "__match_args__",
    }
)
"""Members of a library base a hook class may define anew: what builds, names and shows it."""


class SoundnessRules(SyntaxRules):
    # -- reflective members ---------------------------------------------------------------

    def _reflective(self, context: Context, name: str, key: str = "reflective") -> bool:
        if name in self.tamed.reflective:
            self._report(context, MESSAGES[key].format(name=name), HOOK_ESCAPE)
            return True
        return False

    def _member_expr(self, o: MemberExpr) -> None:
        if id(o) in self._skip:
            return
        receiver = o.expr
        on_module = isinstance(receiver, RefExpr) and isinstance(receiver.node, MypyFile)
        if not on_module:
            if self._reflective(o, o.name):
                return
            if o.name == "_make":
                self._report(o, MESSAGES["namedtuple_make"], HOOK_ESCAPE)
                return
            if _called_only(self.types.get(receiver)):
                self._cache_uses.add(id(receiver))
            self._narrowed_attribute(o)
        super()._member_expr(o)

    def _getattr(self, o: CallExpr, function: str) -> None:
        name = o.args[1] if len(o.args) >= 2 else None
        if isinstance(name, StrExpr) and self._reflective(o, name.value):
            return
        super()._getattr(o, function)

    def _super(self, o: SuperExpr) -> None:
        if not self._reflective(o, o.name):
            super()._super(o)

    def patterns(self, pattern: Pattern | None) -> None:
        """A class pattern's keywords read attributes (``case C(tb_frame=f)``)."""
        if isinstance(pattern, ClassPattern):
            info = pattern.class_ref.node
            for key in pattern.keyword_keys:
                if not self._reflective(pattern, key) and isinstance(info, TypeInfo):
                    self._member(pattern, info, key)
            for sub in [*pattern.positionals, *pattern.keyword_values]:
                self.patterns(sub)
        elif isinstance(pattern, AsPattern):
            self.patterns(pattern.pattern)
        elif isinstance(pattern, (OrPattern, SequencePattern)):
            for sub in pattern.patterns:
                self.patterns(sub)
        elif isinstance(pattern, MappingPattern):
            for sub in pattern.values:
                self.patterns(sub)

    # -- __exit__ -------------------------------------------------------------------------

    def exit_parameters(self, o: FuncDef) -> None:
        """``with`` is checked as ``__exit__(None, None, None)``: a parameter annotated with a
        hook class would hold the run's exception and traceback under that class's type."""
        if o.name not in _EXITS or o.info is FUNC_NO_INFO:
            return
        signature = o.type
        standard = self._exit_standard()
        if not isinstance(signature, CallableType) or standard is None:
            return
        position = 0
        for kind, declared in zip(signature.arg_kinds[1:], signature.arg_types[1:], strict=False):
            if kind in (ARG_POS, ARG_OPT):
                received = standard[position : position + 1]
                position += 1
            elif kind == ARG_STAR:
                received = standard[position:]
                position = len(standard)
            else:
                continue
            if any(not is_subtype(typ, declared) for typ in received):
                self._report(o, MESSAGES["exit_parameters"].format(name=o.name), HOOK_ESCAPE)
                return

    def _exit_standard(self) -> list[Type] | None:
        builtins = self.grants.modules.file("builtins")
        types = self.grants.modules.file("types")
        if builtins is None or types is None:
            return None
        exception = builtins.names.get("BaseException")
        traceback = types.names.get("TracebackType")
        if exception is None or traceback is None:
            return None
        if not isinstance(exception.node, TypeInfo) or not isinstance(traceback.node, TypeInfo):
            return None
        error = Instance(exception.node, [])
        return [
            UnionType([TypeType(error), NoneType()]),
            UnionType([error, NoneType()]),
            UnionType([Instance(traceback.node, []), NoneType()]),
        ]

    # -- calls ----------------------------------------------------------------------------

    def _call(self, o: CallExpr) -> None:
        super()._call(o)
        callee = o.callee
        callee_type = get_proper_type(self.types.get(callee))
        if isinstance(callee, RefExpr) and callee.fullname in _TYPE_VARS:
            self._variance(o)
        if _called_only(callee_type):
            self._cache_uses.add(id(callee))
        if _is_cache(callee_type):
            self._cache_call(o)
        elif isinstance(callee_type, TypeType) and _is_tuple(callee_type.item):
            self._report(o, MESSAGES["tuple_type_call"], HOOK_ESCAPE)
        if isinstance(callee_type, (CallableType, Overloaded)) and not (
            isinstance(callee, RefExpr) and callee.fullname in _CHECKS_ITS_CALLS
        ):
            self._untyped_callbacks(o, callee_type)

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
        if not isinstance(function, CallableType) or all(
            _is_object(arg)
            for arg in function.arg_types[1 if o.func.info is not FUNC_NO_INFO else 0 :]
        ):
            return
        decorator = o.decorators[-1] if o.decorators else None  # the one handed the function
        if decorator is None or _dispatch_register(decorator, self.types):
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
        if typ is not None and _has_ellipsis_callable(typ, 0):
            self._report(context, MESSAGES["ellipsis_annotation"], HOOK_ESCAPE)

    # -- narrowing that a call can undo ---------------------------------------------------

    def _name(self, o: NameExpr) -> None:
        super()._name(o)
        node = o.node
        if not isinstance(node, Var) or node.is_final:
            return
        if node.is_inferred and node.type is None:
            return
        if o.kind == LDEF:
            if self._narrowing_undone(o, node):
                self._narrowed_locals.append((o, node.name))
        elif node.fullname.startswith(self.own) and self._narrowing_undone(o, node):
            self._report(o, MESSAGES["narrowed"].format(name=o.name), HOOK_ESCAPE)

    def _narrowed_attribute(self, o: MemberExpr) -> None:
        typ = get_proper_type(self.types.get(o.expr))
        if not isinstance(typ, Instance) or not self.grants.own_code(typ.type.fullname, self.here):
            return
        symbol = typ.type.get(o.name)
        node = symbol.node if symbol is not None else None
        mutable = isinstance(node, Var) and not node.is_final and not node.is_property
        if mutable and isinstance(node, Var) and self._narrowing_undone(o, node):
            self._report(o, MESSAGES["narrowed"].format(name=o.name), HOOK_ESCAPE)

    def _narrowing_undone(self, expr: Expression, var: Var) -> bool:
        """A read whose type mypy narrowed (beyond removing None) to one that holds a hook
        class: a call between the check and the read can store a value of another class."""
        declared = var.type
        read = self.types.get(expr)
        if declared is None or read is None:
            return False
        if is_same_type(read, declared) or isinstance(get_proper_type(read), NoneType):
            return False
        proper = get_proper_type(declared)
        if isinstance(proper, UnionType):
            kept = [
                item for item in proper.items if not isinstance(get_proper_type(item), NoneType)
            ]
            if is_same_type(read, make_simplified_union(kept)):
                return False  # only None removed: a call that rebinds it to None fails loudly
        return self._holds_own_class(read, 0)

    def note_nonlocals(self, names: list[str]) -> None:
        self._nonlocals.update(names)

    def _holds_own_class(self, typ: Type, depth: int) -> bool:
        proper = get_proper_type(typ)
        if depth > 6:
            return False
        if isinstance(proper, TypeVarType):
            return True
        if isinstance(proper, Instance):
            if self.grants.own_code(proper.type.fullname, self.here):
                return True
            return any(self._holds_own_class(arg, depth + 1) for arg in proper.args)
        if isinstance(proper, UnionType):
            return any(self._holds_own_class(item, depth + 1) for item in proper.items)
        if isinstance(proper, TupleType):
            return any(self._holds_own_class(item, depth + 1) for item in proper.items)
        if isinstance(proper, TypeType):
            return self._holds_own_class(proper.item, depth + 1)
        return False

    # -- classes --------------------------------------------------------------------------

    def _class_rules(self, o: ClassDef) -> None:
        super()._class_rules(o)
        info = o.info
        for name in info.names:
            self._reflective(o, name, "reflective_defined")
        for statement in o.defs.body:
            for name in _defined_methods(statement):
                symbol = info.names.get(name)
                if symbol is not None and not symbol.plugin_generated:  # not a plugin's method
                    self._library_override(o, name)
        for name in ("__init__", "__new__"):
            self._constructor_override(o, name)

    def _library_override(self, o: ClassDef, name: str) -> None:
        """A library class's own code calls its methods on the hook class's instances: an
        ``int`` whose ``__hash__`` and ``__eq__`` lie poisons the caches keyed by it."""
        if name in _OVERRIDABLE:
            return
        base = next((base for base in o.info.mro[1:] if name in base.names), None)
        if base is None or base.fullname == "builtins.object":
            return
        if base.fullname not in self.tamed.whole and base.fullname not in self.tamed.types:
            return  # hook code's own, the hook API's, a capability's, or refused as a base
        node = base.names[name].node
        function = node.func if isinstance(node, Decorator) else node
        if isinstance(function, FuncDef) and function.abstract_status != NOT_ABSTRACT:
            return  # an abstract method is there to be defined
        self._report(o, MESSAGES["library_override"].format(name=name, base=base.name), HOOK_ESCAPE)

    def _constructor_override(self, o: ClassDef, name: str) -> None:
        """Through ``type[Base]`` (a variable, ``cls`` in a classmethod) the class is built with
        what the base's constructor accepts: a parameter narrowed to a hook class would hold
        any such value under that class's type."""
        own = o.info.names.get(name)
        if own is None or not isinstance(own.node, (FuncDef, OverloadedFuncDef)):
            return
        base = next(
            (base for base in o.info.mro[1:] if name in base.names),
            None,
        )
        if base is None or base.fullname in ("builtins.object", "builtins.tuple"):
            return  # a NamedTuple: calls of type[tuple[...]] are refused where they are
        base_node = base.names[name].node
        if not isinstance(base_node, (FuncDef, OverloadedFuncDef)):
            return
        mine, theirs = own.node.type, base_node.type
        if not isinstance(mine, CallableType) or theirs is None:
            return
        base_signatures = theirs.items if isinstance(theirs, Overloaded) else [theirs]
        for signature in base_signatures:
            if isinstance(signature, CallableType) and self._narrows(mine, signature):
                self._report(
                    o,
                    MESSAGES["constructor"].format(cls=o.name, name=name, base=base.name),
                    HOOK_ESCAPE,
                )
                return

    def _narrows(self, mine: CallableType, theirs: CallableType) -> bool:
        for index in range(1, len(mine.arg_types)):
            kind, name, typ = mine.arg_kinds[index], mine.arg_names[index], mine.arg_types[index]
            received = _received(theirs, index, kind, name)
            narrowed = received is not None and not is_subtype(received, typ)
            if narrowed and self._holds_own_class(typ, 0):
                return True
        return False

    def check_soundness(self) -> None:
        """What the walk can only judge once it has seen the whole module."""
        for read, name in self._narrowed_locals:
            if name in self._nonlocals:
                self._report(read, MESSAGES["narrowed"].format(name=name), HOOK_ESCAPE)
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


def _received(theirs: CallableType, index: int, kind: object, name: str | None) -> Type | None:
    """The type of what a call written for ``theirs`` passes to parameter ``index`` (self is
    parameter 0 of both)."""
    if kind in (ARG_POS, ARG_OPT, ARG_STAR):
        if index < len(theirs.arg_kinds) and theirs.arg_kinds[index] in (ARG_POS, ARG_OPT):
            return theirs.arg_types[index]
        star = next(
            (t for k, t in zip(theirs.arg_kinds, theirs.arg_types, strict=True) if k == ARG_STAR),
            None,
        )
        if star is not None:
            return star
    if kind in (ARG_POS, ARG_OPT, ARG_NAMED, ARG_STAR2):
        for their_kind, their_name, typ in zip(
            theirs.arg_kinds, theirs.arg_names, theirs.arg_types, strict=False
        ):
            if name is not None and their_name == name and their_kind != ARG_STAR:
                return typ
        return next(
            (t for k, t in zip(theirs.arg_kinds, theirs.arg_types, strict=True) if k == ARG_STAR2),
            None,
        )
    return None


def _defined_methods(statement: object) -> list[str]:
    if isinstance(statement, FuncDef):
        return [statement.name]
    if isinstance(statement, Decorator):
        return [statement.func.name]
    if isinstance(statement, OverloadedFuncDef):
        return [statement.name]
    if isinstance(statement, AssignmentStmt):
        return [
            lvalue.name
            for lvalue in statement.lvalues
            if isinstance(lvalue, NameExpr) and lvalue.name.startswith("__")
        ]
    return []


def _dispatch_register(decorator: Expression, types: dict[Expression, Type]) -> bool:
    """``@dispatch.register`` written bare: singledispatch dispatches on the annotation."""
    if not isinstance(decorator, MemberExpr) or decorator.name != "register":
        return False
    receiver = get_proper_type(types.get(decorator.expr))
    return isinstance(receiver, Instance) and receiver.type.fullname in _DISPATCHERS


def _called_only(typ: Type | None) -> bool:
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


def _has_ellipsis_callable(typ: Type, depth: int) -> bool:
    proper = get_proper_type(typ)
    if depth > 6:
        return False
    if isinstance(proper, CallableType):
        if proper.is_ellipsis_args and not proper.is_type_obj():
            return True
        parts = [*proper.arg_types, proper.ret_type]
    elif isinstance(proper, Instance):
        parts = list(proper.args)
    elif isinstance(proper, (UnionType, TupleType)):
        parts = list(proper.items)
    else:
        return False
    return any(_has_ellipsis_callable(part, depth + 1) for part in parts)
