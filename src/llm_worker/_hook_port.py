"""The hook port: how the engine asks hooks for decisions, without knowing ``pod``.

Every decision point is a :class:`HookPoint`, a typed key that fixes the point's Input (a
read-only summary) and the decisions legal there. The Worker asks ``port.ask(point, info)``
once per point and acts on the decision; the key's type parameters make checkers narrow the
answer to that point's decisions. ``pod``'s frozen ``HookRegistry`` implements the port (its
``pod.events`` catalogue wraps these keys); :data:`NO_HOOKS` is the port of a Worker without
hooks. A port reports a hook that raised, timed out or answered illegally by raising
:class:`~llm_worker.HookFailedError`; the Worker then aborts the run.

A port may also say which points have hooks at all (:class:`SelectiveHookPort`): the Worker
then neither builds a summary nor calls the port at a point without hooks, so an unused
event costs nothing. A port that does not say is asked at every point.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Final, Generic, Protocol, TypeVar, cast, final, get_args, runtime_checkable

from pydantic import BaseModel

__all__ = ["NO_HOOKS", "HookPoint", "HookPort", "NoHooks", "SelectiveHookPort", "legal"]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")


@final
@dataclass(frozen=True, eq=False)  # no slots: ``HookPoint[I, D](...)`` sets __orig_class__
class HookPoint(Generic[InputT, DecisionT]):
    """A decision point of the engine: its name, its Input type and its legal decisions.

    One instance per point, compared by identity; declared beside its Input in
    ``_summaries.py``. ``pod.events`` wraps each one in a ``HookEvent``.
    """

    name: str
    """Stable, snake_case name (the ``pod`` event's name, in JSON, TOML and the CLI)."""
    input_type: type[InputT]
    """The frozen summary hooks receive here."""
    decision_types: tuple[type[BaseModel], ...]
    """The decision classes legal here; empty for an observe-only point."""
    neutral: DecisionT
    """The decision when no hook objects (``Continue()``, or ``None`` for observe-only)."""

    def __repr__(self) -> str:
        return f"<HookPoint {self.name}>"


def legal(decisions: object) -> tuple[type[BaseModel], ...]:
    """The decision classes of a decision alias (``Continue | Abort`` -> ``(Continue, Abort)``)."""
    members: tuple[object, ...] = get_args(decisions) or (decisions,)
    return tuple(cast("type[BaseModel]", member) for member in members)


class HookPort(Protocol):
    """Asks the hooks of a decision point and returns (an awaitable of) a decision legal there.

    Implement ``ask`` as an ``async def``, or as a plain method returning a coroutine.
    """

    def ask(self, point: HookPoint[InputT, DecisionT], info: InputT, /) -> Awaitable[DecisionT]:
        """Return the hooks' decision at ``point`` for ``info`` (``point.neutral`` if none)."""
        ...


@runtime_checkable
class SelectiveHookPort(HookPort, Protocol):
    """A hook port that knows which points have hooks (``pod``'s frozen registry).

    The answer must stay the same for the port's lifetime: the Worker asks once, when it
    is built, and skips the points without hooks from then on.
    """

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool:
        """Whether any hook would be asked at ``point``."""
        ...


@final
class NoHooks:
    """The port with no hooks: every point resolves to its neutral decision."""

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool:
        del point
        return False

    async def ask(self, point: HookPoint[InputT, DecisionT], info: InputT, /) -> DecisionT:
        del info
        return point.neutral


NO_HOOKS: Final = NoHooks()
