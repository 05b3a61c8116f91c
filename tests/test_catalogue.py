"""Everything about events derives from ``pod.events.CATALOGUE``: these meta-tests iterate
it, so a new event is checked by adding it there, with no list to update here.

An event's Input must be ``@final``, frozen, ``extra="forbid"``, made of plain data, with
every field documented (``pod schema`` shows the docs), and survive a JSON round trip that
its published schema accepts; so must its decisions. The docs tables must list the catalogue.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

import llm_worker
import pod
from pod import events
from pod.cli._main import schemas

DOCS = Path(__file__).parents[1] / "docs"
EVENTS = events.CATALOGUE
DECISION_TYPES = sorted(
    {t for event in EVENTS for t in event.decision_types}, key=lambda t: t.__name__
)


def event_id(event: events.HookEvent[Any, Any]) -> str:
    return event.name


def test_the_catalogue_wraps_every_engine_point_once_in_order() -> None:
    assert [event.point for event in EVENTS] == list(llm_worker.HOOK_POINTS)
    assert len({event.name for event in EVENTS}) == len(EVENTS)
    for event in EVENTS:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", event.name), event
        assert getattr(events, event.name.upper()) is event
        assert events.by_name(event.name.upper()) is event
        assert event.description.endswith("."), event


@pytest.mark.parametrize("event", EVENTS, ids=event_id)
def test_the_input_is_final_frozen_closed_and_not_privileged(
    event: events.HookEvent[Any, Any],
) -> None:
    cls = event.input_type
    assert getattr(cls, "__final__", False), f"{cls.__name__} is not @final"
    assert cls.model_config.get("frozen") is True
    assert cls.model_config.get("extra") == "forbid"
    assert not issubclass(cls, llm_worker.Privileged)
    # Importable by hook authors beside its event.
    assert getattr(events, cls.__name__) is cls
    assert cls.__name__ in events.__all__


@pytest.mark.parametrize("event", EVENTS, ids=event_id)
def test_every_input_field_is_documented_in_the_schema(event: events.HookEvent[Any, Any]) -> None:
    properties = event.input_schema()["properties"]
    assert list(properties) == list(event.input_type.model_fields)
    undocumented = [name for name, spec in properties.items() if not spec.get("description")]
    assert undocumented == [], f"{event.input_type.__name__}: document {undocumented}"


@pytest.mark.parametrize("cls", DECISION_TYPES, ids=lambda cls: cls.__name__)
def test_every_decision_is_final_frozen_and_closed(cls: type[BaseModel]) -> None:
    assert getattr(cls, "__final__", False), f"{cls.__name__} is not @final"
    assert cls.model_config.get("frozen") is True
    assert cls.model_config.get("extra") == "forbid"
    assert getattr(pod, cls.__name__) is cls


@pytest.mark.parametrize("event", EVENTS, ids=event_id)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_inputs_round_trip_through_json_and_match_their_schema(
    event: events.HookEvent[Any, Any], data: st.DataObject
) -> None:
    info = data.draw(st.builds(event.input_type))
    dumped = info.model_dump(mode="json")
    jsonschema.validate(dumped, event.input_schema())
    assert event.input_type.model_validate_json(info.model_dump_json()) == info
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        event.input_type.model_validate({**dumped, "surprise": 1})


@pytest.mark.parametrize("event", EVENTS, ids=event_id)
def test_decisions_round_trip_through_the_events_output_schema(
    event: events.HookEvent[Any, Any],
) -> None:
    output = event.output_schema()
    if event.observe_only:
        assert event.neutral is None
        assert output == {"type": "null"}
        return
    assert type(event.neutral) in event.decision_types
    adapter = event.decision_adapter()
    for cls in event.decision_types:
        fields = {"reason": "why"} if "reason" in cls.model_fields else {}
        if "arguments" in cls.model_fields:  # Rewrite
            fields["arguments"] = '{"path": "a"}'
        if "text" in cls.model_fields:  # Feedback
            fields["text"] = "lint: too long"
        decision = cls(**fields)
        dumped = decision.model_dump(mode="json")
        jsonschema.validate(dumped, output)
        assert adapter.validate_python(dumped) == decision
    assert schemas(event.name) == {event.name: {"input": event.input_schema(), "output": output}}
    with pytest.raises(jsonschema.ValidationError):  # names no decision: the run refuses it too
        jsonschema.validate({}, output)


# -- the docs tables ----------------------------------------------------------------------


def rows(page: str, columns: int) -> list[list[str]]:
    """The rows of ``page``'s tables with ``columns`` cells whose first cell is an event."""
    found = []
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) == columns and re.fullmatch(r"`[A-Z_]+`", cells[0]):
            found.append(cells)
    return found


def decisions_cell(event: events.HookEvent[Any, Any]) -> str:
    if event.observe_only:
        return "`None` (observe only)"
    return "`" + r" \| ".join(t.__name__ for t in event.decision_types) + "`"


def test_the_architecture_table_is_the_catalogue() -> None:
    table = rows("architecture.md", 3)
    assert [cells[0] for cells in table] == [f"`{e.name.upper()}`" for e in EVENTS]
    for (_, input_cell, decisions), event in zip(table, EVENTS, strict=True):
        fields = ", ".join(event.input_type.model_fields)
        assert input_cell.startswith(f"`{event.input_type.__name__}({fields})`"), event
        assert decisions == decisions_cell(event), event


def test_the_pod_table_has_one_row_per_event() -> None:
    table = rows("pod.md", 3)
    assert [cells[0] for cells in table] == [f"`{e.name.upper()}`" for e in EVENTS]


def test_an_unknown_name_raises_the_documented_usage_error() -> None:
    names = ", ".join(event.name for event in EVENTS)
    with pytest.raises(pod.UnknownEventError, match=rf"^no hook event 'nope'; events: {names}$"):
        events.by_name("nope")
    assert issubclass(pod.UnknownEventError, pod.PodUsageError)
    assert issubclass(llm_worker.ToolArgumentsError, llm_worker.LlmWorkerError)
