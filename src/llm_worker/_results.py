"""How a run ends: ``Finished``, ``Paused``, ``Aborted``, ``LimitReached`` (and ``Yielded``).

``Yielded`` is internal machinery: an interceptor handed control to the Worker's owner
(e.g. for compaction), which does the work and resumes. Users see the other four.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, final

from pydantic import BaseModel

from ._decisions import Approve

__all__ = [
    "Aborted",
    "Finished",
    "LimitReached",
    "PausePoint",
    "Paused",
    "PendingCall",
    "WorkerResult",
    "Yielded",
]

PausePoint: TypeAlias = Literal[
    "pre_compact",
    "pre_llm_request",
    "post_llm_response",
    "pre_tool_call",
    "post_tool_call",
    "turn_end",
]
"""The decision point at which a run paused (``pre_compact``: the Pod, before compacting)."""


@final
class PendingCall(BaseModel, frozen=True, extra="forbid"):
    """A tool call still waiting for a decision when the run paused, as an approver sees it."""

    call_id: str
    tool_name: str
    arguments: str
    """The arguments as they stand now: after any interceptor's or hook's rewrite."""
    digest: str = ""
    """``jcs-sha256:`` digest of (run id, turn, call id, tool, canonical arguments): an
    ``Approve`` on ``resume`` must name it, so an approval is for exactly what was shown
    (``""`` in a result saved before digests existed)."""

    def approve(self) -> Approve:
        """The approval of this call as shown: ``Approve`` naming its digest."""
        return Approve(digest=self.digest)


@final
class Finished(BaseModel, frozen=True, extra="forbid"):
    """The model answered without asking for tools, and the turn ended."""

    kind: Literal["finished"] = "finished"
    text: str
    turn: int


@final
class Paused(BaseModel, frozen=True, extra="forbid"):
    """A hook or interceptor paused the run; ``Worker.resume`` continues it.

    ``pending_calls`` are the tool calls not decided yet (at ``pre_tool_call``, the first is
    the one that paused). ``resume`` may decide them: a decision given for a call takes the
    hooks' place for it, so a hook that always pauses cannot pause forever.
    """

    kind: Literal["paused"] = "paused"
    point: PausePoint
    reason: str
    pending_calls: tuple[PendingCall, ...] = ()
    turn: int


@final
class Aborted(BaseModel, frozen=True, extra="forbid"):
    """The run was aborted; open tool calls were closed with synthetic results."""

    kind: Literal["aborted"] = "aborted"
    reason: str
    turn: int
    error_type: str | None = None
    """The class name of the error that ended the run (``LlmClientError``,
    ``ContextTooLongError``, ``HookFailedError``, ...); ``None`` when a hook or an
    interceptor decided to abort."""


@final
class LimitReached(BaseModel, frozen=True, extra="forbid"):
    """The turn used its allowance of model requests."""

    kind: Literal["limit_reached"] = "limit_reached"
    limit: int
    turn: int


@final
class Yielded(BaseModel, frozen=True, extra="forbid"):
    """Internal: an interceptor yielded at ``pre_llm_request``; the owner acts, then resumes."""

    kind: Literal["yielded"] = "yielded"
    reason: str
    turn: int


WorkerResult: TypeAlias = Finished | Paused | Aborted | LimitReached | Yielded
"""Any outcome of ``Worker.run`` or ``Worker.resume``."""
