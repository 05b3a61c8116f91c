"""pod.durable: Pod runs as DBOS workflows (the ``llm-pod[dbos]`` extra).

Crash-proof runs (every model request, tool call, compaction summary and hook decision is a
checkpointed step), approvals that wait durably for days, a SQLite file under ``.pod/`` by
default and PostgreSQL to share a queue of runs among workers. See ``docs/durability.md``.

It imports ``pod.runtime``, ``pod.policy``, ``pod.command`` and ``pod.hooks``; nothing else in
``pod`` imports it (``pod.cli`` only inside the durable commands): the core runs without DBOS.
"""

from ._agent import DurableAgent as DurableAgent
from ._agent import RunDecision as RunDecision
from ._agent import RunOutcome as RunOutcome
from ._agent import new_run_id as new_run_id
from ._runs import DurableRuns as DurableRuns
from ._runs import RunInfo as RunInfo
from ._runs import RunStatus as RunStatus
from ._runs import ShownItem as ShownItem
from ._steps import StepMismatchError as StepMismatchError
from ._system import DEFAULT_DATABASE as DEFAULT_DATABASE
from ._system import DurableSettings as DurableSettings
from ._system import SyncMode as SyncMode
from ._system import database_url as database_url
from ._system import launch as launch
from ._system import shutdown as shutdown

__all__ = [
    "DEFAULT_DATABASE",
    "DurableAgent",
    "DurableRuns",
    "DurableSettings",
    "RunDecision",
    "RunInfo",
    "RunOutcome",
    "RunStatus",
    "ShownItem",
    "StepMismatchError",
    "SyncMode",
    "database_url",
    "launch",
    "new_run_id",
    "shutdown",
]
