"""llm_worker: the engine. Items, tools, LLM clients, the Worker loop, the Interceptor API.

The privileged API (interceptors and the mutable context) also lives in the
``llm_worker.interceptor`` namespace. Hook authors do not import this package: they use
``pod``, which re-exports the read-only summaries and decisions built here.
"""

from . import _summaries
from ._client import LlmClient as LlmClient
from ._client import LlmRequest as LlmRequest
from ._client import LlmResponse as LlmResponse
from ._client import Script as Script
from ._client import ScriptedCall as ScriptedCall
from ._client import ScriptedClient as ScriptedClient
from ._client import ScriptedReply as ScriptedReply
from ._client import StopReason as StopReason
from ._client import Usage as Usage
from ._decisions import Abort as Abort
from ._decisions import Annotate as Annotate
from ._decisions import Approve as Approve
from ._decisions import Continue as Continue
from ._decisions import Feedback as Feedback
from ._decisions import Pause as Pause
from ._decisions import PostToolDecision as PostToolDecision
from ._decisions import PreRequestDecision as PreRequestDecision
from ._decisions import PreToolDecision as PreToolDecision
from ._decisions import PromptSubmitDecision as PromptSubmitDecision
from ._decisions import Rewrite as Rewrite
from ._decisions import Skip as Skip
from ._decisions import TurnEndDecision as TurnEndDecision
from ._digest import call_digest as call_digest
from ._errors import ApprovalMismatchError as ApprovalMismatchError
from ._errors import ContextTooLongError as ContextTooLongError
from ._errors import HookFailedError as HookFailedError
from ._errors import LlmClientError as LlmClientError
from ._errors import LlmWorkerError as LlmWorkerError
from ._errors import SnapshotError as SnapshotError
from ._errors import ToolArgumentsError as ToolArgumentsError
from ._errors import ToolDefinitionError as ToolDefinitionError
from ._errors import UsageError as UsageError
from ._errors import WorkerStateError as WorkerStateError
from ._hook_port import NO_HOOKS as NO_HOOKS
from ._hook_port import HookPoint as HookPoint
from ._hook_port import HookPort as HookPort
from ._hook_port import SelectiveHookPort as SelectiveHookPort
from ._items import ITEMS_ADAPTER as ITEMS_ADAPTER
from ._items import Item as Item
from ._items import Message as Message
from ._items import Reasoning as Reasoning
from ._items import Role as Role
from ._items import Summary as Summary
from ._items import ToolCall as ToolCall
from ._items import ToolResult as ToolResult
from ._privilege import Privileged as Privileged
from ._results import Aborted as Aborted
from ._results import Finished as Finished
from ._results import LimitReached as LimitReached
from ._results import Paused as Paused
from ._results import PausePoint as PausePoint
from ._results import PendingCall as PendingCall
from ._results import WorkerResult as WorkerResult
from ._results import Yielded as Yielded
from ._run_state import WorkerStatus as WorkerStatus
from ._snapshot import MAX_SNAPSHOT_BYTES as MAX_SNAPSHOT_BYTES
from ._snapshot import SNAPSHOT_VERSION as SNAPSHOT_VERSION
from ._snapshot import WorkerSnapshot as WorkerSnapshot
from ._snapshot import check_known_version as check_known_version
from ._snapshot import check_snapshot_header as check_snapshot_header
from ._snapshot import parse_snapshot_json as parse_snapshot_json

# Every event's Input, point and decision alias: a new event is exported with no edit here.
from ._summaries import *  # noqa: F403
from ._text import REASON_BYTES as REASON_BYTES
from ._text import bounded as bounded
from ._text import utf8_len as utf8_len
from ._text import utf8_prefix as utf8_prefix
from ._text import visible as visible
from ._tool_calls import CallResolution as CallResolution
from ._tool_runner import current_tool_call_id as current_tool_call_id
from ._tools import FunctionTool as FunctionTool
from ._tools import PrivilegedTool as PrivilegedTool
from ._tools import Tool as Tool
from ._tools import ToolDefinition as ToolDefinition
from ._tools import tool as tool
from ._worker import Worker as Worker
from .interceptor import Interceptor as Interceptor
from .interceptor import ToolCallInfo as ToolCallInfo
from .interceptor import ToolResultInfo as ToolResultInfo

__all__ = [
    "ITEMS_ADAPTER",
    "MAX_SNAPSHOT_BYTES",
    "NO_HOOKS",
    "REASON_BYTES",
    "SNAPSHOT_VERSION",
    "Abort",
    "Aborted",
    "Annotate",
    "ApprovalMismatchError",
    "Approve",
    "CallResolution",
    "ContextTooLongError",
    "Continue",
    "Feedback",
    "Finished",
    "FunctionTool",
    "HookFailedError",
    "HookPoint",
    "HookPort",
    "Interceptor",
    "Item",
    "LimitReached",
    "LlmClient",
    "LlmClientError",
    "LlmRequest",
    "LlmResponse",
    "LlmWorkerError",
    "Message",
    "Pause",
    "PausePoint",
    "Paused",
    "PendingCall",
    "PostToolDecision",
    "PreRequestDecision",
    "PreToolDecision",
    "Privileged",
    "PrivilegedTool",
    "PromptSubmitDecision",
    "Reasoning",
    "Rewrite",
    "Role",
    "Script",
    "ScriptedCall",
    "ScriptedClient",
    "ScriptedReply",
    "SelectiveHookPort",
    "Skip",
    "SnapshotError",
    "StopReason",
    "Summary",
    "Tool",
    "ToolArgumentsError",
    "ToolCall",
    "ToolCallInfo",
    "ToolDefinition",
    "ToolDefinitionError",
    "ToolResult",
    "ToolResultInfo",
    "TurnEndDecision",
    "Usage",
    "UsageError",
    "Worker",
    "WorkerResult",
    "WorkerSnapshot",
    "WorkerStateError",
    "WorkerStatus",
    "Yielded",
    "bounded",
    "call_digest",
    "check_known_version",
    "check_snapshot_header",
    "current_tool_call_id",
    "parse_snapshot_json",
    "tool",
    "utf8_len",
    "utf8_prefix",
    "visible",
]
__all__ += _summaries.__all__
