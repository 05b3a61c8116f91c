"""Several Claude Code hooks of one event, run as Claude Code runs them: all at once, their
outcomes merged.

Claude Code runs every matching hook of an event in parallel and merges what they answer;
one hook cannot stop another from running. :class:`ClaudeHookGroup` is that, as one hook:
it asks each of its hooks (each with its own matcher and timeout) concurrently, waits for
all of them, and merges their decisions (:func:`merged_decision`): an ``Abort``
(``continue: false``) beats a ``Skip`` (deny), which beats a ``Pause`` (ask, defer), which
beats carrying on; the reasons of the winning kind, ``Feedback`` texts and ``Annotate``
texts are joined in file order; an ``updatedInput`` (``Rewrite``) goes with the decision
unless it is denied, and two different ones fail the group (a parallel hook never saw the
other's rewrite, so neither can be taken for both).

Failures keep each hook's policy (its ``onFailure``, else its event's): a hook that fails
closed fails the group, once every hook is done, with that hook's own error (the first in
file order); any other failure is one warning line, as the registry writes it, and the
other hooks' decisions still count.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Final, TypeVar, final

from pydantic import BaseModel

from llm_worker import Abort, Annotate, Continue, Feedback, Pause, Rewrite, Skip

from ..hooks._base import Hook
from ..hooks._errors import CommandHookError
from ..hooks._events import HookEvent
from ..hooks._names import hook_name, raised
from ..hooks._registry import reads_only_hook, warn_ignored
from ._claude_http import HttpHook
from ._claude_prompt import PromptHook
from ._hook import CommandHook

__all__ = ["ClaudeHookGroup", "merged_decision"]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")

ClaudeHook = CommandHook[Any, Any] | HttpHook[Any, Any] | PromptHook[Any, Any]
_CONTINUE: Final = Continue()
_STRENGTH: Final[tuple[type[BaseModel], ...]] = (Abort, Skip, Pause)
"""The stopping decisions, strongest first."""


def _joined(reasons: Sequence[str]) -> str:
    return "; ".join(dict.fromkeys(reason for reason in reasons if reason))


def merged_decision(decisions: Sequence[object], *, name: str) -> object:
    """One decision for the decisions of hooks that ran side by side (file order), named
    ``name`` in an error.

    Raises:
        CommandHookError: two hooks rewrote the call to different arguments.
    """
    notes: list[str] = []
    rewrites: list[Rewrite] = []
    told: list[str] = []
    stops: list[BaseModel] = []
    for decision in decisions:
        carried: object = decision
        if isinstance(carried, Annotate):
            notes.append(carried.text)
            carried = carried.then
        if isinstance(carried, Rewrite):
            rewrites.append(carried)
            carried = carried.then
        if isinstance(carried, Feedback):
            told.append(carried.text)
        elif isinstance(carried, Skip | Abort | Pause):
            stops.append(carried)
    winner = next((kind for kind in _STRENGTH if any(type(s) is kind for s in stops)), None)
    reason = _joined([str(getattr(s, "reason", "")) for s in stops if type(s) is winner])
    if winner is Abort:
        return Abort(reason=reason)  # the run ends: nothing else is delivered
    result: Continue | Skip | Pause | Rewrite | Feedback
    if winner is Skip:
        result = Skip(reason=reason)  # a denied call does not run: its rewrites do not matter
    else:
        then = Pause(reason=reason) if winner is Pause else None
        if rewrites:
            arguments = list(dict.fromkeys(r.arguments for r in rewrites))
            if len(arguments) > 1:
                raise CommandHookError(
                    command=name,
                    problem="rewrote the call to different arguments (updatedInput) in "
                    f"parallel hooks: {' / '.join(arguments)}",
                )
            result = Rewrite(
                arguments=arguments[0], reason=_joined([r.reason for r in rewrites]), then=then
            )
        elif then is not None:
            result = then
        elif told:
            result = Feedback(text="\n".join(told))
        else:
            result = _CONTINUE
    if not notes:
        return result
    carried_on = None if isinstance(result, Continue) else result
    assert not isinstance(carried_on, Feedback)  # Annotate is PreToolUse's; Feedback never is
    return Annotate(text="\n".join(notes), then=carried_on)


@final
@reads_only_hook
class ClaudeHookGroup(Hook[InputT, DecisionT]):
    """The Claude Code hooks of one event, asked concurrently, their decisions merged."""

    def __init__(
        self,
        event: HookEvent[InputT, DecisionT],
        hooks: Sequence[ClaudeHook],
        *,
        fail_closed: bool | Sequence[bool],
    ) -> None:
        self._event = event
        self._hooks = tuple(hooks)
        self._fail_closed = (
            (fail_closed,) * len(hooks) if isinstance(fail_closed, bool) else tuple(fail_closed)
        )
        if len(self._fail_closed) != len(hooks):
            raise ValueError("one fail_closed for each hook, or one for all")
        names = " + ".join(hook.__qualname__ for hook in self._hooks)
        self._display = f"{len(self._hooks)} hooks in parallel ({names})"
        # The registry names a hook by its __qualname__: name every hook of the group.
        self.__qualname__ = f"ClaudeHookGroup({names})"

    @property
    def hooks(self) -> tuple[ClaudeHook, ...]:
        """The hooks, in file order."""
        return self._hooks

    def selects(self, tool_name: str) -> bool:
        """Whether any hook of the group is put a call of ``tool_name``."""
        return any(hook.selects(tool_name) for hook in self._hooks)

    async def __call__(self, info: InputT) -> DecisionT:
        """Ask every hook at once; merge their decisions once all are done.

        Raises:
            CommandHookError: at a guard event, a hook failed (its own error, the first in
                file order), or two hooks rewrote the call differently.
        """
        answers = await asyncio.gather(
            *(hook(info) for hook in self._hooks), return_exceptions=True
        )
        decisions: list[object] = []
        for hook, closed, answer in zip(self._hooks, self._fail_closed, answers, strict=True):
            if not isinstance(answer, BaseException):
                decisions.append(answer)
                continue
            if closed or not isinstance(answer, Exception):  # or cancelled
                raise answer
            warn_ignored(self._event.name, hook_name(hook), raised(hook, answer), answer)
        decision = merged_decision(decisions, name=self._display)
        return decision  # type: ignore[return-value]  # merged from the event's own decisions
