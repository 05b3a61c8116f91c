"""The dispatch law, for every event of the catalogue: the registry returns the first
decision that is not the event's neutral one, in registration order, and the neutral one if
and only if every hook returned it. At ``PRE_TOOL_CALL`` a ``Rewrite`` or an ``Annotate``
without ``then`` decides nothing: the decision that wins carries them."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pod import Annotate, HookRegistry, Rewrite, Skip, events

DECIDING = [event for event in events.CATALOGUE if not event.observe_only]


def decision_of(cls: type[BaseModel]) -> st.SearchStrategy[BaseModel]:
    if cls is Annotate:  # context for the model; it carries a decision or none
        return st.builds(
            Annotate,
            text=st.sampled_from(["a", "b"]),
            then=st.one_of(st.none(), st.builds(Skip, reason=st.text(max_size=5))),
        )
    if cls is Rewrite:  # new arguments for the call; the hooks after it are still asked
        return st.builds(
            Rewrite,
            arguments=st.sampled_from(['{"a":1}', '{"a":2}', "{}"]),
            reason=st.text(max_size=5),
        )
    if "reason" in cls.model_fields:
        return st.builds(cls, reason=st.text(max_size=5))
    if "text" in cls.model_fields:  # Feedback
        return st.builds(cls, text=st.text(max_size=5))
    return st.just(cls())


@st.composite
def cases(draw: st.DrawFn) -> tuple[events.HookEvent[Any, Any], BaseModel, list[BaseModel]]:
    event = draw(st.sampled_from(DECIDING))
    info = draw(st.builds(event.input_type))
    answers = draw(st.lists(st.one_of(*map(decision_of, event.decision_types)), max_size=5))
    return event, info, answers


@settings(max_examples=200, deadline=None)
@given(cases())
def test_the_first_non_neutral_decision_wins(
    case: tuple[events.HookEvent[Any, Any], BaseModel, list[BaseModel]],
) -> None:
    event, info, answers = case
    asked: list[int] = []
    registry = HookRegistry()
    for index, answer in enumerate(answers):
        registry.on(event, lambda _, i=index, a=answer: (asked.append(i), a)[1])

    decision = asyncio.run(registry.freeze().dispatch(event, info))

    # A Rewrite, and an Annotate without then, do not decide: they fold into the decision
    # of the hooks after them.
    notes: list[str] = []
    rewrites: list[Rewrite] = []
    deciding: int | None = None
    decided: BaseModel | None = None
    for index, returned in enumerate(answers):
        answer = returned
        if isinstance(returned, Annotate):
            notes.append(returned.text)
            if returned.then is None:
                continue
            answer = returned.then
        if isinstance(answer, Rewrite):
            rewrites.append(answer)
        elif answer != event.neutral:
            deciding, decided = index, answer
            break
    expected: BaseModel | None = decided
    if rewrites:
        reason = "; ".join(r.reason for r in rewrites)
        expected = Rewrite(arguments=rewrites[-1].arguments, reason=reason, then=decided)
    if notes:
        expected = Annotate(text="\n".join(notes), then=expected)
    assert decision == (event.neutral if expected is None else expected)
    assert asked == list(range(len(answers) if deciding is None else deciding + 1))
