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
- Each hook's Input is its own: whatever a hook does to it, no other hook, the trace or the
  engine sees it. What comes back is only what the event allows: a decision of exactly a
  legal class with plain ``str`` fields (the engine acts on a validated copy of it); what a
  sync hook returns is never awaited. The frozen registry is tuples all the way down.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import sys
import traceback
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from types import CoroutineType
from typing import (
    Any,
    Final,
    Literal,
    NamedTuple,
    Protocol,
    TypeAlias,
    TypeVar,
    cast,
    final,
    overload,
)

from pydantic import BaseModel, ValidationError
from typing_extensions import override

from llm_worker import (
    AbortInfo,
    HookFailedError,
    HookPoint,
    PostToolDecision,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    PromptSubmitDecision,
    PromptSubmitInfo,
    Skip,
    ToolCallSummary,
    ToolResultSummary,
    TurnEndDecision,
    TurnEndInfo,
)

from . import events
from ._command_hook import CommandHook
from ._errors import PodUsageError, RegistryFrozenError, UnknownEventError
from ._hook_base import declared_event, input_mismatch
from ._permissions import PermissionHook
from .events import HookEvent

__all__ = ["FailurePolicy", "FrozenHookRegistry", "HookFn", "HookRegistry"]

_log = logging.getLogger("pod.hooks")

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")

FailurePolicy: TypeAlias = Literal["abort", "deny", "ignore"]
"""What a failing hook leads to: ``abort`` (fail closed, default), ``deny`` (skip the tool
call; ``PRE_TOOL_CALL`` only), ``ignore`` (log a warning, ask the next hook)."""

HookFn: TypeAlias = Callable[[InputT], DecisionT | Awaitable[DecisionT]]
"""A hook: takes the event's Input, returns one of its decisions (sync or async)."""


class _Decorator(Protocol[InputT, DecisionT]):
    """What ``registry.on(EVENT)`` returns: registers the function and gives it back."""

    @overload
    def __call__(
        self, hook: Callable[[InputT], Awaitable[DecisionT]], /
    ) -> Callable[[InputT], Awaitable[DecisionT]]: ...
    @overload
    def __call__(self, hook: Callable[[InputT], DecisionT], /) -> Callable[[InputT], DecisionT]: ...


class _Registration(NamedTuple):
    """One registered hook. A tuple: its items are not attributes, so nothing rebinds them."""

    event_name: str
    fn: Callable[[Any], Any]
    name: str
    is_async: bool
    reads_only: bool
    """One of our own hooks that only reads its Input: it is given the original, no copy."""
    on_error: FailurePolicy
    timeout: float | None


class _EventHooks(NamedTuple):
    """An event's hooks and rules, copied out of the catalogue when the registry is frozen."""

    name: str
    legal: tuple[type[BaseModel], ...]
    """Exact decision types the event allows (empty: observe only)."""
    neutral: object
    """What the event resolves to when every hook continues."""
    hooks: tuple[_Registration, ...]


def _hook_name(fn: Callable[..., object]) -> str:
    """The hook's qualified name, by its public path when a package re-exports it
    (``pod.PermissionHook``, not ``pod._permissions.PermissionHook``)."""
    named: object = fn if hasattr(fn, "__qualname__") else type(fn)
    module = getattr(named, "__module__", None) or "?"
    qualname: str = getattr(named, "__qualname__", None) or type(fn).__qualname__
    if module.startswith("_") or "._" in module:
        package = sys.modules.get(module.partition(".")[0])
        outer = qualname.partition(".")[0]
        defining = sys.modules.get(module)
        exported = package is not None and defining is not None
        if exported and getattr(package, outer, None) is getattr(defining, outer, object()):
            module = package.__name__ if package is not None else module
    return f"{module}.{qualname}"


def _raised(fn: Callable[..., object], exc: BaseException) -> str:
    """``raised KeyError: 'b' at hooks.py:12``: the line is the innermost frame of the
    traceback in the file the hook is defined in (else the innermost frame of all)."""
    frames = traceback.extract_tb(exc.__traceback__)
    home = _defining_file(fn)
    own = [frame for frame in frames if home is not None and frame.filename == home]
    where = (own or frames)[-1:] if frames else []
    place = f" at {_shown_path(where[0].filename)}:{where[0].lineno}" if where else ""
    return f"raised {type(exc).__name__}: {exc}{place}"


