"""Notifications: text pushed from any thread or task, flushed into the history.

Contract:
- :meth:`NotificationQueue.push` is thread-safe and never blocks on the run: it takes a
  lock for one ``deque.append``.
- The flush happens only in ``pre_llm_request``, just before a model request: the pending
  texts are taken from the queue under the lock and appended to the history (the live
  context, so the append is durable) as one ``Message(role="user")`` each, in push order,
  each starting with :data:`NOTIFICATION_PREFIX`. The interceptor then always continues.
- So a notification is in exactly one place, the queue or the history: a run that pauses,
  aborts or yields before the flush leaves it pending for the next request (of this run,
  after ``resume``, or of the next run); one flushed before a yield is not flushed again.

Why ``user`` and not ``system``: every provider accepts a user message at any point after
a tool result, while a system message in the middle of a conversation is rejected or hoisted
by some (Anthropic Messages has only a top-level system prompt). The prefix tells the model
the text is a notification, not something the person typed.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Final, final

from typing_extensions import override

from llm_worker import Abort, Continue, Item, Message
from llm_worker.interceptor import CONTINUE, Interceptor, Yield

from .._trace import TraceEvent, Tracer

__all__ = ["NOTIFICATION_PREFIX", "NotificationInterceptor", "NotificationQueue"]

NOTIFICATION_PREFIX: Final = "[notification] "
"""Starts the text of every notification message in the history."""


@final
class NotificationQueue:
    """Pending notifications, in push order; safe to push from any thread."""

    __slots__ = ("_lock", "_pending")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: deque[str] = deque()

    def push(self, text: str) -> None:
        """Queue ``text`` for the next model request."""
        with self._lock:
            self._pending.append(text)

    def take_all(self) -> list[str]:
        """Remove and return every pending text, oldest first."""
        if not self._pending:  # the usual case: no lock on the hot path (a racing push
            return []  # is seen at the next request, never lost)
        with self._lock:
            taken = list(self._pending)
            self._pending.clear()
        return taken

    def peek_all(self) -> tuple[str, ...]:
        """Return every pending text, oldest first, leaving them queued."""
        with self._lock:
            return tuple(self._pending)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)


@final
class NotificationInterceptor(Interceptor):
    """Flushes the queue into the history before every model request."""

    def __init__(self, queue: NotificationQueue, *, trace: Tracer | None = None) -> None:
        self._queue = queue
        self._trace = trace

    @override
    def pre_llm_request(self, context: list[Item]) -> Continue | Abort | Yield:
        texts = self._queue.take_all()
        if not texts:
            return CONTINUE
        context.extend(Message(role="user", text=NOTIFICATION_PREFIX + text) for text in texts)
        if self._trace is not None:
            self._trace(
                TraceEvent(
                    source="interceptor",
                    actor="notification",
                    message=f"flushed {len(texts)} notification(s) into the history",
                )
            )
        return CONTINUE
