"""The soundness rules: where mypy believes a type the run does not keep, and the reflective
members that reach every frame from a wrongly typed object (``docs/plugin.md``, "Soundness").

mypy is not sound everywhere: an object can get a hook-module class as its static type while
being a traceback, a logger or another class's instance. Two layers answer that:

- the reflective members of frames, tracebacks, generators, coroutines, cells and tasks
  (the database's ``[reflective]`` table) are refused by name, whatever the receiver's type,
  and a hook class may not define them;
- the unsound spots the red teams of 2026-12-02 used are closed one by one: here
  ``__exit__``'s parameters, ``NamedTuple._make``, constructors called through
  ``type[Base]``, methods of a library base overridden (an ``int`` whose ``__hash__`` lies
  poisons ``re``'s cache), names defined anew on a library base that keeps undeclared state
  (``asyncio.Event._loop``), and attributes assigned on a class held as a value; narrowings
  the run does not keep in :mod:`.narrowing`; the calls mypy does not check (caches,
  partials, untyped callbacks, variance) in :mod:`.retyping`.
"""

from __future__ import annotations

from typing import Final

from mypy.argmap import map_actuals_to_formals
from mypy.nodes import (
    ARG_NAMED,
    ARG_NAMED_OPT,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    FUNC_NO_INFO,
    NOT_ABSTRACT,
    ArgKind,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Context,
    Decorator,
    Expression,
    FuncDef,
    Lvalue,
    MemberExpr,
    MypyFile,
    NameExpr,
    OverloadedFuncDef,
    RefExpr,
    StrExpr,
    SuperExpr,
    TypeAlias,
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
    ValuePattern,
)
from mypy.subtypes import is_subtype
from mypy.typeops import try_getting_str_literals_from_type
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
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_ESCAPE, MESSAGES
from .base import dunder
from .narrowing import NarrowingRules
from .retyping import called_only

__all__ = ["SoundnessRules", "received"]

_EXITS: Final = frozenset({"__exit__", "__aexit__"})
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
_STATELESS_MODULES: Final = frozenset(
    {
        "builtins",
        "abc",
        "typing",
        "typing_extensions",
        "_typeshed",
        "collections",
        "collections.abc",
        "enum",
    }
)
"""Library bases whose instances keep no state their stubs do not declare: builtins are
written in C, ``collections``' classes keep their items (``ChainMap`` its declared
``maps``), the rest are abstract; Enum keeps its own in ``_sunder_`` names."""