def _shown_path(filename: str) -> str:
    """Relative to the working folder when inside it (shorter, and what users type)."""
    path = os.path.abspath(filename)
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _defining_file(fn: Callable[..., object]) -> str | None:
    code = getattr(fn, "__code__", None) or getattr(
        getattr(type(fn), "__call__", None),  # noqa: B004  # a hook object's __call__
        "__code__",
        None,
    )
    filename = getattr(code, "co_filename", None)
    return filename if isinstance(filename, str) else None


def _reads_only(fn: object) -> bool:
    # ``is``, not ``in``: ``in`` falls back to ``==``, which a metaclass may answer ``True``.
    return any(type(fn) is trusted for trusted in _READS_ONLY)


def _is_async(fn: Callable[..., object]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004  # a callable object's async __call__
    )


def _own_copy(info: InputT) -> InputT:
    """A fresh, equal Input for one hook (``info`` is never handed out before this).

    A copy rather than one shared object because no Python object of a class we define can
    be shared safely: ``__class__`` assignment, ``object.__setattr__`` on ``__dict__`` and
    pydantic's ``validate_assignment`` all rewrite one in place (bench: about a microsecond
    per hook, ``docs/security.md``).
    """
    copy: InputT = type(info).__pydantic_validator__.validate_python(vars(info))
    return copy


async def _awaited_coroutine(result: object) -> object:
    """Await what an async hook returned, if it is a real coroutine (its own code).

    Any other awaitable is refused unawaited: its ``__await__`` would be user code the
    hook did not declare, run inside the engine's dispatch.
    """
    if type(result) is not CoroutineType:
        raise TypeError(f"an async hook must return a coroutine, not {type(result).__name__}")
    return await cast("Coroutine[Any, Any, object]", result)


def _legal_copy(decision: object, legal: tuple[type[BaseModel], ...]) -> BaseModel | None:
    """Return a fresh, validated copy of ``decision`` if it is one the event allows.

    The type must be exactly a legal decision class, and every field a plain ``str`` (all
    decision fields are): a decision made with ``model_construct`` or rewritten in place
    could hold anything, e.g. an object whose ``__str__`` would run when the engine reads
    the reason. The copy means the hook keeps no handle on what the engine acts on.
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
    if not all(type(value) is str for value in fields.values()):
        return None
    try:
        return decision_type.model_validate(fields)
    except ValidationError:
        return None


def _illegal(decision: object, entry: _EventHooks) -> str:
    """Say why ``decision`` is not an answer the event of ``entry`` allows."""
    if type(decision) is CoroutineType:
        coroutine = cast("Coroutine[Any, Any, object]", decision)
        if inspect.getcoroutinestate(coroutine) == inspect.CORO_CREATED:
            coroutine.close()  # never started: closing runs none of its code
        return "returned a coroutine from a sync hook (declare it `async def`)"
    if not entry.legal:
        return f"returned {type(decision).__name__}; it observes only"
    if type(decision) in entry.legal:
        return f"returned a malformed {type(decision).__name__} (a field is not a plain str)"
    return (
        f"returned {type(decision).__name__}, which {entry.name.upper()} does not allow "
        f"(allowed: {' | '.join(t.__name__ for t in entry.legal)})"
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

    __slots__ = ("_frozen", "_registrations")  # no ``__dict__`` to reach

    def __init__(self) -> None:
        # A tuple, rebuilt on each registration: no list of hooks is ever reachable.
        self._registrations: tuple[_Registration, ...] = ()
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
            mismatch = input_mismatch(fn, event)
            if mismatch is not None:
                raise PodUsageError(
                    f"{name} cannot be registered on {event.name.upper()}: {mismatch}"
                )
            registration = _Registration(
                event.name, fn, name, _is_async(fn), _reads_only(fn), on_error, timeout
            )
            self._registrations = (*self._registrations, registration)
            return fn

        return register if hook is None else register(hook)

    @property
    def frozen(self) -> bool:
        """Whether ``freeze()`` was called."""
        return self._frozen is not None

    def freeze(self) -> FrozenHookRegistry:
        """Fix the hooks and return the immutable registry (the same one on every call)."""
        if self._frozen is None:
            self._frozen = _freeze(self._registrations)
        return self._frozen


_READS_ONLY: Final = (PermissionHook, CommandHook)
"""Hook classes of ours that never write to their Input, matched by exact type (a subclass
may override ``__call__``): sharing the original with them saves a copy per event, e.g. the
policy hook ahead of a user hook on every tool call."""

_POSITION: Final[Mapping[HookEvent[Any, Any], int]] = {
    event: position for position, event in enumerate(events.CATALOGUE)
}
"""Where each event's entry is in a frozen registry (catalogue order). A module global, as
patchable as the module's code: it holds positions, never hooks."""


