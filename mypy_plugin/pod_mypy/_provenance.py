"""Where the values of a module's bindings come from: which ones are derived from a
privileged object, and which functions a binding may hold.

One pass over every statement of a module that has hook code (module level, class bodies,
function bodies) records, for each variable, the expressions that flow into it: assignments
(``X = ...``, ``self.x = ...``, ``X[k] = ...``, ``X += ...``, walrus, ``for``/``with``
targets), defaults of parameters, and the arguments of calls that may store into it
(``X.append(...)``, ``X.update(...)``, a method of a user class). A binding is *derived* when
any of them contains an expression whose type reaches a privileged class, or a derived
binding, to a fixpoint. Provenance stops at bindings whose type is deeply immutable
(``frozenset(t.name for t in TOOLS)`` is a frozenset of strings, whatever it was built from).

The same pass notes what hook code must never do: assign an attribute of a module or a
class (monkeypatching).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Final, NamedTuple, cast, final

from mypy.checker import TypeChecker
from mypy.nodes import (
    GDEF,
    AssertStmt,
    AssignmentExpr,
    AssignmentStmt,
    Block,
    BytesExpr,
    CallExpr,
    ClassDef,
    ComplexExpr,
    Context,
    Decorator,
    DelStmt,
    DictExpr,
    Expression,
    ExpressionStmt,
    FloatExpr,
    ForStmt,
    FuncDef,
    FuncItem,
    GlobalDecl,
    IfStmt,
    Import,
    ImportAll,
    ImportFrom,
    IndexExpr,
    IntExpr,
    LambdaExpr,
    ListExpr,
    MatchStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    OperatorAssignmentStmt,
    OverloadedFuncDef,
    PassStmt,
    RaiseStmt,
    RefExpr,
    ReturnStmt,
    SetExpr,
    StarExpr,
    Statement,
    StrExpr,
    SuperExpr,
    SymbolNode,
    TryStmt,
    TupleExpr,
    TypeInfo,
    Var,
    WhileStmt,
    WithStmt,
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
from mypy.server.subexpr import get_subexpressions
from mypy.types import (
    CallableType,
    Instance,
    NoneType,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypeAliasType,
    UnionType,
    get_proper_type,
)
from mypy.util import correct_relative_import

from ._consts import (
    MODULE_HAZARD,
    PROCESS_WIDE_CALLS,
    PROCESS_WIDE_LISTS,
    PROCESS_WIDE_METHODS,
    PROCESS_WIDE_OWNERS,
)
from ._defs import class_of, defined_in, function_of, variable_module
from ._origin import HOST_PACKAGES, is_library
from ._scan import (
    ASSIGNMENT_STMT,
    BLOCK,
    CALL_EXPR,
    CLASS_DEF,
    DECORATOR,
    FUNC_DEF,
    GLOBAL_DECL,
    IF_STMT,
    MEMBER_EXPR,
    MYPY_FILE,
    NAME_EXPR,
    TYPE_INFO,
    VAR,
    ModuleExpressions,
)

__all__ = ["Derivation", "Provenance"]

_STORING_METHODS: Final = frozenset(
    {
        "append",
        "appendleft",
        "extend",
        "extendleft",
        "insert",
        "add",
        "update",
        "setdefault",
        "put",
        "put_nowait",
        "__setitem__",
        "push",
        "enter_context",
        "callback",
        "push_async_callback",
        "add_done_callback",
        "register",
    }
)
"""Methods of library objects that store their arguments in the receiver."""


@final
class Derivation(NamedTuple):
    """Why a binding is derived from a privileged object."""

    origin: str
    """The expression it was derived from, as written (``WORKER.context.clear``)."""
    line: int
    """Where that expression is."""


def _process_wide_list(expr: Expression) -> bool:
    return isinstance(expr, RefExpr) and expr.fullname in PROCESS_WIDE_LISTS


def _member_var(expr: MemberExpr, checker: TypeChecker) -> Var | None:
    if isinstance(expr.def_var, Var):
        return expr.def_var
    if isinstance(expr.node, Var):
        return expr.node
    owner = class_of(checker.lookup_type_or_none(expr.expr))
    if owner is None:
        return None
    symbol = owner.get(expr.name)
    return symbol.node if symbol is not None and isinstance(symbol.node, Var) else None


@final
class Provenance:
    """The provenance of the bindings of one module (computed once, on first use)."""

    def __init__(
        self,
        checker: TypeChecker,
        expressions: ModuleExpressions,
        reaches: Callable[[Type], bool],
        immutable: Callable[[Type], bool],
    ) -> None:
        self._checker = checker
        self._here = checker.tree.fullname
        """This module's name."""
        self._reaches = reaches
        self._immutable = immutable
        self._flows: dict[Var, list[Expression]] = {}
        """The expressions that flow into each binding, in the order the pass meets them."""
        self._derived: dict[Var, Derivation] = {}
        self._settled: set[Var] = set()
        self.patched: dict[int, str] = {}
        """Attribute targets that rebind a module's or a class's attribute, by node identity."""
        self.decorators: dict[int, Decorator] = {}
        """The decorated definition of each decorated function, by the function's identity."""
        self.classes: list[TypeInfo] = []
        """Every class defined in the module (nested ones too)."""
        self.hazards: list[tuple[int, str]] = []
        """Lines where mypy's view and the run differ (unreachable blocks, TYPE_CHECKING)."""
        self._setup_hazards: list[tuple[int, str]] = []
        self._passed: set[int] = set()
        """Expressions assigned to a binding (an alias is tracked), by node identity."""
        self._synthetic: list[Expression] = []
        """Targets built for ``setattr(X, "a", v)`` and its spellings (kept alive: the
        ``patched`` table is keyed by node identity)."""
        self._attached: dict[int, list[Expression]] = {}
        self._unknown: dict[Var, Var | None] = {}
        """Answers of :meth:`unknown_source` (one ``closed`` per module: the walker's)."""
        self._sources: dict[Var, set[Var]] = {}
        self._parameters: set[Var] = set()
        self._function_spans: list[tuple[int, int]] = []
        self._function_depth = 0
        """How many functions the walk is in."""
        self._walked = False
        self._closed_vars: dict[Var, bool] = {}
        self._attached_code: dict[int, list[FuncItem | TypeInfo]] = {}
        self._given: list[tuple[Var, list[Expression]]] = []
        """Values given to a call through a variable, for the functions it may hold."""
        self._callee_memo: dict[Var, set[FuncDef]] = {}
        """Answers of :meth:`attached` (asked once per function the module's hooks call)."""
        self._library_modules: dict[str, bool] = {}
        self._library_vars: dict[Var, bool] = {}
        self._host_modules: dict[str, bool] = {}
        self._harmless_vars: dict[Var, bool] = {}
        self._harmless_types: dict[int, tuple[Type, bool]] = {}
        """Answers of :meth:`_harmless_type` by the type's identity (the type map keeps the
        module's types alive)."""
        self._source_cache: list[str] | None = None
        self._top_lines: set[int] | None = None
        # The attribute names the module reads or writes, and what its names mention.
        self._attributes, self._mentions_type_checking, self._names_notable_callee = _read_names(
            expressions
        )
        self._walk(checker.tree.defs)
        for statements in (checker.tree.defs, *(info.defn.defs.body for info in self.classes)):
            self._note_rebindings(statements)
        self._calls_pending: ModuleExpressions | None = expressions
        """Calls that may store into a binding: read on the first question about flows."""

    @property
    def top_level_hazards(self) -> list[tuple[int, str]]:
        """What a module with hook code may not do anywhere: a TYPE_CHECKING split that binds
        names at run time, patching another module, replacing a method or a function's code,
        installing process-wide callbacks."""
        self._complete()
        return self._setup_hazards

    def _complete(self) -> None:
        if self._calls_pending is not None:
            expressions, self._calls_pending = self._calls_pending, None
            self._expressions(expressions)

    def derivation(self, var: Var) -> Derivation | None:
        """Why ``var`` holds a privileged object, or ``None`` if it does not."""
        if self._closed_by_type(var):
            return None  # cannot carry a reference, whatever it was built from
        self._complete()
        if var not in self._settled:
            self._settle(var)
        return self._derived.get(var)

    def words(self, first: int, last: int) -> set[str]:
        """The identifiers written on lines ``first`` to ``last`` (annotations included,
        which mypy keeps no expressions of: ``Annotated[str, AfterValidator(check)]``)."""
        text = "\n".join(self._source[first - 1 : last])
        return set(_IDENTIFIER.findall(text))

    def values(self, var: Var) -> list[Expression]:
        """The expressions that flow into ``var`` in this module."""
        self._complete()
        return list(self._flows.get(var, ()))

    def knows(self, var: Var) -> bool:
        """Whether some value flows into ``var`` in this module."""
        self._complete()
        return var in self._flows

    def unknown_source(self, var: Var, closed: Callable[[Type | None], bool]) -> Var | None:
        """A binding ``var`` may hold the value of, whose provenance is not known (a
        parameter, a variable nothing is assigned to in this module) and whose type is not
        closed; ``None`` when every source is known."""
        if var in self._unknown:
            return self._unknown[var]
        self._unknown[var] = found = self._unknown_source(var, closed)
        return found

    def _unknown_source(self, var: Var, closed: Callable[[Type | None], bool]) -> Var | None:
        self._complete()
        seen: set[Var] = set()
        pending = [var]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            open_ended = current in self._parameters or current not in self._flows
            sources: set[Var] = set() if open_ended else self._sources_of(current)
            if not open_ended and not sources:
                continue  # every value it is given is known, and built from no binding
            if closed(current.type):
                continue  # a closed value holds only what its type shows, which is checked
            if open_ended:
                return current
            pending.extend(sources)
        return None

    def held_functions(self, var: Var) -> Iterable[FuncItem | TypeInfo]:
        """The functions, lambdas and classes of this module the values of ``var`` may hold
        or run (each one is code hook code may run when it uses ``var``)."""
        self._complete()
        for value in self._flows.get(var, ()):
            yield from _code_in(value)
        # ``H2 = HANDLER``: what the bindings it is built from hold (not through values that
        # cannot hold code, ``COUNT = len(HANDLERS)``).
        seen = {var}
        pending = [] if self._closed_by_type(var) else list(self._sources_of(var))
        while pending:
            source = pending.pop()
            if source in seen or self._closed_by_type(source):
                continue
            seen.add(source)
            for value in self._flows.get(source, ()):
                yield from _code_in(value)
            pending.extend(self._sources_of(source))

    def attached(self, function: FuncItem | TypeInfo) -> Iterable[FuncItem | TypeInfo]:
        """The code that may run when hook code calls ``function``: what is given to an
        attribute of it (``@f.register``, ``f.register(int, impl)``: a
        ``functools.singledispatch`` function runs it), and every other binding of its name in
        its scope (a conditional or redefined ``def``/``class``, an import it replaces or that
        replaces it, a function assigned to its name): mypy keeps one of them, the run any."""
        self._complete()
        key = id(function)
        code = self._attached_code.get(key)
        if code is None:
            values = list(self._attached.get(key, ()))
            for var, given in self._given:
                if function in self._called_through(var):
                    values.extend(given)
            code = self._attached_code[key] = [c for value in values for c in _code_in(value)]
        return code

    def _called_through(self, var: Var) -> set[FuncDef]:
        """The functions a call through ``var`` may start from (``reg = f.register``,
        ``HANDLERS = [f.register]``, ``H2 = reg``: ``f``), from every value bound to it."""
        found = self._callee_memo.get(var)
        if found is None:
            found = self._callee_memo[var] = set()
            seen = {var}
            pending = list(self._flows.get(var, ()))
            while pending:
                root, registers, method = _callee_root(pending.pop())
                if isinstance(root, (ListExpr, TupleExpr, SetExpr)):
                    pending.extend(root.items)
                elif isinstance(root, DictExpr):
                    pending.extend(value for _, value in root.items)
                elif isinstance(root, NameExpr) and isinstance(root.node, Var):
                    if (registers or not method) and root.node not in seen:
                        seen.add(root.node)
                        pending.extend(self._flows.get(root.node, ()))
                elif isinstance(root, NameExpr):
                    owner = function_of(root.node)
                    if owner is not None:
                        found.add(owner)
        return found

    def _root_binding(self, expr: Expression) -> Var | None:
        """The variable an expression names (``X``, ``self.x``, ``Cls.x``), or the variable
        whose contents an element or attribute chain belongs to (``X[k]``, ``X.y[0]``)."""
        while True:
            if type(expr) is NameExpr:
                node = expr.node
                if isinstance(node, Var) and not self._library_variable(node):
                    return node
                return None
            if type(expr) is MemberExpr:
                if expr.name == "__dict__":
                    expr = expr.expr  # what is stored in ``X.__dict__`` is in X
                    continue
                var = _member_var(expr, self._checker)
                # An attribute of a library object (``HANDLER.filters``) is part of the
                # object: what is stored there belongs to the binding that holds it.
                if var is not None and not self._library_variable(var):
                    return var
                expr = expr.expr
            elif type(expr) is IndexExpr:
                expr = expr.base
            elif type(expr) is CallExpr:
                if _is_globals(expr):
                    return None
                # ``vars(X)``: what is stored there is in X; ``getattr(X, "a")``: part of X
                owner = _namespace_owner(expr)
                if owner is None:
                    owner = _read_attribute_of(expr)
                if owner is None:
                    return None
                expr = owner
            else:
                return None

    def _library_variable(self, var: Var) -> bool:
        """A variable of a library: an attribute of a library class, or a module variable of
        a library module (``logging.root``)."""
        known = self._library_vars.get(var)
        if known is None:
            module = variable_module(var)
            known = self._library_vars[var] = module is not None and self._is_library(module)
        return known

    # -- the pass -------------------------------------------------------------------------

    def _add(self, target: Expression, value: Expression) -> None:
        if type(target) is NameExpr:  # the usual case, first
            if target.kind == GDEF:
                self._note_global(target)
            var = target.node if isinstance(target.node, Var) else None
        elif isinstance(target, (TupleExpr, ListExpr)):
            for item in target.items:
                self._add(item, value)
            return
        elif isinstance(target, StarExpr):
            self._add(target.expr, value)
            return
        else:
            if isinstance(target, IndexExpr):
                base = target.base
                namespace = _namespace_owner(base)
                if namespace is not None:
                    # ``X.__dict__["a"] = v``, ``vars(X)["a"] = v``, ``globals()["a"] = v``
                    self._set_attribute(namespace, target.index, value)
                    return
                if isinstance(base, RefExpr) and base.fullname in PROCESS_WIDE_LISTS:
                    self._setup_hazards.append((target.line, f"changing {base.fullname}"))
            elif isinstance(target, MemberExpr):
                self._note_patch(target)
                self._note_replaced_code(target)
                for holder in self._member_store(target, value):
                    self._flows.setdefault(holder, []).append(value)
            var = self._root_binding(target)
            if isinstance(target, IndexExpr) and not _process_wide_list(target.base):
                self._note_unowned_store(var, [value], "an item")
        if var is not None:
            self._flows.setdefault(var, []).append(value)
            self._note_alias(var, value)

    def _library_method(self, member: MemberExpr) -> bool:
        """A bound method of a mutable library object (``HANDLER.setFormatter``)."""
        method = get_proper_type(self._checker.lookup_type_or_none(member))
        if not isinstance(method, (CallableType, Overloaded)):
            return False
        receiver = get_proper_type(self._checker.lookup_type_or_none(member.expr))
        return self._mutable_library_object(receiver)

    def _mutable_library_object(self, typ: ProperType | None) -> bool:
        """An object of a library class other than llm-pod's that can change (any method
        of it may keep what it is given)."""
        return (
            isinstance(typ, Instance)
            and self._is_library(typ.type.module_name)
            and not self._is_host(typ.type.module_name)
            and not self._immutable(typ)
        )

    def _defined_here(self, receiver: Expression) -> bool:
        """Whether a method call is not a store into an object: its receiver is a module
        (``atexit.register(f)``: a function, judged by the process-wide checks) or an
        attribute chain starting from a function or class of this module
        (``describe.register``: what it is given is code of ``describe``, see ``attached``)."""
        if isinstance(receiver, RefExpr) and isinstance(receiver.node, MypyFile):
            return True
        if _process_wide_list(receiver):
            return True  # ``sys.meta_path.append(f)``: refused as a process-wide change
        root = receiver
        while isinstance(root, (MemberExpr, IndexExpr)):
            root = root.expr if isinstance(root, MemberExpr) else root.base
        if not isinstance(root, NameExpr):
            return False
        node = root.node
        here = self._here
        if isinstance(node, TypeInfo):
            return node.module_name == here
        func = function_of(node)
        return func is not None and defined_in(func, here)

    def _note_unowned_store(self, var: Var | None, values: Sequence[Expression], how: str) -> None:
        """A store into an object no binding of this module holds (a call's result, a
        library's or another module's variable: ``logging.getLogger().handlers.append(h)``)
        or that a caller passed in (a parameter): refused unless every value can hold
        neither code nor a reference."""
        if var is not None and self._owned(var):
            return
        if all(map(self._harmless, values)):
            return
        if var is not None and var in self._parameters:
            what = (
                f'storing what could hold code or a reference into parameter "{var.name}" '
                f"(by {how})"
            )
        else:
            what = (
                f"storing what could hold code or a reference (by {how}) into an object no "
                "binding of this module holds"
            )
        self._setup_hazards.append((values[0].line, what))

    def _member_store(self, target: MemberExpr, value: Expression) -> list[Var]:
        """``R.name = value`` where mypy's variable for ``R.name`` is not the whole story:
        through a union, the attribute of every member's class (returned). Into an object
        of a library class it lands in the binding of this module that holds it, as
        ``_root_binding`` finds it (the library's own code may run what it is given whenever
        the object is used). A value that can hold neither code
        nor a reference (deeply immutable, of library classes) goes anywhere; otherwise the
        store is refused where the plugin cannot follow it: into an object whose class it
        cannot tell (``Any``, ``object``), one of another module of the project, or a
        library object no binding of this module holds (a parameter's, a call's result)."""
        base = target.expr
        if isinstance(base, RefExpr) and (
            isinstance(base.node, (MypyFile, TypeInfo)) or function_of(base.node) is not None
        ):
            return []  # a module's, class's or function's attribute: _note_patch, refused
        receiver = get_proper_type(self._checker.lookup_type_or_none(base))
        items: list[Type | None] = (
            list(receiver.items) if isinstance(receiver, UnionType) else [receiver]
        )
        here = self._here
        holders: list[Var] = []
        harmless: bool | None = None
        for member in items:
            item = get_proper_type(member)
            if isinstance(item, NoneType):
                continue
            owner = item.type if isinstance(item, Instance) else None
            if owner is None and class_of(item) is not None:
                continue  # a class object (``type(x).a = v``): _note_patch
            if owner is not None and owner.fullname == "types.ModuleType":
                continue  # a module object: refused by _note_replaced_code
            if owner is not None and (owner.fullname == "builtins.object" or owner.is_protocol):
                owner = None  # it may be an instance of any class
            if owner is not None and owner.module_name == here:
                if len(items) > 1:  # mypy names no variable for a union's attribute
                    holders.extend(self._union_member(owner, target))
                continue
            if harmless is None:
                harmless = self._harmless(value)
            if harmless:
                continue
            if owner is None:
                what = f'assigning attribute "{target.name}" of a value whose class is unknown'
            elif self._is_library(owner.module_name):
                holder = self._root_binding(base)
                if holder is not None and self._owned(holder):
                    continue  # the store flows into it: _root_binding passes library attributes
                what = (
                    f'assigning attribute "{target.name}" of a "{owner.name}" object no '
                    "binding of this module holds"
                )
            else:
                what = (
                    f'assigning attribute "{target.name}" of a "{owner.name}" of module '
                    f'"{owner.module_name}"'
                )
            self._setup_hazards.append((target.line, what))
        return holders

    def _union_member(self, owner: TypeInfo, target: MemberExpr) -> list[Var]:
        symbol = owner.get(target.name)
        if symbol is not None and isinstance(symbol.node, Var):
            return [symbol.node]
        if symbol is not None and function_of(symbol.node) is not None:
            what = f'replacing method "{owner.name}.{target.name}"'
            self._setup_hazards.append((target.line, what))
        return []

    def _owned(self, var: Var) -> bool:
        """A binding of this module's own code: a module variable, a class attribute, a local
        variable; not a parameter (the caller's object) nor another module's variable."""
        if var in self._parameters:
            return False
        module = variable_module(var)
        return module is None or module == self._here

    def _harmless(self, value: Expression) -> bool:
        """A value that holds no code and no reference: of a deeply immutable type made of
        library classes only (``"x"``, ``3``, ``("a", 1)``)."""
        kind = type(value)
        if kind in _LITERALS:
            return True
        if kind is ListExpr or kind is TupleExpr or kind is SetExpr:
            # A fresh container holds only its items.
            return all(map(self._harmless, cast("ListExpr | TupleExpr | SetExpr", value).items))
        if kind is DictExpr:
            return all(
                (key is None or self._harmless(key)) and self._harmless(item)
                for key, item in cast(DictExpr, value).items
            )
        if kind is NameExpr or kind is MemberExpr:
            var = cast(RefExpr, value).node
            if type(var) is Var:  # judged by its declared type, once per binding
                assert isinstance(var, Var)
                known = self._harmless_vars.get(var)
                if known is None:
                    known = var.type is not None and self._harmless_type(var.type)
                    self._harmless_vars[var] = known
                return known
        typ = self._checker.lookup_type_or_none(value)
        return typ is not None and self._harmless_type(typ)

    def _harmless_type(self, typ: Type) -> bool:
        known = self._harmless_types.get(id(typ))
        if known is not None and known[0] is typ:
            return known[1]
        harmless = self._immutable(typ) and self._library_classes_only(typ)
        self._harmless_types[id(typ)] = (typ, harmless)
        return harmless

    def _library_classes_only(self, typ: Type) -> bool:
        """Whether every class of the instances a value of ``typ`` may be is a library's."""
        pending = [typ]
        expanded: set[str] = set()
        while pending:
            current = pending.pop()
            if isinstance(current, TypeAliasType) and current.alias is not None:
                if current.alias.fullname in expanded:
                    continue
                expanded.add(current.alias.fullname)
            proper = get_proper_type(current)
            if isinstance(proper, Instance):
                if not self._is_library(proper.type.module_name):
                    return False
                pending.extend(proper.args)
            elif isinstance(proper, (UnionType, TupleType)):
                pending.extend(proper.items)
        return True

    def _note_global(self, target: NameExpr) -> None:
        """``global X`` then ``X = ...`` (or ``del X``, ``except E as X``, ``case X:``) in a
        function rebinds a module attribute."""
        if self._in_a_function(target):
            self.patched[id(target)] = f'rebinding module variable "{target.name}"'
            if _code_node(target) is not None:
                what = f'rebinding "{target.name}" in a function'
                self._setup_hazards.append((target.line, what))

    def _in_a_function(self, target: NameExpr) -> bool:
        if not self._walked:
            return self._function_depth > 0  # during the walk: known exactly
        return any(first <= target.line <= last for first, last in self._function_spans)

    def _note_alias(self, var: Var, value: Expression) -> None:
        """``M = L``, ``D = X.__dict__``, ``E = X.items[0]``: ``var`` is (part of) another
        binding's mutable value, so what is stored through ``var`` is stored there too."""
        self._passed.add(id(value))
        if type(value) not in _ALIASING:
            return
        if isinstance(value, CallExpr) and (
            not isinstance(value.callee, RefExpr)
            or value.callee.fullname not in _NAMESPACE_CALLS
            or _namespace_owner(value) is None
        ):
            return
        if self._closed_by_type(var):
            return  # it cannot carry a reference into another binding
        alias = self._root_binding(value)
        if alias is not None and alias is not var:
            reference = NameExpr(var.name)
            reference.node = var
            self._flows.setdefault(alias, []).append(reference)

    def _set_attribute(self, owner: Expression, name: Expression, value: Expression) -> None:
        """``setattr(X, "a", v)`` (and ``X.__setattr__``, ``object.__setattr__``,
        ``X.__dict__[...]``, ``vars(X)[...]``) is ``X.a = v``. With a computed name it
        taints ``X`` as a whole; a class, module or function has no binding to taint, so
        that is refused."""
        if isinstance(name, StrExpr):
            target = self._attribute_target(owner, name.value)
            if target is not None:
                self._add(target, value)
            return
        typ = get_proper_type(self._checker.lookup_type_or_none(owner))
        plain = isinstance(typ, Instance) and typ.type.fullname != "types.ModuleType"
        var = self._root_binding(owner) if plain and not _is_globals(owner) else None
        if var is None:
            # A class, module or function object, globals(), or an object of no binding.
            shown = "globals()" if _is_globals(owner) else f'"{self._text(owner)}"'
            self._setup_hazards.append(
                (owner.line, f"setting an attribute of {shown} by a computed name")
            )
            return
        self._flows.setdefault(var, []).append(value)

    def _attribute_target(self, owner: Expression, name: str) -> Expression | None:
        if _is_globals(owner):
            symbol = self._checker.tree.names.get(name)
            if symbol is None:
                return None
            if isinstance(symbol.node, (FuncDef, Decorator, OverloadedFuncDef, TypeInfo)):
                what = f'rebinding "{name}" through globals()'
                self._setup_hazards.append((owner.line, what))
            target: RefExpr = NameExpr(name)
            target.kind = GDEF
        else:
            target = MemberExpr(owner, name)
            module = owner.node if isinstance(owner, RefExpr) else None
            symbol = module.names.get(name) if isinstance(module, MypyFile) else None
        if symbol is not None:
            target.node = symbol.node
        target.set_line(owner)
        self._synthetic.append(target)
        return target

    def _note_replaced_code(self, target: MemberExpr) -> None:
        """Assigning a method's name (on the class or an instance, which shadows it) or an
        attribute of a function (``f.__code__``, ``f.__defaults__``) changes what code runs
        under a name the plugin follows: never allowed in a module with hook code."""
        base = target.expr
        module = base.node if isinstance(base, RefExpr) else None
        if isinstance(module, MypyFile):
            # Another module's attributes: refused by _note_patch.
            here = module.fullname == self._here
            symbol = module.names.get(target.name) if here else None
            if symbol is not None and isinstance(symbol.node, (FuncDef, Decorator, TypeInfo)):
                what = f'replacing "{target.name}" of module "{module.fullname}"'
                self._setup_hazards.append((target.line, what))
            return
        typ = get_proper_type(self._checker.lookup_type_or_none(base))
        if isinstance(typ, Instance) and typ.type.fullname == "types.ModuleType":
            what = f'assigning attribute "{target.name}" of a module object'
            self._setup_hazards.append((target.line, what))
            return
        if isinstance(base, (NameExpr, MemberExpr)) and function_of(base.node) is not None:
            what = f'assigning attribute "{target.name}" of function "{base.name}"'
            self._setup_hazards.append((target.line, what))
            return
        owner = base.node if isinstance(base, RefExpr) else None
        if not isinstance(owner, TypeInfo):
            owner = class_of(self._checker.lookup_type_or_none(base))
        symbol = owner.get(target.name) if owner is not None else None
        if owner is not None and symbol is not None and function_of(symbol.node) is not None:
            what = f'replacing method "{owner.name}.{target.name}"'
            self._setup_hazards.append((target.line, what))

    def _note_rebindings(self, statements: list[Statement]) -> None:
        """Attach to each function and class bound to a name of one scope (the module, a
        class body) every other binding of that name there."""
        first: dict[str, Node] = {}
        bound: dict[str, list[tuple[Node, NameExpr | None]]] = {}
        self._bindings(statements, first, bound)
        for name in [name for name in first if name in bound] if bound else ():
            raw = bound[name]
            bindings = [self._binding(name, node, lvalue) for node, lvalue in raw]
            owners = [b.code for b in bindings if b.code is not None]
            if not owners:
                continue  # a variable bound twice: its flows are tracked as usual
            for binding in bindings:
                unfollowed = binding.variable is None and not _followable(binding.value)
                if binding.code is None and unfollowed:
                    what = f'rebinding "{name}" to a value the plugin cannot follow'
                    self._setup_hazards.append((binding.value.line, what))
                for owner in owners:
                    if owner is not binding.code:
                        self._attached.setdefault(id(owner), []).append(binding.value)
                if binding.variable is not None:  # ``helper = None`` then ``def helper()``
                    self._flows.setdefault(binding.variable, []).extend(
                        _reference(owner) for owner in owners
                    )

    def _bindings(
        self,
        statements: Iterable[Node],
        first: dict[str, Node],
        again: dict[str, list[tuple[Node, NameExpr | None]]],
    ) -> None:
        """Every statement that binds a name in one scope (``def``, ``class``, ``import``,
        ``name = value``), through ``if``/``try``/loops but not into functions or classes:
        each name's first binding in ``first``; all of them, in order, in ``again`` for a
        name bound more than once (the usual case is once: nothing more to read)."""
        for node in statements:
            kind = type(node)
            if kind in _LEAVES:
                if kind is ImportFrom:
                    for name, alias in cast(ImportFrom, node).names:
                        bound = alias or name
                        if bound in first:
                            _bind_again(bound, node, None, first, again)
                        else:
                            first[bound] = node
                elif kind is ImportAll:
                    module = self._imported_module(cast(ImportAll, node))
                    for name, symbol in module.names.items() if module is not None else ():
                        if symbol.module_public and symbol.node is not None:
                            if name in first:
                                _bind_again(name, node, None, first, again)
                            else:
                                first[name] = node
            elif kind is AssignmentStmt:
                for lvalue in cast(AssignmentStmt, node).lvalues:
                    if type(lvalue) is NameExpr:
                        if lvalue.name in first:
                            _bind_again(lvalue.name, node, lvalue, first, again)
                        else:
                            first[lvalue.name] = node
            elif kind in _DEFINITIONS:
                name = cast("FuncDef | Decorator | OverloadedFuncDef | ClassDef", node).name
                if name in first:
                    _bind_again(name, node, None, first, again)
                else:
                    first[name] = node
            elif isinstance(node, IfStmt):
                self._bindings([*node.body, *_optional(node.else_body)], first, again)
            elif isinstance(node, TryStmt):
                blocks = [node.body, *node.handlers, *_optional(node.else_body)]
                self._bindings([*blocks, *_optional(node.finally_body)], first, again)
            elif isinstance(node, (ForStmt, WhileStmt)):
                self._bindings([node.body, *_optional(node.else_body)], first, again)
            elif isinstance(node, WithStmt):
                self._bindings([node.body], first, again)
            elif isinstance(node, MatchStmt):
                self._bindings(node.bodies, first, again)
            elif isinstance(node, Block):
                self._bindings(node.body, first, again)

    def _binding(self, name: str, node: Node, lvalue: NameExpr | None) -> _Binding:
        if isinstance(node, AssignmentStmt) and lvalue is not None:
            var = lvalue.node if isinstance(lvalue.node, Var) else None
            return _Binding(node.rvalue, None, var)
        if isinstance(node, (ImportFrom, ImportAll)):
            # What the import binds (an unresolvable one refers to nothing).
            module = self._imported_module(node)
            imported = name
            if isinstance(node, ImportFrom):
                imported = next((n for n, alias in node.names if (alias or n) == name), name)
            symbol = module.names.get(imported) if module is not None else None
            value = _reference_to(symbol.node if symbol is not None else None, node)
            return _Binding(value, _code_node(value))
        code = node.info if isinstance(node, ClassDef) else function_of(node)
        if code is None:
            return _Binding(_reference_to(None, node), None)
        return _Binding(_reference(code), code)

    def _imported_module(self, node: ImportFrom | ImportAll) -> MypyFile | None:
        tree = self._checker.tree
        module_id, _ = correct_relative_import(
            tree.fullname, node.relative, node.id, tree.is_package_init_file()
        )
        return self._checker.modules.get(module_id)

    def _note_patch(self, target: MemberExpr, verb: str = "assigning") -> None:
        base = target.expr
        what = ""
        if isinstance(base, RefExpr) and isinstance(base.node, MypyFile):
            what = f'module "{base.node.fullname}"'
        elif isinstance(base, RefExpr) and isinstance(base.node, TypeInfo):
            what = f'class "{base.node.name}"'
        if what:
            self.patched[id(target)] = f'{verb} attribute "{target.name}" of {what}'
            assert isinstance(base, RefExpr)
            owner = base.node.fullname if isinstance(base.node, MypyFile) else ""
            if isinstance(base.node, TypeInfo):
                owner = base.node.module_name
            if owner != self._here:
                # Setup code may patch its own module, never another one.
                self._setup_hazards.append(
                    (target.line, f'{verb} attribute "{target.name}" of {what}')
                )
            return
        typ = get_proper_type(self._checker.lookup_type_or_none(base))
        if typ is not None and not isinstance(typ, Instance) and class_of(typ) is not None:
            self.patched[id(target)] = f'{verb} attribute "{target.name}" of a class'

    def _attach(self, receiver: Expression, values: list[Expression]) -> None:
        """Record ``values`` as code of the function a callee starts from (``f.register`` in
        ``@f.register(int)`` or ``f.register(int, impl)``: a ``functools.singledispatch``
        function runs it). A callee that starts from a variable (``reg = f.register`` then
        ``reg(int)(impl)``, ``HANDLERS[0](int, impl)``, ``d.register(int, impl)`` with
        ``d = singledispatch(base)``) gives the values to the functions the variable's values
        start from, decided when asked (:meth:`attached`): whatever binds it, before or after."""
        root, registers, method = _callee_root(receiver)
        if type(root) is not NameExpr:
            return
        var = root.node
        if not isinstance(var, Var):
            owner = function_of(var)
            if owner is not None:
                self._attached.setdefault(id(owner), []).extend(values)
            return
        if method and not registers:
            return  # a method call on a variable: ``_call`` decides what it stores
        if registers:
            self._flows.setdefault(var, []).extend(values)
        self._given.append((var, values))

    def _walk(self, statements: Iterable[Statement]) -> None:
        # By exact class, most frequent first (mypy's statement classes have no subclasses).
        pending: list[Node] = list(statements)
        while pending:
            node = pending.pop()
            if type(node) in _LEAVES:
                continue
            if type(node) is ASSIGNMENT_STMT:
                for lvalue in node.lvalues:
                    self._add(lvalue, node.rvalue)
            elif type(node) is BLOCK:
                if node.is_unreachable and node.body:
                    self.hazards.append((node.body[0].line, "unreachable"))
                pending.extend(node.body)
            elif type(node) is IF_STMT:
                if self._mentions_type_checking and any(_names_type_checking(e) for e in node.expr):
                    self.hazards.append((node.line, "type_checking"))
                    if node.else_body is not None and self._at_top(node):
                        self._setup_hazards.append((node.line, MODULE_HAZARD))
                pending.extend(node.body)
                if node.else_body is not None:
                    pending.append(node.else_body)
            elif type(node) is FUNC_DEF:
                self._function(node, pending)
            elif type(node) is DECORATOR:
                self.decorators[id(node.func)] = node
                for decorator in node.decorators:
                    self._decorator_stores(decorator, node.func)
                    callee = decorator.callee if type(decorator) is CALL_EXPR else decorator
                    if not _method_of_a_variable(callee):  # ``@registry.on(...)`` is one
                        self._attach(decorator, [_reference(node.func)])
                pending.append(node.func)
            elif type(node) is CLASS_DEF:
                self.classes.append(node.info)
                pending.append(node.defs)
            elif node is _FUNCTION_END:
                self._function_depth -= 1
            elif type(node) is GLOBAL_DECL:
                # In hook code, whatever follows it (``import json as X``, ``def X``, ``X =``
                # in a nested class) would rebind a module variable.
                self.hazards.append((node.line, "global"))
            else:
                self._compound(node, pending)
        self._walked = True

    def _at_top(self, statement: Statement) -> bool:
        if self._top_lines is None:
            self._top_lines = {statement.line for statement in self._checker.tree.defs}
        return statement.line in self._top_lines

    def _decorator_stores(self, decorator: Expression, function: FuncDef) -> None:
        """``@HANDLERS.append`` (or ``@getattr(HANDLERS, "append")``) calls the method on
        the function: it may keep it."""
        if type(decorator) is MemberExpr:
            self._method_stores(decorator.expr, decorator.name, [_reference(function)])
        elif type(decorator) is CallExpr:
            read = _read_attribute_of(decorator)
            if read is not None:
                method = _attribute_name(decorator)
                self._method_stores(read, method, [_reference(function)])

    def _function(self, node: FuncItem, pending: list[Node]) -> None:
        # What is pushed after the marker is popped before it: the function's own statements.
        self._function_depth += 1
        pending.append(_FUNCTION_END)
        self._function_spans.append((node.line, node.end_line or node.line))
        for argument in node.arguments:
            self._parameters.add(argument.variable)
            if argument.initializer is not None:
                self._flows.setdefault(argument.variable, []).append(argument.initializer)
        pending.append(node.body)

    def _compound(self, node: Node, pending: list[Node]) -> None:
        """The less frequent statements that bind names or hold blocks."""
        if isinstance(node, OperatorAssignmentStmt):
            self._add(node.lvalue, node.rvalue)
        elif isinstance(node, ForStmt):
            self._add(node.index, node.expr)
            pending.append(node.body)
            if node.else_body is not None:
                pending.append(node.else_body)
        elif isinstance(node, WithStmt):
            for value, target in zip(node.expr, node.target, strict=True):
                if target is not None:
                    self._add(target, value)
            pending.append(node.body)
        elif isinstance(node, WhileStmt):
            pending.append(node.body)
            if node.else_body is not None:
                pending.append(node.else_body)
        elif isinstance(node, TryStmt):
            pending.extend([node.body, *node.handlers])
            pending.extend(b for b in (node.else_body, node.finally_body) if b is not None)
            self._note_unbound_names(node.vars)
        elif isinstance(node, MatchStmt):
            pending.extend(node.bodies)
            self._note_unbound_names(capture for p in node.patterns for capture in _captures(p))
        elif isinstance(node, DelStmt):
            self._note_unbound_names([node.expr])
            self._note_deleted_attributes(node.expr)
        elif isinstance(node, FuncItem):
            self._function(node, pending)
        elif isinstance(node, OverloadedFuncDef):
            pending.extend(node.items)
            if node.impl is not None:
                pending.append(node.impl)

    def _note_unbound_names(self, targets: Iterable[Expression | None]) -> None:
        """Names bound or deleted without a value the pass tracks (``except E as X``,
        ``case X:``, ``del X``): only whether one rebinds a module variable matters."""
        for target in targets:
            if isinstance(target, (TupleExpr, ListExpr)):
                self._note_unbound_names(target.items)
            elif isinstance(target, NameExpr) and target.kind == GDEF:
                self._note_global(target)

    def _note_deleted_attributes(self, target: Expression) -> None:
        """``del json.dumps``, ``del Policy.allow``: like assigning them."""
        if isinstance(target, (TupleExpr, ListExpr)):
            for item in target.items:
                self._note_deleted_attributes(item)
        elif isinstance(target, MemberExpr):
            self._note_patch(target, "deleting")
            self._note_replaced_code(target)

    def _expressions(self, module: ModuleExpressions) -> None:
        """Walrus targets, calls that may store their arguments, and ways to store out of
        sight."""
        # What the module's names and attributes refer to, read once (at C speed): most
        # modules name no setattr, exec, eval, vars, globals or locals and no namespace.
        # Most modules name none of the callees these checks look for: no set of every name.
        fullnames: set[str] = set()
        if self._names_notable_callee:
            fullnames.update(map(_FULLNAME, module.names))
            fullnames.update(map(_FULLNAME, module.members))
        attributes = self._attributes
        special = not fullnames.isdisjoint(_SPECIAL_CALLEES) or "__setattr__" in attributes
        if not module.walruses:
            for call in module.calls:
                self._store_call(call, special)
        else:
            # Source order, as a binding's flows are listed (a message quotes the first).
            for expr in module.all:
                if isinstance(expr, AssignmentExpr):
                    self._add(expr.target, expr.value)
                elif isinstance(expr, CallExpr):
                    self._store_call(expr, special)
        self._bound_method_stores(module)
        installers = not fullnames.isdisjoint(PROCESS_WIDE_CALLS)
        methods = not attributes.isdisjoint(PROCESS_WIDE_METHODS)
        if installers or methods:
            self._process_wide_values(module, installers, methods)
        if not fullnames.isdisjoint(_REFLECTION) or "__getattribute__" in attributes:
            for call in module.calls:
                named = self._installer_by_name(call)
                if named is not None:
                    self._setup_hazards.append((call.line, f"reaching {named} by name"))
        if "register" in attributes:
            self._registrars_passed(module)
        if not fullnames.isdisjoint(_HIDING_NAMES) or not attributes.isdisjoint(_NAMESPACES):
            hidden = _hidden_stores(module)
            if hidden:
                self._note_hidden_stores(module.all, hidden)

    def _bound_method_stores(self, module: ModuleExpressions) -> None:
        """A method that keeps what it is given, called other than directly: through a
        variable (``add = HANDLERS.append`` then ``add(v)``) or passed to a call
        (``map(HANDLERS.append, values)``, ``partial(HANDLERS.append, v)``,
        ``partial(HANDLER.setFormatter, f)``: any method of a mutable library object), which
        may give it the call's other arguments."""
        for var, values in self._given:
            for method in self._bound_methods(var):
                self._method_stores(method.expr, method.name, values)
        callees = module.callees
        for call in module.calls:
            for index, argument in enumerate(call.args):
                if (
                    type(argument) is MemberExpr
                    and id(argument) not in callees
                    and not _keeps_nothing(argument)
                    and (argument.name in _STORING_METHODS or self._library_method(argument))
                ):
                    others = [*call.args[:index], *call.args[index + 1 :]]
                    self._method_stores(argument.expr, argument.name, others)

    def _process_wide_values(self, module: ModuleExpressions, names: bool, methods: bool) -> None:
        """A function or method that installs a process-wide callback, used other than by a
        direct call (``map(atexit.register, [f])``, ``partial(logging.setLogRecordFactory,
        f)``, ``add = logging.getLogger().addHandler``): the process-wide checks read only
        direct calls, so it is refused wherever it goes. ``names``: the module names such a
        function; ``methods``: it names an attribute such a method may be."""
        callees = module.callees
        for ref in [*module.names, *module.members] if names else ():
            if ref.fullname in PROCESS_WIDE_CALLS and id(ref) not in callees:
                self._setup_hazards.append((ref.line, f"passing {ref.fullname} around"))
        for member in module.members if methods else ():
            if member.name not in PROCESS_WIDE_METHODS or id(member) in callees:
                continue
            receiver = member.expr
            if _process_wide_list(receiver):
                shown = f"{cast(RefExpr, receiver).fullname}.{member.name}"
                self._setup_hazards.append((member.line, f"passing {shown} around"))
                continue
            owner = class_of(self._checker.lookup_type_or_none(receiver))
            if owner is not None and _top(owner.module_name) in PROCESS_WIDE_OWNERS:
                shown = f"{owner.name}.{member.name}"
                self._setup_hazards.append((member.line, f"passing {shown} around"))

    def _installer_by_name(self, call: CallExpr) -> str | None:
        """The process-wide installer a call reaches by a string, as the direct-call checks
        would name it: ``getattr(atexit, "register")``, ``getattr(logger, "addHandler")``,
        ``operator.methodcaller("addHandler", h)`` (whatever it is later applied to)."""
        callee = call.callee
        if isinstance(callee, RefExpr) and callee.fullname in _BY_NAME_CALLERS:
            named = call.args[:1] if callee.fullname == "operator.methodcaller" else call.args
            for argument in named:
                # attrgetter("a.b"): the last name is the one called
                if (
                    isinstance(argument, StrExpr)
                    and argument.value.rpartition(".")[2] in _INSTALLER_NAMES
                ):
                    return f'{callee.fullname}("{argument.value}")'
            return None
        receiver = _read_attribute_of(call)
        if receiver is None:
            return None
        name = _attribute_name(call)
        if name is None:
            return None
        if isinstance(receiver, RefExpr) and f"{receiver.fullname}.{name}" in PROCESS_WIDE_CALLS:
            return f"{receiver.fullname}.{name}"
        if name not in PROCESS_WIDE_METHODS:
            return None
        if _process_wide_list(receiver):
            return f"{cast(RefExpr, receiver).fullname}.{name}"
        owner = class_of(self._checker.lookup_type_or_none(receiver))
        if owner is not None and _top(owner.module_name) in PROCESS_WIDE_OWNERS:
            return f"{owner.name}.{name}"
        return None

    def _registrars_passed(self, module: ModuleExpressions) -> None:
        """``map(f.register(int), [impl])``, ``apply(f.register, int, impl)``: a registering
        callee passed to a call may be given the call's other arguments."""
        for call in module.calls:
            for index, argument in enumerate(call.args):
                if type(argument) in _CHAINS and _callee_root(argument)[1]:
                    self._attach(argument, [*call.args[:index], *call.args[index + 1 :]])

    def _bound_methods(self, var: Var) -> list[MemberExpr]:
        """The bound methods (``X.append``) ``var`` may hold, through other variables."""
        found: list[MemberExpr] = []
        seen = {var}
        pending = list(self._flows.get(var, ()))
        while pending:
            value = pending.pop()
            if type(value) is MemberExpr:
                found.append(value)
            elif type(value) is NameExpr:
                source = value.node
                if isinstance(source, Var) and source not in seen:
                    seen.add(source)
                    pending.extend(self._flows.get(source, ()))
        return found

    def _store_call(self, call: CallExpr, special: bool) -> None:
        """A call that may store its arguments, set an attribute or run source code (only
        where the module names a ``special`` callee)."""
        callee = call.callee
        if type(callee) is NAME_EXPR or type(callee) is MEMBER_EXPR:
            if special:
                self._special_call(call, callee)
            if type(callee) is MEMBER_EXPR:
                if _keeps_nothing(callee):
                    return
                self._call(call, callee)
                if _method_of_a_variable(callee):
                    return  # ``_call`` decided what it stores
            elif type(callee.node) is TYPE_INFO:
                return  # a class called by name: its code is followed where it is named
            if call.args:
                self._attach(callee, call.args)
        elif type(callee) is CallExpr or type(callee) is IndexExpr:
            read = _read_attribute_of(callee)
            if read is not None and isinstance(callee, CallExpr):
                # ``getattr(X, "append")(v)`` is ``X.append(v)``
                self._method_stores(read, _attribute_name(callee), call.args)
            if call.args:
                self._attach(callee, call.args)
        elif isinstance(callee, SuperExpr):
            self._setattr_call(call)

    def _special_call(self, call: CallExpr, callee: NameExpr | MemberExpr) -> None:
        if callee.fullname in _RUNS_SOURCE:
            # It binds names (``exec("f = ...")``, a walrus in ``eval``) out of sight.
            what = f"calling {callee.fullname.removeprefix('builtins.')}()"
            self._setup_hazards.append((call.line, what))
        elif callee.fullname == _SETATTR or callee.name == "__setattr__":
            self._setattr_call(call)

    def _note_hidden_stores(
        self, expressions: list[Expression], hidden: list[tuple[Expression, str]]
    ) -> None:
        """``setattr`` and ``__setattr__`` only called directly; a namespace only called,
        indexed, used as a receiver (``X.__dict__.update(...)`` stores in X) or aliased."""
        called: set[int] = set()
        handled = set(self._passed)
        for expr in expressions:
            if isinstance(expr, CallExpr):
                called.add(id(expr.callee))
                if isinstance(expr.callee, MemberExpr):
                    handled.add(id(expr.callee.expr))
            elif isinstance(expr, IndexExpr):
                handled.add(id(expr.base))
        what = "passing setattr, __setattr__, __dict__, vars() or globals() around"
        for expr, kind in hidden:
            if id(expr) not in called and (kind == "setter" or id(expr) not in handled):
                self._setup_hazards.append((expr.line, what))

    def _setattr_call(self, call: CallExpr) -> None:
        """``setattr(X, n, v)``, ``object.__setattr__(X, n, v)``, ``X.__setattr__(n, v)``,
        ``super().__setattr__(n, v)``."""
        callee, args = call.callee, call.args
        if isinstance(callee, RefExpr) and callee.fullname == "builtins.setattr":
            if len(args) == 3:
                self._set_attribute(args[0], args[1], args[2])
        elif isinstance(callee, MemberExpr) and callee.name == "__setattr__":
            receiver = get_proper_type(self._checker.lookup_type_or_none(callee.expr))
            if isinstance(receiver, Instance) and len(args) == 2:
                self._set_attribute(callee.expr, args[0], args[1])
            elif len(args) == 3:  # unbound, through a class
                self._set_attribute(args[0], args[1], args[2])
        elif isinstance(callee, SuperExpr) and callee.name == "__setattr__" and len(args) == 2:
            self._super_setattr(callee, args[0], args[1])

    def _super_setattr(self, callee: SuperExpr, name: Expression, value: Expression) -> None:
        info = callee.info
        if info is None:
            return
        names = [name.value] if isinstance(name, StrExpr) else list(info.names)
        for attribute in names:
            symbol = info.get(attribute)
            if symbol is not None and isinstance(symbol.node, Var):
                self._flows.setdefault(symbol.node, []).append(value)
            elif symbol is not None and function_of(symbol.node) is not None:
                what = f'replacing method "{info.name}.{attribute}"'
                self._setup_hazards.append((callee.line, what))

    def _call(self, call: CallExpr, callee: MemberExpr) -> None:
        owner = callee.expr
        if isinstance(owner, RefExpr) and isinstance(owner.node, TypeInfo):
            # ``list.append(X, v)``: a method called through its class, on its first argument
            # (``object.__setattr__(X, n, v)`` is read as ``X.n = v`` by ``_setattr_call``)
            name = callee.name
            if call.args and name != "__setattr__" and _instance_method(owner.node, name):
                self._method_stores(call.args[0], name, call.args[1:])
            return
        self._method_stores(owner, callee.name, call.args)

    def _method_stores(
        self, receiver: Expression, method: str | None, values: Sequence[Expression]
    ) -> None:
        """``receiver.method(*values)`` (``method`` not known: a computed name) may keep the
        values in the receiver's binding."""
        if not values:
            return
        typ = get_proper_type(self._checker.lookup_type_or_none(receiver))
        storing = method is None or method in _STORING_METHODS
        if not storing and isinstance(typ, Instance) and self._is_host(typ.type.module_name):
            return  # llm-pod's own object, by a method that stores nothing (see below)
        var = self._root_binding(receiver)
        user = isinstance(typ, Instance) and not self._is_library(typ.type.module_name)
        if var is None or not (self._owned(var) or var in self._parameters):
            # ``"...".format(...)`` (every f-string), ``logging.info(...)``: a call's result
            # or a library's object keeps nothing the plugin can see; a storing method or a
            # method of another module's class may keep what it is given.
            # Any method of a mutable library object may keep what it is given
            # (``logging.getLogger().handlers[0].setFormatter(f)``, ``handler().setFormatter(f)``).
            here = user and cast(Instance, typ).type.module_name == self._here
            # ``Logger.addHandler``...: refused as a process-wide change (boundary's check).
            installer = (
                method in PROCESS_WIDE_METHODS
                and isinstance(typ, Instance)
                and _top(typ.type.module_name) in PROCESS_WIDE_OWNERS
            )
            if (
                (storing or user or self._mutable_library_object(typ))
                and not here
                and not installer
                and not self._defined_here(receiver)
            ):
                self._note_unowned_store(var, values, f'"{method or "a computed name"}"')
            if var is None:
                return
        if user:
            # A method of a user class may keep what it is given (its body is followed).
            self._flows.setdefault(var, []).extend(values)
            return
        # llm-pod's own objects keep what the plugin checks itself (``registry.on``).
        host = isinstance(typ, Instance) and self._is_host(typ.type.module_name)
        if storing:
            kept = list(values)
        elif host or self._closed_by_type(var):
            return  # an immutable object keeps nothing
        else:
            # Any method of a library object may keep what it is given
            # (``HANDLER.setFormatter(f)``, ``REGISTRY.register(cb)``): what could hold
            # code or a reference flows into the binding that holds the object.
            kept = [value for value in values if not self._harmless(value)]
        if not kept:
            return
        if var in self._parameters and not host and not all(map(self._harmless, kept)):
            # The caller's object: what is stored in it is out of this binding's sight.
            what = (
                f'storing what could hold code or a reference into parameter "{var.name}" '
                f'(by "{method or "a computed name"}")'
            )
            self._setup_hazards.append((kept[0].line, what))
        self._flows.setdefault(var, []).extend(kept)

    # -- the fixpoint -------------------------------------------------------------------------

    def _settle(self, var: Var) -> None:
        """Decide ``var`` and every binding it is built from, to a fixpoint over just that
        part of the module (most bindings are never asked about)."""
        order: list[Var] = []
        pending = [var]
        seen = {var}
        while pending:
            current = pending.pop()
            order.append(current)
            for source in self._sources_of(current):
                if source not in seen and source not in self._settled:
                    seen.add(source)
                    pending.append(source)
        for current in order:
            found = self._direct(current)
            if found is not None:
                self._derived[current] = found
        changed = True
        while changed:
            changed = False
            for current in order:
                if current in self._derived or self._closed_by_type(current):
                    continue
                for source in self._sources_of(current):
                    found = self._derived.get(source)
                    if found is not None:
                        self._derived[current] = found
                        changed = True
                        break
        self._settled.update(order)

    def _closed_by_type(self, var: Var) -> bool:
        closed = self._closed_vars.get(var)
        if closed is None:
            closed = self._closed_vars[var] = var.type is not None and self._immutable(var.type)
        return closed

    def _is_host(self, module: str) -> bool:
        """A module of llm-pod itself."""
        host = self._host_modules.get(module)
        if host is None:
            host = self._host_modules[module] = _top(module) in HOST_PACKAGES
        return host

    def _is_library(self, module: str) -> bool:
        library = self._library_modules.get(module)
        if library is None:
            library = self._library_modules[module] = is_library(module, self._checker.modules)
        return library

    def _sources_of(self, var: Var) -> set[Var]:
        known = self._sources.get(var)
        if known is not None:
            return known
        found: set[Var] = set()
        for value in self._flows.get(var, ()):
            for expr in _with_parts(value):
                if isinstance(expr, (NameExpr, MemberExpr)):
                    source = self._root_binding(expr)
                    if source is not None and source is not var:
                        found.add(source)
        self._sources[var] = found
        return found

    def _direct(self, var: Var) -> Derivation | None:
        if self._closed_by_type(var):
            return None  # cannot carry a reference, whatever it was built from
        for value in self._flows.get(var, ()):
            for expr in _with_parts(value):
                typ = self._checker.lookup_type_or_none(expr)
                if typ is not None and self._reaches(typ):
                    shown = self._text(value)
                    if len(shown) > _SHOWN or "\n" in shown:
                        shown = self._text(expr)
                    return Derivation(shown, expr.line)
        return None

    @property
    def _source(self) -> list[str]:
        if self._source_cache is None:
            self._source_cache = _source_lines(self._checker.tree)
        return self._source_cache

    def _text(self, expr: Expression) -> str:
        if expr.end_line != expr.line or expr.end_column is None:
            return self._source[expr.line - 1].strip() if expr.line <= len(self._source) else "?"
        return self._source[expr.line - 1][expr.column : expr.end_column]


