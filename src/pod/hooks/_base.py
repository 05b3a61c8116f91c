"""Hook code by declaration: the :class:`Hook` base class and the :func:`hook` decorator.

A hook is usually checked where it is registered (``registry.on(EVENT, fn)`` or
``@registry.on(EVENT)``). These two declare hook code where it is *defined* instead, so it
can live in one module and be registered from another:

- a subclass of :class:`Hook` is hook code as a whole (every method and class attribute);
- a function decorated with ``@hook(EVENT)`` is hook code, and its type (:class:`HookFunction`
  or :class:`AsyncHookFunction`) says so to any module that imports it.

The ``pod_mypy`` plugin checks declared hook code in its own module; a plain function
registered from another module cannot be checked there and is reported as unverifiable.
At run time both behave like the functions they are: nothing is wrapped.
"""

from __future__ import annotations

import inspect
import typing
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar, final, overload

from pydantic import BaseModel

from . import _events as events
from ._errors import PodUsageError
from ._events import HookEvent, UnknownEventError

__all__ = ["AsyncHookFunction", "Hook", "HookFunction", "hook"]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")
InputT_contra = TypeVar("InputT_contra", bound=BaseModel, contravariant=True)
DecisionT_co = TypeVar("DecisionT_co", covariant=True)

_EVENT_ATTRIBUTE = "__pod_event__"


class Hook(ABC, Generic[InputT, DecisionT]):
    """Base of class-based hooks: implement ``__call__`` taking the event's Input.

    The whole subclass is hook code: ``pod_mypy`` checks every method and class attribute,
    wherever the class is registered.

    Example:
        ```python
        class DenyTools(Hook[ToolCallSummary, PreToolDecision]):
            def __init__(self, *names: str) -> None:
                self.names = frozenset(names)

            def __call__(self, call: ToolCallSummary) -> PreToolDecision:
                if call.tool_name in self.names:
                    return Skip(reason=f"{call.tool_name} is not allowed")
                return Continue()

        registry.on(events.PRE_TOOL_CALL, DenyTools("shell"))
        ```
    """

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Defined (not inherited from object) so that mypy type-checks a call to it for every
        # subclass: that call is where pod_mypy learns the subclass is hook code.
        super().__init_subclass__(**kwargs)

    @abstractmethod
    def __call__(self, info: InputT, /) -> DecisionT | Awaitable[DecisionT]:
        """Decide on ``info``: return (or, if async, await to) a decision legal for the event."""


class HookFunction(Protocol[InputT_contra, DecisionT_co]):
    """A synchronous function declared as hook code with ``@hook(EVENT)``."""

    @property
    def __pod_event__(self) -> HookEvent[Any, Any]:
        """The event the function was declared for."""
        ...

    def __call__(self, info: InputT_contra, /) -> DecisionT_co: ...


class AsyncHookFunction(Protocol[InputT_contra, DecisionT_co]):
    """An ``async`` function declared as hook code with ``@hook(EVENT)``."""

    @property
    def __pod_event__(self) -> HookEvent[Any, Any]:
        """The event the function was declared for."""
        ...

    def __call__(self, info: InputT_contra, /) -> Awaitable[DecisionT_co]: ...


@final
class _HookDecorator(Generic[InputT, DecisionT]):
    """What ``hook(EVENT)`` returns: marks the function and gives the same function back."""

    __slots__ = ("_event",)

    def __init__(self, event: HookEvent[InputT, DecisionT]) -> None:
        self._event = event

    @overload
    def __call__(
        self, fn: Callable[[InputT], Awaitable[DecisionT]], /
    ) -> AsyncHookFunction[InputT, DecisionT]: ...
    @overload
    def __call__(self, fn: Callable[[InputT], DecisionT], /) -> HookFunction[InputT, DecisionT]: ...
    def __call__(self, fn: Callable[[Any], Any], /) -> Any:
        if not callable(fn):
            raise PodUsageError(f"@hook(...) decorates a function, not {fn!r}")
        setattr(fn, _EVENT_ATTRIBUTE, self._event)
        return fn


def hook(event: HookEvent[InputT, DecisionT], /) -> _HookDecorator[InputT, DecisionT]:
    """Declare the decorated function hook code for ``event``, to register it anywhere.

    The function is returned unchanged (it is still called directly, e.g. in tests); it
    records the event in ``__pod_event__``, and :meth:`HookRegistry.on` refuses to register
    it for another event.

    Example:
        ```python
        @hook(events.PRE_TOOL_CALL)
        def no_rm(call: ToolCallSummary) -> PreToolDecision:
            return Continue()

        registry.on(events.PRE_TOOL_CALL, no_rm)  # in this module or any other
        ```

    Raises:
        UnknownEventError: ``event`` is not in the catalogue.
    """
    if not any(event is known for known in events.CATALOGUE):
        raise UnknownEventError(event)
    return _HookDecorator(event)


def input_mismatch(fn: Callable[..., object], event: HookEvent[Any, Any]) -> str | None:
    """Say why ``fn``'s annotated Input does not fit ``event``, or ``None`` if it fits.

    Only an annotation that resolves to a pydantic model which is not ``event``'s Input (or a
    base of it) is a mismatch: unannotated hooks, ``object`` and unresolvable postponed
    annotations are left to the type checkers.
    """
    annotated = _annotated_input(fn)
    if (
        annotated is None
        or not issubclass(annotated, BaseModel)
        or issubclass(event.input_type, annotated)
    ):
        return None
    fits = [known.name.upper() for known in events.CATALOGUE if known.input_type is annotated]
    where = f" (the Input of {', '.join(fits)})" if fits else ""
    return (
        f"it takes {annotated.__name__}{where}, but {event.name.upper()} gives "
        f"{event.input_type.__name__}"
    )


def _annotated_input(fn: Callable[..., object]) -> type | None:
    function: object = fn
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)):
        function = getattr(type(fn), "__call__", None)  # noqa: B004  # a hook object
    try:
        first = next(iter(inspect.signature(fn).parameters.values()), None)
        hints = typing.get_type_hints(function)
    except Exception:  # unresolvable annotations: nothing to compare at run time
        return None
    annotation = hints.get(first.name) if first is not None else None
    return annotation if isinstance(annotation, type) else None


def declared_event(fn: object) -> HookEvent[Any, Any] | None:
    """Return the event ``fn`` was declared for with ``@hook``, or ``None``."""
    event: object = getattr(fn, _EVENT_ATTRIBUTE, None)
    return next((known for known in events.CATALOGUE if event is known), None)
