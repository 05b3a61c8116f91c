"""The callback rules: where library code calls hook code, or compares hook values, with what
mypy never matched against the hook's types (``docs/plugin.md``, "Soundness"). The fourth
red team (2026-12-03) re-typed a root Logger and an ``asyncio.Event`` through each:

- **a library method overridden with a narrower parameter where its stub says ``Any``**
  (``Enum._generate_next_value_(..., last_values: list[Any])``): mypy accepts any parameter
  type there, and the library passes what it holds (the earlier members' values);
- **a bare ``@dispatch.register`` whose annotation names another class in the module's
  globals** than mypy resolved (a local class shadowing an import, under ``from __future__
  import annotations``): ``register`` reads the annotation with ``typing.get_type_hints`` in
  the module's globals;
- **a hand-written ``__eq__`` or ``__ne__``**: an Enum's value lookup, set algebra (``a & b``
  keeps the other set's elements) and dict lookups compare through it, and one that answers
  ``True`` to another class's object makes library code hand that object on under the hook
  class's type. ``@dataclass``'s ``__eq__`` compares only instances of the same class.
"""

from __future__ import annotations

from typing import Final

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import (
    FUNC_NO_INFO,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    Decorator,
    Expression,
    FuncDef,
    LambdaExpr,
    ListExpr,
    Lvalue,
    MypyFile,
    NameExpr,
    OverloadedFuncDef,
    RefExpr,
    StarExpr,
    SymbolNode,
    TempNode,
    TupleExpr,
    TypeAlias,
    TypeInfo,
    Var,
)
from mypy.subtypes import is_subtype
from mypy.types import (
    CallableType,
    Instance,
    Overloaded,
    TupleType,
    Type,
    TypeType,
    TypeVarType,
    UnionType,
    get_proper_type,
)
from mypy.typevars import fill_typevars

from .._consts import HOOK_ESCAPE, MESSAGES
from .base import dunder, type_shown
from .conversions import ConversionRules, has_any
from .flow import elements
from .grants import Grants
from .names import written_names
from .retyping import dispatch_register
from .soundness import received

__all__ = ["CallbackRules"]

_EQUALITY: Final = frozenset({"__eq__", "__ne__"})
_ARITHMETIC: Final = ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "divmod", "pow")
_BITWISE: Final = ("lshift", "rshift", "and", "xor", "or")
_OPERATORS: Final = frozenset(
    {"__lt__", "__le__", "__gt__", "__ge__", "__contains__"}
    | {f"__{prefix}{name}__" for name in (*_ARITHMETIC, *_BITWISE) for prefix in ("", "r", "i")}
)
"""Binary operators Python calls with whatever the other operand is: ``x < probe`` falls
back to ``probe.__gt__(x)``, and ``max``, ``sorted``, ``heapq`` and ``sum`` compare and add
through typeshed bounds that type the operand ``Any``."""
_RETURNS_ITS_CLASS: Final = frozenset(
    f"__{prefix}{name}__"
    for name in (*_ARITHMETIC, *_BITWISE)
    if name != "divmod"
    for prefix in ("", "r")
)
_NOT_IMPLEMENTED: Final = frozenset({"types.NotImplementedType", "builtins._NotImplementedType"})
_ITERATORS: Final = {
    "__iter__": "typing.Iterator",
    "__reversed__": "typing.Iterator",
    "__aiter__": "typing.AsyncIterator",
}
_LOOKUP_FALLBACKS: Final = frozenset({"__getattr__", "__getattribute__"})
_NOT_BUILDING: Final = frozenset(
    {"builtins.object", "typing.Generic", "abc.ABC", "contextlib.AbstractContextManager"}
    | {
        f"typing.{name}"
        for name in (
            "Mapping",
            "MutableMapping",
            "Sequence",
            "MutableSequence",
            "Collection",
            "Container",
            "Sized",
            "Hashable",
            "Iterable",
            "Iterator",
            "Reversible",
            "Generator",
            "Awaitable",
            "Coroutine",
            "AsyncIterable",
            "AsyncIterator",
            "AsyncGenerator",
        )
    }
)
"""Library bases whose code builds no instance of a subclass (``Set._from_iterable`` does,
as do ``dict.fromkeys`` and the concrete containers' operators)."""
_CHECKED_CALLS: Final = frozenset(
    {"__init__", "__new__", "__post_init__", "__call__", "__exit__", "__aexit__"}
)
"""Methods called as written (mypy checks a constructor's and a call's arguments; the
constructor and ``__exit__`` rules judge the rest), not by Python or a library's code."""
_FUNCTIONS: Final = (FuncDef, OverloadedFuncDef)


