"""``HookRegistry``: where hooks are registered, and the frozen registry the Worker asks.

Rules:
- Hooks run in registration order; the first decision that is not ``Continue`` wins and the
  hooks after it are not called. ``ABORT`` hooks observe only: all of them run. At
  ``PRE_TOOL_CALL`` a ``Rewrite`` or ``Annotate`` without ``then`` decides nothing: the next
  hook is asked (about the rewritten call), and the decision that wins carries them.
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
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from typing import (
    Any,
    Final,
    Literal,
    NamedTuple,
    Protocol,
    TypeAlias,
    TypeVar,
    final,
    overload,
)

from pydantic import BaseModel
from typing_extensions import override

from llm_worker import (
    Abort,
    Annotate,
    Continue,
    HookFailedError,
    HookPoint,
    Pause,
    Rewrite,
    Skip,
    ToolCallSummary,
    bounded,
    visible,
)

from . import _events as events
from ._base import declared_event, input_mismatch
from ._errors import PodUsageError, RegistryFrozenError
from ._events import HookEvent, UnknownEventError
from ._exchange import awaited_coroutine, copier, illegal, legal_copy
from ._names import hook_name, raised

__all__ = [
    "FailurePolicy",
    "FrozenHookRegistry",
    "HookRegistry",
    "reads_only_hook",
    "warn_ignored",
]

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


def _reads_only(fn: object) -> bool:
    # ``is``, not ``in``: ``in`` falls back to ``==``, which a metaclass may answer ``True``.
    return any(type(fn) is trusted for trusted in _READS_ONLY)


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
            name = hook_name(fn)
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


_READS_ONLY: Final[list[type[object]]] = []
"""Hook classes of ours that never write to their Input (``PermissionHook``, ``CommandHook``),
matched by exact type (a subclass may override ``__call__``): sharing the original with them
saves a copy per event, e.g. the policy hook ahead of a user hook on every tool call. Each
declares itself with :func:`reads_only_hook` where it is defined (the rooms above this one),
so the registry imports neither; as patchable as the module's code, like ``_POSITION``."""

HookClassT = TypeVar("HookClassT", bound=type[object])


def warn_ignored(
    event_name: str, hook: str, problem: str, exc: BaseException | None = None
) -> None:
    """Report a failure the ``ignore`` policy lets pass: one warning line naming the hook."""
    error = HookFailedError(event=event_name.upper(), hook=hook, problem=problem)
    _log.debug("%s", error, exc_info=exc)
    # A plain-text log: the hook's text is bounded and its control characters shown.
    _log.warning("%s (ignored: on_error='ignore')", visible(bounded(str(error))))


def reads_only_hook(cls: HookClassT) -> HookClassT:
    """Declare ``cls``, one of pod's own hook classes, as never writing to its Input: an
    instance of exactly ``cls`` is handed the original Input, not a copy. Not for user hooks:
    a user hook is always given its own copy."""
    _READS_ONLY.append(cls)
    return cls


