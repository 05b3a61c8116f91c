"""The typing suite's cases share mypy builds (see ``_mypy_batch``)."""

from _mypy_batch import (
    pytest_collection_modifyitems,
    pytest_sessionfinish,
    pytest_terminal_summary,
)

__all__ = ["pytest_collection_modifyitems", "pytest_sessionfinish", "pytest_terminal_summary"]
