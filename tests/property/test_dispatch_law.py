"""The dispatch law, for every event of the catalogue: the registry returns the first
decision that is not the event's neutral one, in registration order, and the neutral one if
and only if every hook returned it."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pod import HookRegistry, Rewrite, events

DECIDING = [event for event in events.CATALOGUE if not event.observe_only]


def decision_of(cls: type[BaseModel]) -> st.SearchStrategy[BaseModel]:
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

    # A Rewrite does not decide: it folds into the decision of the hooks after it.
    deciding = next(
        (i for i, a in enumerate(answers) if a != event.neutral and not isinstance(a, Rewrite)),
        None,
    )
    rewrites = [
        a for a in answers[: deciding if deciding is not None else None] if isinstance(a, Rewrite)
    ]
    folded = (
        None
        if not rewrites
        else Rewrite(arguments=rewrites[-1].arguments, reason="; ".join(r.reason for r in rewrites))
    )
    if deciding is None:
        assert decision == (event.neutral if folded is None else folded)
        assert asked == list(range(len(answers)))
    else:
        expected = answers[deciding]
        if folded is not None:
            expected = folded.model_copy(update={"then": expected})
        assert decision == expected
        assert asked == list(range(deciding + 1))