class SoundnessRules(NarrowingRules):
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
            if called_only(self.types.get(receiver)):
                self._cache_uses.add(id(receiver))
            if (
                not dunder(o.name)  # refused as a dunder
                and self._held_class(receiver)
                and self._instance_method(receiver, o.name)
            ):
                self._report(o, MESSAGES["unbound_method"].format(name=o.name), HOOK_ESCAPE)
        super()._member_expr(o)

    def _instance_method(self, receiver: Expression, name: str) -> bool:
        """``kind.read(other)`` with ``kind: type[Reader]``: mypy checks ``other`` against
        ``Reader``, and the run calls the subclass's ``read``, which trusts its own class."""
        typ = self.types.get(receiver)
        if typ is None:
            return False
        for info in self._classes(typ):
            node = info.get_method(name)
            function = node.func if isinstance(node, Decorator) else node
            if isinstance(function, (FuncDef, OverloadedFuncDef)) and not (
                function.is_static or function.is_class or function.is_property
            ):
                return True
        return False

    def _getattr(self, o: CallExpr, function: str) -> None:
        name = o.args[1] if len(o.args) >= 2 else None
        if isinstance(name, StrExpr) and self._reflective(o, name.value):
            return
        super()._getattr(o, function)

    def _super(self, o: SuperExpr) -> None:
        if not self._reflective(o, o.name):
            super()._super(o)

    def patterns(self, pattern: Pattern | None, subject: Expression | None = None) -> None:
        """A class pattern's keywords read attributes (``case C(tb_frame=f)``); a value
        pattern narrows by ``==``. ``subject``: what the pattern matches, where known."""
        if isinstance(pattern, ClassPattern):
            info = _pattern_class(pattern)
            if info is None:  # case kind(...) with kind a variable: any class at run time
                self._report(pattern, MESSAGES["class_pattern_variable"], HOOK_ESCAPE)
            else:
                self.narrowed_to(pattern, subject, info)
            keys = list(pattern.keyword_keys)
            if info is not None and pattern.positionals:
                keys += _match_args(info)[: len(pattern.positionals)]  # what they read
            for key in keys:
                if dunder(key):
                    self._report(pattern, MESSAGES["dunder"].format(name=key), HOOK_ESCAPE)
                elif not self._reflective(pattern, key) and info is not None:
                    self._member(pattern, info, key)
            for sub in [*pattern.positionals, *pattern.keyword_values]:
                self.patterns(sub)
        elif isinstance(pattern, AsPattern):
            self.patterns(pattern.pattern, subject)
        elif isinstance(pattern, OrPattern):
            for sub in pattern.patterns:
                self.patterns(sub, subject)
        elif isinstance(pattern, SequencePattern):
            for sub in pattern.patterns:
                self.patterns(sub)
        elif isinstance(pattern, MappingPattern):
            for sub in pattern.values:
                self.patterns(sub)
        elif isinstance(pattern, ValuePattern):
            self.value_pattern(pattern, subject)

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

    # -- classes --------------------------------------------------------------------------

    def _class_rules(self, o: ClassDef) -> None:
        super()._class_rules(o)
        info = o.info
        for name in info.names:
            self._reflective(o, name, "reflective_defined")
        for statement in o.defs.body:
            if isinstance(statement, AssignmentStmt) and any(
                isinstance(lvalue, NameExpr) and lvalue.name in _EXITS
                for lvalue in statement.lvalues
            ):  # __exit__ = helper: the helper's parameters are not checked as __exit__'s
                self._report(
                    statement, MESSAGES["exit_parameters"].format(name="__exit__"), HOOK_ESCAPE
                )
            for name in _defined_methods(statement):
                symbol = info.names.get(name)
                if symbol is not None and not symbol.plugin_generated:  # not a plugin's method
                    self._library_override(o, name)
        for name, mixin in self._inherited_methods(info).items():  # over a library's
            self._library_override(o, name, mixin)
        written = info.names.get("__match_args__")
        if written is not None and not written.plugin_generated:
            declared = get_proper_type(written.type) if written.type is not None else None
            if not isinstance(declared, TupleType) or len(_match_args(info)) != len(declared.items):
                self._report(o, MESSAGES["match_args"].format(cls=o.name), HOOK_ESCAPE)
        self._constructors(o)
        self._hidden_state(o)

    def _hidden_state(self, o: ClassDef) -> None:
        """A library class written in Python keeps state its stubs do not declare
        (``asyncio.Event._loop``, ``SequenceMatcher.a``): a name the hook class declares
        anew would give that state the hook's type."""
        info = o.info
        keeper = next((base for base in info.mro[1:] if self._keeps_hidden_state(base)), None)
        if keeper is None and not info.is_enum:
            return
        own = [base for base in info.mro if self.grants.own_code(base.fullname, self.here)]
        library = [base for base in info.mro if base not in own]
        for name, symbol in [item for base in own for item in base.names.items()]:
            if dunder(name) or symbol.plugin_generated or name in _OVERRIDABLE:
                continue
            if any(name in base.names for base in library):
                continue  # declared by the library: the override rules judge it
            sunder = len(name) > 2 and name.startswith("_") and name.endswith("_")
            if keeper is not None:
                message = MESSAGES["hidden_state"].format(cls=o.name, name=name, base=keeper.name)
                self._report(o, message, HOOK_ESCAPE)
            elif sunder:
                self._report(o, MESSAGES["enum_sunder"].format(cls=o.name, name=name), HOOK_ESCAPE)

    def _keeps_hidden_state(self, base: TypeInfo) -> bool:
        if self.grants.own_code(base.fullname, self.here) or base.fullname.startswith("pod."):
            return False
        if base.module_name in _STATELESS_MODULES or base.is_protocol:
            return False
        if base.fullname not in self.tamed.whole and not self.grants.granted(base.fullname):
            return False  # refused as a base (or a tamed base's own base, judged with it)
        return not base.has_base("builtins.BaseException")  # exceptions are C types

    def _inherited_methods(self, info: TypeInfo) -> dict[str, str]:
        """Methods the class takes from hook-module bases (``class Quiet(Never, int)``), each
        with the base defining it."""
        found: dict[str, str] = {}
        for base in info.mro[1:]:
            if not self.grants.own_code(base.fullname, self.here):
                continue
            for name, symbol in base.names.items():
                node = symbol.node
                if name in info.names or symbol.plugin_generated or name in found:
                    continue
                if isinstance(node, (FuncDef, Decorator, OverloadedFuncDef)) or (
                    isinstance(node, Var) and name.startswith("__")  # __ge__ = helper
                ):
                    found[name] = base.name
        return found

    def _library_override(self, o: ClassDef, name: str, mixin: str | None = None) -> None:
        """A library class's own code calls its methods on the hook class's instances: an
        ``int`` whose ``__hash__`` and ``__eq__`` lie poisons the caches keyed by it. The
        definition may sit in a hook-module base: the library finds it first all the same."""
        if name in _OVERRIDABLE:
            return
        base = next(
            (
                base
                for base in o.info.mro[1:]
                if name in base.names and not self.grants.own_code(base.fullname, self.here)
            ),
            None,
        )
        if base is None or base.fullname == "builtins.object":
            return
        if base.fullname not in self.tamed.whole and base.fullname not in self.tamed.types:
            return  # hook code's own, the hook API's, a capability's, or refused as a base
        node = base.names[name].node
        function = node.func if isinstance(node, Decorator) else node
        if isinstance(function, FuncDef) and function.abstract_status != NOT_ABSTRACT:
            return  # an abstract method is there to be defined
        message = MESSAGES["library_override"].format(name=name, base=base.name)
        if mixin is not None:
            message += f' (defined in "{mixin}", which this class puts before "{base.name}")'
        self._report(o, message, HOOK_ESCAPE)

    def _constructors(self, o: ClassDef) -> None:
        """Through ``type[Base]`` (a variable, ``cls`` in a classmethod) a class is built with
        what mypy reads from the base (its ``__init__`` or its ``__new__``), while the run
        calls the class's own ``__new__`` and ``__init__``, inherited ones included (from
        another base too): a parameter of those narrowed to a hook class would hold any value
        a base accepts. mypy compares no constructor with another."""
        info = o.info
        if info.is_enum:
            return  # type[Level](value) looks a member up: no constructor is called
        if "__new__" in info.names and not info.names["__new__"].plugin_generated:
            self._report(o, MESSAGES["new_defined"].format(cls=o.name), HOOK_ESCAPE)
        for name in ("__init__", "__new__"):
            found = info.get_method(name)
            method = found.func if isinstance(found, Decorator) else found
            if not isinstance(method, FuncDef) or not isinstance(method.type, CallableType):
                continue
            if not self.grants.own_code(method.info.fullname, self.here):
                continue  # the library's own (object's): it takes what it is given
            for base in info.mro[1:]:
                if base.fullname in ("builtins.object", "builtins.tuple"):
                    continue  # a NamedTuple: calls of type[tuple[...]] are refused where they are
                if self._constructor_narrows(method.type, base):
                    message = MESSAGES["constructor"].format(cls=o.name, name=name, base=base.name)
                    self._report(o, message, HOOK_ESCAPE)
                    break

    def _constructor_narrows(self, mine: CallableType, base: TypeInfo) -> bool:
        for name in ("__init__", "__new__"):
            found = base.get_method(name)
            theirs = found.func if isinstance(found, Decorator) else found
            if not isinstance(theirs, (FuncDef, OverloadedFuncDef)) or theirs.type is None:
                continue
            if theirs.info.fullname == "builtins.object" or theirs.type is mine:
                continue
            typ = theirs.type
            for signature in typ.items if isinstance(typ, Overloaded) else [typ]:
                if isinstance(signature, CallableType) and self._narrows(mine, signature):
                    return True
        return False

    def _narrows(self, mine: CallableType, theirs: CallableType) -> bool:
        """A call written for ``theirs``, by position or by name, hands a parameter of
        ``mine`` that holds a hook class a value of a wider type (self is dropped)."""
        kinds, names, types = theirs.arg_kinds[1:], theirs.arg_names[1:], theirs.arg_types[1:]
        for by_name in (False, True):
            actual_kinds = [
                _actual_kind(kind, name, by_name) for kind, name in zip(kinds, names, strict=True)
            ]
            mapped = map_actuals_to_formals(
                actual_kinds,
                names,
                mine.arg_kinds[1:],
                mine.arg_names[1:],
                lambda _index: AnyType(TypeOfAny.special_form),
            )
            for formal, actuals in zip(mine.arg_types[1:], mapped, strict=True):
                if any(not is_subtype(types[i], formal) for i in actuals) and self._holds_own_class(
                    formal
                ):
                    return True
        return False

    # -- assignments ----------------------------------------------------------------------

    def _target(self, lvalue: Lvalue, item_dunder: str) -> None:
        """``cls.x = ...``, ``type(v).x = ...``: a class object re-typed (through one of
        mypy's unsound spots) would let hook code patch a library class."""
        if isinstance(lvalue, MemberExpr) and self._held_class(lvalue.expr):
            typ = self.types.get(lvalue.expr)
            classes = list(self._classes(typ)) if typ is not None else []
            if all(self.grants.own_code(info.fullname, self.here) for info in classes):
                message = MESSAGES["assign_class_object"].format(name=lvalue.name)
                self._report(lvalue, message, HOOK_ESCAPE)
                return  # a library class's is refused as such by the rule below
        super()._target(lvalue, item_dunder)

    def _held_class(self, receiver: Expression) -> bool:
        if isinstance(receiver, RefExpr) and isinstance(receiver.node, (TypeInfo, MypyFile)):
            return False  # the class's or the module's own name
        typ = self.types.get(receiver)
        proper = get_proper_type(typ) if typ is not None else None
        items = proper.items if isinstance(proper, UnionType) else [proper]
        for item in items:
            kind = get_proper_type(item) if item is not None else None
            if isinstance(kind, TypeType) or (
                isinstance(kind, CallableType) and kind.is_type_obj()
            ):
                return True
        return False

    def check_soundness(self) -> None:
        """What the walk can only judge once it has seen the whole module."""
        self.check_narrowed_locals()
        self.check_handed_on()


