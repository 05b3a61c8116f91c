"""docs/security.md states the failure policy of every event: its table follows the catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest

from pod import HookRegistry, PodUsageError, events

DOC = Path(__file__).parents[2] / "docs" / "security.md"


def table_rows() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0].isupper():
            rows[cells[0].strip("`")] = cells
    return rows


def test_every_event_has_a_row_with_its_legal_decisions_and_policies() -> None:
    rows = table_rows()
    assert list(rows) == [event.name.upper() for event in events.CATALOGUE]
    for event in events.CATALOGUE:
        _, decisions, policies, _ = rows[event.name.upper()]
        tags = [str(t.model_fields["decision"].default) for t in event.decision_types]
        if tags:
            assert decisions == ", ".join(f"`{tag}`" for tag in tags), event
        else:
            assert decisions.startswith("none (observe only"), event
        legal = [
            policy
            for policy in ("abort", "deny", "ignore")
            if policy != "deny" or event is events.PRE_TOOL_CALL
        ]
        assert policies == ", ".join(f"`{policy}`" for policy in legal), event


@pytest.mark.parametrize("event", events.CATALOGUE, ids=lambda e: e.name)
def test_the_policies_the_doc_calls_legal_are_the_ones_the_registry_takes(
    event: events.HookEvent[object, object],
) -> None:
    _, _, policies, _ = table_rows()[event.name.upper()]
    for policy in ("abort", "deny", "ignore"):
        registry = HookRegistry()
        if f"`{policy}`" in policies:
            registry.on(event, lambda info: None, on_error=policy)
        else:
            with pytest.raises(PodUsageError):
                registry.on(event, lambda info: None, on_error=policy)