_IDENTIFIER: Final = re.compile(r"(?<![.\w])[A-Za-z_]\w*")
"""A name as written, not an attribute (``.turn``)."""
_LEAVES: Final = frozenset(
    {ExpressionStmt, ReturnStmt, PassStmt, RaiseStmt, AssertStmt, Import, ImportFrom, ImportAll}
)
"""Statements that bind nothing and hold no block (their calls are read separately)."""
_FULLNAME: Final = attrgetter("fullname")
_CHAINS: Final = frozenset({MemberExpr, CallExpr, IndexExpr})
_PARTIALS: Final = frozenset({"functools.partial", "functools.partialmethod"})
_FUNCTION_END: Final = GlobalDecl([])
"""Marks, on the walk's stack, where the statements of a function end."""
_ALIASING: Final = frozenset({NameExpr, MemberExpr, IndexExpr, CallExpr})
"""Expressions that may be (part of) another binding's value."""
_DEFINITIONS: Final = frozenset({FuncDef, Decorator, OverloadedFuncDef, ClassDef})
_SETATTR: Final = "builtins.setattr"
_LITERALS: Final = frozenset({StrExpr, BytesExpr, IntExpr, FloatExpr, ComplexExpr})
_RUNS_SOURCE: Final = frozenset({"builtins.exec", "builtins.eval"})
_NAMESPACE_CALLS: Final = frozenset({"builtins.vars", "builtins.globals", "builtins.locals"})
_SPECIAL_CALLEES: Final = _RUNS_SOURCE | {_SETATTR}
_HIDING_NAMES: Final = _NAMESPACE_CALLS | {_SETATTR}
_BY_NAME_CALLERS: Final = frozenset({"operator.methodcaller", "operator.attrgetter"})
_REFLECTION: Final = _BY_NAME_CALLERS | {"builtins.getattr"}
"""Callees that reach an attribute by a string (``getattr(atexit, "register")``)."""
_INSTALLER_NAMES: Final = PROCESS_WIDE_METHODS | {
    call.rpartition(".")[2] for call in PROCESS_WIDE_CALLS
}
_NOTABLE_CALLEES: Final = _SPECIAL_CALLEES | _HIDING_NAMES | PROCESS_WIDE_CALLS | _REFLECTION
"""What :meth:`Provenance._expressions` looks for among the module's names."""
_NAMESPACES: Final = frozenset({"__dict__", "__setattr__"})
"""Attributes :func:`_hidden_stores` looks for (with the names above)."""
_LOCAL_NAMESPACES: Final = frozenset({"builtins.vars", "builtins.locals"})
_SHOWN: Final = 60
"""Longest right-hand side a message quotes whole."""
_TYPE_CHECKING_NAMES: Final = frozenset({"TYPE_CHECKING", "MYPY"})


