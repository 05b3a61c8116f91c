"""The conformance report in ``docs/agent-hooks.md`` is the one the kit produces now."""

from __future__ import annotations

from .report import report, section_in_docs


def test_the_report_in_the_docs_is_what_running_the_kit_prints() -> None:
    assert section_in_docs() == report(), (
        "docs/agent-hooks.md is stale: run `python -m tests.conformance.report --write`"
    )
