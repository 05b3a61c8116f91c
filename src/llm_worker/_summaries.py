"""Read-only summaries: the Input a hook receives at each decision point.

The engine builds a summary from the state *after* the interceptors have run, and hands the
hook only the summary. Every summary is a frozen pydantic model made of strings, numbers and
booleans: it holds no reference back into the run (no item, list, dict or tool), so a hook
that keeps one sees later exactly what it saw then, and nothing it does to it can reach the
history. Building one costs O(1) in history length: counters are kept as the run goes.

Each Input is followed by its :class:`~llm_worker.HookPoint`, the typed key the Worker asks
the hook port with (``port.ask(PRE_TOOL_CALL_POINT, info)``); ``pod.events`` wraps each
point in its catalogue entry. An event's Input, point and (for a new event) decision alias
live here together, and this module's ``__all__`` is re-exported by ``llm_worker``.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeAlias, final

from pydantic import BaseModel, JsonValue

from ._arguments import parse_arguments
from ._client import StopReason
from ._decisions import (
    CONTINUE,
    Abort,
    Continue,
    Pause,
    PostToolDecision,
    PreRequestDecision,
    PreToolDecision,
    PromptSubmitDecision,
    TurnEndDecision,
)
from ._hook_port import HookPoint, legal

__all__ = [
    "ABORT_POINT",
    "HOOK_POINTS",
    "OUTPUT_BYTES",
    "OUTPUT_POINT",
    "POST_LLM_RESPONSE_POINT",
    "POST_TOOL_CALL_POINT",
    "PREVIEW_BYTES",
    "PRE_COMPACT_POINT",
    "PRE_LLM_REQUEST_POINT",
    "PRE_TOOL_CALL_POINT",
    "PROMPT_SUBMIT_POINT",
    "RECENT_ITEMS",
    "RUN_END_POINT",
    "RUN_START_POINT",
    "TURN_END_POINT",
    "AbortInfo",
    "OutputDecision",
    "OutputInfo",
    "PostLlmResponseInfo",
    "PostResponseDecision",
    "PreCompactDecision",
    "PreCompactInfo",
    "PreRequestInfo",
    "PromptSubmitInfo",
    "RunEndInfo",
    "RunOutcome",
    "RunStartDecision",
    "RunStartInfo",
    "ToolCallSummary",
    "ToolResultSummary",
    "TurnEndInfo",
]

PREVIEW_BYTES: Final = 512
"""Maximum UTF-8 length of every ``*_preview`` field; cuts fall on character boundaries."""

RECENT_ITEMS: Final = 16
"""How many of the last history items ``PreRequestInfo.recent_items`` shows."""

OUTPUT_BYTES: Final = 65_536
"""Maximum UTF-8 length of ``OutputInfo.text`` (64 KiB); the cut falls on a character boundary."""


@final
class RunStartInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """A run is starting (``run(prompt)``), before its prompt is submitted."""

    turn: int
    """0-based index of the turn this run is (one turn per ``run``)."""
    tool_names: tuple[str, ...]
    """The names of the tools the model may call in this run, in registration order."""


RunStartDecision: TypeAlias = Continue | Abort
"""Legal at ``RUN_START``."""
RUN_START_POINT: Final = HookPoint[RunStartInfo, RunStartDecision](
    "run_start", RunStartInfo, legal(RunStartDecision), CONTINUE
)


@final
class PromptSubmitInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """A user prompt about to enter the history."""

    input_text: str
    """The prompt as it will be appended (after interceptors)."""
    turn: int
    """0-based index of the turn this prompt starts (one turn per ``run``)."""


PROMPT_SUBMIT_POINT: Final = HookPoint[PromptSubmitInfo, PromptSubmitDecision](
    "prompt_submit", PromptSubmitInfo, legal(PromptSubmitDecision), CONTINUE
)


@final
class PreRequestInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The context about to be sent to the model."""

    turn: int
    """0-based index of the current turn."""
    request_index: int
    """0-based index of this model request within the turn."""
    item_count: int
    """Number of items in the history that will be sent."""
    estimated_tokens: int
    """Estimated input tokens of the request: calibrated on the provider's last reported
    input tokens when known, otherwise a local estimate (about 4 characters a token)."""
    tool_calls_this_turn: int
    """Tool calls the model has made so far in this turn."""
    recent_items: tuple[tuple[str, str], ...] = ()
    """The last items of the history that will be sent, oldest first: at most
    ``RECENT_ITEMS`` (16) of them, each ``(kind, text)``. ``kind`` is a message's role
    (``system``, ``user``, ``assistant``) or ``tool_call``, ``tool_result``, ``reasoning``,
    ``summary``; ``text`` is cut to ``PREVIEW_BYTES`` UTF-8 bytes (a tool call's is its name,
    a space and its arguments). A bounded view: older items are counted in ``item_count``
    only."""