def _read_names(expressions: ModuleExpressions) -> tuple[set[str], bool, bool]:
    """The attribute names a module reads or writes; whether it names TYPE_CHECKING; whether
    it names a callee the store checks look for (:meth:`Provenance._expressions`). One look
    at every name and attribute: most modules name neither."""
    attributes: set[str] = set()
    type_checking = notable = False
    for ref in expressions.names:
        if ref.name in _TYPE_CHECKING_NAMES:
            type_checking = True
        if ref.fullname in _NOTABLE_CALLEES:
            notable = True
    for member in expressions.members:
        name = member.name
        attributes.add(name)
        if name in _TYPE_CHECKING_NAMES:
            type_checking = True
        if member.fullname in _NOTABLE_CALLEES:
            notable = True
    return attributes, type_checking, notable


def _top(module: str) -> str:
    return module.partition(".")[0]


def _reference(value: FuncDef | TypeInfo) -> NameExpr:
    """A name bound to a function (what a decorator is given)."""
    name = NameExpr(value.name)
    name.node = value
    name.line = value.line
    return name


def _code_in(value: Expression) -> list[FuncItem | TypeInfo]:
    """The functions, lambdas and classes an expression names or holds."""
    found: list[FuncItem | TypeInfo] = []
    # A name holds no other expression: the usual argument needs no traversal.
    for expr in [value] if type(value) is NameExpr else _with_parts(value):
        if isinstance(expr, LambdaExpr):
            found.append(expr)
        elif isinstance(expr, RefExpr):
            if isinstance(expr.node, TypeInfo):
                found.append(expr.node)
            else:
                func = function_of(expr.node)
                if func is not None:
                    found.append(func)
    return found


