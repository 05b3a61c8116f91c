"""Claude Code hooks of the session rather than of a hook event: ``SessionStart``,
``SessionEnd`` and ``Notification``. ``pod run`` and ``pod resume`` run them themselves (no
llm-pod event fires there): ``SessionStart`` before the run (``source`` ``startup`` or
``resume``), ``Notification`` when the run waits for a human, ``SessionEnd`` when the
process is done with the run.

They observe: what they print (plain stdout or ``additionalContext`` of ``SessionStart``) is
returned as text for the model, which the caller hands to ``Pod.notify`` (it enters the
history as a notification before the next model request). A failing one is a warning line
naming its command, exit status and stderr; it never stops the run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, final

import pydantic_core

from ._claude_code import BLOCKING_EXIT, ClaudeSession
from ._process import ProcessFailure, hook_environment, run_once

__all__ = ["SESSION_EVENTS", "SessionHook", "SessionHookOutcome"]

SESSION_EVENTS: Final = ("SessionStart", "SessionEnd", "Notification")
"""The Claude Code events ``pod run`` runs around the run."""


@final
@dataclass(frozen=True, slots=True)
class SessionHookOutcome:
    """What one session hook gave: text for the model, or a warning for the user."""

    context: str = ""
    """``SessionStart``: its plain stdout or ``additionalContext`` (``""``: none)."""
    warning: str = ""
    """Why it failed, or its ``systemMessage`` (``""``: nothing to say)."""


@final
@dataclass(frozen=True, slots=True)
class SessionHook:
    """One ``SessionStart``/``SessionEnd``/``Notification`` command of a settings file."""

    event_name: str
    argv: tuple[str, ...]
    display: str
    """The command as written (how warnings name it)."""
    timeout: float
    cwd: str
    env: Mapping[str, str]
    matcher: str | None
    """A regular expression the whole ``source`` (``SessionStart``), ``reason``
    (``SessionEnd``) or ``notification_type`` must match; ``None``: every one."""
    source: str
    """Where it was declared (``settings.json: hooks.SessionStart[0].hooks[0]``)."""

    def selects(self, value: str) -> bool:
        """Whether the hook runs for this source, reason or notification type."""
        return self.matcher is None or re.fullmatch(self.matcher, value) is not None

    async def run(
        self, fields: Mapping[str, object], *, session: ClaudeSession
    ) -> SessionHookOutcome:
        """Run the command with Claude Code's common fields and ``fields`` on stdin."""
        request = {
            "session_id": session.session_id,
            "transcript_path": session.transcript_path,
            "cwd": self.cwd,
            "permission_mode": "default",
            "hook_event_name": self.event_name,
            **fields,
        }
        try:
            stdout, stderr, status = await run_once(
                self.argv,
                json.dumps(request).encode("utf-8"),
                timeout=self.timeout,
                cwd=self.cwd,
                env=hook_environment(self.env),
                exit_codes=frozenset({0, BLOCKING_EXIT}),
            )
        except ProcessFailure as failure:
            detail = f"; stderr: {failure.stderr}" if failure.stderr else ""
            return SessionHookOutcome(
                warning=f"{self.event_name} hook `{self.display}` {failure.problem}{detail}"
            )
        if status == BLOCKING_EXIT:  # Claude Code: shown to the user only
            return SessionHookOutcome(warning=f"{self.event_name} hook `{self.display}`: {stderr}")
        return self._answer(stdout)

    def _answer(self, stdout: bytes) -> SessionHookOutcome:
        text = stdout.decode("utf-8", "replace").strip()
        if not text.startswith("{"):
            return SessionHookOutcome(context=text if self.event_name == "SessionStart" else "")
        try:
            answer = pydantic_core.from_json(text, allow_inf_nan=False)
        except ValueError as exc:
            return SessionHookOutcome(
                warning=f"{self.event_name} hook `{self.display}` printed an invalid Claude "
                f"Code answer ({exc}): {text[:120]!r}"
            )
        if not isinstance(answer, dict):
            return SessionHookOutcome()
        specific = answer.get("hookSpecificOutput")
        context = specific.get("additionalContext") if isinstance(specific, dict) else None
        message = answer.get("systemMessage")
        return SessionHookOutcome(
            context=context
            if isinstance(context, str) and self.event_name == "SessionStart"
            else "",
            warning=f"{self.display}: {message}" if isinstance(message, str) and message else "",
        )
