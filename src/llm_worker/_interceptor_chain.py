"""The interceptor chain: at each decision point the interceptors' methods for that point run
in order, and the first action that is not ``Continue`` stops the chain.

Only the methods an interceptor overrides (on its class or its instance) are in a chain: the
base ones carry on, so a point no interceptor cares about costs one empty loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from ._decisions import CONTINUE, Continue
from .interceptor import Interceptor

__all__ = ["first_action", "overrides"]

ArgT = TypeVar("ArgT")
ActionT = TypeVar("ActionT")


def overrides(interceptor: Interceptor, name: str) -> bool:
    """Whether ``interceptor`` has its own ``name`` (the base method carries on, doing nothing)."""
    method: object = getattr(interceptor, name)
    return getattr(method, "__func__", None) is not getattr(Interceptor, name)


def first_action(chain: Sequence[Callable[[ArgT], ActionT]], argument: ArgT) -> ActionT | Continue:
    """Call the chain in order on ``argument``; return the first action that is not
    ``Continue`` (``CONTINUE`` when every method carries on, or the chain is empty)."""
    for method in chain:
        action = method(argument)
        if not isinstance(action, Continue):
            return action
    return CONTINUE