class CallbackRules(ConversionRules):
    def __init__(self, file: MypyFile, types: dict[Expression, Type], grants: Grants) -> None:
        super().__init__(file, types, grants)
        self._registered: list[Decorator] = []
        """Functions under a bare ``@dispatch.register``: judged once the walk is done."""
        self._stores: set[int] = set()
        """Names written (assigned, deleted) in a class body: only reads are judged."""
        self._scopes: list[TypeInfo | None] = []
        """The class whose body the walk is in (``None`` inside a function), innermost last."""

    def enter_class(self, o: ClassDef) -> None:
        self._scopes.append(o.info)
        self._enum_values(o)

    def leave_class(self) -> None:
        self._scopes.pop()

    def enter_function(self, o: FuncDef) -> None:
        super().enter_function(o)
        self._scopes.append(None)

    def leave_function(self) -> None:
        super().leave_function()
        self._scopes.pop()

    def assigned(self, o: AssignmentStmt) -> None:
        super().assigned(o)
        if self._scopes and self._scopes[-1] is not None:
            self._stores.update(id(name) for lvalue in o.lvalues for name in _names(lvalue))

    def _target(self, lvalue: Lvalue, item_dunder: str) -> None:
        super()._target(lvalue, item_dunder)
        if item_dunder == "__delitem__":
            self._stores.add(id(lvalue))  # del name: the read after it is judged

    def _name(self, o: NameExpr) -> None:
        super()._name(o)
        if id(o) in self._stores:
            return
        body = self._scopes[-1] if self._scopes else None
        node = o.node
        if body is None or node is None or not node.fullname.startswith(f"{body.fullname}."):
            return
        if o.name in self.file.names or self._builtins_bind(o.name):
            # a class body reads names through globals and builtins when its own is unbound
            # (declared only, deleted, bound on one branch): mypy reads the class's
            self._report(o, MESSAGES["class_body_read"].format(name=o.name), HOOK_ESCAPE)

    def _builtins_bind(self, name: str) -> bool:
        builtins = self.grants.modules.file("builtins")
        return builtins is not None and name in builtins.names

    def _enum_values(self, o: ClassDef) -> None:
        """Enum calls a hand-written ``__new__`` and ``__init__`` (the class's own or one it
        inherits from a member-less Enum of hook code) with each member's value (a tuple's
        items), a call mypy never checks: each value must match the parameters."""
        info = o.info
        if not info.is_enum:
            return
        for name in ("__new__", "__init__"):
            symbol = info.get(name)
            function = symbol.node if symbol is not None else None
            if isinstance(function, Decorator):  # @final def __init__: called all the same
                function = function.func
            if not isinstance(function, FuncDef) or not isinstance(function.type, CallableType):
                continue
            if not self.grants.own_code(function.info.fullname, self.here):
                continue  # Enum's own: it takes the value
            self._enum_members_match(o, name, function.type.arg_types[1:])

    def _enum_members_match(self, o: ClassDef, method: str, parameters: list[Type]) -> None:
        for statement in o.defs.body:
            if not isinstance(statement, AssignmentStmt) or len(statement.lvalues) != 1:
                continue
            lvalue = statement.lvalues[0]
            if not isinstance(lvalue, NameExpr) or lvalue.name.startswith("_"):
                continue
            value = get_proper_type(self.types.get(statement.rvalue))
            element = elements(value, "builtins.tuple") if isinstance(value, Instance) else None
            if element is not None:  # a tuple subclass: Enum unpacks whatever it holds
                matches = not has_any(element) and all(
                    is_subtype(element, parameter) for parameter in parameters
                )
            else:
                items = value.items if isinstance(value, TupleType) else [value]
                matches = len(items) == len(parameters) and all(
                    item is not None and not has_any(item) and is_subtype(item, parameter)
                    for item, parameter in zip(items, parameters, strict=True)
                )
            if not matches:
                message = MESSAGES["enum_init"].format(cls=o.name, name=lvalue.name, method=method)
                self._report(statement, message, HOOK_ESCAPE)

    def _class_rules(self, o: ClassDef) -> None:
        super()._class_rules(o)
        info = o.info
        self._unbound_callables(o)
        for decorator in o.decorators:
            self._class_decorator(o, decorator)
        for name, symbol in info.names.items():
            node = symbol.node
            function = node.func if isinstance(node, Decorator) else node
            if not isinstance(function, (FuncDef, OverloadedFuncDef)) or symbol.plugin_generated:
                continue
            if name in _EQUALITY and function.line > 0:
                self._report(o, MESSAGES["equality"].format(cls=o.name, name=name), HOOK_ESCAPE)
            elif name in _LOOKUP_FALLBACKS and function.line > 0:
                self._report(
                    o,
                    MESSAGES["lookup_fallback"].format(where=f'class "{o.name}"', name=name),
                    HOOK_ESCAPE,
                )
            elif name in _ITERATORS and isinstance(function, FuncDef):
                self._iterator(o, function, _ITERATORS[name])
            elif name == "__missing__" and isinstance(function, FuncDef):
                self._missing(o, function)
            elif name == "__set_name__" and isinstance(function, FuncDef):
                self._set_name(o, function)
            elif name in _OPERATORS and function.line > 0 and isinstance(function, FuncDef):
                self._operand(o, function)
            elif isinstance(function, FuncDef) and (
                name not in _CHECKED_CALLS or (name == "__init__" and self._built_by_library(info))
            ):
                self._filled_parameters(o, function)
        for name, symbol in info.names.items():
            if isinstance(symbol.node, Var) and not symbol.plugin_generated:
                self._shadowed_member(o, name)

    def _class_decorator(self, o: ClassDef, decorator: Expression) -> None:
        """mypy keeps a decorated class's name typed as the class, whatever the decorator
        returns: a decorator of the hook module's own must be ``(cls: type[T]) -> type[T]``
        (it can then return only the class it is handed); the database's are reviewed."""
        callee = decorator.callee if isinstance(decorator, CallExpr) else decorator
        if isinstance(callee, RefExpr) and not self.grants.own_code(callee.fullname, self.here):
            return  # a library decorator: judged by the name rules (dataclass, final, ...)
        signature = get_proper_type(self.types.get(decorator))
        if isinstance(signature, CallableType) and _returns_its_class(signature):
            return
        message = MESSAGES["class_decorator"].format(cls=o.name)
        self._report(decorator, message, HOOK_ESCAPE)

    def _unbound_callables(self, o: ClassDef) -> None:
        """A class attribute declared callable is bound by mypy as a method (the instance
        first); Python binds only a function: a callable object, a bound method, a partial or
        a class stored there is called with the arguments shifted by one."""
        for statement in o.defs.body:
            if not isinstance(statement, AssignmentStmt) or isinstance(statement.rvalue, TempNode):
                continue
            value = statement.rvalue
            if isinstance(value, LambdaExpr) or (
                isinstance(value, RefExpr)
                and isinstance(value.node, FuncDef)
                and self.grants.own_code(value.node.fullname, self.here)
            ):
                continue  # a Python function: bound as mypy does (a builtin one is not)
            for lvalue in statement.lvalues:
                if not isinstance(lvalue, NameExpr) or not isinstance(lvalue.node, Var):
                    continue
                declared = get_proper_type(lvalue.node.type)
                if isinstance(declared, (CallableType, Overloaded)) and not declared.is_type_obj():
                    message = MESSAGES["unbound_callable"].format(name=lvalue.name, cls=o.name)
                    self._report(statement, message, HOOK_ESCAPE)

    def _operand(self, o: ClassDef, function: FuncDef) -> None:
        """The operand of a binary operator must take any value (narrowed inside); an
        arithmetic or bitwise one returns its own class, which is what ``sum``,
        ``math.prod`` and ``itertools.accumulate`` assume (typeshed types their result as
        an operand's type, whatever ``__add__`` returns)."""
        signature = function.type
        anything = self._object_type()
        if not isinstance(signature, CallableType) or len(signature.arg_types) < 2:
            return
        if function.name in _RETURNS_ITS_CLASS and not _returns_own_class(signature, o.info):
            message = MESSAGES["operator_result"].format(cls=o.name, name=function.name)
            self._report(o, message, HOOK_ESCAPE)
        operand = signature.arg_types[1]
        if anything is not None and not is_subtype(anything, operand):
            shown = type_shown(operand)
            message = MESSAGES["operand"].format(cls=o.name, name=function.name, typ=shown)
            self._report(o, message, HOOK_ESCAPE)

    def _iterator(self, o: ClassDef, function: FuncDef, protocol: str) -> None:
        """``__iter__`` typed ``-> object``: ``iter(x)`` then takes typeshed's overload for
        ``__getitem__`` and types the items by it, while the run calls ``__iter__``."""
        signature = function.type
        result = (
            get_proper_type(signature.ret_type) if isinstance(signature, CallableType) else None
        )
        if not (isinstance(result, Instance) and result.type.has_base(protocol)):
            message = MESSAGES["iterator_result"].format(
                cls=o.name, name=function.name, protocol=protocol.rsplit(".", 1)[-1]
            )
            self._report(o, message, HOOK_ESCAPE)

    def _call(self, o: CallExpr) -> None:
        super()._call(o)
        callee = o.callee
        node = callee.node if isinstance(callee, RefExpr) else None
        if isinstance(node, TypeInfo) and node.is_enum and (len(o.args) > 1 or any(o.arg_names)):
            self._report(o, MESSAGES["functional_enum"], HOOK_ESCAPE)

    def _built_by_library(self, info: TypeInfo) -> bool:
        """A library base's code builds instances of the class (``Set._from_iterable``
        calls ``cls(items)``, ``dict.fromkeys`` calls ``cls()``), with arguments mypy never
        matched against its ``__init__``. Exceptions (built by ``raise``) and Enum aside."""
        return (
            not info.has_base("builtins.BaseException")
            and not info.is_enum
            and self._builder(info) is not None
        )

    def _builder(self, info: TypeInfo) -> TypeInfo | None:
        """The first library base that may build the class (pod's ``Hook`` builds none)."""
        return next(
            (
                base
                for base in info.mro[1:]
                if base.fullname not in _NOT_BUILDING
                and not self.grants.own_code(base.fullname, self.here)
                and not self.grants.modules.is_host(base.module_name)
            ),
            None,
        )

    def _missing(self, o: ClassDef, function: FuncDef) -> None:
        """``d[key]`` is typed by the dict's value type, and answered by ``__missing__``
        when the key is absent: it must return that type."""
        self._filled_parameters(o, function)
        signature = function.type
        base = next((base for base in o.info.mro if base.fullname == "builtins.dict"), None)
        if base is None or not isinstance(signature, CallableType):
            return
        mine = fill_typevars(o.info)
        if not isinstance(mine, Instance):
            return
        values = map_instance_to_supertype(mine, base).args[1]
        if not is_subtype(signature.ret_type, values):
            shown = type_shown(values)
            message = MESSAGES["missing_result"].format(cls=o.name, typ=shown)
            self._report(o, message, HOOK_ESCAPE)

    def _object_type(self) -> Instance | None:
        builtins = self.grants.modules.file("builtins")
        symbol = builtins.names.get("object") if builtins is not None else None
        return (
            Instance(symbol.node, [])
            if symbol is not None and isinstance(symbol.node, TypeInfo)
            else None
        )

    def _set_name(self, o: ClassDef, function: FuncDef) -> None:
        """Python calls ``__set_name__(owner, name)`` with the class the descriptor is placed
        in, a call mypy never checks: ``owner`` must take any class."""
        signature = function.type
        if not isinstance(signature, CallableType) or len(signature.arg_types) < 2:
            return
        anything = self._object_type()
        if anything is None:
            return
        any_class = TypeType(anything)
        if not is_subtype(any_class, signature.arg_types[1]):
            self._report(function, MESSAGES["set_name"].format(cls=o.name), HOOK_ESCAPE)

    def _shadowed_member(self, o: ClassDef, name: str) -> None:
        """``slot: View`` declared over a base's property, method or descriptor: mypy types
        reads by the declaration, the run finds the base's member (no value is ever stored
        under the name unless the class's own code stores one, which the property refuses)."""
        for base in o.info.mro[1:]:
            declared = base.names.get(name)
            if declared is None or base.fullname == "builtins.object":
                continue
            if not isinstance(declared.node, Var):
                message = MESSAGES["shadowed_member"].format(cls=o.name, name=name, base=base.name)
                self._report(o, message, HOOK_ESCAPE)
            return

    def _filled_parameters(self, o: ClassDef, function: FuncDef) -> None:
        """Python calls a dunder, and a library base's code calls the methods the base
        defines, with values mypy never matched against the hook's parameter types (dict's
        ``__missing__`` with the key, ``__setattr__`` with any value, ``Mapping.__contains__``
        through ``__getitem__``, ``MutableSet.__isub__`` through ``discard``,
        ``__init_subclass__`` through ``super()`` along another class's MRO, a stub's
        ``Any``): such a parameter may not hold a hook class or a type variable, unless the
        base's stub gives it a type without either (mypy's override check compared those)."""
        mine = function.type
        if not isinstance(mine, CallableType):
            return
        library = next(
            (
                base
                for base in o.info.mro[1:]
                if function.name in base.names
                and not self.grants.own_code(base.fullname, self.here)
            ),
            None,
        )
        if library is None and not dunder(function.name):
            return
        theirs: list[CallableType] = []
        if library is not None:
            node = library.names[function.name].node
            base_function = node.func if isinstance(node, Decorator) else node
            stub = base_function.type if isinstance(base_function, _FUNCTIONS) else None
            items = stub.items if isinstance(stub, Overloaded) else [stub]
            theirs = [item for item in items if isinstance(item, CallableType)]
        first = 0 if function.is_static else 1
        for index in range(first, len(mine.arg_types)):
            if not self._holds(mine.arg_types[index]):
                continue
            kind, name = mine.arg_kinds[index], mine.arg_names[index]
            given = [received(signature, index, kind, name) for signature in theirs]
            if given and all(
                typ is not None and not has_any(typ) and not self._holds(typ) for typ in given
            ):
                continue
            caller = "Python"
            builder = self._builder(o.info)
            if function.name == "__init__" and builder is not None:
                caller = f'"{builder.name}"'
            elif library is not None and library.fullname != "builtins.object":
                caller = f'"{library.name}"'
            arguments = function.arguments
            parameter = arguments[index].variable.name if index < len(arguments) else name
            message = MESSAGES["filled_parameter"].format(
                name=function.name, parameter=parameter, caller=caller
            )
            self._report(function, message, HOOK_ESCAPE)
            return

    def decorated(self, o: Decorator) -> None:
        super().decorated(o)
        if any(dispatch_register(decorator, self.types) for decorator in o.decorators):
            self._registered.append(o)
        if o.func.info is not FUNC_NO_INFO:
            for decorator in o.decorators:
                self._method_decorator(o, decorator)

    def _method_decorator(self, o: Decorator, decorator: Expression) -> None:
        """mypy binds a decorated method's result as a method whatever it is; Python binds only
        a function (a callable object is called with the arguments shifted by one). A
        decorator of the hook module's own over a method must be ``(f: T) -> T``."""
        callee = decorator.callee if isinstance(decorator, CallExpr) else decorator
        if isinstance(callee, RefExpr) and not self.grants.own_code(callee.fullname, self.here):
            return  # a library decorator: staticmethod, property, a functools cache, ...
        signature = get_proper_type(self.types.get(decorator))
        if isinstance(signature, CallableType) and _returns_what_it_takes(signature):
            return
        message = MESSAGES["method_decorator"].format(name=o.func.name)
        self._report(decorator, message, HOOK_ESCAPE)

    def _dispatch_scope(self, o: Decorator) -> None:
        written, analysed = o.func.unanalyzed_type, o.func.type
        if not isinstance(written, CallableType) or not isinstance(analysed, CallableType):
            return
        index = 0 if o.func.info is FUNC_NO_INFO or o.func.is_static else 1
        if index >= len(written.arg_types) or index >= len(analysed.arg_types):
            return
        classes = set(_classes_of(analysed.arg_types[index]))
        for name in written_names(written.arg_types[index]):
            found = self._global(name) or self._builtin(name, classes)
            if isinstance(found, TypeAlias):
                same = set(_classes_of(found.target)) <= classes
            else:
                same = isinstance(found, TypeInfo) and found in classes
            if not same:
                message = MESSAGES["dispatch_scope"].format(name=name)
                self._report(o, message, HOOK_ESCAPE)
                return

    def check_soundness(self) -> None:
        super().check_soundness()
        for name in _LOOKUP_FALLBACKS:
            symbol = self.file.names.get(name)
            node = symbol.node if symbol is not None else None
            if isinstance(node, (FuncDef, Decorator)) and node.fullname.startswith(self.own):
                message = MESSAGES["lookup_fallback"].format(where="the module", name=name)
                self._report(node, message, HOOK_ESCAPE)
        judged = {finding[0] for finding in self.findings}
        for decorator in self._registered:
            if decorator.func.line not in judged:  # an annotation refused already
                self._dispatch_scope(decorator)

    @staticmethod
    def _builtin(name: str, classes: set[TypeInfo]) -> TypeInfo | None:
        return next((info for info in classes if info.fullname == f"builtins.{name}"), None)

    def _global(self, dotted: str) -> SymbolNode | None:
        """What ``dotted`` names in the module's globals, as ``typing.get_type_hints`` reads it."""
        first, *rest = dotted.split(".")
        symbol = self.file.names.get(first)
        node = symbol.node if symbol is not None else None
        for part in rest:
            table = node.names if isinstance(node, (MypyFile, TypeInfo)) else None
            inner = table.get(part) if table is not None else None
            node = inner.node if inner is not None else None
        return node


