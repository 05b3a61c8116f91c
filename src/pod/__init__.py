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
from ._command_hook import CommandHook as CommandHook
from ._command_hook import CommandMode as CommandMode
from ._errors import CommandHookError as CommandHookError
from ._errors import PodError as PodError
from ._errors import PodUsageError as PodUsageError
from ._errors import RegistryFrozenError as RegistryFrozenError
from ._errors import UnknownEventError as UnknownEventError
from ._hook_config import ConfiguredCommandHook as ConfiguredCommandHook
from ._hook_config import load_command_hooks as load_command_hooks
from ._registry import FailurePolicy as FailurePolicy
from ._registry import FrozenHookRegistry as FrozenHookRegistry
from ._registry import HookFn as HookFn
from ._registry import HookRegistry as HookRegistry
from .events import HookEvent as HookEvent

__all__ = [
    "Abort",
    "AbortInfo",
    "CommandHook",
    "CommandHookError",
    "CommandMode",
    "ConfiguredCommandHook",
    "Continue",
    "FailurePolicy",
    "FrozenHookRegistry",
    "HookEvent",
    "HookFailedError",
    "HookFn",
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
    "load_command_hooks",
]
