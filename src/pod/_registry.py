"""``HookRegistry``: where hooks are registered, and the frozen registry the Worker asks.

Rules:
- Hooks run in registration order; the first decision that is not ``Continue`` wins and the
  hooks after it are not called. ``ABORT`` hooks observe only: all of them run.
- ``freeze()`` fixes the hooks. Registering afterwards raises :class:`RegistryFrozenError`.
- A hook that raises, times out, or returns something its event does not allow never passes
  silently. What happens is the registration's failure policy: ``"abort"`` (fail closed, the
  default: the run ends ``Aborted`` with a reason naming the hook and the error), ``"deny"``
  (``PRE_TOOL_CALL`` only: the call is skipped with that reason) or ``"ignore"`` (opt-in:
  logged at warning level, the next hook is asked).
- Hooks receive read-only summaries and return decisions: nothing here gives them the run's
  context, and the registry holds none.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, Protocol, TypeAlias, TypeVar, cast, final, overload

from pydantic import BaseModel

from llm_worker import HookFailedError, HookPoint, Skip

from . import events
from ._errors import PodUsageError, RegistryFrozenError, UnknownEventError
from ._hook_base import declared_event
from .events import HookEvent

__all__ = ["FailurePolicy", "FrozenHookRegistry", "HookRegistry"]

_log = logging.getLogger("pod.hooks")

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")

FailurePolicy: TypeAlias = Literal["abort", "deny", "ignore"]
"""What a failing hook leads to: ``abort`` (fail closed, default), ``deny`` (skip the tool
call; ``PRE_TOOL_CALL`` only), ``ignore`` (log a warning, ask the next hook)."""


class _Decorator(Protocol[InputT, DecisionT]):
    """What ``registry.on(EVENT)`` returns: registers the function and gives it back."""

    @overload
    def __call__(
        self, hook: Callable[[InputT], Awaitable[DecisionT]], /
    ) -> Callable[[InputT], Awaitable[DecisionT]]: ...
    @overload
    def __call__(self, hook: Callable[[InputT], DecisionT], /) -> Callable[[InputT], DecisionT]: ...


@final
@dataclass(frozen=True, slots=True)
class _Registration:
    event: HookEvent[Any, Any]
    fn: Callable[[Any], Any]
    name: str
    is_async: bool
    on_error: FailurePolicy
    timeout: float | None


def _hook_name(fn: Callable[..., object]) -> str:
    module = getattr(fn, "__module__", None) or "?"
    qualname = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{qualname}"


def _is_async(fn: Callable[..., object]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004  # a callable object's async __call__
    )


@final
class HookRegistry:
    """Collects hooks at start-up; ``freeze()`` gives the immutable registry a Pod runs with.

    Example:
        ```python
        registry = HookRegistry()

        @registry.on(events.PRE_TOOL_CALL)
        def no_rm(call: ToolCallSummary) -> Continue | Skip:
            if call.tool_name == "shell" and str(call.argument("command")).startswith("rm "):
                return Skip(reason="rm is not allowed")
            return Continue()
        ```
    """

    def __init__(self) -> None:
        self._registrations: list[_Registration] = []
        self._frozen: FrozenHookRegistry | None = None

    @overload
    def on(
        self,
        event: HookEvent[InputT, DecisionT],
        hook: Callable[[InputT], Awaitable[DecisionT]],
        /,
        *,
        on_error: FailurePolicy = "abort",
        timeout: float | None = None,
    ) -> Callable[[InputT], Awaitable[DecisionT]]: ...
    @overload
    def on(
        self,
        event: HookEvent[InputT, DecisionT],
        hook: Callable[[InputT], DecisionT],
        /,
        *,
        on_error: FailurePolicy = "abort",
        timeout: float | None = None,
    ) -> Callable[[InputT], DecisionT]: ...
    @overload
    def on(
        self,
        event: HookEvent[InputT, DecisionT],
        /,
        *,
        on_error: FailurePolicy = "abort",
        timeout: float | None = None,
    ) -> _Decorator[InputT, DecisionT]: ...
    def on(
        self,
        event: HookEvent[Any, Any],
        hook: Callable[[Any], Any] | None = None,
        /,
        *,
        on_error: FailurePolicy = "abort",
        timeout: float | None = None,
    ) -> Any:
        """Register ``hook`` for ``event``: ``registry.on(EVENT, fn)`` or ``@registry.on(EVENT)``.

        Args:
            event: one of ``pod.events``; fixes the Input the hook takes and the decisions it
                may return (checked by mypy and pyright, and again at run time).
            hook: a function (sync or async) of the event's Input, or an instance of a
                :class:`Hook` subclass.
            on_error: the failure policy (see :data:`FailurePolicy`).
            timeout: seconds the hook may take; past it the hook has failed. A sync hook
                with a timeout runs in a worker thread.

        Raises:
            UnknownEventError: ``event`` is not in the catalogue.
            RegistryFrozenError: the registry is frozen.
            PodUsageError: ``on_error="deny"`` for an event other than ``PRE_TOOL_CALL``, a
                timeout that is not positive, or a ``@hook`` function declared for another
                event.
        """
        if not any(event is known for known in events.CATALOGUE):
            raise UnknownEventError(event)
        if on_error not in ("abort", "deny", "ignore"):
            raise PodUsageError(f"unknown failure policy {on_error!r}: use abort, deny or ignore")
        if on_error == "deny" and event is not events.PRE_TOOL_CALL:
            raise PodUsageError("on_error='deny' is only meaningful for PRE_TOOL_CALL")
        if timeout is not None and timeout <= 0:
            raise PodUsageError("a hook timeout must be positive")

        def register(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
            name = _hook_name(fn)
            if self._frozen is not None:
                raise RegistryFrozenError(event.name.upper(), name)
            if not callable(fn):
                raise PodUsageError(f"a hook must be callable, not {fn!r}")
            declared = declared_event(fn)
            if declared is not None and declared is not event:
                raise PodUsageError(
                    f"{name} is declared with @hook({declared.name.upper()}); "
                    f"it cannot be registered on {event.name.upper()}"
                )
            self._registrations.append(
                _Registration(event, fn, name, _is_async(fn), on_error, timeout)
            )
            return fn

        return register if hook is None else register(hook)

    @property
    def frozen(self) -> bool:
        """Whether ``freeze()`` was called."""
        return self._frozen is not None

    def freeze(self) -> FrozenHookRegistry:
        """Fix the hooks and return the immutable registry (the same one on every call)."""
        if self._frozen is None:
            self._frozen = _freeze(tuple(self._registrations))
        return self._frozen


def _freeze(registrations: tuple[_Registration, ...]) -> FrozenHookRegistry:
    return _frozen_of(
        {
            event.name: tuple(r for r in registrations if r.event is event)
            for event in events.CATALOGUE
        }
    )


def _frozen_of(by_event: dict[str, tuple[_Registration, ...]]) -> FrozenHookRegistry:
    frozen = object.__new__(FrozenHookRegistry)
    object.__setattr__(frozen, "_by_event", MappingProxyType(by_event))
    return frozen


@final
class FrozenHookRegistry:
    """The immutable registry: dispatches each event to its hooks (the Worker's hook port)."""

    __slots__ = ("_by_event",)
    _by_event: Mapping[str, tuple[_Registration, ...]]

    def __init__(self) -> None:
        raise TypeError("use HookRegistry().freeze()")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a frozen hook registry cannot change")

    def then(self, other: FrozenHookRegistry) -> FrozenHookRegistry:
        """Return a registry that asks this registry's hooks first, then ``other``'s.

        For every event the result holds this registry's hooks followed by ``other``'s, each
        in registration order. The Pod uses it to put policy hooks (``PermissionHook``) ahead
        of user hooks: a policy ``Skip`` stops the chain before any user hook is asked.
        """
        return _frozen_of(
            {name: hooks + other._by_event[name] for name, hooks in self._by_event.items()}
        )

    def hooks_for(self, event: HookEvent[Any, Any]) -> tuple[str, ...]:
        """Names of the hooks registered for ``event``, in the order they run."""
        return tuple(r.name for r in self._by_event[event.name])

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool:
        """Whether any hook is registered for the event of ``point``.

        The Worker asks once and builds no summary for an event without hooks: the answer
        cannot change, the registry being frozen.
        """
        return bool(self._by_event[point.name])

    def ask(
        self,
        point: HookPoint[InputT, DecisionT],
        info: InputT,
        /,
        *,
        on_decided: Callable[[str], None] | None = None,
    ) -> Coroutine[Any, Any, DecisionT]:
        """The hook port: ask the hooks of the event of ``point`` (see :meth:`dispatch`).

        Returns the dispatching coroutine itself rather than awaiting it in a coroutine of
        its own: one frame less per event.
        """
        return self._dispatch(point, info, on_decided)

    def dispatch(
        self,
        event: HookEvent[InputT, DecisionT],
        info: InputT,
        *,
        on_decided: Callable[[str], None] | None = None,
    ) -> Coroutine[Any, Any, DecisionT]:
        """Ask the hooks of ``event`` in order; return the first decision that is not
        ``Continue`` (or the event's neutral decision).

        ``on_decided``, if given, is told the name of the hook whose decision won (for
        traces); it is not called when every hook continued.

        Raises:
            HookFailedError: a hook failed under the ``abort`` policy.
        """
        return self._dispatch(event.point, info, on_decided)

    async def _dispatch(
        self,
        event: HookPoint[InputT, DecisionT],
        info: InputT,
        on_decided: Callable[[str], None] | None,
    ) -> DecisionT:
        legal = event.decision_types
        neutral = event.neutral
        neutral_type = type(neutral)  # ``Continue`` (one value, so its type says it), or None
        first_failure: HookFailedError | None = None
        for registration in self._by_event[event.name]:
            decision: object
            cause: Exception | None = None
            try:
                if registration.timeout is None:
                    decision = registration.fn(info)
                    if registration.is_async:
                        decision = await cast("Awaitable[object]", decision)
                    elif type(decision) not in legal and inspect.isawaitable(decision):
                        decision = await decision  # a sync callable that returned an awaitable
                else:
                    decision = await self._call_with_timeout(registration, info)
            except Exception as exc:
                cause = exc
                problem = (
                    f"timed out after {registration.timeout}s"
                    if isinstance(exc, TimeoutError)
                    else f"raised {type(exc).__name__}: {exc}"
                )
            else:
                decision_type = type(decision)
                if decision_type is neutral_type:
                    continue
                if decision_type in legal:
                    if on_decided is not None:
                        on_decided(registration.name)
                    return decision  # type: ignore[return-value]  # its type was checked above
                problem = (
                    f"returned {decision!r}, which {event.name.upper()} does not allow "
                    f"(allowed: {' | '.join(t.__name__ for t in legal)})"
                    if legal
                    else f"returned {decision!r}; it observes only"
                )
            try:
                outcome = self._failed(registration, problem, cause)
            except HookFailedError as failure:
                if legal:
                    raise
                # Observe-only (ABORT): the other hooks still observe; the failure is raised after.
                first_failure = first_failure or failure
                continue
            if outcome is not None:
                if on_decided is not None:
                    on_decided(f"{registration.name} (failed; on_error='deny')")
                return outcome  # type: ignore[return-value]  # a Skip, legal for PRE_TOOL_CALL
        if first_failure is not None:
            raise first_failure
        return neutral

    @staticmethod
    async def _call_with_timeout(registration: _Registration, info: BaseModel) -> object:
        fn = registration.fn
        assert registration.timeout is not None
        async with asyncio.timeout(registration.timeout):
            if registration.is_async:
                return await fn(info)
            result = await asyncio.to_thread(fn, info)
            if inspect.isawaitable(result):
                result = await result
            return result

    @staticmethod
    def _failed(
        registration: _Registration, problem: str, exc: BaseException | None = None
    ) -> Skip | None:
        """Apply the failure policy: raise (abort), return a Skip (deny), or None (ignore)."""
        error = HookFailedError(
            event=registration.event.name.upper(), hook=registration.name, problem=problem
        )
        if registration.on_error == "deny":
            return Skip(reason=str(error))
        if registration.on_error == "ignore":
            _log.warning("%s (ignored: on_error='ignore')", error)
            return None
        raise error from exc
