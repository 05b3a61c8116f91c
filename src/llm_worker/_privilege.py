"""The declaration that puts a type on the privileged side of the hook boundary.

A class that inherits :class:`Privileged` is reachable only by interceptors and the engine.
The ``pod_mypy`` plugin reads this marker (it does not keep its own list of names), so a
new internal type joins the boundary by declaration: inherit ``Privileged`` and every hook
that could reach an instance of it fails type checking.
"""

from __future__ import annotations

__all__ = ["Privileged"]


class Privileged:
    """Marker base: instances are interceptor-only (mutable context, tools, engine state)."""

    __slots__ = ()