def _actual_kind(kind: ArgKind, name: str | None, by_name: bool) -> ArgKind:
    """How a call passes a parameter of this kind: by position, or by its name."""
    if kind in (ARG_POS, ARG_OPT):
        return ARG_NAMED if by_name and name and not name.startswith("__") else ARG_POS
    return {ARG_NAMED_OPT: ARG_NAMED}.get(kind, kind)


def received(theirs: CallableType, index: int, kind: object, name: str | None) -> Type | None:
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


def _pattern_class(pattern: ClassPattern) -> TypeInfo | None:
    """The class a class pattern names (through an alias too); None for a variable."""
    node = pattern.class_ref.node
    if isinstance(node, TypeAlias):
        target = get_proper_type(node.target)
        return target.type if isinstance(target, Instance) else None
    return node if isinstance(node, TypeInfo) else None


def _match_args(info: TypeInfo) -> list[str]:
    """The attributes a class pattern's positional sub-patterns read, where ``__match_args__``
    is a tuple of literals (mypy makes an error's Any of a capture where it is not)."""
    symbol = info.get("__match_args__")
    declared = get_proper_type(symbol.type) if symbol is not None else None
    if not isinstance(declared, TupleType):
        return []  # int(x), str(s): the subject itself
    names: list[str] = []
    for item in declared.items:
        values = try_getting_str_literals_from_type(item)  # mypy's own reading
        if values is not None and len(values) == 1:
            names.append(values[0])
    return names
