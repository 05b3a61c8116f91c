"""pod: the public layer. The Hook API (events, decisions, ``HookRegistry``) and the Pod.

Hook authors import only from here. A hook receives a frozen, read-only summary and returns
a decision legal for its event; nothing it receives leads back to the run's context.
"""

from llm_worker import Abort as Abort
from llm_worker import Aborted as Aborted
from llm_worker import AbortInfo as AbortInfo
from llm_worker import Annotate as Annotate
from llm_worker import ApprovalMismatchError as ApprovalMismatchError
from llm_worker import Approve as Approve
from llm_worker import CallResolution as CallResolution
from llm_worker import Continue as Continue
from llm_worker import Feedback as Feedback
from llm_worker import Finished as Finished
from llm_worker import HookFailedError as HookFailedError
from llm_worker import LimitReached as LimitReached
from llm_worker import Pause as Pause
from llm_worker import Paused as Paused
from llm_worker import PausePoint as PausePoint
from llm_worker import PendingCall as PendingCall
from llm_worker import PostToolDecision as PostToolDecision
from llm_worker import PreRequestDecision as PreRequestDecision
from llm_worker import PreRequestInfo as PreRequestInfo
from llm_worker import PreToolDecision as PreToolDecision
from llm_worker import PromptSubmitDecision as PromptSubmitDecision
from llm_worker import PromptSubmitInfo as PromptSubmitInfo
from llm_worker import Rewrite as Rewrite
from llm_worker import Skip as Skip
from llm_worker import SnapshotError as SnapshotError
from llm_worker import ToolCallSummary as ToolCallSummary
from llm_worker import ToolResultSummary as ToolResultSummary
from llm_worker import TurnEndDecision as TurnEndDecision
from llm_worker import TurnEndInfo as TurnEndInfo
from llm_worker import WorkerStateError as WorkerStateError

from . import events as events
from .command._configured import ConfiguredCommandHook as ConfiguredCommandHook
from .command._hook import CommandHook as CommandHook
from .command._hook import CommandMode as CommandMode
from .hooks._base import AsyncHookFunction as AsyncHookFunction
from .hooks._base import Hook as Hook
from .hooks._base import HookFunction as HookFunction
from .hooks._base import hook as hook
from .hooks._errors import CommandHookError as CommandHookError
from .hooks._errors import PermissionRulesError as PermissionRulesError
from .hooks._errors import PodError as PodError
from .hooks._errors import PodUsageError as PodUsageError
from .hooks._errors import RegistryFrozenError as RegistryFrozenError
from .hooks._events import HookEvent as HookEvent
from .hooks._events import UnknownEventError as UnknownEventError
from .hooks._registry import FailurePolicy as FailurePolicy
from .hooks._registry import FrozenHookRegistry as FrozenHookRegistry
from .hooks._registry import HookRegistry as HookRegistry
from .policy._loader import load_command_hooks as load_command_hooks
from .policy._permissions import PermissionAction as PermissionAction
from .policy._permissions import PermissionHook as PermissionHook
from .policy._permissions import PermissionRule as PermissionRule
from .runtime._interceptors import NOTIFICATION_PREFIX as NOTIFICATION_PREFIX
from .runtime._pod import Pod as Pod
from .runtime._pod import PodResult as PodResult
from .runtime._settings import PodSettings as PodSettings
from .runtime._snapshot import PodSnapshot as PodSnapshot
from .runtime._summariser import LlmSummariser as LlmSummariser
from .runtime._summariser import Summariser as Summariser
from .runtime._summariser import SummaryText as SummaryText
from .runtime._trace import TraceEvent as TraceEvent
from .runtime._trace import Tracer as Tracer
from .runtime._trace import TraceSource as TraceSource

__all__ = [
    "NOTIFICATION_PREFIX",
    "Abort",
    "AbortInfo",
    "Aborted",
    "Annotate",
    "ApprovalMismatchError",
    "Approve",
    "AsyncHookFunction",
    "CallResolution",
    "CommandHook",
    "CommandHookError",
    "CommandMode",
    "ConfiguredCommandHook",
    "Continue",
    "FailurePolicy",
    "Feedback",
    "Finished",
    "FrozenHookRegistry",
    "Hook",
    "HookEvent",
    "HookFailedError",
    "HookFunction",
    "HookRegistry",
    "LimitReached",
    "LlmSummariser",
    "Pause",
    "PausePoint",
    "Paused",
    "PendingCall",
    "PermissionAction",
    "PermissionHook",
    "PermissionRule",
    "PermissionRulesError",
    "Pod",
    "PodError",
    "PodResult",
    "PodSettings",
    "PodSnapshot",
    "PodUsageError",
    "PostToolDecision",
    "PreRequestDecision",
    "PreRequestInfo",
    "PreToolDecision",
    "PromptSubmitDecision",
    "PromptSubmitInfo",
    "RegistryFrozenError",
    "Rewrite",
    "Skip",
    "SnapshotError",
    "Summariser",
    "SummaryText",
    "ToolCallSummary",
    "ToolResultSummary",
    "TraceEvent",
    "TraceSource",
    "Tracer",
    "TurnEndDecision",
    "TurnEndInfo",
    "UnknownEventError",
    "WorkerStateError",
    "events",
    "hook",
    "load_command_hooks",
]
