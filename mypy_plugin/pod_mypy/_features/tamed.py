"""The rule of hook modules: they may name only ``pod``'s hook API, the taming database,
granted capabilities and hook-module definitions (``docs/plugin.md``, "The rule").

One walk of the whole module (module level, class bodies, every function) checks:

- **names**: every imported module and name, every global a name or attribute refers to;
- **members**: ``x.name`` for a value ``x``: the class defining ``name`` (along the MRO)
  must be tamed whole, list the member, be a hook module's or a capability's;
- **syntax**: dunder attributes, computed ``getattr``, ``str.format`` with a computed format or
  attribute/index fields, ``TYPE_CHECKING``/``MYPY`` branches, code mypy treats as
  unreachable, star imports, imports with fallbacks, ``metaclass=``, class bases outside the
  database, assignments to what is not the hook module's own, ``# type: ignore``;
- **types**: every expression mypy typed (:mod:`.types`).

The walk is here; the rules live one family a file: :mod:`.names` (imports, names, members),
:mod:`.syntax` (calls by name, operators, assignments, classes, conditions, ignores),
:mod:`.soundness`, :mod:`.narrowing`, :mod:`.retyping`, :mod:`.conversions` and
:mod:`.callbacks` (where mypy believes a type the run does not keep),
:mod:`.types`, with
what they share in :mod:`.base` and what a build grants in :mod:`.grants`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, final

from mypy.fastparse import parse_type_string
from mypy.nodes import (
    AssertStmt,
    AssignmentExpr,
    AssignmentStmt,
    Block,
    CallExpr,
    CastExpr,
    ClassDef,
    ComparisonExpr,
    Decorator,
    DelStmt,
    DictExpr,
    DictionaryComprehension,
    Expression,
    ForStmt,
    FuncDef,
    GeneratorExpr,
    IfStmt,
    Import,
    ImportAll,
    ImportFrom,
    IndexExpr,
    LambdaExpr,
    ListComprehension,
    ListExpr,
    MatchStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    NonlocalDecl,
    OperatorAssignmentStmt,
    OpExpr,
    OverloadedFuncDef,
    RefExpr,
    ReturnStmt,
    SetComprehension,
    SetExpr,
    Statement,
    StrExpr,
    SuperExpr,
    TempNode,
    TryStmt,
    TupleExpr,
    TypeAliasExpr,
    WhileStmt,
    WithStmt,
    YieldExpr,
    YieldFromExpr,
)
from mypy.server.subexpr import get_subexpressions
from mypy.types import (
    CallableType,
    Instance,
    Overloaded,
    Type,
    get_proper_type,
)

from .._consts import HOOK_BOUNDARY, HOOK_ESCAPE, HOOK_UNTAMED, MESSAGES
from .base import Finding
from .callbacks import CallbackRules
from .conversions import has_any
from .grants import Grants
from .types import ERROR_ANY, shown

__all__ = ["Finding", "Grants", "check_hook_module"]

_COMPOUND: Final = (
    Import,
    ImportFrom,
    ImportAll,
    FuncDef,
    Decorator,
    OverloadedFuncDef,
    ClassDef,
    IfStmt,
    WhileStmt,
    ForStmt,
    WithStmt,
    TryStmt,
    MatchStmt,
)
"""The statements :meth:`_Walker._compound` takes apart; the rest are judged whole."""
_ANY_PROBLEMS: Final = ("type Any", ERROR_ANY)
_DISPLAYS: Final = (
    DictExpr,
    ListExpr,
    SetExpr,
    TupleExpr,
    ListComprehension,
    SetComprehension,
    DictionaryComprehension,
    GeneratorExpr,
)


def check_hook_module(
    file: MypyFile,
    types: dict[Expression, Type],
    grants: Grants,
    error_lines: frozenset[int] = frozenset(),
) -> list[Finding]:
    """Every construct of hook module ``file`` that breaks the rule, in line order
    (``error_lines``: where mypy reported an error)."""
    walker = _Walker(file, types, grants)
    walker.error_lines = error_lines
    walker.shadowed_builtins()
    walker.statements(file.defs)
    walker.check_types()
    walker.check_ignores()
    walker.check_soundness()
    findings = walker.findings
    findings.sort(key=lambda finding: (finding[0], finding[1]))
    return findings


@final
class _Walker(CallbackRules):  # one line of bases: mypyc compiles no diamond
    """One walk of a hook module: every statement and expression, each handed to its rule."""

    def expressions(self, node: Node | None) -> None:
        """Judge every expression under ``node`` (lambdas' bodies included)."""
        if node is None:
            return
        handlers = self._handlers
        skip = self._skip
        for expr in get_subexpressions(node):
            handler = handlers.get(type(expr))
            if handler is not None and (not skip or id(expr) not in skip):
                handler(self, expr)

    def statements(self, body: list[Statement]) -> None:
        for statement in body:
            self.statement(statement)

    def block(self, block: Block | None) -> None:
        if block is None:
            return
        if block.is_unreachable:
            self._report(block, MESSAGES["unreachable"], HOOK_ESCAPE)
            return
        self.statements(block.body)

    def statement(self, o: Statement) -> None:
        if not isinstance(o, _COMPOUND):  # most statements: one test, not one per kind
            self._simple(o)
        else:
            self._compound(o)

    def _simple(self, o: Statement) -> None:
        if isinstance(o, AssignmentStmt):
            self.annotation(o, o.unanalyzed_type)
            self.annotation_callables(o, o.type)
            self.bind(o)
            if o.is_alias_def and isinstance(o.rvalue, StrExpr):  # X: TypeAlias = "..."
                self.annotation(o, parse_type_string(o.rvalue.value, "", o.line, o.column))
            if o.is_alias_def:
                self._alias_sides.update(id(side) for side in [*o.lvalues, o.rvalue])
            elif isinstance(o.rvalue, TempNode):  # k: int (mypy types a TypedDict's keys so)
                self._declared.update(id(lvalue) for lvalue in o.lvalues)
            for lvalue in o.lvalues:
                self._target(lvalue, "__setitem__")
            self.assigned(o)
        elif isinstance(o, OperatorAssignmentStmt):
            self._target(o.lvalue, "__setitem__")
            self.bound(o.lvalue, o.rvalue)
            self.operated(o)
        elif isinstance(o, ReturnStmt):
            self.returned(o.expr)
        elif isinstance(o, DelStmt):
            self._target(o.expr, "__delitem__")
        elif isinstance(o, NonlocalDecl):
            self.note_nonlocals(o.names)
        elif isinstance(o, AssertStmt):
            self._report(o, MESSAGES["assert"], HOOK_ESCAPE)
        self.expressions(o)

    def _compound(self, o: Statement) -> None:  # noqa: PLR0915 (one branch per statement kind)
        if isinstance(o, Import):
            self._import(o)
        elif isinstance(o, ImportFrom):
            self._import_from(o)
        elif isinstance(o, ImportAll):
            self._import_all(o)
        elif isinstance(o, FuncDef):
            self._function(o)
        elif isinstance(o, Decorator):
            for decorator in o.decorators:
                if not _property_accessor(decorator, o):
                    self.expressions(decorator)
            self.decorated(o)
            self._function(o.func)
        elif isinstance(o, OverloadedFuncDef):
            for item in o.items:
                self.statement(item)
            if o.impl is not None:
                self.statement(o.impl)
        elif isinstance(o, ClassDef):
            self._class(o)
        elif isinstance(o, IfStmt):
            for condition in o.expr:
                self._conditions(condition)
                self.expressions(condition)
            for body in o.body:
                self.block(body)
            self.block(o.else_body)
        elif isinstance(o, WhileStmt):
            self.expressions(o.expr)
            self.block(o.body)
            self.block(o.else_body)
        elif isinstance(o, ForStmt):
            self._operator(o, o.expr, "__aiter__" if o.is_async else "__iter__")
            self.bound(o.index, o.expr)
            self.expressions(o.index)
            self.expressions(o.expr)
            self.block(o.body)
            self.block(o.else_body)
        elif isinstance(o, WithStmt):
            self.managed(o)
            for expr, target in zip(o.expr, o.target, strict=False):
                self._operator(o, expr, "__aenter__" if o.is_async else "__enter__")
                self.bound(target, expr)
                self.expressions(expr)
                self.expressions(target)
            self.block(o.body)
        elif isinstance(o, TryStmt):
            self._tries += 1
            self.block(o.body)
            self._tries -= 1
            for kind, var, handler in zip(o.types, o.vars, o.handlers, strict=False):
                self.expressions(kind)
                self.expressions(var)
                self.block(handler)
            self.block(o.else_body)
            self.block(o.finally_body)
        elif isinstance(o, MatchStmt):
            self.expressions(o.subject)
            self.matched(o)
            for pattern, guard, body in zip(o.patterns, o.guards, o.bodies, strict=False):
                self.patterns(pattern, o.subject)
                self.expressions(pattern)
                self.expressions(guard)
                self.block(body)

    def _function(self, o: FuncDef) -> None:
        self.annotation(o, o.unanalyzed_type)
        self.annotation_callables(o, o.type)
        self.exit_parameters(o)
        self._functions.append(o.name)
        self.enter_function(o)
        for argument in o.arguments:
            self.expressions(argument.initializer)
        self.block(o.body)
        self.leave_function()
        self._functions.pop()

    def _class(self, o: ClassDef) -> None:
        self._class_rules(o)
        for expr in [*o.decorators, *o.base_type_exprs, *o.keywords.values()]:
            self.expressions(expr)
        self.enter_class(o)
        self.block(o.defs)
        self.leave_class()

    def _any_accepted(self, expr: Expression) -> bool:
        """An ``Any`` no value of hook code can carry past: a literal typed from its context
        (its items are judged where they are), mypy's synthetic nodes, an operator of a class
        tamed whole (``2 ** n``: typeshed's int-or-float), a call of a granted capability
        (the host answers for it; what it returns must be assigned to a typed variable to be
        used)."""
        if isinstance(expr, (*_DISPLAYS, TempNode)):
            return True
        if isinstance(expr, OpExpr):
            left = get_proper_type(self.types.get(expr.left))
            return isinstance(left, Instance) and left.type.fullname in self.tamed.whole
        if isinstance(expr, CallExpr) and isinstance(expr.callee, MemberExpr):
            receiver = self.types.get(expr.callee.expr)
            owners = list(self._classes(receiver)) if receiver is not None else []
            if owners and all(self.grants.granted(info.fullname) for info in owners):
                return True
        if isinstance(expr, CallExpr) and isinstance(expr.callee, RefExpr):
            return bool(expr.callee.fullname) and self.grants.granted(expr.callee.fullname)
        return False

    def _judged_type(self, expr: MemberExpr, typ: Type) -> Type:
        """A method read on a value is judged by its declared signature: the bound one adds
        only the receiver's type (judged as the receiver's own expression) and fresh type
        variables, so each ``registry.on`` would be a type of its own, judged anew."""
        if not isinstance(get_proper_type(typ), (CallableType, Overloaded)):
            return typ
        receiver = get_proper_type(self.types.get(expr.expr))
        if not isinstance(receiver, Instance):
            return typ
        method = receiver.type.get_method(expr.name)
        if (
            isinstance(method, (FuncDef, OverloadedFuncDef))
            and not method.is_property
            and method.type is not None
        ):
            return method.type
        return typ

    def check_types(self) -> None:
        """The type rule, at most once a line, and only where no other rule found the line's
        construct (whose error already says what is wrong)."""
        rule = self.grants.types
        judge = rule.problem
        plain_answers = rule.by_class
        lines = {finding[0] for finding in self.findings}
        refused = bool(self._refused)
        declared = self._declared
        for expr, typ in self.types.items():
            # Most expressions are instances of a class without type arguments, answered
            # once a class: settled here, without a call.
            if type(typ) is Instance and not typ.args and plain_answers.get(typ.type, "") is None:
                continue
            if expr.line in lines:
                continue
            if (id(expr) in self._alias_sides or type(expr) is TypeAliasExpr) and not has_any(typ):
                continue  # a type alias's definition: a type (one with an Any is refused)
            if refused and isinstance(expr, RefExpr) and self._was_refused(expr.fullname):
                continue  # refused where it is imported
            problem = judge(self._judged_type(expr, typ) if type(expr) is MemberExpr else typ)
            if problem is None:
                continue
            message, privileged = problem
            lines.add(expr.line)
            subject = _subject(expr)
            if privileged:
                self._report(
                    expr,
                    MESSAGES["privileged"].format(subject=subject, problem=shown(message)),
                    HOOK_BOUNDARY,
                )
            elif message == ERROR_ANY and (expr.line in self.error_lines or id(expr) in declared):
                lines.discard(expr.line)  # mypy reported the error it is made of, or no value
            elif message in _ANY_PROBLEMS and self._any_accepted(expr):
                lines.discard(expr.line)
            elif message in _ANY_PROBLEMS:
                self._report(expr, MESSAGES["any"].format(subject=subject), HOOK_ESCAPE)
            else:
                self._report(
                    expr,
                    MESSAGES["untamed_value"].format(subject=subject, problem=message),
                    HOOK_UNTAMED,
                )

    _handlers: Final[dict[type[Expression], Callable[[_Walker, Any], None]]] = {}


_Walker._handlers.update(  # pyright: ignore[reportPrivateUsage]
    {
        NameExpr: _Walker._name,  # pyright: ignore[reportPrivateUsage]
        MemberExpr: _Walker._member_expr,  # pyright: ignore[reportPrivateUsage]
        SuperExpr: _Walker._super,  # pyright: ignore[reportPrivateUsage]
        CallExpr: _Walker._call,  # pyright: ignore[reportPrivateUsage]
        CastExpr: _Walker._cast,  # pyright: ignore[reportPrivateUsage]
        IndexExpr: _Walker._index,  # pyright: ignore[reportPrivateUsage]
        ComparisonExpr: _Walker._comparison,  # pyright: ignore[reportPrivateUsage]
        OpExpr: _Walker._op_expr,  # pyright: ignore[reportPrivateUsage]
        ListExpr: _Walker._displayed,  # pyright: ignore[reportPrivateUsage]
        SetExpr: _Walker._displayed,  # pyright: ignore[reportPrivateUsage]
        TupleExpr: _Walker._displayed,  # pyright: ignore[reportPrivateUsage]
        DictExpr: _Walker._dict_display,  # pyright: ignore[reportPrivateUsage]
        ListComprehension: _Walker._displayed,  # pyright: ignore[reportPrivateUsage]
        SetComprehension: _Walker._displayed,  # pyright: ignore[reportPrivateUsage]
        DictionaryComprehension: _Walker._displayed,  # pyright: ignore[reportPrivateUsage]
        GeneratorExpr: _Walker._displayed,  # pyright: ignore[reportPrivateUsage]
        LambdaExpr: _Walker._lambda,  # pyright: ignore[reportPrivateUsage]
        YieldExpr: _Walker._yield,  # pyright: ignore[reportPrivateUsage]
        YieldFromExpr: _Walker._yield_from,  # pyright: ignore[reportPrivateUsage]
        AssignmentExpr: _Walker._walrus,  # pyright: ignore[reportPrivateUsage]
    }
)


def _property_accessor(decorator: Expression, o: Decorator) -> bool:
    """``@slot.setter`` over ``def slot``: mypy builds the property from it and binds no
    node to the receiver, so there is nothing to judge."""
    return (
        isinstance(decorator, MemberExpr)
        and decorator.name in ("setter", "deleter")
        and isinstance(decorator.expr, NameExpr)
        and decorator.expr.node is None  # a name bound to anything else would have one
        and decorator.expr.name == o.func.name
    )


def _subject(expr: Expression) -> str:
    if isinstance(expr, NameExpr):
        return f'"{expr.name}"'
    if isinstance(expr, MemberExpr):
        return f'"{expr.name}"'
    if isinstance(expr, CallExpr) and isinstance(expr.callee, (NameExpr, MemberExpr)):
        return f'the result of "{expr.callee.name}(...)"'
    return f"an expression ({type(expr).__name__})"
