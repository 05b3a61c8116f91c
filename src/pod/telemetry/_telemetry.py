"""``Telemetry``: a Pod's runs, model requests, tool calls and hook dispatches as OpenTelemetry
spans, named and attributed per the GenAI semantic conventions.

- ``invoke_agent {agent}`` for each ``Pod.run`` and ``Pod.resume``; a pause is an event
  ``pod.paused`` on it, a resume's decisions an event ``pod.resumed``;
- ``chat {model}`` for each model request: usage, finish reason, the reply's tool call ids;
- ``execute_tool {tool}`` for each tool that runs, with its call id;
- ``hooks {event}`` for each dispatch to the hooks of an event: the decision, its reason,
  the deciding hook; its duration is the dispatch's. They are called hooks, not guardrails.

Message content (the messages of each request and reply, the system prompt, tool arguments
and results) is recorded only when asked: ``capture_content`` or the standard
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``. Nothing here
installs a provider: spans go to ``tracer_provider``, else to the global one the application
set (a no-op one if it set none). ``opentelemetry-api`` (``llm-pod[otel]``) is imported when
a ``Telemetry`` is built, and a Pod without one never imports it.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Awaitable, Callable, Coroutine, Generator, Iterable, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar, final

from pydantic import BaseModel, JsonValue

from llm_worker import (
    Aborted,
    CallResolution,
    HookPoint,
    Item,
    LlmClient,
    LlmRequest,
    LlmResponse,
    Message,
    Paused,
    Privileged,
    Reasoning,
    Summary,
    Tool,
    ToolCall,
    ToolResult,
    current_tool_call_id,
)

if TYPE_CHECKING:
    from opentelemetry.trace import Span, Tracer, TracerProvider

__all__ = ["CAPTURE_CONTENT_VARIABLE", "DecidingHooks", "Telemetry"]

CAPTURE_CONTENT_VARIABLE: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The standard variable that opts in to recording message content (``true``)."""

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")
ResultT = TypeVar("ResultT", bound=BaseModel)


class DecidingHooks(Protocol):
    """Hooks that say which hook decided (``pod``'s frozen registry, and ports wrapping it)."""

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool: ...

    def ask(
        self,
        point: HookPoint[InputT, DecisionT],
        info: InputT,
        /,
        *,
        on_decided: Callable[[str], None] | None = None,
    ) -> Coroutine[Any, Any, DecisionT]: ...


@final
class Telemetry(Privileged):
    """Where a Pod sends its spans: ``Pod(client, ..., telemetry=Telemetry())``.

    Args:
        agent_name: ``gen_ai.agent.name`` and the ``invoke_agent`` span's name.
        tracer_provider: the provider to use; ``None``: the global one.
        capture_content: record messages, the system prompt, tool arguments and results
            (``gen_ai.input.messages``, ``gen_ai.output.messages``,
            ``gen_ai.system_instructions``, ``gen_ai.tool.call.*``); ``None``: as the standard
            variable ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` says.
        model: ``gen_ai.request.model``; ``None``: the client's ``model`` attribute, if any.
        provider: ``gen_ai.provider.name``; ``None``: guessed from the client's class
            (``openai``, ``anthropic``), else ``pod``.

    Raises:
        ImportError: ``opentelemetry-api`` is not installed (``pip install 'llm-pod[otel]'``).
    """

    def __init__(
        self,
        *,
        agent_name: str = "pod",
        tracer_provider: TracerProvider | None = None,
        capture_content: bool | None = None,
        model: str | None = None,
        provider: str | None = None,
    ) -> None:
        try:
            from opentelemetry import trace
        except ImportError as exc:  # pragma: no cover - the extra is in dev
            raise ImportError("pod telemetry needs pip install 'llm-pod[otel]'") from exc
        self.agent_name = agent_name
        self._tracer: Tracer = trace.get_tracer("llm-pod", tracer_provider=tracer_provider)
        if capture_content is None:
            capture_content = os.environ.get(CAPTURE_CONTENT_VARIABLE, "").lower() == "true"
        self.capture_content = capture_content
        self._model = model
        self._provider = provider
        self._wraps_parts = True

    def around_steps(self) -> Telemetry:
        """This telemetry for a Pod whose client and tools it already wraps (inside their
        durable steps, so a replayed step adds no span): the Pod adds the run and hook
        spans only."""
        inner = copy.copy(self)
        inner._wraps_parts = False
        return inner

    @contextmanager
    def in_trace_of(self, run_id: str) -> Generator[None]:
        """Within this block, runs are spans of the one trace that ``run_id`` names.

        Their parent is a remote span whose trace and span ids are derived from ``run_id``
        (SHA-256), the same in every process: a durable run recovered elsewhere continues
        the trace it began. No span has the parent's id; backends show the runs as roots.
        """
        from opentelemetry import context, trace

        digest = hashlib.sha256(f"llm-pod run {run_id}".encode()).digest()
        parent = trace.SpanContext(
            trace_id=int.from_bytes(digest[:16], "big") or 1,
            span_id=int.from_bytes(digest[16:24], "big") or 1,
            is_remote=True,
            trace_flags=trace.TraceFlags(trace.TraceFlags.SAMPLED),
        )
        token = context.attach(trace.set_span_in_context(trace.NonRecordingSpan(parent)))
        try:
            yield
        finally:
            context.detach(token)

    # -- what the Pod wraps ---------------------------------------------------------------

    def client(self, client: LlmClient) -> LlmClient:
        """``client``, with a ``chat {model}`` span around each request."""
        if not self._wraps_parts:
            return client
        model = self._model or getattr(client, "model", None)
        provider = self._provider or _provider_of(client)
        return _TracedClient(self, client, model if isinstance(model, str) else None, provider)

    def tools(self, tools: Iterable[Tool]) -> tuple[Tool, ...]:
        """``tools``, each with an ``execute_tool {tool}`` span around each call."""
        if not self._wraps_parts:
            return tuple(tools)
        return tuple(_TracedTool(self, tool) for tool in tools)

    def hooks(self, hooks: DecidingHooks) -> DecidingHooks:
        """``hooks``, with a ``hooks {event}`` span around each dispatch."""
        return _TracedHooks(self, hooks)

    async def invoke_agent(
        self,
        run: Callable[[], Awaitable[ResultT]],
        *,
        decisions: Mapping[str, CallResolution] | None = None,
    ) -> ResultT:
        """Run ``run`` (a Pod's run or resume) in an ``invoke_agent`` span."""
        with self._tracer.start_as_current_span(
            f"invoke_agent {self.agent_name}",
            kind=_kind("CLIENT"),
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": self.agent_name,
            },
        ) as span:
            if decisions:
                span.add_event(
                    "pod.resumed",
                    {f"pod.decision.{call_id}": _kind_of(d) for call_id, d in decisions.items()},
                )
            result = await run()
            _record_outcome(span, result)
            return result

    # -- spans ----------------------------------------------------------------------------

    def _span(self, name: str, kind: str, attributes: Mapping[str, str]) -> Any:
        return self._tracer.start_as_current_span(
            name, kind=_kind(kind), attributes=dict(attributes)
        )


