"""``AgentHooks``: AGENT-HOOKS-0.1 interceptors run as llm-pod hooks.

One ``agent_hooks.InterceptionEmitter`` (the SDK's implementation of the contract's
composition profiles, evaluate-only mode, fail-closed rules, approval seam and interception
records) is asked at each llm-pod event that has an AGENT-HOOKS interception point. Each
emission gets a fresh AGENT-HOOKS context built from the event's frozen summary (so every
interceptor's context is a copy holding no reference into the run), and the emission's
record becomes an llm-pod decision the engine validates and applies:

- ``allow`` (warnings included): ``Continue``;
- ``deny`` at ``pre_tool_call``: ``Skip`` (the model gets a tool error, the run goes on);
- ``deny`` anywhere else: ``Abort``;
- a transform of ``pre_tool_call``'s arguments: ``Rewrite``; a transform anywhere else is
  refused (``Abort`` naming the point): llm-pod's hooks never write to the context.

``agent_startup``, ``output`` and ``agent_shutdown`` are emitted at ``RUN_START``, ``OUTPUT``
and ``RUN_END``: once per run (``Pod.run``), since llm-pod has no session beyond a run.
``agent_shutdown`` observes only (``RUN_END`` takes no decision): its verdict is recorded.

The records are kept (``records``) and each one is also reported to ``on_record``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from itertools import zip_longest
from typing import Any, Final, cast, final

from agent_hooks import (
    AgentContext,
    AgentContextBuilder,
    InterceptionEmitter,
    InterceptionRecord,
)
from agent_hooks.declaration import HostRegistry

from llm_worker import (
    Abort,
    Continue,
    OutputDecision,
    OutputInfo,
    PostLlmResponseInfo,
    PostResponseDecision,
    PostToolDecision,
    PreRequestDecision,
    PreRequestInfo,
    PreToolDecision,
    PromptSubmitDecision,
    PromptSubmitInfo,
    Rewrite,
    RunEndInfo,
    RunOutcome,
    RunStartDecision,
    RunStartInfo,
    Skip,
    StopReason,
    ToolCallSummary,
    ToolResultSummary,
)

from ..hooks._registry import HookRegistry

__all__ = ["FRAMEWORK", "AgentHooks"]

FRAMEWORK: Final = "llm-pod"
"""``agent.framework`` in every context llm-pod builds."""

_SHUTDOWN_REASONS: Final[dict[RunOutcome, str]] = {
    "finished": "completed",
    "aborted": "error",
    "limit_reached": "error",
}
"""``summary.reason`` of ``agent_shutdown`` for each way a run ends."""

_ROLES: Final[dict[str, str]] = {
    "tool_call": "assistant",
    "tool_result": "tool",
    "reasoning": "assistant",
    "summary": "system",
}
"""A message's ``role`` for each kind of item that is not a message (messages keep theirs)."""

_FINISH_REASONS: Final[dict[StopReason, str]] = {
    "end_turn": "stop",
    "tool_calls": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
    "other": "other",
}
"""``response.finish_reason`` for each of llm-pod's normalised stop reasons."""


