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

from typing import Final, NamedTuple, TypeAlias, final

from mypy.checker import TypeChecker
from mypy.errorcodes import ErrorCode
from mypy.lookup import lookup_fully_qualified
from mypy.messages import format_type
from mypy.nodes import (
    BytesExpr,
    ComplexExpr,
    Context,
    EllipsisExpr,
    Expression,
    FloatExpr,
    FuncItem,
    IntExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    StrExpr,
    TypeInfo,
    Var,
)
from mypy.server.subexpr import get_subexpressions
from mypy.types import Type

from .._consts import (
    ATTRIBUTE,
    ESCAPE,
    HELPER_REACHES,
    HOOK_BOUNDARY,
    HOOK_ESCAPE,
    HOOK_EVENT,
    IGNORE_IN_HOOK,
    IN_HOOK,
    IS_PRIVILEGED,
    MISSING_LIBRARY_NAME,
    PRIVILEGED,
    REACHES,
)
from .._defs import definition, function_of
from .._hooks import HookSite, ModuleHooks
from .._reach import Reach
from .escapes import escape

__all__ = ["check_module", "missing_library_names"]

_Span: TypeAlias = tuple[int, int, int, int]

_HELPER_METHODS = ("__init__", "__new__", "__post_init__")
_LITERALS = (StrExpr, BytesExpr, IntExpr, FloatExpr, ComplexExpr, EllipsisExpr)


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


def check_module(hooks: ModuleHooks, reach: Reach) -> set[str]:
    """Report problems in the hook code of one checked module.

    Returns:
        The modules the answers depended on (for the module's indirect dependencies).
    """
    checker = hooks.checker
    hooks.report_deferred()
    if not hooks.sites:
        return set()
    missing = missing_library_names(checker.modules)
    if missing:
        first = min(hooks.sites.values(), key=lambda site: site.first_line)
        for message in missing:
            checker.fail(message, Context(line=first.first_line), code=HOOK_BOUNDARY)
        return set()
    reach.start_module()
    walker = _Walker(checker, reach)
    for site in sorted(hooks.sites.values(), key=lambda site: site.first_line):
        walker.check(site)
    return reach.touched


@final
class _Walker:
    def __init__(self, checker: TypeChecker, reach: Reach) -> None:
        self._checker = checker
        self._reach = reach
        self._module = checker.tree.fullname
        self._helpers: dict[int, _Finding | None] = {}

    def check(self, site: HookSite) -> None:
        if isinstance(site.node, TypeInfo):
            self._check_attributes(site, site.node)
            call = _own_call(site.node)
            if call is None:
                return
            site = HookSite(site.name, call)
        function = site.node
        assert isinstance(function, FuncItem)
        expressions = get_subexpressions(function)
        span = (site.first_line, site.last_line)
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
        self._check_ignores(site)

    def _finding(self, expr: Expression, hook_span: tuple[int, int]) -> _Finding | None:
        if isinstance(expr, _LITERALS):
            return None
        if isinstance(expr, NameExpr) and expr.is_inferred_def:
            return None  # ``x = value``: x has the type of value, which is checked itself
        typ = self._type(expr)
        what = escape(expr, typ)
        if what is not None:
            return _Finding(HOOK_ESCAPE, ESCAPE.format(what=what), expr.line)
        if typ is not None:
            text = self._reaches(typ)
            if text is not None:
                return _Finding(HOOK_BOUNDARY, text, expr.line)
        if not isinstance(expr, RefExpr):
            return None
        target = definition(expr, self._checker)
        if target is None or target.module != self._module:
            return None
        first, last = hook_span
        functions = _bodies(target.node)
        if not functions or first <= functions[0].line <= last:
            return None  # part of the hook itself, walked with it
        for function in functions:
            inner = self._helper(function)
            if inner is not None:
                return _Finding(inner.code, inner.text, inner.line, (target.name, *inner.via))
        return None

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
            where = _span(expr)
            if found_at is not None and not _contains(found_at, where):
                break
            finding = self._finding(expr, span)
            if finding is not None:
                found, found_at = finding, where
        self._helpers[key] = found
        return found

    def _type(self, expr: Expression) -> Type | None:
        typ = self._checker.lookup_type_or_none(expr)
        if typ is None and isinstance(expr, NameExpr) and isinstance(expr.node, Var):
            # A declaration target (``x: Worker``) may not be in the type map.
            return expr.node.type if not expr.node.is_inferred else None
        return typ

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
        if finding.via:
            message = HELPER_REACHES.format(
                hook=site.name,
                helper=" -> ".join(finding.via),
                problem=finding.text,
                line=finding.line,
            )
        else:
            message = IN_HOOK.format(problem=finding.text, hook=site.name)
        self._checker.fail(message, context, code=finding.code)

    def _check_attributes(self, site: HookSite, info: TypeInfo) -> None:
        """A hook object's state must not hold (or lead to) privileged objects."""
        for base in info.mro:
            if base.module_name != self._module:
                break  # Hook, object, and bases of other modules (checked there)
            for name, symbol in base.names.items():
                if not isinstance(symbol.node, Var) or symbol.node.type is None:
                    continue
                shown = format_type(symbol.node.type, self._checker.options)
                subject = ATTRIBUTE.format(name=name, type=shown)
                text = self._reaches(symbol.node.type, subject)
                if text is not None:
                    line = symbol.node.line if symbol.node.line > 0 else base.defn.line
                    self._report(site, _Finding(HOOK_BOUNDARY, text, line), Context(line=line))

    def _check_ignores(self, site: HookSite) -> None:
        ignored = self._checker.tree.ignored_lines
        lines = [n for n in range(site.first_line, site.last_line + 1) if n in ignored]
        for line in lines:
            shown = site.first_line
            while shown in ignored and shown > 1:
                shown -= 1
            self._checker.fail(
                IGNORE_IN_HOOK.format(line=line, hook=site.name),
                Context(line=shown),
                code=HOOK_ESCAPE,
            )


def _own_call(info: TypeInfo) -> FuncItem | None:
    """The ``__call__`` a hook class defines in its own module, if any."""
    for base in info.mro:
        if base.module_name != info.module_name:
            return None
        symbol = base.names.get("__call__")
        if symbol is not None:
            return function_of(symbol.node)
    return None


def _bodies(node: FuncItem | TypeInfo) -> list[FuncItem]:
    if isinstance(node, TypeInfo):
        found: list[FuncItem] = []
        for name in _HELPER_METHODS:
            symbol = node.names.get(name)
            func = function_of(symbol.node if symbol is not None else None)
            if func is not None:
                found.append(func)
        return found
    return [node]


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
