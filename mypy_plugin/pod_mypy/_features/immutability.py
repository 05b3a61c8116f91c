"""``hook-input-mutable``: an event's Input and Output must be deeply immutable.

Checked where a ``HookEvent[Input, Output](...)`` is built, so a contributor adding an event
to the catalogue learns at once if a hook could change what it receives or returns.

Deeply immutable: ``None``, ``Literal``, enums, ``str``/``int``/``float``/``bool``/``bytes``
(and a few immutable stdlib values such as ``datetime`` and ``Decimal``), and, when every
part is deeply immutable, ``tuple``, ``frozenset``, ``MappingProxyType``, unions,
NamedTuples, frozen dataclasses and frozen pydantic models. A pydantic model counts as
frozen when mypy can see it: the ``frozen=True`` class keyword, or ``model_config`` read by
pydantic's own mypy plugin. Anything else (``list``, ``dict``, ``Any``, callables, type
variables, classes the plugin does not know) is reported with the path to it.
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple, final

from mypy.expandtype import expand_type_by_instance
from mypy.messages import format_type
from mypy.nodes import CallExpr, Expression, MemberExpr, NameExpr, StrExpr, TypeInfo, Var
from mypy.plugin import FunctionContext
from mypy.types import (
    Instance,
    LiteralType,
    NoneType,
    TupleType,
    Type,
    TypeAliasType,
    UninhabitedType,
    UnionType,
    get_proper_type,
)

from .._consts import (
    HOOK_INPUT_MUTABLE,
    IMMUTABLE_CONTAINERS,
    IMMUTABLE_SCALARS,
    MUTABLE,
    MUTABLE_MODEL,
    PYDANTIC_BASE_MODEL,
    PYDANTIC_PLUGIN_METADATA,
)
from .._report import fail

__all__ = ["on_event_declared"]


_MODEL_LIBRARIES: Final = frozenset({"pydantic", "builtins"})
_MODEL_INTERNALS: Final = frozenset({"model_config"})


@final
class _Problem(NamedTuple):
    path: str
    typ: Type
    model_kind: str | None = None
    """``"dataclass"``/``"pydantic model"`` when the problem is a missing ``frozen=True``."""


def on_event_declared(ctx: FunctionContext) -> Type:
    """``HookEvent(HookPoint[Input, Output](name, ...), ...)``: report any mutable part of
    Input or Output."""
    event = get_proper_type(ctx.default_return_type)
    if not isinstance(event, Instance) or len(event.args) != 2:
        return ctx.default_return_type
    name_arg = ctx.args[0][0] if ctx.args and ctx.args[0] else None
    name = _point_name(name_arg)
    options = ctx.api.options
    for side, typ in (("Input", event.args[0]), ("Output", event.args[1])):
        problem = _mutable(typ, "", ())
        if problem is None:
            continue
        shown = format_type(problem.typ, options)
        path = problem.path or shown.strip('"')
        if problem.model_kind is not None:
            message = MUTABLE_MODEL.format(
                event=name, side=side, path=path, kind=problem.model_kind
            )
        else:
            message = MUTABLE.format(event=name, side=side, path=path, type=shown)
        fail(ctx.api, message, ctx.context, HOOK_INPUT_MUTABLE)
    return ctx.default_return_type


def _point_name(point: Expression | None) -> str:
    """The event's name: the point's first argument, or the name the point is bound to."""
    if isinstance(point, CallExpr) and point.args and isinstance(point.args[0], StrExpr):
        return point.args[0].value
    return point.name if isinstance(point, NameExpr | MemberExpr) else "?"


def _mutable(typ: Type, path: str, seen: tuple[str, ...]) -> _Problem | None:
    if isinstance(typ, TypeAliasType) and typ.is_recursive and typ.alias is not None:
        if typ.alias.fullname in seen:
            return None
        seen = (*seen, typ.alias.fullname)
    proper = get_proper_type(typ)
    if isinstance(proper, NoneType | LiteralType | UninhabitedType):
        return None
    if isinstance(proper, UnionType):
        for item in proper.items:
            problem = _mutable(item, path, seen)
            if problem is not None:
                return problem
        return None
    if isinstance(proper, TupleType):
        return _tuple(proper, path, seen)
    if isinstance(proper, Instance):
        return _instance(proper, path, seen)
    return _Problem(path, typ)


def _tuple(typ: TupleType, path: str, seen: tuple[str, ...]) -> _Problem | None:
    fields = _namedtuple_fields(typ.partial_fallback.type)
    path = path or (typ.partial_fallback.type.name if fields else "tuple")
    for index, item in enumerate(typ.items):
        name = f".{fields[index]}" if index < len(fields) else f"[{index}]"
        problem = _mutable(item, f"{path}{name}", seen)
        if problem is not None:
            return problem
    return None


def _instance(typ: Instance, path: str, seen: tuple[str, ...]) -> _Problem | None:
    info = typ.type
    path = path or info.name
    if info.fullname in IMMUTABLE_SCALARS or info.is_enum:
        return None
    if info.fullname in IMMUTABLE_CONTAINERS:
        for arg in typ.args:
            problem = _mutable(arg, f"{path}[*]", seen)
            if problem is not None:
                return problem
        return None
    if info.tuple_type is not None:
        return _tuple(info.tuple_type, path, seen)
    if info.fullname in seen:
        return None  # a recursive model: its fields are being checked already
    seen = (*seen, info.fullname)
    if info.has_base(PYDANTIC_BASE_MODEL):
        if not _pydantic_frozen(info):
            return _Problem(_shown(path, info), typ, "pydantic model")
        return _fields(typ, path, seen)
    dataclass_meta = info.metadata.get("dataclass")
    if dataclass_meta is not None:
        if not dataclass_meta.get("frozen", False):
            return _Problem(_shown(path, info), typ, "dataclass")
        return _fields(typ, path, seen)
    return _Problem(path, typ)


def _fields(typ: Instance, path: str, seen: tuple[str, ...]) -> _Problem | None:
    # Fields, and every other attribute a hook can read: private attributes
    # (``PrivateAttr``) and class variables are as reachable as fields.
    names = dict.fromkeys(_field_names(typ.type))
    for base in typ.type.mro:
        if base.module_name.partition(".")[0] in _MODEL_LIBRARIES:
            continue
        for name, member in base.names.items():
            if isinstance(member.node, Var) and name not in _MODEL_INTERNALS:
                names.setdefault(name)
    for name in names:
        if name.startswith("__"):
            continue  # the model library's own state (``__pydantic_extra__``...)
        found = typ.type.get(name)
        node = found.node if found is not None else None
        if not isinstance(node, Var) or node.type is None:
            continue
        problem = _mutable(expand_type_by_instance(node.type, typ), f"{path}.{name}", seen)
        if problem is not None:
            return problem
    return None


def _field_names(info: TypeInfo) -> list[str]:
    dataclass_meta: dict[str, Any] = info.metadata.get("dataclass") or {}
    attributes: list[dict[str, Any]] = dataclass_meta.get("attributes") or []
    if attributes:
        return [str(attribute["name"]) for attribute in attributes]
    pydantic_meta: dict[str, Any] = info.metadata.get(PYDANTIC_PLUGIN_METADATA) or {}
    fields: dict[str, Any] = pydantic_meta.get("fields") or {}
    return [str(name) for name in fields]


def _pydantic_frozen(info: TypeInfo) -> bool:
    plugin_config = info.metadata.get(PYDANTIC_PLUGIN_METADATA, {}).get("config", {})
    if plugin_config.get("frozen") is True:
        return True
    return bool(info.metadata.get("dataclass", {}).get("frozen", False))


def _namedtuple_fields(info: TypeInfo) -> list[str]:
    fields = info.metadata.get("namedtuple", {}).get("fields", [])
    return [str(name) for name in fields]


def _shown(path: str, info: TypeInfo) -> str:
    return path if path == info.name else f'{path} ("{info.name}")'
