"""``hook-boundary`` and ``hook-escape``: walk each hook body against mypy's type map.

Runs once a module is fully type-checked. Every expression in hook code (nested functions,
lambdas and comprehensions included) is looked up in the type map:

- an escape hatch (:mod:`.escapes`) is ``hook-escape``;
- a type that reaches a privileged class (:mod:`.._reach`) is ``hook-boundary``, naming the
  path;
- a reference to a function, method or class of the same module is followed: its body is
  walked with the same rules (memoised), and a problem there is reported where the hook
  uses it.

An expression is reported only if none of its subexpressions is, so each error points at
the innermost offender. A ``# type: ignore`` inside hook code would silence these errors on
its line, so it is itself reported (``hook-escape``) on a line it cannot silence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, NamedTuple, TypeAlias, cast, final

from mypy.checker import TypeChecker
from mypy.errorcodes import ErrorCode
from mypy.expandtype import expand_type_by_instance
from mypy.lookup import lookup_fully_qualified
from mypy.messages import format_type
from mypy.nodes import (
    FUNC_NO_INFO,
    LDEF,
    VAR_NO_INFO,
    BytesExpr,
    CallExpr,
    CastExpr,
    ComplexExpr,
    Context,
    Decorator,
    EllipsisExpr,
    Expression,
    FloatExpr,
    FuncDef,
    FuncItem,
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
from mypy.server.subexpr import get_subexpressions
from mypy.types import (
    AnyType,
    Instance,
    LiteralType,
    NoneType,
    TupleType,
    Type,
    TypeAliasType,
    TypedDictType,
    UninhabitedType,
    UnionType,
    get_proper_type,
)

from .._consts import (
    ATTRIBUTE,
    ESCAPE,
    HAZARDS,
    HELPER_REACHES,
    HIDDEN_OVERRIDE,
    HOLDS,
    HOOK_BASE,
    HOOK_BOUNDARY,
    HOOK_DECORATOR,
    HOOK_ESCAPE,
    HOOK_EVENT,
    IGNORE_IN_HOOK,
    IMPORTED_OPEN,
    IN_HOOK,
    IS_PRIVILEGED,
    MISSING_LIBRARY_NAME,
    MODULE_FORBIDS,
    MODULE_HAZARD,
    PRIVILEGED,
    PROCESS_WIDE_CALLS,
    PROCESS_WIDE_LISTS,
    PROCESS_WIDE_METHODS,
    PROCESS_WIDE_OWNERS,
    REACHES,
    REGISTRY_CLASS,
    UNCHECKED_MODULE,
    UNKNOWN_BINDING,
    UNVERIFIABLE_CODE,
    UNVERIFIABLE_DECLARED,
)
from .._defs import (
    Definition,
    class_of,
    defined_in,
    definition,
    event_name,
    function_of,
    held_by_instance,
    hook_input,
    member_definitions,
    receiver_classes,
    super_targets,
    variable_module,
)
from .._hooks import HookSite, ModuleHooks
from .._origin import HOST_PACKAGES, hook_may_use, is_library, is_stdlib
from .._provenance import Provenance
from .._reach import Reach
from .._report import HookEntry, Status, active, fail, record_hook
from .._scan import ModuleExpressions
from .escapes import HARMLESS_ANY as _HARMLESS_ANY
from .escapes import escape, escaping_class
from .immutability import is_deeply_immutable

__all__ = ["LibraryAnswers", "ProjectSubclasses", "check_module", "missing_library_names"]

_Span: TypeAlias = tuple[int, int, int, int]


@final
class KnownReference(NamedTuple):
    """A reference to library code whose value checks passed (``_Walker._library_code``)."""

    typ: Type
    """Its type (kept alive: the table is also keyed by the type's identity)."""
    depended: frozenset[str]
    """The modules the answer depended on."""
    targets: tuple[Definition, ...]
    """The definitions it names."""
    in_libraries: bool
    """Whether they are all definitions of libraries."""


@final
class LibraryAnswers:
    """Answers about library code that are the same in every module of a build, each with
    the modules it depended on (a module that uses one depends on them too)."""

    def __init__(self) -> None:
        self.references: dict[tuple[object, ...], KnownReference] = {}
        """References to library code whose value checks passed (``_Walker._library_code``),
        by the type's identity and the reference's key."""
        self.by_parts: dict[tuple[object, ...], list[KnownReference]] = {}
        """The same answers by the reference's key alone (each for its own type)."""
        self.quiet: dict[object, tuple[bool, frozenset[str]]] = {}
        """Answers of ``_Walker._quiet`` for an instance type, by class or (with type
        arguments) by type."""
        self._immutable: dict[Type, bool] = {}
        self.missing: list[str] | None = None
        """The build's answer of :func:`missing_library_names`, once asked."""
        self.closed: dict[Instance, bool] = {}
        """Whether an instance type of a project class is closed (``_closed``), by value: it
        reads only the type and the classes' declarations."""

    def immutable(self, typ: Type) -> bool:
        """:func:`is_deeply_immutable`, once per type (by value) for the whole build: it reads
        only the type and the classes' declarations."""
        known = self._immutable.get(typ)
        if known is None:
            known = self._immutable[typ] = is_deeply_immutable(typ)
        return known


_REBUILDERS: Final = frozenset({"__init__", "__post_init__"})
_SETUP_METHODS: Final = frozenset(
    {"__init__", "__new__", "__post_init__", "__init_subclass__", "__set_name__"}
)
"""Methods of a hook class that run before it is registered: setup code."""
_NO_LINE: Final = re.compile(r" \(line \{line\}\)")
_LITERALS: Final = frozenset({StrExpr, BytesExpr, IntExpr, FloatExpr, ComplexExpr, EllipsisExpr})
_MODULE_TYPE: Final = "types.ModuleType"
_FORMAT_NAMES: Final = frozenset({"format", "format_map"})
_JUDGED_BY_WHAT_THEY_NAME: Final = frozenset({MemberExpr, CastExpr, SuperExpr})
"""Expressions a quiet type does not clear: an attribute (a binding, a function, a class),
a cast, ``super().x``. A name is judged by what it names unless it is the hook's own."""


@final
class _Finding(NamedTuple):
    code: ErrorCode
    text: str
    """What is wrong, without saying in which hook (``cast() is not allowed ...``)."""
    line: int
    via: tuple[str, ...] = ()
    """The helpers, outermost first, through which the hook reaches the problem."""


_REQUIRED: Final = ((PRIVILEGED, "the privilege marker"), (HOOK_EVENT, "the event catalogue"))


def missing_library_names(modules: dict[str, MypyFile]) -> list[str]:
    """Messages for the classes of ``llm_worker``/``pod`` the checks rely on and the build
    does not contain."""
    missing: list[str] = []
    for fullname, what in _REQUIRED:
        symbol = lookup_fully_qualified(fullname, modules)
        if symbol is None or not isinstance(symbol.node, TypeInfo):
            missing.append(MISSING_LIBRARY_NAME.format(fullname=fullname, what=what))
    return missing


def check_module(
    hooks: ModuleHooks,
    reach: Reach,
    subclasses: ProjectSubclasses,
    library: LibraryAnswers,
    expressions: ModuleExpressions,
) -> set[str]:
    """Report problems in the hook code of one checked module.

    Returns:
        The modules the answers depended on (for the module's indirect dependencies).
    """
    checker = hooks.checker
    hooks.report_deferred()
    if not hooks.sites:
        return set()
    if library.missing is None:  # the build's modules are fixed before checking starts
        library.missing = missing_library_names(checker.modules)
    missing = library.missing
    if missing:
        first = min(hooks.sites.values(), key=lambda site: site.first_line)
        for message in missing:
            fail(checker, message, Context(line=first.first_line), HOOK_BOUNDARY)
        return set()
    if checker.can_skip_diagnostics:
        # mypy does not check function bodies in a module whose errors are all ignored:
        # there is no type map to walk.
        for site in hooks.sites.values():
            fail(checker, UNCHECKED_MODULE, Context(line=site.first_line), HOOK_BOUNDARY)
            _record(checker, site, "unverifiable", UNCHECKED_MODULE)
        return set()
    reach.start_module()
    walker = _Walker(
        checker,
        reach=reach,
        subclasses=subclasses,
        library=library,
        sites=hooks.sites.values(),
        expressions=expressions,
    )
    hazards = [*walker.provenance.top_level_hazards, *_process_wide(expressions, checker)]
    spans = [(site.first_line, site.last_line) for site in hooks.sites.values()]
    setup = [span for site in hooks.sites.values() for span in _setup_spans(site.node)]
    for line, what in sorted(hazards):
        in_hook = any(first <= line <= last for first, last in spans)
        if in_hook and not any(first <= line <= last for first, last in setup):
            continue  # in hook code: reported there, as hook code
        message = what if what == MODULE_HAZARD else MODULE_FORBIDS.format(what=what)
        fail(checker, message, Context(line=line), HOOK_ESCAPE)
    for var, context in hooks.hook_variables:
        problem = walker.hook_variable_problem(var)
        if problem is not None:
            fail(checker, problem, context, HOOK_BOUNDARY)
    host = checker.tree.fullname.partition(".")[0] in HOST_PACKAGES
    for site in sorted(hooks.sites.values(), key=lambda site: site.first_line):
        if host and isinstance(site.node, TypeInfo):
            # llm-pod's own hook classes are the host's library (docs/plugin.md).
            _record(checker, site, "trusted", "llm-pod's own hook class")
            continue
        walker.check(site)
        reasons = walker.messages.get(id(site.node), [])
        status: Status = "unverifiable" if reasons else "verified"
        _record(checker, site, status, reasons[0] if reasons else "")
    hooks.verdicts = walker.verdicts
    return reach.touched


@final
class _Walker:
    def __init__(
        self,
        checker: TypeChecker,
        *,
        reach: Reach,
        subclasses: ProjectSubclasses,
        library: LibraryAnswers,
        sites: Iterable[HookSite],
        expressions: ModuleExpressions,
    ) -> None:
        self._checker = checker
        self._reach = reach
        self._module = checker.tree.fullname
        self._helpers: dict[int, _Finding | None] = {}
        self._classes: dict[int, _Finding | None] = {}
        """By class identity: a conditional redefinition has the same fullname."""
        self._closed_memo = library.closed
        self._sealed_memo: dict[str, bool] = {}
        self._library_definitions: dict[int, bool] = {}
        self._references = library.references
        self._by_parts = library.by_parts
        self._quiet_types = library.quiet
        self._in_library = is_library(self._module, checker.modules)
        self._known_members: dict[tuple[int, str, str | None] | None, KnownReference] = {}
        self._known_names: dict[int, KnownReference] = {}
        """Known references by the library definition a name of this module names."""
        self._applied: set[int] = set()
        """The library answers whose modules this module's dependencies include."""
        self._quiet_here: dict[TypeInfo, bool] = {}
        self._quiet_seen: dict[int, tuple[Type, bool]] = {}
        """Answers of :meth:`_quiet` already used in this module (their modules joined its
        dependencies): by class, or by the type's identity (the entry keeps it alive)."""
        self._clear_known: dict[int, bool] = {}
        """The known references used in this module (their modules joined its dependencies),
        by identity: whether their answer is "nothing to report" at every use here."""
        self._subclasses = subclasses
        self._subclasses_fresh = False
        self._site_classes = {
            site.node.fullname for site in sites if isinstance(site.node, TypeInfo)
        }
        self.provenance = Provenance(
            # Not a method of this walker: that would be a reference cycle through the
            # module's checker and type map, which only a costly full GC pass then frees.
            checker,
            expressions,
            reach.reaches_privileged,
            library.immutable,
        )
        self.findings = 0
        self.verdicts: dict[int, int] = {}
        """Findings per hook site (by node identity): 0 means verified."""
        self.messages: dict[int, list[str]] = {}
        """The findings' messages per hook site."""
        self._site_key = 0

    def hook_variable_problem(self, var: Var) -> str | None:
        """Why a variable registered as a hook instance may hold something else, if it may:
        only a variable of this module whose every value is built from a Hook subclass is
        one."""
        if _variable_module(var, NameExpr(var.name), self._module) == self._module:
            flows = self.provenance.values(var)
            if flows and all(_builds_hook(value) for value in flows):
                return None
        return UNVERIFIABLE_DECLARED.format(what=f'"{var.name}"')

    def check(self, site: HookSite) -> None:
        before = self.findings
        self._site_key = id(site.node)
        self._check_site(site)
        self.verdicts[id(site.node)] = self.findings - before

    def _check_site(self, site: HookSite) -> None:
        if isinstance(site.node, TypeInfo):
            self._check_class_site(site, site.node)
            self._check_engine_methods(site, site.node)
            call = _own_call(site.node)
            if call is None:
                self._check_call_binding(site, site.node)
                return
            site = HookSite(site.name, call)
        function = site.node
        assert isinstance(function, FuncItem)
        span = (site.first_line, site.last_line)
        self._check_expressions(site, get_subexpressions(function), span)
        rebound = self._follow_all(self.provenance.attached(function), span, function.name)
        if rebound is not None:  # another definition of the hook's name, a registered impl
            self._report(site, rebound, Context(line=site.first_line))
        decorated = self.provenance.decorators.get(id(function))
        if decorated is not None:
            self._check_decorators(site, decorated.decorators)
        self._check_hazards(site, span)
        self._check_ignores(site, decorated)

    def _check_expressions(
        self, site: HookSite, expressions: list[Expression], span: tuple[int, int]
    ) -> None:
        reported: list[_Span] = []
        for expr in reversed(expressions):
            finding = self._finding(expr, span)
            if finding is None:
                continue
            where = _span(expr)
            if any(_contains(where, inner) for inner in reported):
                continue
            reported.append(where)
            self._report(site, finding, expr)

    def _check_decorators(self, site: HookSite, decorators: list[Expression]) -> None:
        """A decorator runs before the hook is registered and may replace it: its code is
        hook code (``@registry.on``/``@hook`` themselves are llm-pod's, and harmless)."""
        for decorator in decorators:
            if self._registers(decorator):
                continue
            self._check_expressions(site, [decorator, *get_subexpressions(decorator)], (0, 0))

    def _registers(self, decorator: Expression) -> bool:
        """``@registry.on(EVENT)`` or ``@hook(EVENT)``: llm-pod's own, harmless."""
        if not isinstance(decorator, CallExpr):
            return False
        callee = decorator.callee
        if isinstance(callee, RefExpr) and callee.fullname == HOOK_DECORATOR:
            return True
        if not isinstance(callee, MemberExpr) or callee.name != "on":
            return False
        owner = class_of(self._checker.lookup_type_or_none(callee.expr))
        return owner is not None and owner.fullname == REGISTRY_CLASS

    def _check_hazards(self, site: HookSite, span: tuple[int, int]) -> None:
        for line, kind in self.provenance.hazards:
            if span[0] <= line <= span[1]:
                text = ESCAPE.format(what=HAZARDS[kind])
                self._report(site, _Finding(HOOK_ESCAPE, text, line), Context(line=line))

    def _check_engine_methods(self, site: HookSite, info: TypeInfo) -> None:
        """The engine holds the hook object and may run more than its ``__call__``: it
        reads attributes (``__getattr__`` answers ``__pod_event__`` on a plain object),
        compares, hashes, prints and drops it. Every method of a plain class, and every
        dunder of a ``Hook`` subclass, is hook code; constructors are setup code."""
        is_hook_class = info.has_base(HOOK_BASE)
        for base in info.mro:
            if base.fullname == HOOK_BASE or is_library(base.module_name, self._checker.modules):
                continue
            if base.module_name != self._module:
                checked_elsewhere = base.has_base(HOOK_BASE) or (
                    "__call__" in base.names and _own_call(info) is None
                )  # a Hook subclass is checked in its module; a __call__, by _check_call_binding
                if not checked_elsewhere and not self._pure_data(base):
                    text = UNVERIFIABLE_CODE.format(name=base.name, module=base.module_name)
                    self._report(site, _Finding(HOOK_BOUNDARY, text, info.line), info.defn)
                    return
                continue
            for name, symbol in base.names.items():
                if name in _SETUP_METHODS or name == "__call__":
                    continue
                if is_hook_class and not (name.startswith("__") and name.endswith("__")):
                    continue
                func = function_of(symbol.node)
                if func is None:
                    continue
                finding = self._follow_all([func], (0, 0), f"{base.name}.{name}")
                if finding is not None:
                    self._report(site, finding, info.defn)
                    return

    def _check_call_binding(self, site: HookSite, info: TypeInfo) -> None:
        """A hook class whose ``__call__`` is not a method of this module: a function bound
        in the class body (``__call__ = fn``), or a method of a class of another module."""
        for base in info.mro:
            symbol = base.names.get("__call__")
            if symbol is None or base.fullname == HOOK_BASE:
                continue
            if base.module_name != self._module and not is_library(
                base.module_name, self._checker.modules
            ):
                text = UNVERIFIABLE_CODE.format(
                    name=f"{base.name}.__call__", module=base.module_name
                )
                self._report(site, _Finding(HOOK_BOUNDARY, text, info.line), info.defn)
                return
            if isinstance(symbol.node, Var):
                finding = self._follow_all(
                    self.provenance.held_functions(symbol.node), (0, 0), "__call__"
                )
                if finding is not None:
                    self._report(site, finding, info.defn)
            return

    # -- one expression -------------------------------------------------------------------

    def _finding(self, expr: Expression, hook_span: tuple[int, int]) -> _Finding | None:
        kind = type(expr)
        if kind in _LITERALS:
            return None
        patched = self.provenance.patched
        if patched and id(expr) in patched:
            return _Finding(HOOK_ESCAPE, ESCAPE.format(what=patched[id(expr)]), expr.line)
        typ = self._checker.lookup_type_or_none(expr)
        if kind is NameExpr:
            name = cast(NameExpr, expr)
            if name.is_inferred_def:
                return None  # ``x = value``: x has the type of value, which is checked itself
            node = name.node
            if type(node) is Var:
                if typ is None and not node.is_inferred:
                    typ = node.type  # a declaration target (``x: Worker``) may not be in the map
                if name.kind == LDEF and hook_span[0] <= node.line <= hook_span[1]:
                    # The hook's own variable: what flows into it is checked where it flows
                    # in; only a declared type (``kept: Worker | None = None``) is new here.
                    if typ is None or (
                        (type(typ) is Instance or type(typ) is UnionType) and self._quiet(typ)
                    ):
                        return None
                    text = self._reaches(typ)
                    return _Finding(HOOK_BOUNDARY, text, expr.line) if text is not None else None
            else:
                # A library definition named again in this module, with the same type object.
                named = self._known_names.get(id(node))
                if named is not None and named.typ is typ:
                    return self._known_code(named, name, hook_span)
        elif kind is MemberExpr:
            member = cast(MemberExpr, expr)
            if member.node is None:
                # An attribute of a library object read again in this module, through a
                # receiver of the same type object (``call.tool_name``), with the same type.
                # A method's type is a new object at each access: then compare by value (as
                # the build's table does).
                named = self._known_members.get(self._member_key(member))
                if named is not None and (named.typ is typ or named.typ == typ):
                    return self._known_code(named, member, hook_span)
        elif (
            (type(typ) is Instance or type(typ) is UnionType)
            and kind not in _JUDGED_BY_WHAT_THEY_NAME
            and self._quiet(typ)
        ):
            return None  # the common case, decided without the checks below
        if isinstance(expr, RefExpr):
            parts = self._reference_parts(expr, typ)
            if parts is not None and expr.kind != LDEF:
                # Named elsewhere in the build with the same type object and key: the key
                # decides that it names library code (a local name may not: no shortcut).
                known = self._references.get((id(typ), *parts))
                if known is not None and known.typ is typ:
                    self._remember(expr, known)
                    return self._known_code(known, expr, hook_span)
            if self._names_library_code(expr):
                return self._library_code(expr, typ, hook_span, parts)
        found = self._value_finding(expr, typ, instance_code=False)
        if found is not None:
            return found
        if isinstance(expr, RefExpr):
            found = self._binding(expr, typ, hook_span) or self._code(expr, hook_span)
            if found is not None:
                return found
        if isinstance(expr, SuperExpr):
            found = self._super(expr, hook_span)
            if found is not None:
                return found
        if typ is not None:
            return self._instance_code(typ, expr.line)
        return None

    def _value_finding(
        self, expr: Expression, typ: Type | None, *, instance_code: bool = True
    ) -> _Finding | None:
        """What an expression's value is (an escape hatch, privileged, an unexplained
        ``Any``, an object whose class runs code), leaving aside the binding or definition
        a reference names."""
        what = escape(expr, typ) or self._unlisted_stdlib(expr) or _module_value(expr, typ)
        if what is not None:
            return _Finding(HOOK_ESCAPE, ESCAPE.format(what=what), expr.line)
        if typ is not None:
            text = self._reaches(typ)
            if text is not None:
                return _Finding(HOOK_BOUNDARY, text, expr.line)
            if _is_any(typ) and not self._clean_any(expr):
                return _Finding(
                    HOOK_ESCAPE, ESCAPE.format(what='expression of type "Any"'), expr.line
                )
            if instance_code:
                return self._instance_code(typ, expr.line)
        return None

    def _names_library_code(self, expr: RefExpr) -> bool:
        """Whether ``expr`` names a function or class of a library, or an attribute of a
        library object: then :meth:`_binding` has nothing to follow (decided once per
        definition and module)."""
        node = expr.node
        if node is None:
            if not isinstance(expr, MemberExpr) or expr.fullname:
                return False
            receiver = self._checker.lookup_type_or_none(expr.expr)
            if type(receiver) is Instance:
                return is_library(receiver.type.module_name, self._checker.modules)
            owners = receiver_classes(receiver)
            return all(
                owner is None or is_library(owner.module_name, self._checker.modules)
                for owner in owners
            )
        if not isinstance(node, TypeInfo | FuncDef | Decorator | OverloadedFuncDef):
            return False
        known = self._library_definitions.get(id(node))
        if known is None:
            target = definition(expr, self._checker)
            known = target is not None and is_library(target.module, self._checker.modules)
            self._library_definitions[id(node)] = known
        return known

    def _library_code(
        self,
        expr: RefExpr,
        typ: Type | None,
        hook_span: tuple[int, int],
        parts: tuple[object, ...] | None,
    ) -> _Finding | None:
        """A reference to library code (``Continue``, ``call.tool_name``, ``re.compile``).
        _binding has nothing to say about it; _code may (a def bound in its place, what this
        module gives it). Its value checks and the definitions it names are the same
        wherever the same key (:meth:`_reference_parts` and the type) is named: they are
        found once a build (most hook modules name the same few), and an answer brings the
        modules it depended on along. What this module attaches to the definitions is
        followed each time. ``parts`` are :meth:`_reference_parts`."""
        known = None
        if parts is not None:
            # The same type object is shared by most references to a definition (a class's
            # constructor, an attribute's declared type): look it up by identity first
            # (the table keeps it alive), then by value.
            known = self._references.get((id(typ), *parts))
            if known is None or known.typ is not typ:
                # By value: among the answers for the same key, one for an equal type
                # (comparing a few types is cheaper than hashing one, argument kinds and all).
                known = next((k for k in self._by_parts.get(parts, ()) if k.typ == typ), None)
        if known is not None:
            self._remember(expr, known)
            return self._known_code(known, expr, hook_span)
        outer = self._reach.touched
        depended: set[str] = set()
        self._reach.touched = depended
        try:
            found = self._value_finding(expr, typ, instance_code=False)
        finally:
            outer |= depended
            self._reach.touched = outer
        targets = self._targets(expr)
        found = found or self._targets_code(targets, expr, hook_span)
        if found is not None or typ is None:
            return found
        found = self._instance_code(typ, expr.line)
        if found is None and parts is not None and self._library_class(typ):
            known = KnownReference(
                typ,
                frozenset(depended),
                targets,
                all(is_library(target.module, self._checker.modules) for target in targets),
            )
            self._references[(id(typ), *parts)] = known
            self._by_parts.setdefault(parts, []).append(known)
            self._remember(expr, known)
        return found

    def _member_key(self, expr: MemberExpr) -> tuple[int, str, str | None] | None:
        """An attribute read, by the receiver's class (or, for a receiver that is not an
        instance, its type object, kept alive by the module's type map), the name and a
        ``str.format`` template (f-strings read ``format`` of a new literal each time)."""
        receiver = self._checker.lookup_type_or_none(expr.expr)
        if receiver is None:
            return None
        template = None
        if expr.name in _FORMAT_NAMES:
            if not isinstance(expr.expr, StrExpr):
                return None
            template = expr.expr.value
        head = id(receiver.type) if type(receiver) is Instance else id(receiver)
        return (head, expr.name, template)

    def _remember(self, expr: RefExpr, known: KnownReference) -> None:
        """Index a known reference by what this module names: the definition, or the
        receiver's type object (kept alive by the module's type map) and attribute."""
        if type(expr) is NameExpr:
            self._known_names[id(expr.node)] = known
        elif isinstance(expr, MemberExpr) and expr.node is None:
            key = self._member_key(expr)
            if key is not None:
                self._known_members[key] = known

    def _known_code(
        self, known: KnownReference, expr: RefExpr, hook_span: tuple[int, int]
    ) -> _Finding | None:
        """A known reference's answer in this module: the modules it depended on join the
        module's, and what the module attaches to its definitions is followed."""
        clear = self._clear_known.get(id(known))
        if clear is None:
            self._reach.touched |= known.depended
            # Nothing this module attaches to library definitions: the answer holds at
            # every use in this module (what is attached is fixed once provenance is done).
            clear = self._clear_known[id(known)] = known.in_libraries and all(
                _empty(self.provenance.attached(target.node)) for target in known.targets
            )
        if clear:
            return None
        if not known.in_libraries:
            return self._targets_code(known.targets, expr, hook_span)
        for target in known.targets:
            # What a ``def`` of this module may bind in its place (``except ImportError:``).
            attached = self.provenance.attached(target.node)
            found = self._follow_all(attached, hook_span, target.name) if attached else None
            if found is not None:
                return found
        return None

    def _library_class(self, typ: Type) -> bool:
        """Whether the values of ``typ`` are only of library classes (whose code
        :meth:`_instance_code` does not follow: the same answer in every module)."""
        return all(
            is_library(info.module_name, self._checker.modules) for info in _value_classes(typ)[1]
        )

    def _reference_parts(self, expr: RefExpr, typ: Type | None) -> tuple[object, ...] | None:
        """What decides, with its type, the value checks of a reference to library code and
        the definitions it names: the named node (or the classes of the receiver and the
        attribute name), the reference's names and a ``str.format`` template. Types compare
        by value, but an ``Any``'s kind does not: a reference of type ``Any`` has no key. In
        a module of a library (llm-pod's own hook code) a definition may be of the module
        itself: no key."""
        if typ is None or isinstance(get_proper_type(typ), AnyType) or self._in_library:
            return None
        if isinstance(expr, NameExpr):
            return (id(expr.node), expr.fullname)
        assert isinstance(expr, MemberExpr)
        template = expr.expr.value if isinstance(expr.expr, StrExpr) else None
        if expr.name in _FORMAT_NAMES and template is None:
            return None
        receivers: tuple[int, ...] = ()
        if expr.node is None:
            receiver = self._checker.lookup_type_or_none(expr.expr)
            if type(receiver) is Instance:
                receivers = (id(receiver.type),)
            else:
                receivers = tuple(map(id, receiver_classes(receiver)))
        return (id(expr.node), receivers, expr.fullname, expr.name, template)

    def _quiet(self, typ: Instance | UnionType) -> bool:
        """A value of library classes only (its own, a union's members', its type
        arguments'), none of them a module or an escape hatch, that reaches no privileged
        class: every check below passes it. A union member that is not an instance (a
        callable, ``Any``...) is not quiet. The answer is the same in every module (one per
        class, or per type with type arguments, for the whole build; a union's is its
        members')."""
        if type(typ) is UnionType:
            # Member by member: a union is often a new object around the same members,
            # and hashing it by value costs more than its members' answers.
            for item in typ.items:
                member = get_proper_type(item)
                if type(member) is Instance:
                    if not self._quiet(member):
                        return False
                elif type(member) is not NoneType:
                    return False
            return True
        instance = cast(Instance, typ)
        key: object
        if not instance.args:
            here = self._quiet_here.get(instance.type)
            if here is not None:
                return here
            key = instance.type
        else:
            seen = self._quiet_seen.get(id(instance))
            if seen is not None and seen[0] is instance:
                return seen[1]
            key = instance
        known = self._quiet_types.get(key)
        if known is None:
            outer = self._reach.touched
            depended: set[str] = set()
            self._reach.touched = depended
            try:
                quiet = (
                    all(
                        is_library(info.module_name, self._checker.modules)
                        and info.fullname != _MODULE_TYPE
                        and escaping_class(info) is None
                        for info in _classes_in(instance)
                    )
                    and self._reach.path(instance) is None
                )
            finally:
                outer |= depended
                self._reach.touched = outer
            known = self._quiet_types[key] = (quiet, frozenset(depended))
            self._applied.add(id(known))
        elif id(known) not in self._applied:
            self._applied.add(id(known))
            self._reach.touched |= known[1]
        if instance.args:
            self._quiet_seen[id(instance)] = (instance, known[0])
        else:
            self._quiet_here[instance.type] = known[0]
        return known[0]

    def _super(self, expr: SuperExpr, hook_span: tuple[int, int]) -> _Finding | None:
        """``super().name``: whatever it may run or hold, in any class that may be ``self``."""
        for owner, node in super_targets(expr, self.provenance.classes, self._checker):
            name = f"{owner.name}.{expr.name}"
            if owner.module_name != self._module:
                if is_library(owner.module_name, self._checker.modules) or self._pure_data(
                    owner, built=True
                ):
                    continue
                text = UNVERIFIABLE_CODE.format(name=name, module=owner.module_name)
                return _Finding(HOOK_BOUNDARY, text, expr.line)
            if isinstance(node, Var):
                found = self._variable_binding(node, expr, node.type, hook_span)
            else:
                func = function_of(node)
                found = self._follow_all([func], hook_span, name) if func is not None else None
            if found is not None:
                return found
        return None

    def _unlisted_stdlib(self, expr: Expression) -> str | None:
        if not isinstance(expr, RefExpr) or not expr.fullname:
            return None
        node = expr.node
        if node is None or isinstance(node, MypyFile):
            return None  # a module is a namespace: what hook code takes from it counts
        if isinstance(node, Var) and "." not in node.fullname:
            return None
        if not is_stdlib(expr.fullname) or hook_may_use(expr.fullname):
            return None
        return f'"{expr.fullname}"'

    def _clean_any(self, expr: Expression) -> bool:
        """An ``Any`` is harmless when it comes from a trusted or followed call (``re.findall``,
        ``struct.unpack``, ``json.loads`` on clean arguments), or is part of such a value."""
        if isinstance(expr, CallExpr):
            callee_type = self._type(expr.callee)
            if callee_type is not None and _is_any(callee_type):
                return True
            target = definition(expr.callee, self._checker)
            if target is not None:
                return target.module == self._module or is_library(
                    target.module, self._checker.modules
                )
            owner = (
                class_of(self._type(expr.callee.expr))
                if isinstance(expr.callee, MemberExpr)
                else None
            )
            return owner is not None and is_library(owner.module_name, self._checker.modules)
        if isinstance(expr, NameExpr):
            return isinstance(expr.node, Var)  # a variable: judged by _binding
        return True  # built from parts that are judged themselves

    def _binding(
        self, expr: RefExpr, typ: Type | None, hook_span: tuple[int, int]
    ) -> _Finding | None:
        """A variable outside the hook: its provenance must be clean and known."""
        for var in _variables(expr, self._checker):
            found = self._variable_binding(var, expr, typ, hook_span)
            if found is not None:
                return found
        return None

    def _variable_binding(
        self, var: Var, expr: RefExpr | SuperExpr, typ: Type | None, hook_span: tuple[int, int]
    ) -> _Finding | None:
        module = _variable_module(var, expr, self._module)
        if module == self._module:
            if hook_span[0] <= var.line <= hook_span[1]:
                return None  # the hook's own variable: what flows into it is checked there
            derived = self.provenance.derivation(var)
            if derived is not None:
                text = HOLDS.format(name=var.name, origin=derived.origin, line=derived.line)
                return _Finding(HOOK_BOUNDARY, text, expr.line)
            unknown = self.provenance.unknown_source(var, self._closed)
            if unknown is not None:
                text = UNKNOWN_BINDING.format(
                    name=var.name,
                    source=f'"{unknown.name}"',
                    line=unknown.line,
                    type=format_type(unknown.type, self._checker.options)
                    if unknown.type is not None
                    else '"Any"',
                )
                return _Finding(HOOK_BOUNDARY, text, expr.line)
            return self._follow_all(self.provenance.held_functions(var), hook_span, var.name)
        if is_library(module, self._checker.modules):
            return None
        seen = typ if typ is not None else var.type
        if not self._closed(seen):
            shown = format_type(seen, self._checker.options) if seen else '"Any"'
            text = IMPORTED_OPEN.format(name=var.name, module=module, type=shown)
            return _Finding(HOOK_BOUNDARY, text, expr.line)
        return None

    def _code(self, expr: RefExpr, hook_span: tuple[int, int]) -> _Finding | None:
        """A function or class the hook names: its code joins the hook's."""
        return self._targets_code(self._targets(expr), expr, hook_span)

    def _targets(self, expr: RefExpr) -> tuple[Definition, ...]:
        """The function or class a reference names; through a union, the method of every
        member's class."""
        target = definition(expr, self._checker)
        if target is not None:
            return (target,)
        if isinstance(expr, MemberExpr) and expr.node is None:
            return tuple(member_definitions(expr, self._checker))
        return ()

    def _targets_code(
        self, targets: tuple[Definition, ...], expr: RefExpr, hook_span: tuple[int, int]
    ) -> _Finding | None:
        for target in targets:
            found = self._definition_code(target, expr, hook_span)
            if found is not None:
                return found
        return None

    def _definition_code(
        self, target: Definition, expr: RefExpr, hook_span: tuple[int, int]
    ) -> _Finding | None:
        if target.module != self._module:
            if is_library(target.module, self._checker.modules):
                # What a ``def`` of this module may bind in its place (``except ImportError:``).
                attached = self.provenance.attached(target.node)
                return self._follow_all(attached, hook_span, target.name)
            if isinstance(target.node, TypeInfo) and self._pure_data(target.node, built=True):
                return None
            text = UNVERIFIABLE_CODE.format(name=target.name, module=target.module)
            return _Finding(HOOK_BOUNDARY, text, expr.line)
        if isinstance(target.node, TypeInfo):
            return self._class_code(target.node, target.name)
        return self._follow_all([target.node], hook_span, target.name)

    def _instance_code(self, typ: Type, line: int) -> _Finding | None:
        """A value of a class runs that class's code implicitly (``if obj:``, ``len(obj)``,
        ``obj[k]``, ``with obj:``, f-strings, ``==``, descriptors, ``__getattr__``...)."""
        built, infos = _value_classes(typ)
        for info in infos:
            if info.fullname in self._site_classes:
                continue
            if info.module_name == self._module:
                found = self._class_code(info, info.name)
                if found is not None:
                    return found
                continue
            if is_library(info.module_name, self._checker.modules) or self._pure_data(
                info, built=built
            ):
                continue
            text = UNVERIFIABLE_CODE.format(name=info.name, module=info.module_name)
            return _Finding(HOOK_BOUNDARY, text, line)
        return None

    def _class_code(self, info: TypeInfo, name: str) -> _Finding | None:
        """Every method of the class, its bases of this module, its subclasses in this
        module (virtual dispatch) and its metaclass; functions bound in its body."""
        if info.fullname in self._site_classes:
            return None
        if id(info) in self._classes:
            return self._classes[id(info)]
        self._classes[id(info)] = None  # recursion ends here
        hidden = self._hidden_override(info)
        if hidden is not None:
            text = HIDDEN_OVERRIDE.format(
                name=info.name, sub=hidden.name, module=hidden.module_name
            )
            self._classes[id(info)] = _Finding(HOOK_BOUNDARY, text, info.line)
            return self._classes[id(info)]
        related = [
            base for base in info.mro if not is_library(base.module_name, self._checker.modules)
        ]
        related += [sub for sub in self.provenance.classes if info in sub.mro[1:]]
        meta = info.metaclass_type
        if meta is not None and meta.type.module_name == self._module:
            related.append(meta.type)
        found: _Finding | None = None
        for cls in related:
            if cls.module_name != self._module:
                if not self._pure_data(cls, built=True):
                    text = UNVERIFIABLE_CODE.format(name=cls.name, module=cls.module_name)
                    found = _Finding(HOOK_BOUNDARY, text, info.line)
                    break
                continue
            code: list[FuncItem | TypeInfo] = self._named_in_body(cls)
            code.extend(self.provenance.attached(cls))  # a conditional or redefined class
            for symbol in cls.names.values():
                func = function_of(symbol.node)
                if func is not None:
                    code.append(func)
                elif isinstance(symbol.node, Var):
                    code.extend(self.provenance.held_functions(symbol.node))
                    derived = self.provenance.derivation(symbol.node)
                    if derived is not None:
                        found = _Finding(
                            HOOK_BOUNDARY,
                            HOLDS.format(
                                name=f"{cls.name}.{symbol.node.name}",
                                origin=derived.origin,
                                line=derived.line,
                            ),
                            derived.line,
                        )
                        break
            if found is None:
                found = self._follow_all(code, (0, 0), None)
            if found is not None:
                break
        if found is not None and name not in found.via[:1]:
            found = _Finding(found.code, found.text, found.line, (name, *found.via))
        self._classes[id(info)] = found
        return found

    def _named_in_body(self, cls: TypeInfo) -> list[FuncItem | TypeInfo]:
        """Functions of this module a class body names, also in annotations (validators in
        ``Annotated[...]`` run when the class is built)."""
        defn = cls.defn
        words = self.provenance.words(defn.line, defn.end_line or defn.line)
        found: list[FuncItem | TypeInfo] = []
        for name, symbol in self._checker.tree.names.items():
            if name in words and symbol.node is not cls:
                func = function_of(symbol.node)
                if func is not None:
                    found.append(func)
        return found

    def _follow_all(
        self, code: Iterable[FuncItem | TypeInfo], hook_span: tuple[int, int], name: str | None
    ) -> _Finding | None:
        for item in code:
            if isinstance(item, TypeInfo):
                if item.module_name != self._module:
                    continue  # checked by _code/_instance_code where it is named
                inner = self._class_code(item, item.name)
            else:
                here = defined_in(item, self._module)
                if here and hook_span[0] <= item.line <= hook_span[1]:
                    continue  # part of the hook itself, walked with it
                if not here:
                    module = _function_module(item)
                    if is_library(module, self._checker.modules):
                        # Held in a variable or bound to a name (``RUN = eval``): the same
                        # functions are refused as when hook code names them.
                        what = self._library_escape(item)
                        if what is None:
                            continue
                        via: tuple[str, ...] = (name,) if name is not None else ()
                        return _Finding(HOOK_ESCAPE, ESCAPE.format(what=what), 0, via)
                    text = UNVERIFIABLE_CODE.format(name=item.name, module=module)
                    inner = _Finding(HOOK_BOUNDARY, text, item.line)
                else:
                    inner = self._helper(item)
            if inner is not None:
                via = inner.via if name is None or inner.via[:1] == (name,) else (name, *inner.via)
                return _Finding(inner.code, inner.text, inner.line, via)
        return None

    def _library_escape(self, func: FuncItem) -> str | None:
        if not isinstance(func, FuncDef):
            return None
        reference = NameExpr(func.name)
        reference.node, reference.fullname = func, func.fullname
        return escape(reference, None) or self._unlisted_stdlib(reference)

    def _helper(self, function: FuncItem) -> _Finding | None:
        key = id(function)
        if key in self._helpers:
            return self._helpers[key]
        self._helpers[key] = None  # recursion ends here
        span = (function.line, function.end_line or function.line)
        found: _Finding | None = None
        found_at: _Span | None = None
        # Pre-order: an expression's subexpressions follow it. Report the innermost
        # problem of the first problematic expression, like in hook bodies.
        for expr in get_subexpressions(function):
            if found_at is not None and not _contains(found_at, _span(expr)):
                break
            finding = self._finding(expr, span)
            if finding is not None:
                found, found_at = finding, _span(expr)
        if found is None:
            decorated = self.provenance.decorators.get(id(function))
            for decorator in decorated.decorators if decorated is not None else []:
                for expr in (decorator, *get_subexpressions(decorator)):
                    found = found or self._finding(expr, (0, 0))
        if found is None:
            # ``@f.register`` implementations of a ``functools.singledispatch`` ``f``.
            found = self._follow_all(self.provenance.attached(function), (0, 0), None)
        if found is None:
            for line, kind in self.provenance.hazards:
                if span[0] <= line <= span[1]:
                    found = _Finding(HOOK_ESCAPE, ESCAPE.format(what=HAZARDS[kind]), line)
                    break
        self._helpers[key] = found
        return found

    # -- types -------------------------------------------------------------------------------

    def _type(self, expr: Expression) -> Type | None:
        typ = self._checker.lookup_type_or_none(expr)
        if typ is None and isinstance(expr, NameExpr) and isinstance(expr.node, Var):
            # A declaration target (``x: Worker``) may not be in the type map.
            return expr.node.type if not expr.node.is_inferred else None
        return typ

    def _closed(self, typ: Type | None) -> bool:
        """Whether values of ``typ`` can only hold what the type shows: no ``Any``,
        ``object``, Protocol, callable, type variable or class object inside, and no class
        another module subclasses with code of its own (the value may be one of those)."""
        if not _closed(typ, self._checker.modules, self._closed_memo):
            return False
        return all(self._sealed(info) for info in _classes_in(typ))

    def _sealed(self, info: TypeInfo) -> bool:
        """Whether a value typed ``info`` runs only code the plugin can see: a class of the
        project with methods may be subclassed in a module checked later (unless
        ``@final``); a library class, in a module checked earlier."""
        sealed = self._sealed_memo.get(info.fullname)
        if sealed is None:
            sealed = info.is_final or (
                (is_library(info.module_name, self._checker.modules) or self._pure_data(info))
                and self._hidden_override(info) is None
            )
            self._sealed_memo[info.fullname] = sealed
        return sealed

    def _hidden_override(self, info: TypeInfo) -> TypeInfo | None:
        """A subclass of ``info`` in another module of the project that has methods of its
        own: a value typed ``info`` may be one, and run code the plugin cannot see."""
        if info.is_final:
            return None
        if not self._subclasses_fresh:
            self._subclasses.refresh(self._checker.modules)
            self._subclasses_fresh = True
        for sub in self._subclasses.of(info, self._module):
            if not self._pure_data(sub):
                return sub
        return None

    def _pure_data(self, info: TypeInfo, *, built: bool = False) -> bool:
        """A class of another project module whose code is only generated (a dataclass,
        NamedTuple or pydantic model without methods) and whose fields are closed.

        An existing instance (unless ``built``) does not run ``__init__`` again, except
        through ``dataclasses.replace`` on a dataclass; ``__new__`` always counts
        (``copy.copy`` runs it), and so does everything a subclass inherits."""
        rebuilt = built or any("dataclass" in base.metadata for base in info.mro)
        for base in info.mro:
            if is_library(base.module_name, self._checker.modules):
                continue
            for name, symbol in base.names.items():
                if symbol.plugin_generated or (not rebuilt and name in _REBUILDERS):
                    continue
                if isinstance(symbol.node, Decorator | OverloadedFuncDef | FuncDef):
                    return False
        return True

    def _reaches(self, typ: Type, subject: str | None = None) -> str | None:
        path = self._reach.path(typ)
        if path is None:
            return None
        if subject is None:
            subject = f"expression of type {format_type(typ, self._checker.options)}"
        if path.direct:
            return IS_PRIVILEGED.format(subject=subject)
        via = f" via {' -> '.join(path.via)}" if path.via else ""
        return REACHES.format(subject=subject, target=path.target, via=via)

    def _report(self, site: HookSite, finding: _Finding, context: Context) -> None:
        self.findings += 1
        if finding.via:
            # A library function has no line of the project to point at.
            template = HELPER_REACHES if finding.line > 0 else _NO_LINE.sub("", HELPER_REACHES)
            message = template.format(
                hook=site.name,
                helper=" -> ".join(finding.via),
                problem=finding.text,
                line=finding.line,
            )
        else:
            message = IN_HOOK.format(problem=finding.text, hook=site.name)
        self.messages.setdefault(self._site_key, []).append(message)
        fail(self._checker, message, context, finding.code)

    def _check_class_site(self, site: HookSite, info: TypeInfo) -> None:
        """A hook object's state must not hold (or lead to) privileged objects, nor be
        derived from one; its class decorators run as hook code."""
        for base in info.mro:
            if base.module_name != self._module:
                break  # Hook, object, and bases of other modules (checked there)
            for name, symbol in base.names.items():
                if not isinstance(symbol.node, Var) or symbol.node.type is None:
                    continue
                var = symbol.node
                line = var.line if var.line > 0 else base.defn.line
                text = None
                if var.type is not None and self._reach.path(var.type) is not None:
                    shown = format_type(var.type, self._checker.options)
                    text = self._reaches(var.type, ATTRIBUTE.format(name=name, type=shown))
                if text is None:
                    derived = self.provenance.derivation(var)
                    if derived is not None:
                        text = HOLDS.format(
                            name=f"self.{name}", origin=derived.origin, line=derived.line
                        )
                        line = derived.line
                if text is not None:
                    self._report(site, _Finding(HOOK_BOUNDARY, text, line), Context(line=line))
        self._check_decorators(site, info.defn.decorators)

    def _check_ignores(self, site: HookSite, decorated: Decorator | None) -> None:
        ignored = self._checker.tree.ignored_lines
        if not ignored:
            return  # the usual module: no ``# type: ignore`` anywhere
        first = site.first_line
        if decorated is not None and decorated.decorators:
            first = min(first, *(d.line for d in decorated.decorators))
        lines = sorted(n for n in ignored if first <= n <= site.last_line)
        for line in lines:
            shown = site.first_line
            while shown in ignored and shown > 1:
                shown -= 1
            self.findings += 1
            self.messages.setdefault(self._site_key, []).append(
                IGNORE_IN_HOOK.format(line=line, hook=site.name)
            )
            fail(
                self._checker,
                IGNORE_IN_HOOK.format(line=line, hook=site.name),
                Context(line=shown),
                HOOK_ESCAPE,
            )


def _record(checker: TypeChecker, site: HookSite, status: Status, why: str) -> None:
    """Into the boundary report of ``python -m pod_mypy check``, when it runs."""
    if active() is None:
        return
    event = event_name(hook_input(site.node, checker), checker.modules)
    record_hook(HookEntry(checker.path, site.first_line, event, site.name, status, why))


def _process_wide(expressions: ModuleExpressions, checker: TypeChecker) -> list[tuple[int, str]]:
    """Calls that install a process-wide callback or hook (``atexit.register``, a logging
    handler, an import finder...): they would run code the plugin never sees as hook code."""
    found: list[tuple[int, str]] = []
    for expr in expressions.calls:
        if not isinstance(expr.callee, RefExpr):
            continue
        callee = expr.callee
        if callee.fullname in PROCESS_WIDE_CALLS:
            found.append((expr.line, f"calling {callee.fullname}()"))
        elif isinstance(callee, MemberExpr) and callee.name in PROCESS_WIDE_METHODS:
            if isinstance(callee.expr, RefExpr) and callee.expr.fullname in PROCESS_WIDE_LISTS:
                found.append((expr.line, f"changing {callee.expr.fullname}"))
                continue
            owner = class_of(checker.lookup_type_or_none(callee.expr))
            if owner is not None and owner.module_name.partition(".")[0] in PROCESS_WIDE_OWNERS:
                found.append((expr.line, f"calling {owner.name}.{callee.name}()"))
    return found


def _setup_spans(node: FuncItem | TypeInfo) -> list[tuple[int, int]]:
    """The lines of a hook class's constructors: setup code inside the class's span."""
    if not isinstance(node, TypeInfo):
        return []
    spans: list[tuple[int, int]] = []
    for name, symbol in node.names.items():
        func = function_of(symbol.node)
        if func is not None and name.partition("-")[0] in _SETUP_METHODS:
            spans.append((func.line, func.end_line or func.line))
    return spans


def _builds_hook(value: Expression) -> bool:
    return (
        isinstance(value, CallExpr)
        and isinstance(value.callee, RefExpr)
        and isinstance(value.callee.node, TypeInfo)
        and value.callee.node.has_base(HOOK_BASE)
    )


def _module_value(expr: Expression, typ: Type | None) -> str | None:
    """A module held in a value (``m = sys``): its attributes are ``Any`` to mypy."""
    proper = get_proper_type(typ)
    if not isinstance(proper, Instance) or proper.type.fullname != _MODULE_TYPE:
        return None
    if isinstance(expr, RefExpr) and isinstance(expr.node, MypyFile):
        return None
    return "a module object held in a value"


def _empty(code: Iterable[object]) -> bool:
    return next(iter(code), None) is None


def _is_any(typ: Type) -> bool:
    proper = get_proper_type(typ)
    return isinstance(proper, AnyType) and proper.type_of_any not in _HARMLESS_ANY


def _variables(expr: RefExpr, checker: TypeChecker) -> list[Var]:
    """The variable a reference reads: through a union, one per member's class."""
    if isinstance(expr.node, Var):
        return [expr.node]
    if not isinstance(expr, MemberExpr):
        return []
    found: list[Var] = []
    for owner in receiver_classes(checker.lookup_type_or_none(expr.expr)):
        symbol = owner.get(expr.name) if owner is not None else None
        if symbol is not None and isinstance(symbol.node, Var):
            found.append(symbol.node)
    return found


def _variable_module(var: Var, expr: RefExpr | SuperExpr, here: str) -> str:
    if var.info is VAR_NO_INFO and isinstance(expr, NameExpr) and expr.kind == LDEF:
        return here
    return variable_module(var) or here


def _function_module(func: FuncItem) -> str:
    if isinstance(func, FuncDef) and func.info is not FUNC_NO_INFO:
        return func.info.module_name
    return func.fullname.rpartition(".")[0] if isinstance(func, FuncDef) else ""


def _value_classes(typ: Type) -> tuple[bool, list[TypeInfo]]:
    """Whether ``typ`` is a class object, and the classes whose code a value of ``typ`` may
    run implicitly: its own, a union's members', and those of the values it holds
    (``print(items)`` runs each item's ``__repr__``, ``x in items`` its ``__eq__``)."""
    proper = get_proper_type(typ)
    if isinstance(proper, Instance) and not proper.args:
        return False, [proper.type]
    if isinstance(proper, Instance | UnionType | TupleType):
        return False, list(dict.fromkeys(_classes_in(proper)))
    info = class_of(proper)
    return True, [info] if info is not None else []


def _classes_in(typ: Type | None) -> list[TypeInfo]:
    """The classes of the instances a value of ``typ`` may be (type arguments included;
    a recursive alias, such as pydantic's ``JsonValue``, is expanded once)."""
    found: list[TypeInfo] = []
    expanded: set[str] = set()
    pending = [typ]
    while pending:
        current = pending.pop()
        if type(current) is TypeAliasType:
            alias = current.alias
            if alias is None or alias.fullname in expanded:
                continue
            expanded.add(alias.fullname)
            current = get_proper_type(current)
        kind = type(current)  # mypy's type classes have no subclasses
        if kind is Instance:
            instance = cast(Instance, current)
            found.append(instance.type)
            pending.extend(reversed(instance.args))
        elif kind is UnionType or kind is TupleType:
            pending.extend(reversed(cast(UnionType | TupleType, current).items))
    return found


@final
class ProjectSubclasses:
    """Every class of the project's modules analysed so far, under each of its bases: one
    index for the whole build, refreshed with the modules analysed since the last question
    (a module is read once; rebuilding it per checked module made the cold run quadratic).
    A tree a daemon re-parses is not read again (dmypy is not supported: docs/plugin.md)."""

    def __init__(self) -> None:
        self._known = 0
        """How many modules the build had when :attr:`_unread` was last computed."""
        self._read: set[str] = set()
        self._unread: list[MypyFile] = []
        """Project modules not analysed yet when last asked (library modules are never
        read: they cannot subclass a project class)."""
        self._by_base: dict[str, list[TypeInfo]] = {}

    def refresh(self, modules: dict[str, MypyFile]) -> None:
        if len(modules) != self._known:
            # The build's module list is fixed before checking starts: this runs once.
            self._known = len(modules)
            new = modules.keys() - self._read
            self._read.update(name for name in new if is_library(name, modules))
            self._unread = [modules[name] for name in new if name not in self._read]
        if not self._unread:
            return
        # One pass over the modules still unread (a module's names fill in when mypy
        # analyses it), whatever order mypy analyses them in.
        analysed = [file for file in self._unread if file.names]
        if not analysed:
            return  # the usual answer: one pass that builds nothing
        self._unread = [file for file in self._unread if not file.names]
        for file in analysed:
            self._read.add(file.fullname)
            for symbol in file.names.values():
                info = symbol.node
                if isinstance(info, TypeInfo) and info.module_name == file.fullname:
                    for base in info.mro[1:]:
                        self._by_base.setdefault(base.fullname, []).append(info)

    def of(self, base: TypeInfo, here: str) -> list[TypeInfo]:
        """The subclasses of ``base`` in the project's modules other than ``here``."""
        return [sub for sub in self._by_base.get(base.fullname, ()) if sub.module_name != here]


def _closed(typ: Type | None, modules: dict[str, MypyFile], memo: dict[Instance, bool]) -> bool:
    if typ is None:
        return False
    proper = get_proper_type(typ)
    if isinstance(proper, NoneType | LiteralType | UninhabitedType):
        return True
    if isinstance(proper, UnionType | TupleType):
        return all(_closed(item, modules, memo) for item in proper.items)
    if isinstance(proper, TypedDictType):
        return all(_closed(item, modules, memo) for item in proper.items.values())
    if not isinstance(proper, Instance):
        return False  # Any, callables, type variables, class objects...
    info = proper.type
    if info.fullname == "builtins.object" or info.is_protocol:
        return False
    if not all(_closed(arg, modules, memo) for arg in proper.args):
        return False
    if is_library(info.module_name, modules):
        return True
    key = proper
    known = memo.get(key)
    if known is not None:
        return known
    memo[key] = True  # a recursive class is as closed as its other attributes
    closed = all(
        symbol.node.type is not None
        and _closed(expand_type_by_instance(symbol.node.type, proper), modules, memo)
        for base in info.mro
        if not is_library(base.module_name, modules)
        for name, symbol in base.names.items()
        if isinstance(symbol.node, Var) and held_by_instance(info, name, symbol)
    )
    memo[key] = closed
    return closed


def _own_call(info: TypeInfo) -> FuncItem | None:
    """The ``__call__`` a hook class defines in its own module, if any."""
    for base in info.mro:
        if base.module_name != info.module_name:
            return None
        symbol = base.names.get("__call__")
        if symbol is not None:
            return function_of(symbol.node)
    return None


def _span(expr: Expression) -> _Span:
    return (
        expr.line,
        expr.column,
        expr.end_line if expr.end_line is not None else expr.line,
        expr.end_column if expr.end_column is not None else expr.column,
    )


def _contains(outer: _Span, inner: _Span) -> bool:
    return (outer[0], outer[1]) <= (inner[0], inner[1]) and (inner[2], inner[3]) <= (
        outer[2],
        outer[3],
    )