_POSITION: Final[Mapping[HookPoint[Any, Any], int]] = {
    event.point: position for position, event in enumerate(events.CATALOGUE)
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


def _answer(
    decision: object, entry: _EventHooks, info: BaseModel
) -> tuple[BaseModel | None, ToolCallSummary | None, str]:
    """A hook's answer as the engine may act on it: its legal copy (or ``None``), for a
    ``Rewrite`` the rewritten call's summary, and what is wrong with it otherwise."""
    answer = legal_copy(decision, entry.legal)
    if answer is None:
        return None, None, illegal(decision, entry.name, entry.legal)
    carried = answer.then if isinstance(answer, Annotate) else answer
    if not isinstance(carried, Rewrite):
        return answer, None, ""
    rewritten = _rewritten(info, carried)
    if rewritten.parsed_arguments() is None:
        return None, None, "returned a Rewrite whose arguments are not a JSON object"
    return answer, rewritten, ""


def _folded(earlier: Rewrite | None, later: Rewrite) -> Rewrite:
    """One ``Rewrite`` for the hooks so far: the last arguments, every reason in order."""
    if earlier is None:
        return later
    return Rewrite(
        arguments=later.arguments, reason=f"{earlier.reason}; {later.reason}", then=later.then
    )


def _rewritten(info: BaseModel, rewrite: Rewrite) -> ToolCallSummary:
    """The Input the next ``PRE_TOOL_CALL`` hook gets: the call with the rewritten arguments."""
    assert isinstance(info, ToolCallSummary)  # only PRE_TOOL_CALL allows Rewrite
    return ToolCallSummary.model_validate({**vars(info), "arguments": rewrite.arguments})


def _noted(notes: list[str], decision: BaseModel) -> BaseModel:
    """The decision of the hooks, carrying the ``Annotate`` texts of the hooks before it."""
    if not notes:
        return decision
    then = None if isinstance(decision, Continue) else decision
    assert then is None or isinstance(then, Skip | Abort | Pause | Rewrite)  # PRE_TOOL_CALL's
    return Annotate(text="\n".join(notes), then=then)


def _after(rewrite: Rewrite | None, decision: BaseModel) -> BaseModel:
    """A later hook's decision, carried by the ``Rewrite`` before it, if any."""
    if rewrite is None:
        return decision
    assert isinstance(decision, Skip | Abort | Pause)
    return Rewrite(arguments=rewrite.arguments, reason=rewrite.reason, then=decision)


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
        return self[_POSITION[event.point]]

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

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool:
        """Whether any hook is registered for the event of ``point``.

        The Worker asks once and builds no summary for an event without hooks: the answer
        cannot change, the registry being frozen.
        """
        return bool(self[_POSITION[point]].hooks)

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

    async def _dispatch(  # noqa: PLR0915 (rewrite folding, text bounds and failure policy meet here)
        self,
        point: HookPoint[InputT, DecisionT],
        info: InputT,
        on_decided: Callable[[str], None] | None,
    ) -> DecisionT:
        entry = self[_POSITION[point]]  # inlined ``_entry``: this is the hot path
        legal = entry.legal
        neutral_type = type(entry.neutral)  # ``Continue`` (one value, so its type says it), or None
        first_failure: HookFailedError | None = None
        rewrite: Rewrite | None = None  # PRE_TOOL_CALL: the arguments later hooks are asked about
        notes: list[str] = []  # PRE_TOOL_CALL: the Annotate texts so far, in hook order
        hooks = entry.hooks
        last = hooks[-1] if hooks else None  # each registration is a distinct object
        copy: Callable[[], InputT] | None = None  # made once per event, when first needed
        for registration in hooks:
            decision: object
            cause: Exception | None = None
            try:
                # Each hook gets an Input of its own: whatever it does to it, no other hook,
                # the trace or the engine sees it. The last hook gets the original, which
                # nothing reads after it: one hook per event costs no copy at all.
                if registration is last or registration.reads_only:
                    own = info
                else:
                    copy = copy or copier(info)
                    own = copy()
                if registration.timeout is None:
                    decision = registration.fn(own)
                    if registration.is_async:
                        decision = await awaited_coroutine(decision)
                else:
                    decision = await self._call_with_timeout(registration, own)
            except Exception as exc:
                cause = exc
                problem = (
                    f"timed out after {registration.timeout}s"
                    if isinstance(exc, TimeoutError)
                    else raised(registration.fn, exc)
                )
            else:
                decision_type = type(decision)
                if decision_type is neutral_type:
                    continue
                answer, rewritten, problem = _answer(decision, entry, info)
                if isinstance(answer, Annotate):
                    # Context for the model; the decision about the call is what it carries.
                    notes.append(answer.text)
                    if answer.then is None:
                        continue
                    answer = answer.then
                if isinstance(answer, Rewrite) and rewritten is not None:
                    if on_decided is not None:
                        on_decided(registration.name)
                    rewrite = _folded(rewrite, answer)
                    if answer.then is not None:
                        return _noted(notes, rewrite)  # type: ignore[return-value]  # PRE_TOOL_CALL's
                    # The hooks after this one are asked about the rewritten call.
                    info = rewritten  # type: ignore[assignment]  # PRE_TOOL_CALL's Input
                    continue
                if answer is not None:
                    if on_decided is not None:
                        on_decided(registration.name)
                    return _noted(notes, _after(rewrite, answer))  # type: ignore[return-value]
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
                return _noted(notes, _after(rewrite, outcome))  # type: ignore[return-value]
        if first_failure is not None:
            raise first_failure
        if rewrite is not None:
            return _noted(notes, rewrite)  # type: ignore[return-value]  # legal: PRE_TOOL_CALL's
        if notes:
            return Annotate(text="\n".join(notes))  # type: ignore[return-value]  # PRE_TOOL_CALL's
        return entry.neutral  # type: ignore[return-value]  # the event's own neutral decision

    @staticmethod
    async def _call_with_timeout(registration: _Registration, info: BaseModel) -> object:
        fn = registration.fn
        assert registration.timeout is not None
        async with asyncio.timeout(registration.timeout):
            if registration.is_async:
                return await awaited_coroutine(fn(info))
            # What a sync hook returns is its answer: it is never awaited.
            return await asyncio.to_thread(fn, info)

    @staticmethod
    def _failed(
        registration: _Registration, problem: str, exc: BaseException | None = None
    ) -> Skip | None:
        """Apply the failure policy: raise (abort), return a Skip (deny), or None (ignore)."""
        if registration.on_error == "ignore":
            warn_ignored(registration.event_name, registration.name, problem, exc)
            return None
        error = HookFailedError(
            event=registration.event_name.upper(), hook=registration.name, problem=problem
        )
        _log.debug("%s", error, exc_info=exc)
        if registration.on_error == "deny":
            return Skip(reason=str(error))
        raise error from exc
