"""The AGENT-HOOKS-0.1 conformance harness: the kit's vectors against a real ``Pod``.

``pytest tests/conformance --agent-hooks-harness=tests.conformance.harness:PodHarness`` (what
``make unit`` runs) hands each vector to :class:`PodHarness`: its interceptors are wrapped in
an ``agent_hooks.InterceptionEmitter``, registered through ``pod.agent_hooks.AgentHooks``,
and driven by a ``Pod`` whose model and tools replay the vector's scenario. The records the
kit checks are the adapter's own (``AgentHooks.records``), made while the Pod ran.

Capabilities (§3.2), declared honestly:

- ``model_calls``, ``tool_calls``: llm-pod asks hooks before and after each model call and
  each tool call.
- ``int64_json``, ``bigint_json``: Python keeps every JSON integer exactly.
- not ``parallel_tool_calls``, ``streaming``, ``incremental_output``: hooks see a reply only
  once it is whole.
- not ``multi_turn``: one vector is one ``Pod.run``.
- ``host_declaration``: ``AgentHooks.from_declaration`` builds the emitter from a host
  declaration document with the SDK's loader (``setup_declared``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from agent_hooks import (
    ApprovalResolver,
    CompositionConfig,
    EnforcementMode,
    IdentityProvider,
    InterceptionEmitter,
    Interceptor,
)
from agent_hooks.ctk import Capability, RunRecord, Scenario, redact_paths
from agent_hooks.ctk.harness import RunOutcome, ToolSpec
from agent_hooks.declaration import HostRegistry
from pydantic import JsonValue

from llm_worker import (
    Aborted,
    Finished,
    LimitReached,
    Paused,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
)
from pod import HookRegistry, Pod
from pod.agent_hooks import AgentHooks

CAPABILITIES: frozenset[Capability] = frozenset(
    {
        Capability.MODEL_CALLS,
        Capability.TOOL_CALLS,
        Capability.INT64_JSON,
        Capability.BIGINT_JSON,
        Capability.HOST_DECLARATION,
    }
)


class ScenarioTool:
    """A vector's mock tool as an llm-pod ``Tool``: its behaviour table answers each call."""

    def __init__(self, spec: ToolSpec, log: list[dict[str, Any]]) -> None:
        self._spec = spec
        self._log = log
        self.name = spec.name
        self.description = f"the vector's {spec.name}"
        self.parameters: Mapping[str, JsonValue] = {"type": "object"}

    async def call(self, arguments: dict[str, JsonValue]) -> str:
        self._log.append({"name": self.name, "args": dict(arguments)})
        value, is_error = self._spec.invoke(dict(arguments))
        text = value if isinstance(value, str) else json.dumps(value)
        if is_error:
            raise RuntimeError(text)
        return text


def _client(scenario: Scenario) -> ScriptedClient:
    replies = [
        ScriptedReply(
            text=response.content or "",
            calls=tuple(
                ScriptedCall(call["name"], call["args"], call_id=call["id"])
                for call in response.tool_calls
            ),
        )
        for response in scenario.model_script
    ]
    return ScriptedClient(replies)


class PodHarness:
    """Runs one vector's scenario through a ``Pod`` with ``AgentHooks`` registered."""

    name = "llm-pod"
    capabilities: ClassVar[frozenset[Capability]] = CAPABILITIES
    tool_seam_host_error = "continue"  # a denied tool call is a tool error; the run goes on

    def __init__(self) -> None:
        self._scenario: Scenario | None = None
        self._adapter: AgentHooks | None = None

    def setup(  # noqa: PLR0917  # the kit's Harness protocol fixes the signature
        self,
        scenario: Scenario,
        interceptors: list[Interceptor],
        resolver: ApprovalResolver | None,
        mode: EnforcementMode,
        composition: CompositionConfig,
        identity_provider: str | None,
        redact_for_approval: list[str] | None = None,
    ) -> None:
        provider: str | IdentityProvider | None = identity_provider
        if identity_provider == "ctk-fault":

            def fault(_: dict[str, Any]) -> str:
                raise RuntimeError("ctk scripted provider fault")

            provider = IdentityProvider(name="ctk-fault", fn=fault)
        emitter = InterceptionEmitter(
            mode=mode, resolver=resolver, composition=composition, identity_provider=provider
        )
        for interceptor in interceptors:
            emitter.register(interceptor)
        paths = list(redact_for_approval or [])
        if paths:
            emitter.set_approval_redactor(lambda ctx: redact_paths(ctx, paths))
        self._scenario = scenario
        self._adapter = AgentHooks(emitter, agent_id="ctk-agent", model_id="mock")

    async def run(self) -> RunRecord:
        assert self._scenario is not None
        assert self._adapter is not None
        scenario, adapter = self._scenario, self._adapter
        invocations: list[dict[str, Any]] = []
        registry = HookRegistry()
        adapter.register(registry)
        tools = [ScenarioTool(spec, invocations) for spec in scenario.tools.values()]
        pod = Pod(_client(scenario), tools=tools, hooks=registry)
        result = await pod.run(str(scenario.input["content"]))
        match result:
            case Finished(text=text):
                outcome, final = RunOutcome.COMPLETED, text
            case Aborted():
                outcome, final = RunOutcome.BLOCKED, None
            case Paused():
                outcome, final = RunOutcome.SUSPENDED, None
            case LimitReached():
                outcome, final = RunOutcome.ERROR, None
        return RunRecord(
            outcome=outcome,
            final_output=final,
            tool_invocations=invocations,
            identities=[(r.input_identity, r.enforced_identity) for r in adapter.records],
            records=[r.to_wire() for r in adapter.records],
        )

    def setup_declared(
        self, scenario: Scenario, document: dict[str, Any], registry: HostRegistry
    ) -> None:
        """A declaration vector: the emitter is the SDK loader's, through
        ``AgentHooks.from_declaration``; a refusal propagates (the kit records it)."""
        self._scenario = scenario
        self._adapter = AgentHooks.from_declaration(
            document, registry, agent_id="ctk-agent", model_id="mock"
        )

    def teardown(self) -> None:
        self._scenario = self._adapter = None
