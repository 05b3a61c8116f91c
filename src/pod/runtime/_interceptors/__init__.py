"""The Pod's internal mechanisms, each an ``Interceptor`` with the live context in hand.

The Pod installs them in this order (see ``docs/pod.md``): notification, compaction,
truncation. They are privileged and internal: users do not construct them; they configure
them through ``PodSettings``.
"""

from .compaction import CompactionInterceptor as CompactionInterceptor
from .compaction import CompactionPlan as CompactionPlan
from .compaction import plan_compaction as plan_compaction
from .notification import NOTIFICATION_PREFIX as NOTIFICATION_PREFIX
from .notification import NotificationInterceptor as NotificationInterceptor
from .notification import NotificationQueue as NotificationQueue
from .truncation import TruncationInterceptor as TruncationInterceptor
from .truncation import truncate_output as truncate_output

__all__ = [
    "NOTIFICATION_PREFIX",
    "CompactionInterceptor",
    "CompactionPlan",
    "NotificationInterceptor",
    "NotificationQueue",
    "TruncationInterceptor",
    "plan_compaction",
    "truncate_output",
]
