"""pod_mypy: the mypy plugin that proves hook code cannot reach the run's context.

Enable it with ``plugins = ["pod_mypy"]`` in the mypy configuration. Error codes (public
API, documented in ``docs/plugin.md``): ``hook-boundary``, its sub-code ``hook-escape``,
``hook-input-mutable`` and ``hook-signature``.
"""

from .plugin import plugin as plugin

__all__ = ["__version__", "plugin"]

__version__ = "0.2.0"
"""mypy invalidates its cache when this (or this file) changes."""
