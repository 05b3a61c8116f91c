"""A command hook as configuration declares it: the hook, its event, its failure policy and
where it was declared. Built by the policy file loader (``[[hook]]`` tables) and by the Claude
Code settings reader alike, so it lives with the command hooks both build.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, final

from ..hooks._events import HookEvent
from ..hooks._registry import FailurePolicy, HookRegistry
from ._claude_http import HttpHook
from ._claude_merge import ClaudeHookGroup
from ._claude_prompt import PromptHook
from ._hook import CommandHook

__all__ = ["ConfiguredCommandHook"]


@final
@dataclass(frozen=True, slots=True)
class ConfiguredCommandHook:
    """A command hook read from configuration, with the policy to register it under."""

    event: HookEvent[Any, Any]
    hook: (
        CommandHook[Any, Any]
        | HttpHook[Any, Any]
        | PromptHook[Any, Any]
        | ClaudeHookGroup[Any, Any]
    )
    """The hook (an ``HttpHook`` for a Claude Code ``type: "http"`` entry, a
    ``PromptHook`` for a ``type: "prompt"`` one, a ``ClaudeHookGroup`` for the hooks of
    one Claude Code event that run in parallel)."""
    on_error: FailurePolicy
    source: str
    """Where it was declared, e.g. ``hooks.toml: [[hook]] 2``."""
    matcher: str | None = None
    """The tool matcher as written (``None``: every tool, or an event without tools)."""

    def register(self, registry: HookRegistry) -> None:
        """Register the hook for its event under its failure policy."""
        match self.hook:  # one branch per class: pod_mypy verifies each registration
            case HttpHook() as http:
                registry.on(self.event, http, on_error=self.on_error)
            case PromptHook() as prompt:
                registry.on(self.event, prompt, on_error=self.on_error)
            case ClaudeHookGroup() as group:
                registry.on(self.event, group, on_error=self.on_error)
            case command:
                registry.on(self.event, command, on_error=self.on_error)