PRE_LLM_REQUEST_POINT: Final = HookPoint[PreRequestInfo, PreRequestDecision](
    "pre_llm_request", PreRequestInfo, legal(PreRequestDecision), CONTINUE
)


@final
class PostLlmResponseInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The model replied; the reply is in the history, and nothing in it has acted yet."""

    turn: int
    """0-based index of the current turn."""
    request_index: int
    """0-based index, within the turn, of the request this reply answers."""
    text_preview: str
    """The start of the reply's text, at most ``PREVIEW_BYTES`` UTF-8 bytes (``""`` if none)."""
    tool_call_count: int
    """Number of tool calls in the reply (0: the turn is about to end)."""
    tool_names: tuple[str, ...]
    """The tool each call asks for, in call order (a name repeats for repeated calls)."""
    tool_arguments: tuple[str, ...] = ()
    """Each call's arguments as JSON text, in call order, as the model wrote them (what
    ``ToolCallSummary.arguments`` will be unless an interceptor or a hook rewrites them)."""
    stop_reason: StopReason
    """Why the model stopped, normalised across providers (``max_tokens``: cut short)."""
    input_tokens: int | None
    """Input tokens the provider reported for the request; ``None`` if it reported none."""
    output_tokens: int | None
    """Output tokens the provider reported for the reply; ``None`` if it reported none."""


PostResponseDecision: TypeAlias = Continue | Abort | Pause
"""Legal at ``POST_LLM_RESPONSE``."""
POST_LLM_RESPONSE_POINT: Final = HookPoint[PostLlmResponseInfo, PostResponseDecision](
    "post_llm_response", PostLlmResponseInfo, legal(PostResponseDecision), CONTINUE
)