@final
class _Binding(NamedTuple):
    """One binding of a name in a scope."""

    value: Expression
    """What it binds, as an expression (a reference for a ``def``, ``class`` or import)."""
    code: FuncDef | TypeInfo | None
    """The function or class it binds, when the binding is one."""
    variable: Var | None = None
    """The variable an assignment binds, when the name is one."""


def _bind_again(
    name: str,
    node: Node,
    lvalue: NameExpr | None,
    first: dict[str, Node],
    again: dict[str, list[tuple[Node, NameExpr | None]]],
) -> None:
    """Record another binding of ``name`` (and, the first time, the binding before it)."""
    if name in again:
        again[name].append((node, lvalue))
        return
    earlier = first[name]
    named = None
    if type(earlier) is AssignmentStmt:  # its first target of that name
        named = next((t for t in earlier.lvalues if type(t) is NameExpr and t.name == name), None)
    again[name] = [(earlier, named), (node, lvalue)]


def _optional(block: Block | None) -> list[Block]:
    return [block] if block is not None else []


def _code_node(value: Expression) -> FuncDef | TypeInfo | None:
    if not isinstance(value, RefExpr):
        return None
    return value.node if isinstance(value.node, TypeInfo) else function_of(value.node)


def _followable(value: Expression) -> bool:
    """A value whose code the plugin follows when it is bound to a function's name: a
    lambda or a function or class named as such (not a call, a bound method, a partial)."""
    return isinstance(value, LambdaExpr) or _code_node(value) is not None


