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
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterator
from typing import Any, Final, final

from mypy.errorcodes import ErrorCode
from mypy.nodes import (
    GDEF,
    AssignmentStmt,
    Block,
    CallExpr,
    CastExpr,
    ClassDef,
    ComparisonExpr,
    Context,
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
    ListComprehension,
    ListExpr,
    Lvalue,
    MatchStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    Node,
    OperatorAssignmentStmt,
    OverloadedFuncDef,
    RefExpr,
    SetComprehension,
    SetExpr,
    Statement,
    StrExpr,
    SuperExpr,
    TryStmt,
    TupleExpr,
    TypeInfo,
    Var,
    WhileStmt,
    WithStmt,
)
from mypy.options import Options
from mypy.server.subexpr import get_subexpressions
from mypy.subtypes import is_same_type
from mypy.types import (
    CallableType,
    Instance,
    LiteralType,
    TupleType,
    Type,
    TypedDictType,
    TypeType,
    TypeVarType,
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_BOUNDARY, HOOK_ESCAPE, HOOK_UNTAMED, MESSAGES
from .._database import Tamed
from .._modules import POD_HOOK_MODULES, Modules
from .types import TypeRule, shown

__all__ = ["Finding", "Grants", "check_hook_module"]

Finding = tuple[int, int, str, ErrorCode]
"""line, column, message, code."""

_MODULE_DUNDERS: Final = frozenset({"__name__", "__doc__"})
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
_CONSTANTS: Final = frozenset({"builtins.None", "builtins.True", "builtins.False"})
"""A module's own ``__name__`` and ``__doc__``: plain strings (``getLogger(__name__)``)."""
_GETATTR: Final = frozenset({"builtins.getattr", "builtins.hasattr"})
_FORMAT_METHODS: Final = frozenset({"format", "format_map"})
_CONDITIONS: Final = frozenset({"TYPE_CHECKING", "MYPY"})
_ISINSTANCE_HOOKS: Final = frozenset(
    {"__subclasshook__", "__instancecheck__", "__subclasscheck__", "__mro_entries__"}
)
"""Methods that change what ``isinstance`` answers, which mypy's narrowing believes."""
_SPECIAL_BASES: Final = frozenset({"builtins.object", "typing._TypedDict", "typing.Generic"})


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


@final
class Grants:
    """What one build allows hook modules to name: the database, the capabilities, the
    modules' answers, and the type rule."""

    def __init__(  # noqa: PLR0917 (one call site, in _checks)
        self,
        tamed: Tamed,
        modules: Modules,
        capabilities: frozenset[str],
        resolved_capabilities: frozenset[str],
        is_privileged: Callable[[TypeInfo], bool],
        options: Options,
    ) -> None:
        self.tamed = tamed
        self.modules = modules
        self._capabilities = capabilities | resolved_capabilities
        self.is_privileged = is_privileged
        self.options = options
        self.types = TypeRule(is_privileged, self.class_allowed, options)

    def granted(self, fullname: str) -> bool:
        """Whether a capability covers ``fullname`` (it or a name above it is granted)."""
        name = fullname
        while name:
            if name in self._capabilities:
                return True
            name = name.rpartition(".")[0]
        return False

    def grants_within(self, module: str) -> bool:
        """Whether some capability lies in ``module`` (so hook code may import it)."""
        prefix = f"{module}."
        return any(name == module or name.startswith(prefix) for name in self._capabilities)

    def own_code(self, fullname: str, here: str) -> bool:
        """A definition of this module or of another hook module (or a trusted package)."""
        module = self.modules.module_of(fullname)
        if module is None:
            return False
        if module == here:
            return True
        if self.modules.is_trusted(module):
            return True
        return not self.modules.is_library(module) and self.modules.is_hook_module(module)

    def class_allowed(self, info: TypeInfo) -> bool:
        fullname = info.fullname
        tamed = self.tamed
        if fullname in tamed.whole or fullname in tamed.types or self.granted(fullname):
            return True
        module = info.module_name
        if self.modules.is_trusted(module):
            return True
        return not self.modules.is_library(module) and self.modules.is_hook_module(module)

    def name_allowed(self, fullname: str, here: str) -> bool:
        return (
            fullname in self.tamed.names or self.granted(fullname) or self.own_code(fullname, here)
        )


def check_hook_module(
    file: MypyFile, types: dict[Expression, Type], grants: Grants
) -> list[Finding]:
    """Every construct of hook module ``file`` that breaks the rule, in line order."""
    walker = _Walker(file, types, grants)
    walker.shadowed_builtins()
    walker.statements(file.defs)
    walker.check_types()
    walker.check_ignores()
    findings = walker.findings
    findings.sort(key=lambda finding: (finding[0], finding[1]))
    return findings


@final
class _Walker:
    def __init__(self, file: MypyFile, types: dict[Expression, Type], grants: Grants) -> None:
        self.file = file
        self.here = file.fullname
        self.types = types
        self.grants = grants
        self.tamed = grants.tamed
        self.findings: list[Finding] = []
        self._reported: set[tuple[int, str]] = set()
        self._functions: list[str] = []
        self._tries = 0
        self._refused: set[str] = set()
        """Modules and names refused at their import: their uses say nothing more."""
        self._skip: set[int] = set()
        """Expressions already judged by an enclosing rule (``getattr``'s callee, ...)."""

    # -- reporting ------------------------------------------------------------------------

    def _report(self, context: Context, message: str, code: ErrorCode) -> None:
        key = (context.line, message)
        if key not in self._reported:
            self._reported.add(key)
            self.findings.append((context.line, context.column, message, code))

    def _untamed(self, context: Context, what: str, fullname: str) -> None:
        fix = self.tamed.refusal(fullname) or self.tamed.refusal(what)
        message = MESSAGES["untamed"].format(what=what)
        self._report(
            context,
            f"{message}: {fix}" if fix else f"{message}{MESSAGES['untamed_fix']}",
            HOOK_UNTAMED,
        )

    # -- imports --------------------------------------------------------------------------

    def _absolute(self, relative: int, module: str) -> str:
        if not relative:
            return module
        parts = self.here.split(".")
        if not self.file.is_package_init_file():
            parts = parts[:-1]
        if relative > 1:
            parts = parts[: len(parts) - (relative - 1)]
        base = ".".join(parts)
        return f"{base}.{module}" if module and base else module or base

    def _check_module(self, context: Context, module: str) -> None:
        if not self._module_allowed(context, module):
            self._refused.add(module)

    def _module_allowed(self, context: Context, module: str) -> bool:
        grants = self.grants
        modules = grants.modules
        if (
            module in self.tamed.modules
            or module in POD_HOOK_MODULES
            or grants.granted(module)
            or grants.grants_within(module)
            or modules.is_trusted(module)
            or module == self.here
        ):
            return True
        if modules.is_host(module) and not modules.is_library(module):
            self._report(context, MESSAGES["import_host"].format(module=module), HOOK_UNTAMED)
            return False
        if not modules.is_library(module):
            if modules.is_hook_module(module) or modules.module_of(module) != module:
                return True  # a hook module, or not in the build (mypy reports that)
            self._report(context, MESSAGES["import_project"].format(module=module), HOOK_UNTAMED)
            return False
        self._untamed(context, f'module "{module}"', module)
        return False

    def _import_hazard(self, context: Context) -> None:
        if self._tries:
            self._report(context, MESSAGES["import_try"], HOOK_ESCAPE)

    def _import(self, o: Import) -> None:
        self._import_hazard(o)
        for module, _ in o.ids:
            self._check_module(o, module)

    def _import_from(self, o: ImportFrom) -> None:
        self._import_hazard(o)
        module = self._absolute(o.relative, o.id)
        if module == "__future__":
            return  # compiler directives, not names
        file = self.grants.modules
        for name, _ in o.names:
            public = f"{module}.{name}"
            if file.module_of(public) == public:
                self._check_module(o, public)  # a submodule
                continue
            target = self._imported(module, name)
            if target is None:
                if module not in self.tamed.modules and module not in POD_HOOK_MODULES:
                    self._check_module(o, module)
                continue
            if not self.grants.name_allowed(target, self.here) and not self.grants.granted(public):
                self._refused.add(target)
                if self.grants.modules.is_host(module) and not file.is_library(module):
                    self._report(o, MESSAGES["import_host"].format(module=module), HOOK_UNTAMED)
                elif not file.is_library(module) and not file.is_hook_module(module):
                    self._report(o, MESSAGES["import_project"].format(module=module), HOOK_UNTAMED)
                else:
                    self._untamed(o, f'"{public}"', target)

    def _imported(self, module: str, name: str) -> str | None:
        own = self.file.names.get(name)
        if own is not None and own.node is not None and not isinstance(own.node, MypyFile):
            return own.node.fullname
        source = self.grants.modules.file(module)
        symbol = source.names.get(name) if source is not None else None
        if symbol is None or symbol.node is None or isinstance(symbol.node, MypyFile):
            return None
        return symbol.node.fullname

    def _import_all(self, o: ImportAll) -> None:
        self._report(o, MESSAGES["star_import"].format(module=o.id), HOOK_ESCAPE)

    # -- names ----------------------------------------------------------------------------

    def _name(self, o: NameExpr) -> None:
        if id(o) in self._skip:
            return
        node = o.node
        if node is None or isinstance(node, MypyFile) or o.kind != GDEF:
            return  # a local, a class member by its bare name, a module (checked at import)
        fullname = node.fullname
        if fullname in _CONSTANTS:
            return
        if fullname.startswith(f"{self.here}.") or fullname == o.name:
            if _dunder(o.name) and o.name not in _MODULE_DUNDERS:
                self._report(o, MESSAGES["dunder"].format(name=o.name), HOOK_ESCAPE)
            return
        if not self.grants.name_allowed(fullname, self.here) and not self._was_refused(fullname):
            self._untamed(o, f'"{fullname}"', fullname)

    def _member_expr(self, o: MemberExpr) -> None:
        if id(o) in self._skip:
            return
        receiver = o.expr
        if isinstance(receiver, RefExpr) and isinstance(receiver.node, MypyFile):
            self._module_member(o, receiver.node)
            return
        if _dunder(o.name):
            self._report(o, MESSAGES["dunder"].format(name=o.name), HOOK_ESCAPE)
        elif self._format_value(o):
            pass
        elif isinstance(receiver, RefExpr) and isinstance(receiver.node, TypeInfo):
            self._member(o, receiver.node, o.name)
        else:
            self._value_member(o, receiver, o.name)

    def _format_value(self, o: MemberExpr) -> bool:
        """``"...".format`` not called right there (held, passed): its format is not seen."""
        if o.name not in _FORMAT_METHODS:
            return False
        receiver = o.expr
        node = receiver.node if isinstance(receiver, RefExpr) else None
        is_str_class = isinstance(node, TypeInfo) and node.has_base("builtins.str")
        if is_str_class or _is_str(self.types.get(receiver)):
            self._report(o, MESSAGES["format_computed"].format(method=o.name), HOOK_ESCAPE)
            return True
        return False

    def _module_member(self, o: MemberExpr, module: MypyFile) -> None:
        public = f"{module.fullname}.{o.name}"
        node = o.node
        if isinstance(node, MypyFile):
            self._check_module(o, node.fullname)
            return
        if _dunder(o.name):
            self._report(o, MESSAGES["dunder"].format(name=o.name), HOOK_ESCAPE)
            return
        fullname = node.fullname if node is not None else public
        if self._was_refused(module.fullname) or self._was_refused(fullname):
            return
        if not self.grants.name_allowed(fullname, self.here) and not self.grants.granted(public):
            self._untamed(o, f'"{public}"', fullname)

    def _was_refused(self, fullname: str) -> bool:
        name = fullname
        while name:
            if name in self._refused:
                return True
            name = name.rpartition(".")[0]
        return False

    def _value_member(self, context: Context, receiver: Expression, name: str) -> None:
        typ = self.types.get(receiver)
        if typ is None:
            self._report(context, MESSAGES["untyped"].format(name=name), HOOK_ESCAPE)
            return
        for info in self._classes(typ):
            self._member(context, info, name)

    def _classes(self, typ: Type) -> Iterator[TypeInfo]:
        proper = get_proper_type(typ)
        if isinstance(proper, UnionType):
            for item in proper.items:
                yield from self._classes(item)
        elif isinstance(proper, Instance):
            yield proper.type
        elif isinstance(proper, (TupleType, LiteralType, TypedDictType)):
            yield from self._classes(
                proper.partial_fallback if isinstance(proper, TupleType) else proper.fallback
            )
        elif isinstance(proper, TypeType):
            yield from self._classes(proper.item)
        elif isinstance(proper, TypeVarType):
            yield from self._classes(proper.upper_bound)
        elif isinstance(proper, CallableType):
            if proper.is_type_obj():
                yield proper.type_object()
            else:
                yield from self._classes(proper.fallback)

    def _member(self, context: Context, info: TypeInfo, name: str) -> None:
        """``name`` read on an instance or the class ``info``."""
        grants = self.grants
        owner = next((base for base in info.mro if name in base.names), None)
        if owner is None:
            # Not along the MRO: a metaclass's (``Mapping.register``) or a __getattr__'s.
            if not grants.own_code(info.fullname, self.here):
                self._untamed(context, f'"{info.name}.{name}"', f"{info.fullname}.{name}")
            return
        fullname = owner.fullname
        if grants.own_code(fullname, self.here) or grants.granted(f"{fullname}.{name}"):
            return
        if fullname in self.tamed.whole and not name.startswith("_"):
            return
        if (fullname, name) in self.tamed.members:
            return
        if grants.granted(fullname):
            return
        self._untamed(context, f'"{owner.name}.{name}"', f"{fullname}.{name}")

    def _operator(self, context: Context, receiver: Expression, dunder: str) -> None:
        """An operator on a value of a class tamed member by member needs its dunder listed."""
        typ = self.types.get(receiver)
        if typ is None:
            return
        for info in self._classes(typ):
            owner = next((base for base in info.mro if dunder in base.names), info)
            if (
                owner.fullname in self.tamed.types
                and (owner.fullname, dunder) not in self.tamed.members
            ):
                self._untamed(context, f'"{owner.name}.{dunder}"', f"{owner.fullname}.{dunder}")

    def _super(self, o: SuperExpr) -> None:
        self._skip.add(id(o.call))
        self._skip.add(id(o.call.callee))
        function = self._functions[-1] if self._functions else ""
        if o.call.args or o.info is None:
            # super(T, obj) starts the lookup anywhere along any object's MRO
            self._report(o, MESSAGES["super_arguments"], HOOK_ESCAPE)
            return
        if _dunder(o.name) and o.name != function:
            self._report(o, MESSAGES["dunder"].format(name=o.name), HOOK_ESCAPE)
        elif o.info is not None and not _dunder(o.name):
            after = o.info.mro[1:]
            owner = next((base for base in after if o.name in base.names), None)
            if owner is not None:
                self._member(o, owner, o.name)
        self._skip.add(id(o.call))
        self._skip.add(id(o.call.callee))

    # -- calls ----------------------------------------------------------------------------

    def _call(self, o: CallExpr) -> None:
        callee = o.callee
        if isinstance(callee, NameExpr) and callee.fullname in _GETATTR:
            self._getattr(o, callee.name)
            self._skip.add(id(callee))
        elif isinstance(callee, MemberExpr) and callee.name in _FORMAT_METHODS:
            self._format(o, callee)
        elif isinstance(callee, RefExpr) and isinstance(callee.node, TypeInfo):
            info = callee.node
            constructors = {(info.fullname, "__init__"), (info.fullname, "__new__")}
            if info.fullname in self.tamed.types and not constructors & self.tamed.members:
                self._untamed(o, f'building "{info.name}"', f"{info.fullname}.__init__")
        elif not isinstance(callee, RefExpr):
            self._operator(o, callee, "__call__")
        warns = isinstance(callee, RefExpr) and callee.fullname in (
            "warnings.warn",
            "_warnings.warn",
        )
        if warns and ("stacklevel" in o.arg_names or len(o.args) > 2):
            self._report(o, MESSAGES["stacklevel"], HOOK_ESCAPE)

    def _getattr(self, o: CallExpr, function: str) -> None:
        name = o.args[1] if len(o.args) >= 2 else None
        if not isinstance(name, StrExpr) or _dunder(name.value) or len(o.args) > 3:
            self._report(o, MESSAGES["getattr"].format(function=function), HOOK_ESCAPE)
            return
        self._value_member(o, o.args[0], name.value)

    def _format(self, o: CallExpr, callee: MemberExpr) -> None:
        self._skip.add(id(callee))
        receiver = callee.expr
        if isinstance(receiver, RefExpr) and isinstance(receiver.node, TypeInfo):
            if receiver.node.has_base("builtins.str"):  # str.format(template, ...)
                self._report(o, MESSAGES["format_computed"].format(method=callee.name), HOOK_ESCAPE)
            return
        if not _is_str(self.types.get(receiver)):
            return
        template = receiver
        if not isinstance(template, StrExpr):
            self._report(o, MESSAGES["format_computed"].format(method=callee.name), HOOK_ESCAPE)
            return
        for field in _format_fields(template.value):
            if any(mark in field for mark in ".["):
                self._report(o, MESSAGES["format_field"].format(field=field), HOOK_ESCAPE)

    def _cast(self, o: CastExpr) -> None:
        self._untamed(o, '"typing.cast"', "typing.cast")

    # -- operators on values tamed member by member --------------------------------------

    def _index(self, o: IndexExpr) -> None:
        if o.analyzed is None:
            self._operator(o, o.base, "__getitem__")

    def _comparison(self, o: ComparisonExpr) -> None:
        for operator, right in zip(o.operators, o.operands[1:], strict=False):
            if operator in ("in", "not in"):
                self._operator(o, right, "__contains__")

    # -- assignments: only to the hook module's own ----------------------------------------

    def _target(self, lvalue: Lvalue, item_dunder: str) -> None:
        """An assignment or ``del`` target: only the hook module's own may change."""
        if isinstance(lvalue, (TupleExpr, ListExpr)):
            for item in lvalue.items:
                self._target(item, item_dunder)
        elif isinstance(lvalue, IndexExpr):
            self._operator(lvalue, lvalue.base, item_dunder)
        elif isinstance(lvalue, MemberExpr):
            receiver = lvalue.expr
            if isinstance(receiver, RefExpr) and isinstance(receiver.node, MypyFile):
                if receiver.node.fullname != self.here:
                    self._report(
                        lvalue,
                        MESSAGES["assign_module"].format(
                            name=lvalue.name, module=receiver.node.fullname
                        ),
                        HOOK_ESCAPE,
                    )
                return
            typ = self.types.get(receiver)
            if isinstance(receiver, RefExpr) and isinstance(receiver.node, TypeInfo):
                infos = [receiver.node]
            else:
                infos = list(self._classes(typ)) if typ is not None else []
            for info in infos:
                if not self.grants.own_code(info.fullname, self.here):
                    self._report(
                        lvalue,
                        MESSAGES["assign_foreign"].format(name=lvalue.name, cls=info.name),
                        HOOK_ESCAPE,
                    )

    def shadowed_builtins(self) -> None:
        """A module-level name that shadows a builtin: ``del`` or an ``except ... as`` that
        unbinds it would make the run call the builtin where mypy sees the module's own."""
        builtins = self.grants.modules.file("builtins")
        if builtins is None:
            return
        own = f"{self.here}."
        for name, symbol in self.file.names.items():
            node = symbol.node
            if node is None or not node.fullname.startswith(own) or _dunder(name):
                continue
            if name in builtins.names:
                line = node.line if node.line > 0 else 1
                self._report(Context(line, 0), MESSAGES["shadow"].format(name=name), HOOK_ESCAPE)

    # -- the walk -------------------------------------------------------------------------

    def expressions(self, node: Node | None) -> None:
        """Judge every expression under ``node`` (lambdas' bodies included)."""
        if node is None:
            return
        handlers = self._handlers
        for expr in get_subexpressions(node):
            handler = handlers.get(type(expr))
            if handler is not None and id(expr) not in self._skip:
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

    def statement(self, o: Statement) -> None:  # noqa: PLR0915 (one branch per statement kind)
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
                self.expressions(decorator)
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
                for name in _names(condition):
                    if name in _CONDITIONS:
                        self._report(
                            condition, MESSAGES["condition"].format(name=name), HOOK_ESCAPE
                        )
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
            self.expressions(o.index)
            self.expressions(o.expr)
            self.block(o.body)
            self.block(o.else_body)
        elif isinstance(o, WithStmt):
            for expr, target in zip(o.expr, o.target, strict=False):
                self._operator(o, expr, "__aenter__" if o.is_async else "__enter__")
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
            for pattern, guard, body in zip(o.patterns, o.guards, o.bodies, strict=False):
                self.expressions(pattern)
                self.expressions(guard)
                self.block(body)
        else:
            if isinstance(o, AssignmentStmt):
                for lvalue in o.lvalues:
                    self._target(lvalue, "__setitem__")
            elif isinstance(o, OperatorAssignmentStmt):
                self._target(o.lvalue, "__setitem__")
            elif isinstance(o, DelStmt):
                self._target(o.expr, "__delitem__")
            self.expressions(o)

    def _function(self, o: FuncDef) -> None:
        self._functions.append(o.name)
        for argument in o.arguments:
            self.expressions(argument.initializer)
        self.block(o.body)
        self._functions.pop()

    def _class(self, o: ClassDef) -> None:
        if o.metaclass is not None:
            self._report(o, MESSAGES["metaclass"].format(cls=o.name), HOOK_ESCAPE)
        for base in o.info.bases:
            fullname = base.type.fullname
            if fullname in _SPECIAL_BASES or fullname in self.tamed.whole:
                continue
            if self.grants.own_code(fullname, self.here) or self.grants.granted(fullname):
                continue
            self._report(o, MESSAGES["base"].format(cls=o.name, base=base.type.name), HOOK_UNTAMED)
        for name, symbol in o.info.names.items():
            if name in _ISINSTANCE_HOOKS:
                self._report(
                    o, MESSAGES["isinstance_hook"].format(cls=o.name, name=name), HOOK_ESCAPE
                )
            elif isinstance(symbol.node, Var) and not symbol.node.is_classvar:
                self._narrowed_override(o, name, symbol.node)
        for expr in [*o.decorators, *o.base_type_exprs, *o.keywords.values()]:
            self.expressions(expr)
        self.block(o.defs)

    def _narrowed_override(self, o: ClassDef, name: str, var: Var) -> None:
        """An attribute redeclared with another type: through the base, any value of the base's
        type can be stored, and read back through the subclass as the narrower one."""
        for base in o.info.mro[1:]:
            declared = base.names.get(name)
            node = declared.node if declared is not None else None
            if not isinstance(node, Var) or node.type is None or var.type is None:
                continue
            if not is_same_type(node.type, var.type):
                self._report(
                    o,
                    MESSAGES["override"].format(cls=o.name, name=name, base=base.name),
                    HOOK_ESCAPE,
                )
            return

    _handlers: Final[dict[type[Expression], Callable[[_Walker, Any], None]]] = {}

    # -- after the walk -------------------------------------------------------------------

    def check_types(self) -> None:
        """The type rule, at most once a line, and only where no other rule found the line's
        construct (whose error already says what is wrong)."""
        rule = self.grants.types
        lines = {finding[0] for finding in self.findings}
        for expr, typ in self.types.items():
            if expr.line in lines:
                continue
            if isinstance(expr, RefExpr) and self._was_refused(expr.fullname):
                continue  # refused where it is imported
            problem = rule.problem(typ)
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
            elif message == "type Any" and isinstance(expr, _DISPLAYS):
                continue  # a literal typed from its context (a parameter typed Any): its
                # items are expressions of their own, judged where they are
            elif message == "type Any":
                self._report(expr, MESSAGES["any"].format(subject=subject), HOOK_ESCAPE)
            else:
                self._report(
                    expr,
                    MESSAGES["untamed_value"].format(subject=subject, problem=message),
                    HOOK_UNTAMED,
                )

    def check_ignores(self) -> None:
        ignored = self.file.ignored_lines
        if not ignored:
            return
        clear = next(
            (line for line in range(1, max(ignored) + 2) if line not in ignored), max(ignored) + 1
        )
        for line in sorted(ignored):
            context = Context(clear, 0)
            self._report(context, MESSAGES["ignore"].format(line=line), HOOK_ESCAPE)


_Walker._handlers.update(  # pyright: ignore[reportPrivateUsage]
    {
        NameExpr: _Walker._name,  # pyright: ignore[reportPrivateUsage]
        MemberExpr: _Walker._member_expr,  # pyright: ignore[reportPrivateUsage]
        SuperExpr: _Walker._super,  # pyright: ignore[reportPrivateUsage]
        CallExpr: _Walker._call,  # pyright: ignore[reportPrivateUsage]
        CastExpr: _Walker._cast,  # pyright: ignore[reportPrivateUsage]
        IndexExpr: _Walker._index,  # pyright: ignore[reportPrivateUsage]
        ComparisonExpr: _Walker._comparison,  # pyright: ignore[reportPrivateUsage]
    }
)


def _format_fields(template: str) -> Iterator[str]:
    """Every replacement field of a format, those nested in format specs included."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return  # mypy reports a malformed format itself
    for _, field, spec, _ in parsed:
        if field:
            yield field
        if spec and "{" in spec:
            yield from _format_fields(spec)


def _is_str(typ: Type | None) -> bool:
    """Whether ``typ`` may be a ``str`` (a subclass, a TypeVar bound to one, a union)."""
    proper = get_proper_type(typ)
    if isinstance(proper, Instance):
        return proper.type.has_base("builtins.str")
    if isinstance(proper, LiteralType):
        return proper.fallback.type.has_base("builtins.str")
    if isinstance(proper, TypeVarType):
        return _is_str(proper.upper_bound) or any(_is_str(value) for value in proper.values)
    if isinstance(proper, UnionType):
        return any(_is_str(item) for item in proper.items)
    return False


def _names(expr: Expression) -> Iterator[str]:
    """Every name and attribute name in ``expr`` (``typing.TYPE_CHECKING`` gives both)."""
    for sub in get_subexpressions(expr):
        if isinstance(sub, (NameExpr, MemberExpr)):
            yield sub.name


def _subject(expr: Expression) -> str:
    if isinstance(expr, NameExpr):
        return f'"{expr.name}"'
    if isinstance(expr, MemberExpr):
        return f'"{expr.name}"'
    if isinstance(expr, CallExpr) and isinstance(expr.callee, (NameExpr, MemberExpr)):
        return f'the result of "{expr.callee.name}(...)"'
    return f"an expression ({type(expr).__name__})"