def _freeze(registrations: tuple[_Registration, ...]) -> FrozenHookRegistry:
    return _frozen_of(
        _EventHooks(
            event.name,
            event.decision_types,
            event.neutral,
            tuple(r for r in registrations if r.event_name == event.name),
        )
        for event in events.CATALOGUE
    )


def _frozen_of(entries: Iterable[_EventHooks]) -> FrozenHookRegistry:
    return tuple[_EventHooks, ...].__new__(FrozenHookRegistry, entries)


@final
class FrozenHookRegistry(tuple[_EventHooks, ...]):
    """The immutable registry: dispatches each event to its hooks (the Worker's hook port).

    It is a tuple (one entry per catalogue event, in catalogue order) of tuples: no dict,
    list or rebindable attribute holds its hooks, so nothing reachable from it can add,
    remove or reorder them. Each hook is given its own copy of the Input.
    """

    __slots__ = ()

    def __new__(cls) -> FrozenHookRegistry:
        raise TypeError("use HookRegistry().freeze()")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a frozen hook registry cannot change")

    # Identity, as before it was a tuple: two registries are never "equal", and hashing one
    # does not hash the hooks (a hook object need not be hashable).
    @override
    def __eq__(self, other: object) -> bool:
        return self is other

    @override
    def __ne__(self, other: object) -> bool:
        return self is not other

    @override
    def __hash__(self) -> int:
        return id(self)

    @override
    def __repr__(self) -> str:
        counts = ", ".join(f"{entry.name}={len(entry.hooks)}" for entry in self if entry.hooks)
        return f"<FrozenHookRegistry {counts or 'no hooks'}>"

    def _entry(self, event: HookEvent[Any, Any]) -> _EventHooks:
        return self[_POSITION[event]]

    def then(self, other: FrozenHookRegistry) -> FrozenHookRegistry:
        """Return a registry that asks this registry's hooks first, then ``other``'s.

        For every event the result holds this registry's hooks followed by ``other``'s, each
        in registration order. The Pod uses it to put policy hooks (``PermissionHook``) ahead
        of user hooks: a policy ``Skip`` stops the chain before any user hook is asked.
        """
        return _frozen_of(
            # ``_make`` gives ``other``'s registrations new identities, so a registry
            # chained to itself still holds each registration object once (see dispatch).
            mine._replace(hooks=mine.hooks + tuple(map(_Registration._make, theirs.hooks)))
            for mine, theirs in zip(self, other, strict=True)
        )

    def hooks_for(self, event: HookEvent[Any, Any]) -> tuple[str, ...]:
        """Names of the hooks registered for ``event``, in the order they run."""
        return tuple(r.name for r in self._entry(event).hooks)

    def listens_to(self, point: HookPoint) -> bool:
        """Whether any hook is registered for the event named ``point``.

        The Worker asks once and builds no summary for an event without hooks: the answer
        cannot change, the registry being frozen.
        """
        return any(entry.hooks for entry in self if entry.name == point)

    async def dispatch(
        self,
        event: HookEvent[InputT, DecisionT],
        info: InputT,
        *,
        on_decided: Callable[[str], None] | None = None,
    ) -> DecisionT:
        """Ask the hooks of ``event`` in order; return the first decision that is not
        ``Continue`` (or the event's neutral decision).

        ``on_decided``, if given, is told the name of the hook whose decision won (for
        traces); it is not called when every hook continued.

        Raises:
            HookFailedError: a hook failed under the ``abort`` policy.
        """
        entry = self[_POSITION[event]]  # inlined ``_entry``: this is the hot path
        legal = entry.legal
        neutral_type = type(entry.neutral)  # ``Continue`` (one value, so its type says it), or None
        first_failure: HookFailedError | None = None
        hooks = entry.hooks
        last = hooks[-1] if hooks else None  # each registration is a distinct object
        for registration in hooks:
            decision: object
            cause: Exception | None = None
            try:
                # Each hook gets an Input of its own: whatever it does to it, no other hook,
                # the trace or the engine sees it. The last hook gets the original, which
                # nothing reads after it: one hook per event costs no copy at all.
                own = info if registration is last or registration.reads_only else _own_copy(info)
                if registration.timeout is None:
                    decision = registration.fn(own)
                    if registration.is_async:
                        decision = await _awaited_coroutine(decision)
                else:
                    decision = await self._call_with_timeout(registration, own)
            except Exception as exc:
                cause = exc
                problem = (
                    f"timed out after {registration.timeout}s"
                    if isinstance(exc, TimeoutError)
                    else _raised(registration.fn, exc)
                )
            else:
                decision_type = type(decision)
                if decision_type is neutral_type:
                    continue
                answer = _legal_copy(decision, entry.legal)
                if answer is not None:
                    if on_decided is not None:
                        on_decided(registration.name)
                    return answer  # type: ignore[return-value]  # a decision legal here
                problem = _illegal(decision, entry)
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
        return entry.neutral  # type: ignore[return-value]  # the event's own neutral decision

    @staticmethod
    async def _call_with_timeout(registration: _Registration, info: BaseModel) -> object:
        fn = registration.fn
        assert registration.timeout is not None
        async with asyncio.timeout(registration.timeout):
            if registration.is_async:
                return await _awaited_coroutine(fn(info))
            # What a sync hook returns is its answer: it is never awaited.
            return await asyncio.to_thread(fn, info)

    @staticmethod
    def _failed(
        registration: _Registration, problem: str, exc: BaseException | None = None
    ) -> Skip | None:
        """Apply the failure policy: raise (abort), return a Skip (deny), or None (ignore)."""
        error = HookFailedError(
            event=registration.event_name.upper(), hook=registration.name, problem=problem
        )
        _log.debug("%s", error, exc_info=exc)
        if registration.on_error == "deny":
            return Skip(reason=str(error))
        if registration.on_error == "ignore":
            _log.warning("%s (ignored: on_error='ignore')", error)
            return None
        raise error from exc

    # -- the hook port the Worker calls -------------------------------------------------
    # Each returns ``dispatch``'s coroutine itself rather than awaiting it in a coroutine of
    # its own: one frame less per event.

    def prompt_submit(self, info: PromptSubmitInfo) -> Coroutine[Any, Any, PromptSubmitDecision]:
        return self.dispatch(events.PROMPT_SUBMIT, info)

    def pre_llm_request(self, info: PreRequestInfo) -> Coroutine[Any, Any, PreRequestDecision]:
        return self.dispatch(events.PRE_LLM_REQUEST, info)

    def pre_tool_call(self, info: ToolCallSummary) -> Coroutine[Any, Any, PreToolDecision]:
        return self.dispatch(events.PRE_TOOL_CALL, info)

    def post_tool_call(self, info: ToolResultSummary) -> Coroutine[Any, Any, PostToolDecision]:
        return self.dispatch(events.POST_TOOL_CALL, info)

    def turn_end(self, info: TurnEndInfo) -> Coroutine[Any, Any, TurnEndDecision]:
        return self.dispatch(events.TURN_END, info)

    def abort(self, info: AbortInfo) -> Coroutine[Any, Any, None]:
        return self.dispatch(events.ABORT, info)
