"""What a hook is handed and what it may hand back, at the registry's boundary.

Each hook gets its own copy of its Input; an async hook's result is awaited only if it is a
real coroutine; a decision counts only as a fresh, validated copy of exactly a legal class
with plain ``str`` fields. Anything else is described by :func:`illegal` for the failure
policy. (Kept apart from ``_registry.py``, which registers and dispatches.)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from types import CoroutineType
from typing import Any, Final, TypeVar, cast

from pydantic import BaseModel, ValidationError

from llm_worker import Abort, Annotate, Pause, Rewrite, Skip

__all__ = ["awaited_coroutine", "copier", "illegal", "legal_copy", "own_copy"]

InputT = TypeVar("InputT", bound=BaseModel)

_new = object.__new__
_set = object.__setattr__
_get = object.__getattribute__
_SLOTS: Final = BaseModel.__dict__
_set_fields_set = _SLOTS["__pydantic_fields_set__"].__set__
_set_extra = _SLOTS["__pydantic_extra__"].__set__
_set_private = _SLOTS["__pydantic_private__"].__set__


def own_copy(info: InputT) -> InputT:
    """A fresh, equal Input for one hook, validated again by pydantic-core (the slow way,
    kept for Inputs :func:`copier` does not build directly)."""
    copy: InputT = type(info).__pydantic_validator__.validate_python(vars(info))
    return copy


def copier(info: InputT) -> Callable[[], InputT]:
    """What makes fresh, equal Inputs for the hooks of one event (``info`` is never handed
    out before this).

    A copy rather than one shared object because no Python object of a class we define can
    be shared safely: ``__class__`` assignment, ``object.__setattr__`` on ``__dict__`` and
    pydantic's ``validate_assignment`` all rewrite one in place. Each copy is built from
    ``info``'s already validated values, as pydantic's ``__copy__`` builds one, without
    validating them again (about 30% cheaper; ``docs/performance.md``): a fresh ``__dict__``
    and a fresh set of field names per copy, over values that are immutable (``str``,
    ``int``, ``bool``, tuples of them): no copy shares anything writable with another.
    """
    cls = type(info)
    if _get(info, "__pydantic_extra__") is not None or _get(info, "__pydantic_private__"):
        return lambda: own_copy(info)
    values: dict[str, object] = dict(_get(info, "__dict__"))
    fields_set = set(_get(info, "__pydantic_fields_set__"))

    def copy() -> InputT:
        made = _new(cls)
        _set(made, "__dict__", values.copy())
        _set_fields_set(made, fields_set.copy())
        _set_extra(made, None)
        _set_private(made, None)
        return made

    return copy


async def awaited_coroutine(result: object) -> object:
    """Await what an async hook returned, if it is a real coroutine (its own code).

    Any other awaitable is refused unawaited: its ``__await__`` would be user code the
    hook did not declare, run inside the engine's dispatch.
    """
    if type(result) is not CoroutineType:
        raise TypeError(f"an async hook must return a coroutine, not {type(result).__name__}")
    return await cast("Coroutine[Any, Any, object]", result)


_STOPS: tuple[type[BaseModel], ...] = (Skip, Abort, Pause)
"""What may follow a ``Rewrite`` (its ``then``)."""
_THEN: Final[dict[type[BaseModel], tuple[type[BaseModel], ...]]] = {
    Rewrite: _STOPS,
    Annotate: (*_STOPS, Rewrite),
}
"""The decisions that carry another (``then``), and what it may be."""


def legal_copy(decision: object, legal: tuple[type[BaseModel], ...]) -> BaseModel | None:
    """Return a fresh, validated copy of ``decision`` if it is one the event allows.

    The type must be exactly a legal decision class, and every field a plain ``str`` (all
    decision fields are, but ``then``: ``None`` or a copied ``Skip | Abort | Pause`` after a
    ``Rewrite``, those or a ``Rewrite`` after an ``Annotate``):
    a decision made with ``model_construct`` or rewritten in place could hold anything, e.g.
    an object whose ``__str__`` would run when the engine reads the reason. The copy means
    the hook keeps no handle on what the engine acts on.
    """
    decision_type = next((t for t in legal if type(decision) is t), None)
    if decision_type is None:
        return None
    values: object = object.__getattribute__(decision, "__dict__")
    if not isinstance(values, dict):
        return None
    # ``dict.get``, not ``values.get``: ``__dict__`` may have been swapped for a subclass.
    known = cast("dict[str, object]", values)
    get = dict[str, object].get
    fields = {name: get(known, name) for name in decision_type.model_fields}
    for name, value in fields.items():
        if type(value) is str:
            continue
        follows = _THEN.get(decision_type) if name == "then" else None
        if follows is None:
            return None
        # ``then``: nothing, or a decision it may carry, copied the same way.
        if value is not None:
            then = legal_copy(value, follows)
            if then is None:
                return None
            fields[name] = then
    try:
        return decision_type.model_validate(fields)
    except ValidationError:
        return None


def illegal(decision: object, event_name: str, legal: tuple[type[BaseModel], ...]) -> str:
    """Say why ``decision`` is not an answer the event called ``event_name`` allows."""
    if type(decision) is CoroutineType:
        coroutine = cast("Coroutine[Any, Any, object]", decision)
        if inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED:
            coroutine.close()  # never started: closing runs none of its code
        return "returned a coroutine from a sync hook (declare it `async def`)"
    if not legal:
        return f"returned {type(decision).__name__}; it observes only"
    if type(decision) in legal:
        return f"returned a malformed {type(decision).__name__} (a field is not a plain str)"
    return (
        f"returned {type(decision).__name__}, which {event_name.upper()} does not allow "
        f"(allowed: {' | '.join(t.__name__ for t in legal)})"
    )