def _reference_to(node: SymbolNode | None, context: Context) -> NameExpr:
    name = NameExpr(getattr(node, "name", "?"))
    name.node = node
    name.set_line(context)
    return name


def _hidden_stores(module: ModuleExpressions) -> list[tuple[Expression, str]]:
    """The ways to store an attribute (``setattr``, ``__setattr__``) or a namespace
    (``X.__dict__``, ``vars(X)``, ``globals()``) a module names: only a direct call, an item
    or an alias is tracked; passed anywhere else (``s = setattr``, ``partial(setattr, X)``,
    ``operator.setitem(X.__dict__, ...)``) one would store out of sight."""
    found: list[tuple[Expression, str]] = []
    for member in module.members:
        name = member.name
        if name == "__dict__":
            found.append((member, "namespace"))
        elif name == "__setattr__" or member.fullname == _SETATTR:
            found.append((member, "setter"))
    found.extend((name, "setter") for name in module.names if name.fullname == _SETATTR)
    for call in module.calls:
        callee = call.callee
        if isinstance(callee, RefExpr) and callee.fullname in _NAMESPACE_CALLS:
            found.append((call, "namespace"))
    return found


def _namespace_owner(expr: Expression) -> Expression | None:
    """``X`` for ``X.__dict__`` and ``vars(X)``; the ``globals()`` call itself."""
    if isinstance(expr, MemberExpr) and expr.name == "__dict__":
        return expr.expr
    if isinstance(expr, CallExpr) and isinstance(expr.callee, RefExpr):
        if expr.callee.fullname == "builtins.vars" and len(expr.args) == 1:
            return expr.args[0]
        if _is_globals(expr):
            return expr
    return None


