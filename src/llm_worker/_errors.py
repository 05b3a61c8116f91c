"""Errors raised by the engine.

```
LlmWorkerError
 +-- UsageError                 the programmer's fault, raised at set-up
 |    +-- ToolDefinitionError   a function cannot become a tool
 |    +-- WorkerStateError      run()/resume() called in the wrong state
 +-- LlmClientError             a model provider failed (mapped from SDK errors at the adapter)
 |    +-- ContextTooLongError   the request exceeded the model's context window
 +-- HookFailedError           a hook raised, timed out or returned an illegal decision
 +-- SnapshotError             a saved run cannot be restored (corrupt, or another version)
 +-- ToolArgumentsError        a tool's arguments from the model do not fit its schema
```

Tool failures do not escape the Worker: a tool that raises, an unknown tool and invalid
arguments (``ToolArgumentsError``, raised by a ``@tool``'s ``call``) all become an error
``ToolResult`` the model sees.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ApprovalMismatchError",
    "ContextTooLongError",
    "HookFailedError",
    "LlmClientError",
    "LlmWorkerError",
    "SnapshotError",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "UsageError",
    "WorkerStateError",
]


class LlmWorkerError(Exception):
    """Root of every error the engine raises."""


class UsageError(LlmWorkerError):
    """The calling code is wrong; raised at set-up or on a misplaced call."""


class ToolDefinitionError(UsageError):
    """A function cannot be turned into a tool; lists every problem found at once."""

    def __init__(self, function: str, problems: Sequence[str]) -> None:
        self.function = function
        self.problems = tuple(problems)
        super().__init__(f"cannot make a tool of {function}: " + "; ".join(self.problems))


class WorkerStateError(UsageError):
    """``run`` or ``resume`` was called when the Worker is not in a state that allows it."""


class ApprovalMismatchError(WorkerStateError):
    """An ``Approve`` names a digest that is not the pending call's: the call changed after
    the approver saw it (rewritten, restored from another run), or the approval is for a
    different call. Nothing was changed; the run is still paused."""

    def __init__(self, *, call_id: str, shown: str, current: str) -> None:
        self.call_id = call_id
        self.shown = shown
        self.current = current
        super().__init__(
            f"approval of tool call {call_id} refused: it names digest {shown}, "
            f"but the pending call's digest is {current} (what was shown is not what would run)"
        )


class LlmClientError(LlmWorkerError):
    """A model provider request failed. ``retryable`` tells whether trying again may help."""

    def __init__(self, message: str, *, provider: str = "", retryable: bool = False) -> None:
        self.provider = provider
        self.retryable = retryable
        super().__init__(f"{provider}: {message}" if provider else message)


class ContextTooLongError(LlmClientError):
    """The request did not fit in the model's context window."""


class HookFailedError(LlmWorkerError):
    """A hook raised, timed out or returned a decision its event does not allow.

    Raised by the hook port (the registry); the Worker turns it into an ``Aborted`` result
    whose reason is this error's message, so a failing hook never passes silently.
    """

    def __init__(self, *, event: str, hook: str, problem: str) -> None:
        self.event = event
        self.hook = hook
        self.problem = problem
        super().__init__(f"hook {hook} on {event} failed: {problem}")


class SnapshotError(LlmWorkerError):
    """A saved run cannot be restored: the data is not a snapshot, is corrupt, or comes from
    an incompatible version. Nothing was changed."""


class ToolArgumentsError(LlmWorkerError):
    """The model's arguments do not fit the tool's schema (raised by a ``@tool``'s ``call``;
    the model's fault). The Worker turns it into an error result, so the model is told why."""