@final
class AgentHooks:
    """Runs an AGENT-HOOKS emitter's interceptors at llm-pod's events.

    Args:
        emitter: the configured emitter (interceptors, mode, composition profile, approval
            resolver, identity provider), or one built from a host declaration document.
        agent_id: ``agent.id`` in every context.
        session_id: ``session.id`` (a fresh UUID by default).
        model_id: ``model.id`` at the model points.
        on_record: told of every interception record, as it is made (e.g. the trace).

    Example:
        ```python
        emitter = InterceptionEmitter().register(MyPolicy())
        registry = HookRegistry()
        AgentHooks(emitter).register(registry)
        pod = Pod(client, tools=tools, hooks=registry)
        ```
    """

    __slots__ = ("_arguments", "_builder", "_emitter", "_model_id", "_on_record")

    def __init__(
        self,
        emitter: InterceptionEmitter,
        *,
        agent_id: str = "pod",
        session_id: str | None = None,
        model_id: str = "unknown",
        on_record: Callable[[InterceptionRecord], None] | None = None,
    ) -> None:
        self._emitter = emitter
        self._builder = AgentContextBuilder(
            agent_id=agent_id, framework=FRAMEWORK, session_id=session_id or str(uuid.uuid4())
        )
        self._model_id = model_id
        self._on_record = on_record
        # The arguments each call runs with (after any transform), for its post_tool_call.
        self._arguments: dict[str, dict[str, Any]] = {}

    @classmethod
    def from_declaration(
        cls,
        document: dict[str, Any],
        registry: HostRegistry,
        *,
        agent_id: str = "pod",
        session_id: str | None = None,
        model_id: str = "unknown",
        on_record: Callable[[InterceptionRecord], None] | None = None,
    ) -> AgentHooks:
        """An adapter whose emitter is built from a host declaration document (§7.7) by the
        SDK's loader, against ``registry`` (the interceptors, resolvers and providers the
        document's bindings name).

        Raises:
            agent_hooks.DeclarationError: the loader refused the document (its
                ``declaration_error:*`` code says why); nothing is built.
        """
        emitter = InterceptionEmitter.from_declaration_value(document, registry)
        return cls(
            emitter,
            agent_id=agent_id,
            session_id=session_id,
            model_id=model_id,
            on_record=on_record,
        )

    @property
    def records(self) -> tuple[InterceptionRecord, ...]:
        """Every interception record so far, in emission order."""
        return tuple(self._emitter.results)

    def register(self, registry: HookRegistry) -> None:
        """Register one hook per llm-pod event that has an AGENT-HOOKS point."""
        from ._hooks import register

        register(self, registry)

    async def agent_startup(self, start: RunStartInfo) -> RunStartDecision:
        """``agent_startup``: the tools the run may call; a deny refuses the run."""
        context = self._builder.agent_startup(tools_registered=list(start.tool_names))
        return self._stop_or_continue(await self._emit(context), context, "agent_init")

    async def input(self, prompt: PromptSubmitInfo) -> PromptSubmitDecision:
        """``input``: the user's prompt before it enters the history."""
        context = self._builder.input(content=prompt.input_text, role="user")
        return self._stop_or_continue(await self._emit(context), context, "input.content")

    async def pre_model_call(self, request: PreRequestInfo) -> PreRequestDecision:
        """``pre_model_call``: ``messages`` are the request's last items as llm-pod shows them
        to hooks (``PreRequestInfo.recent_items``: at most 16, each cut to 512 bytes)."""
        messages = [
            {"role": _ROLES.get(kind, kind), "content": text} for kind, text in request.recent_items
        ]
        context = self._builder.pre_model_call(model_id=self._model_id, messages=messages)
        return self._stop_or_continue(await self._emit(context), context, "messages")

    async def post_model_call(self, reply: PostLlmResponseInfo) -> PostResponseDecision:
        """``post_model_call``: the reply's text preview and its tool calls, each with its name
        and its arguments (parsed; as text when they are not a JSON object)."""
        context = self._builder.post_model_call(
            model_id=self._model_id,
            content=reply.text_preview or None,
            tool_calls=[
                {"name": name, "args": _arguments(text)}
                # A summary built without arguments (the field's default) gives each ``{}``.
                for name, text in zip_longest(reply.tool_names, reply.tool_arguments, fillvalue="")
            ],
            finish_reason=_FINISH_REASONS[reply.stop_reason],
        )
        return self._stop_or_continue(await self._emit(context), context, "response")

    async def pre_tool_call(self, call: ToolCallSummary) -> PreToolDecision:
        """``pre_tool_call``: deny skips the call, a transform of its arguments rewrites it."""
        arguments = call.parsed_arguments()
        if arguments is None:
            return Skip(reason="AGENT-HOOKS: the arguments are not a JSON object")
        context = self._builder.pre_tool_call(
            call_id=call.call_id, name=call.tool_name, args=arguments
        )
        record = await self._emit(context)
        if not record.proceeds:
            return Skip(reason=_reason(record))
        effective: object = context["tool_call"]["args"]
        if effective == arguments:
            self._arguments[call.call_id] = dict(arguments)
            return Continue()
        if not isinstance(effective, dict):
            return Abort(reason="AGENT-HOOKS: a transform made the tool arguments a non-object")
        self._arguments[call.call_id] = cast("dict[str, Any]", effective)
        text = json.dumps(effective, ensure_ascii=False, separators=(",", ":"))
        return Rewrite(arguments=text, reason=f"AGENT-HOOKS transform ({_reason(record)})")

    async def post_tool_call(self, result: ToolResultSummary) -> PostToolDecision:
        """``post_tool_call``: the result's preview (its JSON value when the preview is the
        whole output and parses); a deny withholds the result (``Skip``: the model gets the
        reason in its place, the run goes on)."""
        context = self._builder.post_tool_call(
            call_id=result.call_id,
            name=result.tool_name,
            args=self._arguments.pop(result.call_id, {}),
            value=_value(result),
            is_error=result.is_error,
        )
        record = await self._emit(context)
        if not record.proceeds:
            return Skip(reason=_reason(record))
        return self._stop_or_continue(record, context, "tool_result")

    async def output(self, output: OutputInfo) -> OutputDecision:
        """``output``: the answer before it is returned; a deny withholds it (``Abort``).

        An answer longer than ``OUTPUT_BYTES`` is shown cut, with ``truncated`` and its
        whole ``length`` in bytes beside ``content``."""
        extra: dict[str, Any] = {}
        if len(output.text.encode()) < output.text_length:
            extra = {"truncated": True, "length": output.text_length}
        context = self._builder.output(content=output.text, **extra)
        return self._stop_or_continue(await self._emit(context), context, "output.content")

    async def agent_shutdown(self, end: RunEndInfo) -> None:
        """``agent_shutdown``: how the run ended (observe only: the verdict is recorded)."""
        self._arguments.clear()
        await self._emit(self._builder.agent_shutdown(reason=_SHUTDOWN_REASONS[end.outcome]))

    async def _emit(self, context: AgentContext) -> InterceptionRecord:
        record = await self._emitter.emit_unchecked(context)
        if self._on_record is not None:
            self._on_record(record)
        return record

    def _stop_or_continue(
        self, record: InterceptionRecord, context: AgentContext, field: str
    ) -> Continue | Abort:
        if not record.proceeds:
            return Abort(reason=_reason(record))
        if record.verdict.transform is not None and record.mode.value == "enforce":
            return Abort(
                reason=f"AGENT-HOOKS: a transform of {field} at "
                f"{context['interception_point']} is not supported (hooks never write to "
                "llm-pod's context)"
            )
        return Continue()


def _arguments(text: str) -> object:
    """A reply's call arguments: the JSON object they hold (integers kept exact), or the
    text as the model wrote it (blank text is ``{}``, as the tool is given it)."""
    if not text.strip():
        return {}
    try:
        parsed: object = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if isinstance(parsed, dict):
        return cast("dict[str, Any]", parsed)
    return text


def _value(result: ToolResultSummary) -> object:
    """The tool's text, or the JSON object or array it holds (whole, not a cut preview): a
    tool's output is text, so ``"4"`` stays the string ``"4"``."""
    preview = result.output_preview
    if len(preview.encode()) < result.output_length or not preview.lstrip().startswith(("{", "[")):
        return preview
    try:
        value: object = json.loads(preview)
    except ValueError:
        return preview
    return value


def _reason(record: InterceptionRecord) -> str:
    verdict = record.verdict
    by = "" if record.decided_by is None else f" (interceptor {record.decided_by})"
    return (
        f"AGENT-HOOKS {record.interception_point.value}: {verdict.decision.value}"
        f"{by}: {verdict.reason or 'no reason'}"
    )