def _read_attribute_of(expr: Expression) -> Expression | None:
    """``X`` for ``getattr(X, n)``, ``X.__getattribute__(n)``, ``object.__getattribute__(X, n)``."""
    if not isinstance(expr, CallExpr) or not expr.args:
        return None
    callee = expr.callee
    if isinstance(callee, RefExpr) and callee.fullname == "builtins.getattr":
        return expr.args[0]
    if isinstance(callee, MemberExpr) and callee.name == "__getattribute__":
        return expr.args[0] if len(expr.args) == 2 else callee.expr
    return None


def _attribute_name(call: CallExpr) -> str | None:
    """The attribute a ``getattr(X, n)``-like call reads, when written as a literal."""
    callee, args = call.callee, call.args
    through_method = isinstance(callee, MemberExpr) and len(args) == 1
    name = args[0] if through_method else args[1] if len(args) > 1 else None
    return name.value if isinstance(name, StrExpr) else None


def _instance_method(info: TypeInfo, name: str) -> bool:
    """Whether ``info.name`` is a method that takes the instance first."""
    symbol = info.get(name)
    node = symbol.node if symbol is not None else None
    if isinstance(node, OverloadedFuncDef):
        return not node.is_static and not node.is_class
    func = function_of(node)
    return func is not None and not func.is_static and not func.is_class