def _names(lvalue: Expression) -> list[Expression]:
    """An assignment target and, if it unpacks, every target inside it."""
    if isinstance(lvalue, (TupleExpr, ListExpr)):
        return [lvalue, *(name for item in lvalue.items for name in _names(item))]
    if isinstance(lvalue, StarExpr):
        return [lvalue, *_names(lvalue.expr)]
    return [lvalue]


def _classes_of(typ: Type) -> list[TypeInfo]:
    proper = get_proper_type(typ)
    if isinstance(proper, Instance):
        return [proper.type]
    if isinstance(proper, UnionType):
        return [info for item in proper.items for info in _classes_of(item)]
    return []


def _returns_own_class(signature: CallableType, info: TypeInfo) -> bool:
    """``-> Self``, ``-> Money`` (or a subclass), each maybe ``| NotImplementedType``."""
    result = get_proper_type(signature.ret_type)
    parts = result.items if isinstance(result, UnionType) else [result]
    for part in map(get_proper_type, parts):
        bound = get_proper_type(part.upper_bound) if isinstance(part, TypeVarType) else part
        if isinstance(bound, Instance) and (
            bound.type.has_base(info.fullname) or bound.type.fullname in _NOT_IMPLEMENTED
        ):
            continue
        return False
    return True


def _returns_its_class(signature: CallableType) -> bool:
    """``(cls: type[T]) -> type[T]``, ``T`` a type variable of the signature."""
    if len(signature.arg_types) != 1:
        return False
    taken = get_proper_type(signature.arg_types[0])
    given = get_proper_type(signature.ret_type)
    if not isinstance(taken, TypeType) or not isinstance(given, TypeType):
        return False
    return _same_variable(signature, taken.item, given.item)


def _returns_what_it_takes(signature: CallableType) -> bool:
    """``(f: T) -> T``, ``T`` a type variable of the signature."""
    if len(signature.arg_types) != 1:
        return False
    return _same_variable(signature, signature.arg_types[0], signature.ret_type)


def _same_variable(signature: CallableType, taken: Type, given: Type) -> bool:
    variable, result = get_proper_type(taken), get_proper_type(given)
    return (
        isinstance(variable, TypeVarType)
        and isinstance(result, TypeVarType)
        and variable.id == result.id
        and any(variable.id == own.id for own in signature.variables)
    )
