"""Tools: the ``Tool`` protocol and the ``@tool`` decorator that builds one from a function.

A tool takes its arguments as one JSON object keyed by parameter name and returns text.
``@tool`` reads a typed function with pydantic: the JSON schema comes from the annotations,
arguments are validated before the call (invalid ones raise :class:`ToolArgumentsError`, which
the Worker turns into an error result the model sees), and a sync function runs in a worker
thread so it never blocks the event loop.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, final, overload

import pydantic_core
from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError, create_model

from ._errors import ToolArgumentsError, ToolDefinitionError
from ._privilege import Privileged

__all__ = ["FunctionTool", "PrivilegedTool", "Tool", "ToolDefinition", "tool"]


class Tool(Protocol):
    """What the Worker needs of a tool. ``@tool`` builds one; any object of this shape works."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def parameters(self) -> Mapping[str, JsonValue]:
        """JSON schema of the arguments object."""
        ...

    async def call(self, arguments: dict[str, JsonValue]) -> str:
        """Run the tool. Raise :class:`ToolArgumentsError` for arguments it cannot accept."""
        ...


@final
class PrivilegedTool(Privileged):
    """A tool as the engine hands it out (``Worker.tools``, interceptor infos): marked privileged.

    ``Tool`` is a Protocol, so the object a user passed may carry no marker; every tool the
    engine gives back is this wrapper instead, which ``pod_mypy`` keeps out of hook code.
    """

    __slots__ = ("_call", "description", "name", "parameters")
    name: str
    description: str
    parameters: Mapping[str, JsonValue]
    """JSON schema of the arguments object."""

    def __init__(self, tool: Tool) -> None:
        self.name = tool.name
        self.description = tool.description
        self.parameters = tool.parameters
        self._call = tool.call

    async def call(self, arguments: dict[str, JsonValue]) -> str:
        """Run the tool (see :meth:`Tool.call`)."""
        return await self._call(arguments)

    @classmethod
    def of(cls, tool: Tool) -> PrivilegedTool:
        """Return ``tool`` itself if it is one already, else a wrapper of it."""
        return tool if isinstance(tool, PrivilegedTool) else cls(tool)

    def __repr__(self) -> str:
        return f"<PrivilegedTool {self.name}>"


@final
class ToolDefinition(BaseModel, frozen=True, extra="forbid"):
    """What the model is told about a tool: name, description, JSON schema."""

    name: str
    description: str
    parameters: dict[str, JsonValue]

    @classmethod
    def of(cls, tool: Tool) -> ToolDefinition:
        """Describe ``tool`` for a model request."""
        return cls(name=tool.name, description=tool.description, parameters=dict(tool.parameters))


@final
@dataclass(frozen=True, eq=False)
class FunctionTool(Privileged):
    """A tool made from a typed Python function by :func:`tool`."""

    name: str
    description: str
    function: Callable[..., object]
    arguments_model: type[BaseModel]
    parameters: Mapping[str, JsonValue] = field(repr=False)
    is_async: bool
    _argument_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _validate: Callable[[object], BaseModel] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Looked up once, off the hot path: ``model_fields`` is a computed property, and
        # ``model_validate`` is a Python wrapper around the model's own validator.
        object.__setattr__(self, "_argument_names", tuple(self.arguments_model.model_fields))
        object.__setattr__(
            self, "_validate", self.arguments_model.__pydantic_validator__.validate_python
        )

    async def call(self, arguments: dict[str, JsonValue]) -> str:
        """Validate ``arguments`` and run the function (sync ones in a worker thread)."""
        try:
            validated = self._validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
                for err in exc.errors(include_url=False)
            )
            raise ToolArgumentsError(problems) from exc
        kwargs = {name: getattr(validated, name) for name in self._argument_names}
        if self.is_async:
            result = await cast("Awaitable[object]", self.function(**kwargs))
        else:
            result = await asyncio.to_thread(self.function, **kwargs)
        return _as_text(result)


def _as_text(result: object) -> str:
    if isinstance(result, str):
        return result
    return pydantic_core.to_json(result).decode()


@overload
def tool(function: Callable[..., object], /) -> FunctionTool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None
) -> Callable[[Callable[..., object]], FunctionTool]: ...
def tool(
    function: Callable[..., object] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
) -> FunctionTool | Callable[[Callable[..., object]], FunctionTool]:
    """Make a tool of a typed function: ``@tool`` or ``@tool(name=..., description=...)``.

    Every parameter needs an annotation; defaults become optional arguments. The description
    is the docstring unless given. All problems are reported at once in a
    :class:`ToolDefinitionError`.
    """

    def build(fn: Callable[..., object]) -> FunctionTool:
        return _build_function_tool(fn, name=name, description=description)

    return build if function is None else build(function)


def _build_function_tool(
    fn: Callable[..., object], *, name: str | None, description: str | None
) -> FunctionTool:
    qualname = getattr(fn, "__qualname__", repr(fn))
    problems: list[str] = []
    try:
        signature = inspect.signature(fn, eval_str=True)
    except (NameError, TypeError, ValueError) as exc:
        raise ToolDefinitionError(qualname, [f"cannot read its signature: {exc}"]) from exc
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            problems.append(f"parameter {param.name!r}: *args and **kwargs are not supported")
            continue
        if param.kind is param.POSITIONAL_ONLY:
            problems.append(f"parameter {param.name!r}: positional-only is not supported")
            continue
        if param.annotation is inspect.Parameter.empty:
            problems.append(f"parameter {param.name!r} has no type annotation")
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (param.annotation, default)
    tool_name: str = name or str(getattr(fn, "__name__", ""))
    if not tool_name.isidentifier():
        problems.append(f"tool name {tool_name!r} is not an identifier")
    if problems:
        raise ToolDefinitionError(qualname, problems)
    try:
        model = create_model(
            f"{tool_name}_arguments",
            __config__=ConfigDict(extra="forbid"),
            **fields,
        )
        schema: dict[str, JsonValue] = model.model_json_schema()
    except Exception as exc:  # pydantic reports unsupported annotations in many types
        raise ToolDefinitionError(qualname, [f"cannot build a schema: {exc}"]) from exc
    doc = inspect.getdoc(fn) or ""
    return FunctionTool(
        name=tool_name,
        description=description if description is not None else doc.split("\n\n")[0].strip(),
        function=fn,
        arguments_model=model,
        parameters=schema,
        is_async=inspect.iscoroutinefunction(fn),
    )