def _is_globals(expr: Expression) -> bool:
    """``globals()``, or ``vars()``/``locals()`` without an argument (at module level, the
    same dictionary)."""
    if not isinstance(expr, CallExpr) or not isinstance(expr.callee, RefExpr):
        return False
    name = expr.callee.fullname
    return name == "builtins.globals" or (name in _LOCAL_NAMESPACES and not expr.args)


def _names_type_checking(expr: Expression) -> bool:
    return any(
        isinstance(e, (NameExpr, MemberExpr)) and e.name in _TYPE_CHECKING_NAMES
        for e in _with_parts(expr)
    )


def _callee_root(callee: Expression) -> tuple[Expression, bool, bool]:
    """Where a callee's chain of attributes, calls and items starts (``f`` in
    ``f.register(int)``, ``HANDLERS[0]``), whether it goes through an attribute named
    ``register``, and whether through any attribute (a method of what it starts from)."""
    root = callee
    registers = method = False
    while True:
        if type(root) is MemberExpr:
            registers = registers or root.name == "register"
            method = True
            root = root.expr
        elif type(root) is CallExpr:
            read = _read_attribute_of(root)
            if read is not None:  # ``getattr(f, "register")``: an attribute, maybe that one
                name = root.args[1] if len(root.args) > 1 else None
                registers = registers or not isinstance(name, StrExpr) or name.value == "register"
                method = True
                root = read
            elif _is_partial(root):
                root = root.args[0]  # ``partial(f.register, int)`` calls ``f.register``
            else:
                root = root.callee
        elif type(root) is IndexExpr:
            root = root.base
        else:
            return root, registers, method


