"""Tables of the ``pod`` commands (``pod events``, ``pod runs``, the demo's history).

A table is printed whole or not at all: when every cell fits at its full width it is a table
(one line per cell line, nothing folded); when it does not fit, it becomes a list, one
record after another, its first column (an id, an event) on a line of its own that is never
wrapped, then one ``field  value`` line per other column. On a terminal the width is the
terminal's and long values wrap at word boundaries under their field; off a terminal (a pipe,
a file) the layout is the one an 80-column terminal gets, and no line is wrapped at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, final

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

__all__ = ["Records", "print_records"]

_UNBOUNDED: Final = 100_000
"""A width no table reaches: measuring at it gives a table's natural width."""
_PIPE_LAYOUT_WIDTH: Final = 80
"""Off a terminal, a table wider than this is printed as a list."""
_NARROWEST_VALUE: Final = 20


@final
@dataclass(frozen=True)
class Records:
    """Rows of named cells; a cell may hold several lines."""

    title: str
    columns: tuple[str, ...]
    """The first one names each record (an id, an event): it is never wrapped."""
    rows: Sequence[tuple[str, ...]]


def _natural_width(console: Console, renderable: RenderableType) -> int:
    options = console.options.update_width(_UNBOUNDED)
    return Measurement.get(console, options, renderable).maximum


def _as_table(records: Records) -> Table:
    table = Table(title=records.title, title_justify="left", show_lines=True)
    for index, column in enumerate(records.columns):
        table.add_column(column, no_wrap=True, style="bold" if index == 0 else None)
    for row in records.rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def _print_fields(console: Console, records: Records, row: tuple[str, ...]) -> None:
    """One ``  field  value`` line per column after the first; a value's further lines (its
    own, or its wrapping on a terminal) are indented under it."""
    label_width = max(len(column) for column in records.columns[1:])
    for column, cell in zip(records.columns[1:], row[1:], strict=True):
        head = Text(f"  {column:<{label_width}}  ", style="dim")
        indent = Text(" " * len(head))
        value = Text(cell)
        lines = (
            value.wrap(console, max(console.width - len(head), _NARROWEST_VALUE))
            if console.is_terminal
            else value.split("\n", allow_blank=True)
        )
        for index, line in enumerate(lines):
            shown = (head if index == 0 else indent) + line
            shown.rstrip()
            console.print(shown, no_wrap=True, overflow="ignore", crop=False, soft_wrap=True)


def print_records(console: Console, records: Records) -> None:
    """Print ``records`` as a table if it fits, else as a list (see the module docstring)."""
    table = _as_table(records)
    width = console.width if console.is_terminal else _PIPE_LAYOUT_WIDTH
    if _natural_width(console, table) <= width:
        console.print(table)
        return
    console.print(Text(records.title, style="italic"))
    for row in records.rows:
        console.print()
        # The record's name whole on its line: a terminal may fold it, rich never cuts it.
        console.print(Text(row[0], style="bold"), no_wrap=True, overflow="ignore", crop=False)
        _print_fields(console, records, row)