def _kind(name: str) -> Any:
    from opentelemetry.trace import SpanKind

    return SpanKind[name]


def _provider_of(client: LlmClient) -> str:
    module = type(client).__module__
    for provider in ("openai", "anthropic"):
        if provider in module or provider in type(client).__name__.lower():
            return provider
    return "pod"


def _kind_of(decision: object) -> str:
    return "observed" if decision is None else type(decision).__name__


def _record_outcome(span: Span, result: BaseModel) -> None:
    kind = getattr(result, "kind", type(result).__name__)
    span.set_attribute("pod.run.outcome", str(kind))
    if isinstance(result, Paused):
        span.add_event(
            "pod.paused",
            {
                "pod.pause.point": result.point,
                "pod.pause.reason": result.reason,
                "pod.pause.pending_call_ids": [p.call_id for p in result.pending_calls],
            },
        )
    elif isinstance(result, Aborted):
        span.set_attribute("pod.abort.reason", result.reason)
        if result.error_type is not None:
            _set_error(span, result.error_type, result.reason)


def _set_error(span: Span, error_type: str, description: str) -> None:
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("error.type", error_type)
    span.set_status(Status(StatusCode.ERROR, description))


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _part(item: Item) -> tuple[str, dict[str, JsonValue]]:
    """An item as a message part of the GenAI conventions, with its message's role."""
    if isinstance(item, Message):
        return item.role, {"type": "text", "content": item.text}
    if isinstance(item, ToolCall):
        try:
            arguments: JsonValue = json.loads(item.arguments)
        except ValueError:
            arguments = item.arguments
        part: dict[str, JsonValue] = {"type": "tool_call", "id": item.call_id, "name": item.name}
        part["arguments"] = arguments
        return "assistant", part
    if isinstance(item, ToolResult):
        return "tool", {"type": "tool_call_response", "id": item.call_id, "response": item.content}
    if isinstance(item, Reasoning):
        return "assistant", {"type": "reasoning", "content": item.text}
    assert isinstance(item, Summary)
    return "user", {"type": "text", "content": item.text}


def _messages(items: Iterable[Item]) -> list[dict[str, JsonValue]]:
    """Items as the conventions' messages: consecutive parts of one role in one message."""
    messages: list[dict[str, JsonValue]] = []
    parts: list[JsonValue] = []
    for item in items:
        role, part = _part(item)
        if messages and messages[-1]["role"] == role:
            parts.append(part)
            continue
        parts = [part]
        messages.append({"role": role, "parts": parts})
    return messages


