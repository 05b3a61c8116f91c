"""Compaction: replacing older history items by one ``Summary`` when the context grows large.

Contract:
- At ``pre_llm_request`` the interceptor compares the context's token estimate (O(1): the
  ``History`` keeps it, calibrated on the provider's last reported input tokens) with the
  threshold. Over it, and only if there is something to compact, it returns ``Yield``: the
  Worker stops before the hooks, and the Pod calls :meth:`CompactionInterceptor.compact`,
  then resumes; the interceptors and then the hooks run again for that request, so hooks see
  the compacted counts and never the yield.
- What is compacted (:func:`plan_compaction`): the items between the leading system messages
  (kept, pinned) and the most recent ``keep_recent`` items (kept verbatim), with the cut moved
  earlier until no ``ToolCall`` is separated from its ``ToolResult``. A prefix made only of
  summaries is never compacted (that would summarise the same prefix again); a prefix that
  starts with an earlier summary is folded into the new one.
- The replacement is one slice assignment after the summary is written, so a summariser that
  fails or is cancelled leaves the history as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import final

from typing_extensions import override

from llm_worker import Abort, Continue, Item, Message, Summary, ToolCall, ToolResult
from llm_worker.interceptor import CONTINUE, History, Interceptor, Yield

from .._summariser import Summariser, SummaryText
from .._trace import TraceEvent, Tracer

__all__ = ["CompactionInterceptor", "CompactionOutcome", "CompactionPlan", "plan_compaction"]


@final
@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """Which items one compaction replaces: ``items[start:stop]``."""

    start: int
    """0-based index of the first item replaced (after the pinned system messages)."""
    stop: int
    """Exclusive end of the replaced items; the items from here on are kept."""
    replaced_items: int
    """Original items the new summary stands for (an earlier summary counts its own)."""


@final
@dataclass(frozen=True, slots=True)
class CompactionOutcome:
    """What one compaction did."""

    plan: CompactionPlan
    tokens_before: int
    tokens_after: int
    summary: SummaryText


def plan_compaction(items: Sequence[Item], keep_recent: int) -> CompactionPlan | None:
    """Return what to compact in ``items`` keeping the last ``keep_recent``, or ``None``.

    ``None`` when nothing new can be compacted: the history is too short, or everything
    before the kept items is already a summary. O(len(items)).
    """
    if keep_recent < 1:
        raise ValueError("keep_recent must be at least 1")
    count = len(items)
    start = 0
    while start < count and _is_system_message(items[start]):
        start += 1
    cut = count - keep_recent
    if cut <= start:
        return None
    first_result: dict[str, int] = {}
    for index, item in enumerate(items):
        if isinstance(item, ToolResult):
            first_result.setdefault(item.call_id, index)
    # earliest_open[b]: index of the earliest ToolCall before boundary b whose result comes
    # at or after b (cutting at b would separate them); None if no pair spans b.
    open_calls: dict[str, int] = {}  # insertion order = call order, so the first is earliest
    earliest_open: list[int | None] = []
    for index in range(cut + 1):
        earliest_open.append(next(iter(open_calls.values()), None))
        if index == cut:
            break
        item = items[index]
        if isinstance(item, ToolCall) and first_result.get(item.call_id, -1) > index:
            open_calls.setdefault(item.call_id, index)
        elif isinstance(item, ToolResult):
            open_calls.pop(item.call_id, None)
    while (earlier := earliest_open[cut]) is not None:
        cut = earlier
    if cut <= start:
        return None
    prefix = items[start:cut]
    if all(isinstance(item, Summary) for item in prefix):
        return None
    replaced = sum(
        (item.replaced_items or 1) if isinstance(item, Summary) else 1 for item in prefix
    )
    return CompactionPlan(start=start, stop=cut, replaced_items=replaced)


def _is_system_message(item: Item) -> bool:
    return isinstance(item, Message) and item.role == "system"


def estimate_tokens(context: list[Item]) -> int:
    """The token estimate of a request carrying ``context`` (O(1) for the Worker's history)."""
    history = context if isinstance(context, History) else History(context)
    return history.estimated_tokens()


@final
class CompactionInterceptor(Interceptor):
    """Yields before a request whose context is over the threshold; compacts when asked.

    Args:
        threshold_tokens: compact before a request estimated above this; ``None``: never.
        keep_recent: items kept verbatim at the end of the history (at least 1).
        trace: receives a trace event for each yield and compaction.
    """

    def __init__(
        self, *, threshold_tokens: int | None, keep_recent: int, trace: Tracer | None = None
    ) -> None:
        if keep_recent < 1:
            raise ValueError("keep_recent must be at least 1")
        self._threshold = threshold_tokens
        self._keep_recent = keep_recent
        self._trace = trace
        self._skip_next = False

    @override
    def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
        if self._skip_next:
            self._skip_next = False
            return CONTINUE
        if self._threshold is None:
            return CONTINUE
        tokens = estimate_tokens(context)
        if tokens <= self._threshold:
            return CONTINUE
        if plan_compaction(context, self._keep_recent) is None:
            self._report(
                f"~{tokens} tokens is over the threshold of {self._threshold}, "
                "but nothing is left to compact"
            )
            return CONTINUE
        reason = f"~{tokens} tokens is over the threshold of {self._threshold}"
        self._report(f"{reason}: yield to the Pod for compaction")
        return Yield(reason=f"compaction: {reason}")

    def skip_next_request(self) -> None:
        """Let the next ``pre_llm_request`` continue without a check (after a failed compaction)."""
        self._skip_next = True

    async def compact(
        self, context: list[Item], summariser: Summariser
    ) -> CompactionOutcome | None:
        """Replace the older part of ``context`` by one summary; ``None`` if nothing to do.

        Raises:
            Exception: whatever ``summariser`` raised; ``ValueError`` if it returned no
                summary text. The history is unchanged in both cases.
        """
        plan = plan_compaction(context, self._keep_recent)
        if plan is None:
            return None
        tokens_before = estimate_tokens(context)
        replaced = tuple(context[plan.start : plan.stop])
        reply = await summariser.summarise(replaced)
        if not reply.text.strip():
            raise ValueError("the summariser returned an empty summary")
        context[plan.start : plan.stop] = [
            Summary(text=reply.text, replaced_items=plan.replaced_items)
        ]
        outcome = CompactionOutcome(
            plan=plan,
            tokens_before=tokens_before,
            tokens_after=estimate_tokens(context),
            summary=reply,
        )
        self._report(
            f"replaced {plan.stop - plan.start} items by one summary "
            f"(~{outcome.tokens_before} -> ~{outcome.tokens_after} tokens)"
        )
        return outcome

    def _report(self, message: str) -> None:
        if self._trace is not None:
            self._trace(TraceEvent(source="interceptor", actor="compaction", message=message))
