"""pod: the public layer. The Hook API (events, decisions, ``HookRegistry``) and the Pod.

Hook authors import only from here. A hook receives a frozen, read-only summary and returns
a decision legal for its event; nothing it receives leads back to the run's context.
"""

from llm_worker import Abort as Abort
from llm_worker import AbortInfo as AbortInfo
from llm_worker import Continue as Continue
from llm_worker import HookFailedError as HookFailedError
from llm_worker import Pause as Pause
from llm_worker import PostToolDecision as PostToolDecision
from llm_worker import PreRequestDecision as PreRequestDecision
from llm_worker import PreRequestInfo as PreRequestInfo
from llm_worker import PreToolDecision as PreToolDecision
from llm_worker import PromptSubmitDecision as PromptSubmitDecision
from llm_worker import PromptSubmitInfo as PromptSubmitInfo
from llm_worker import Skip as Skip
from llm_worker import ToolCallSummary as ToolCallSummary
from llm_worker import ToolResultSummary as ToolResultSummary
from llm_worker import TurnEndDecision as TurnEndDecision
from llm_worker import TurnEndInfo as TurnEndInfo

from . import events as events
from ._errors import PodError as PodError
from ._errors import PodUsageError as PodUsageError
from ._errors import RegistryFrozenError as RegistryFrozenError
from ._errors import UnknownEventError as UnknownEventError
from ._hook_base import AsyncHookFunction as AsyncHookFunction
from ._hook_base import Hook as Hook
from ._hook_base import HookFunction as HookFunction
from ._hook_base import hook as hook
from ._registry import FailurePolicy as FailurePolicy
from ._registry import FrozenHookRegistry as FrozenHookRegistry
from ._registry import HookFn as HookFn
from ._registry import HookRegistry as HookRegistry
from .events import HookEvent as HookEvent

__all__ = [
    "Abort",
    "AbortInfo",
    "AsyncHookFunction",
    "Continue",
    "FailurePolicy",
    "FrozenHookRegistry",
    "Hook",
    "HookEvent",
    "HookFailedError",
    "HookFn",
    "HookFunction",
    "HookRegistry",
    "Pause",
    "PodError",
    "PodUsageError",
    "PostToolDecision",
    "PreRequestDecision",
    "PreRequestInfo",
    "PreToolDecision",
    "PromptSubmitDecision",
    "PromptSubmitInfo",
    "RegistryFrozenError",
    "Skip",
    "ToolCallSummary",
    "ToolResultSummary",
    "TurnEndDecision",
    "TurnEndInfo",
    "UnknownEventError",
    "events",
    "hook",
]
