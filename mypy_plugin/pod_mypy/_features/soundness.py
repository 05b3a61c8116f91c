"""The soundness rules: where mypy believes a type the run does not keep, and the reflective
members that reach every frame from a wrongly typed object (``docs/plugin.md``, "Soundness").

mypy is not sound everywhere: an object can get a hook-module class as its static type while
being a traceback, a logger or another class's instance. Two layers answer that:

- the reflective members of frames, tracebacks, generators, coroutines, cells and tasks
  (the database's ``[reflective]`` table) are refused by name, whatever the receiver's type,
  and a hook class may not define them;
- the unsound spots the red team of 2026-12-02 used are closed one by one: here
  ``__exit__``'s parameters, ``NamedTuple._make``, narrowings of globals and attributes a
  call can undo, constructors called through ``type[Base]``, and methods of a library base
  overridden (an ``int`` whose ``__hash__`` lies poisons ``re``'s cache); the calls mypy does
  not check (caches, partials, untyped callbacks, variance) in :mod:`.retyping`.
"""

from __future__ import annotations

from typing import Final

from mypy.expandtype import expand_type_by_instance
from mypy.nodes import (
    ARG_NAMED,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    FUNC_NO_INFO,
    LDEF,
    NOT_ABSTRACT,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Context,
    Decorator,
    Expression,
    FuncDef,
    IndexExpr,
    IntExpr,
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
    CallableType,
    Instance,
    NoneType,
    Overloaded,
    TupleType,
    Type,
    TypedDictType,
    TypeType,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_ESCAPE, MESSAGES
from .retyping import RetypingRules, called_only

__all__ = ["SoundnessRules"]

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


class SoundnessRules(RetypingRules):
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

    # -- narrowing that a call can undo ---------------------------------------------------

    def _name(self, o: NameExpr) -> None:
        super()._name(o)
        node = o.node
        if not isinstance(node, Var) or node.is_final:
            return
        if node.is_inferred and node.type is None:
            return
        if o.kind == LDEF:  # judged at the end, and only if a nested function rebinds it
            self._narrowed_locals.append((o, node))
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
        if mutable and isinstance(found, Var) and self._narrowing_undone(o, found):
            self._report(o, MESSAGES["narrowed"].format(name=o.name), HOOK_ESCAPE)

    def _index(self, o: IndexExpr) -> None:
        """``d["k"]``, ``xs[0]``: mypy narrows an item read with a literal index too."""
        super()._index(o)
        if o.analyzed is not None or not isinstance(o.index, (StrExpr, IntExpr)):
            return
        read = self.types.get(o)
        if read is None or not self._holds_own_class(read, 0):
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

    def _narrowing_undone(self, expr: Expression, var: Var) -> bool:
        """A read whose type mypy narrowed (beyond removing None) to one that holds a hook
        class: a call between the check and the read can store a value of another class."""
        read = self.types.get(expr)
        if var.type is None or read is None or self._same_or_optional(read, var.type):
            return False
        return self._holds_own_class(read, 0)

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
        for read, var in self._narrowed_locals:
            if var.name in self._nonlocals and self._narrowing_undone(read, var):
                self._report(read, MESSAGES["narrowed"].format(name=var.name), HOOK_ESCAPE)
        self.check_handed_on()


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