def _input_content(request: LlmRequest) -> dict[str, str]:
    """``gen_ai.input.messages`` (and ``gen_ai.system_instructions``) of a request."""
    content = {"gen_ai.input.messages": _json(_messages(request.items))}
    if request.system_prompt:
        instructions = [{"type": "text", "content": request.system_prompt}]
        content["gen_ai.system_instructions"] = _json(instructions)
    return content


@final
class _TracedClient(Privileged):
    def __init__(
        self, telemetry: Telemetry, client: LlmClient, model: str | None, provider: str
    ) -> None:
        self._telemetry = telemetry
        self._client = client
        self._model = model
        self._provider = provider

    async def complete(self, request: LlmRequest) -> LlmResponse:
        attributes = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": self._provider}
        if self._model is not None:
            attributes["gen_ai.request.model"] = self._model
        name = f"chat {self._model}" if self._model else "chat"
        if self._telemetry.capture_content:
            attributes.update(_input_content(request))
        with self._telemetry._span(name, "CLIENT", attributes) as span:  # pyright: ignore[reportPrivateUsage]
            try:
                response = await self._client.complete(request)
            except Exception as exc:
                _set_error(span, type(exc).__qualname__, str(exc))
                raise
            span.set_attribute("gen_ai.response.finish_reasons", [response.stop_reason])
            if response.usage is not None:
                span.set_attribute("gen_ai.usage.input_tokens", response.usage.input_tokens)
                span.set_attribute("gen_ai.usage.output_tokens", response.usage.output_tokens)
            call_ids = [call.call_id for call in response.tool_calls]
            if call_ids:
                span.set_attribute("pod.response.tool_call_ids", call_ids)
            if self._telemetry.capture_content:
                output = _messages(response.items)
                for message in output:
                    message["finish_reason"] = response.stop_reason
                span.set_attribute("gen_ai.output.messages", _json(output))
            return response


@final
class _TracedTool(Privileged):
    def __init__(self, telemetry: Telemetry, tool: Tool) -> None:
        self._telemetry = telemetry
        self._tool = tool
        self.name = tool.name
        self.description = tool.description
        self.parameters: Mapping[str, JsonValue] = tool.parameters

    async def call(self, arguments: dict[str, JsonValue]) -> str:
        telemetry = self._telemetry
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": self.name,
            "gen_ai.tool.type": "function",
        }
        call_id = current_tool_call_id()
        if call_id is not None:
            attributes["gen_ai.tool.call.id"] = call_id
        if self.description:
            attributes["gen_ai.tool.description"] = self.description
        if telemetry.capture_content:
            attributes["gen_ai.tool.call.arguments"] = json.dumps(arguments, ensure_ascii=False)
        with telemetry._span(f"execute_tool {self.name}", "INTERNAL", attributes) as span:  # pyright: ignore[reportPrivateUsage]
            try:
                content = await self._tool.call(arguments)
            except Exception as exc:
                _set_error(span, type(exc).__qualname__, str(exc))
                raise
            if telemetry.capture_content:
                span.set_attribute("gen_ai.tool.call.result", content)
            return content


@final
class _TracedHooks(Privileged):
    def __init__(self, telemetry: Telemetry, hooks: DecidingHooks) -> None:
        self._telemetry = telemetry
        self._hooks = hooks

    def listens_to(self, point: HookPoint[Any, Any], /) -> bool:
        return self._hooks.listens_to(point)

    async def ask(
        self,
        point: HookPoint[InputT, DecisionT],
        info: InputT,
        /,
        *,
        on_decided: Callable[[str], None] | None = None,
    ) -> DecisionT:
        if not self._hooks.listens_to(point):  # no dispatch, no span
            return await self._hooks.ask(point, info, on_decided=on_decided)
        attributes = {"pod.hook.event": point.name}
        call_id = getattr(info, "call_id", None)
        if isinstance(call_id, str):
            attributes["gen_ai.tool.call.id"] = call_id
        deciders: list[str] = []

        def decided(name: str) -> None:
            deciders.append(name)
            if on_decided is not None:
                on_decided(name)

        with self._telemetry._span(f"hooks {point.name}", "INTERNAL", attributes) as span:  # pyright: ignore[reportPrivateUsage]
            try:
                decision = await self._hooks.ask(point, info, on_decided=decided)
            except Exception as exc:
                span.set_attribute("pod.hook.decision", "failed")
                _set_error(span, type(exc).__qualname__, str(exc))
                raise
            span.set_attribute("pod.hook.decision", _kind_of(decision))
            reason = getattr(decision, "reason", None)
            if isinstance(reason, str) and reason:
                span.set_attribute("pod.hook.reason", reason)
            if deciders:
                span.set_attribute("pod.hook.decided_by", deciders[0])
            return decision
