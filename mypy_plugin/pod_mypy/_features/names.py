"""The name rule: what a hook module imports and what its names and attributes refer to
must be ``pod``'s hook API, tamed, granted, or a hook module's own."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from mypy.nodes import (
    GDEF,
    Context,
    Import,
    ImportAll,
    ImportFrom,
    MemberExpr,
    MypyFile,
    NameExpr,
    RefExpr,
    SuperExpr,
    TypeInfo,
)
from mypy.types import (
    CallableArgument,
    CallableType,
    Type,
    TypeList,
    UnboundType,
    UnionType,
    get_proper_type,
)

from .._consts import HOOK_ESCAPE, HOOK_UNTAMED, MESSAGES
from .._modules import POD_HOOK_MODULES
from .base import CONSTANTS, MODULE_DUNDERS, Rules, dunder, mangled

__all__ = ["NameRules", "written_names"]


class NameRules(Rules):
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

    def _name(self, o: NameExpr) -> None:
        if id(o) in self._skip:
            return
        node = o.node
        if node is None or isinstance(node, MypyFile) or o.kind != GDEF:
            return  # a local, a class member by its bare name, a module (checked at import)
        fullname = node.fullname
        if fullname in CONSTANTS:
            return
        if fullname.startswith(self.own) or fullname == o.name:
            if dunder(o.name) and o.name not in MODULE_DUNDERS:
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
        if dunder(o.name):
            self._report(o, MESSAGES["dunder"].format(name=o.name), HOOK_ESCAPE)
        elif mangled(o.name):
            self._report(o, MESSAGES["mangled"].format(name=o.name), HOOK_ESCAPE)
        elif self._format_value(o):
            pass
        elif isinstance(receiver, RefExpr) and isinstance(receiver.node, TypeInfo):
            self._member(o, receiver.node, o.name)
        else:
            self._value_member(o, receiver, o.name)

    def _module_member(self, o: MemberExpr, module: MypyFile) -> None:
        public = f"{module.fullname}.{o.name}"
        node = o.node
        if isinstance(node, MypyFile):
            self._check_module(o, node.fullname)
            return
        if dunder(o.name):
            self._report(o, MESSAGES["dunder"].format(name=o.name), HOOK_ESCAPE)
            return
        fullname = node.fullname if node is not None else public
        if self._was_refused(module.fullname) or self._was_refused(fullname):
            return
        if not self.grants.name_allowed(fullname, self.here) and not self.grants.granted(public):
            self._untamed(o, f'"{public}"', fullname)

    def _super(self, o: SuperExpr) -> None:
        self._skip.add(id(o.call))
        self._skip.add(id(o.call.callee))
        function = self._functions[-1] if self._functions else ""
        if o.call.args or o.info is None:
            # super(T, obj) starts the lookup anywhere along any object's MRO
            self._report(o, MESSAGES["super_arguments"], HOOK_ESCAPE)
            return
        if dunder(o.name) and o.name != function:
            self._report(o, MESSAGES["dunder"].format(name=o.name), HOOK_ESCAPE)
        elif not dunder(o.name):
            after = o.info.mro[1:]
            owner = next((base for base in after if o.name in base.names), None)
            if owner is not None:
                self._member(o, owner, o.name)
        self._skip.add(id(o.call))
        self._skip.add(id(o.call.callee))

    def shadowed_builtins(self) -> None:
        """A module-level name that shadows a builtin: ``del`` or an ``except ... as`` that
        unbinds it would make the run call the builtin where mypy sees the module's own."""
        builtins = self.grants.modules.file("builtins")
        if builtins is None:
            return
        for name, symbol in self.file.names.items():
            node = symbol.node
            if node is None or not node.fullname.startswith(self.own) or dunder(name):
                continue
            if name in builtins.names:
                line = node.line if node.line > 0 else 1
                self._report(Context(line, 0), MESSAGES["shadow"].format(name=name), HOOK_ESCAPE)

    def annotation(self, context: Context, typ: Type | None) -> None:
        """Names in an annotation as written: mypy keeps only the analysed type, so a refused
        name reached through its module (``typing.Annotated[int, os.system(...)]``, whose
        metadata the run evaluates at ``get_type_hints``) is not an expression the walk sees."""
        if typ is None:
            return
        for name in written_names(typ):
            head, _, rest = name.partition(".")
            symbol = self.file.names.get(head)
            if not rest or symbol is None or not isinstance(symbol.node, MypyFile):
                continue  # a name the module imported is judged at its import
            fullname = f"{symbol.node.fullname}.{rest}"
            if self.tamed.refusal(fullname) and not self._was_refused(fullname):
                self._untamed(context, f'"{fullname}"', fullname)


def written_names(typ: Type) -> Iterator[str]:
    """Every name an unanalysed annotation writes (string annotations are parsed too).

    A function, not a ``TypeQuery``: mypyc crashes constructing a compiled subclass of a
    class compiled in another build (mypy's)."""
    typ = get_proper_type(typ)  # an unanalysed type holds no alias: this only narrows
    if isinstance(typ, UnboundType):
        yield typ.name
        parts: Iterable[Type] = typ.args
    elif isinstance(typ, CallableType):
        parts = [*typ.arg_types, typ.ret_type]
    elif isinstance(typ, (TypeList, UnionType)):
        parts = typ.items
    elif isinstance(typ, CallableArgument):
        parts = [typ.typ]
    else:
        return
    for part in parts:
        yield from written_names(part)