@final
class ToolCallSummary(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """A tool call the model asked for, as it stands after the interceptors."""

    call_id: str
    """The provider's id of the call; its result carries the same id."""
    tool_name: str
    """The name of the tool the model asked for (it may be unknown to the Worker)."""
    arguments: str
    """The arguments as JSON text (a copy: parsing it gives a fresh object every time)."""
    turn: int
    """0-based index of the current turn."""

    def parsed_arguments(self) -> dict[str, JsonValue] | None:
        """Return a fresh parse of the arguments, or ``None`` if they are refused.

        Refused: not a JSON object, longer than ``MAX_ARGUMENTS_CHARS`` (1 Mi characters),
        or nested more than 200 levels below the object. Never raises, whatever the model
        wrote. The tool is given the same parse (blank text is ``{}``), and a refused call
        never runs. The result is the hook's own copy: changing it changes nothing in the run.
        """
        return parse_arguments(self.arguments)

    def argument(self, name: str) -> JsonValue:
        """Return one argument by name (a fresh copy), or ``None`` if it is absent."""
        parsed = self.parsed_arguments()
        return None if parsed is None else parsed.get(name)


PRE_TOOL_CALL_POINT: Final = HookPoint[ToolCallSummary, PreToolDecision](
    "pre_tool_call", ToolCallSummary, legal(PreToolDecision), CONTINUE
)


@final
class ToolResultSummary(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The result of a tool call, as it stands after the interceptors (e.g. truncated)."""

    call_id: str
    """The id of the call this result answers."""
    tool_name: str
    """The name of the tool that was called."""
    arguments: str
    """The arguments it was called with, as JSON text (after any ``Rewrite``; a copy)."""
    is_error: bool
    """True when the tool failed, timed out, got invalid arguments or does not exist: the
    output is then the error message the model will see."""
    output_preview: str
    """The start of the output, at most ``PREVIEW_BYTES`` UTF-8 bytes."""
    output_length: int
    """Length of the whole output in UTF-8 bytes."""
    turn: int
    """0-based index of the current turn."""

    def parsed_arguments(self) -> dict[str, JsonValue] | None:
        """A fresh parse of the arguments, or ``None`` if they are refused (as
        :meth:`ToolCallSummary.parsed_arguments`)."""
        return parse_arguments(self.arguments)


POST_TOOL_CALL_POINT: Final = HookPoint[ToolResultSummary, PostToolDecision](
    "post_tool_call", ToolResultSummary, legal(PostToolDecision), CONTINUE
)


@final
class TurnEndInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The model answered without asking for tools: the turn is about to end."""

    turn: int
    """0-based index of the turn that is ending."""
    tool_calls_in_turn: int
    """Tool calls the model made during this turn."""
    final_text_preview: str
    """The start of the final answer, at most ``PREVIEW_BYTES`` UTF-8 bytes."""
    continued: int = 0
    """Times in a row a hook's ``Feedback`` has kept this turn going (0: the model chose to
    stop on its own; Claude Code's ``stop_hook_active`` is ``continued > 0``)."""


TURN_END_POINT: Final = HookPoint[TurnEndInfo, TurnEndDecision](
    "turn_end", TurnEndInfo, legal(TurnEndDecision), CONTINUE
)


@final
class OutputInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The final answer is about to be returned (``Finished.text``); the turn's hooks let it
    end."""

    turn: int
    """0-based index of the turn that is ending."""
    text: str
    """The answer, at most ``OUTPUT_BYTES`` UTF-8 bytes of it (a copy: the whole answer
    when ``text_length`` is not larger)."""
    text_length: int
    """Length of the whole answer in UTF-8 bytes."""


OutputDecision: TypeAlias = Continue | Abort
"""Legal at ``OUTPUT``."""
OUTPUT_POINT: Final = HookPoint[OutputInfo, OutputDecision](
    "output", OutputInfo, legal(OutputDecision), CONTINUE
)


@final
class AbortInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The run is being aborted; observe only."""

    reason: str
    """Why the run ends: the deciding hook's or interceptor's reason, or the error."""
    turn: int
    """0-based index of the turn being aborted."""


ABORT_POINT: Final = HookPoint[AbortInfo, None]("abort", AbortInfo, (), None)

RunOutcome: TypeAlias = Literal["finished", "aborted", "limit_reached"]
"""How a run ended: the ``kind`` of its result."""


@final
class RunEndInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """The run ended; its result is about to be returned (observe only)."""

    turn: int
    """0-based index of the turn that ended."""
    outcome: RunOutcome
    """The ``kind`` of the result: ``finished``, ``aborted`` or ``limit_reached``."""
    reason: str
    """``Aborted.reason`` for an aborted run, ``""`` otherwise."""


RUN_END_POINT: Final = HookPoint[RunEndInfo, None]("run_end", RunEndInfo, (), None)


@final
class PreCompactInfo(BaseModel, frozen=True, extra="forbid", use_attribute_docstrings=True):
    """Compaction is about to replace older history items by one summary."""

    turn: int
    """0-based index of the current turn."""
    items_to_replace: int
    """History items the summary will replace (the pinned system messages and the most
    recent items are kept)."""
    estimated_tokens: int
    """Estimated input tokens of the next request before compaction (see
    ``PreRequestInfo.estimated_tokens``)."""
    threshold_tokens: int
    """The compaction threshold the estimate is over (``PodSettings``)."""


PreCompactDecision: TypeAlias = Continue | Pause
"""Legal at ``PRE_COMPACT``."""
PRE_COMPACT_POINT: Final = HookPoint[PreCompactInfo, PreCompactDecision](
    "pre_compact", PreCompactInfo, legal(PreCompactDecision), CONTINUE
)


HOOK_POINTS: Final[tuple[HookPoint[Any, Any], ...]] = (
    RUN_START_POINT,
    PROMPT_SUBMIT_POINT,
    PRE_COMPACT_POINT,
    PRE_LLM_REQUEST_POINT,
    POST_LLM_RESPONSE_POINT,
    PRE_TOOL_CALL_POINT,
    POST_TOOL_CALL_POINT,
    TURN_END_POINT,
    OUTPUT_POINT,
    ABORT_POINT,
    RUN_END_POINT,
)
"""Every decision point, in the order a run meets them (``pod.events.CATALOGUE`` wraps each).

The Worker asks all but ``PRE_COMPACT``, which its owner asks (compaction is the Pod's)."""
