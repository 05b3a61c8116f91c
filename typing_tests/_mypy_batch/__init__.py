"""Runs the pytest-mypy-plugins cases of ``typing_tests/`` many to one mypy build.

See ``docs/contributing.md`` ("The typing suite") for how batching works and when a case runs
alone.
"""

from ._pytest import (
    BatchedCase,
    pytest_collection_modifyitems,
    pytest_sessionfinish,
    pytest_terminal_summary,
)

__all__ = [
    "BatchedCase",
    "pytest_collection_modifyitems",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
]