def _captures(pattern: Pattern) -> Iterable[NameExpr]:
    """The names a ``case`` pattern binds."""
    if isinstance(pattern, AsPattern):
        if pattern.name is not None:
            yield pattern.name
        if pattern.pattern is not None:
            yield from _captures(pattern.pattern)
    elif isinstance(pattern, (OrPattern, SequencePattern)):
        for inner in pattern.patterns:
            yield from _captures(inner)
    elif isinstance(pattern, StarredPattern):
        if pattern.capture is not None:
            yield pattern.capture
    elif isinstance(pattern, MappingPattern):
        for inner in pattern.values:
            yield from _captures(inner)
        if pattern.rest is not None:
            yield pattern.rest
    elif isinstance(pattern, ClassPattern):
        for inner in [*pattern.positionals, *pattern.keyword_values]:
            yield from _captures(inner)


def _method_of_a_variable(callee: Expression) -> bool:
    """``x.method``: a callee :meth:`Provenance._attach` has nothing to record for."""
    if type(callee) is not MEMBER_EXPR or callee.name == "register":
        return False
    base = callee.expr
    return type(base) is NAME_EXPR and type(base.node) is VAR


def _keeps_nothing(callee: MemberExpr) -> bool:
    """A module's function (``json.dumps``, ``logging.info``) or a method of a literal that
    stores nothing (``"{}".format``: every f-string): called or passed anywhere, it keeps
    what it is given in no binding (a module has none; ``atexit.register`` and the like are
    the process-wide checks'), and it starts from no function of this module."""
    receiver = callee.expr
    kind = type(receiver)
    if kind is NAME_EXPR or kind is MEMBER_EXPR:
        return type(cast(RefExpr, receiver).node) is MYPY_FILE
    return kind in _LITERALS and callee.name not in _STORING_METHODS


def _is_partial(call: CallExpr) -> bool:
    callee = call.callee
    return bool(call.args) and isinstance(callee, RefExpr) and callee.fullname in _PARTIALS


def _with_parts(expr: Expression) -> list[Expression]:
    """``expr`` and every expression in it (once: mypy's list starts with ``expr`` itself
    for nearly every kind)."""
    parts = get_subexpressions(expr)
    return parts if parts and parts[0] is expr else [expr, *parts]


def _source_lines(tree: MypyFile) -> list[str]:
    try:
        with open(tree.path, encoding="utf-8") as file:
            return file.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return []
