"""Claude Code hooks that no llm-pod event serves: ``SessionStart``, ``SessionEnd``,
``Notification`` and ``PermissionRequest``. ``pod run`` and ``pod resume`` run them
themselves: ``SessionStart`` before the run (``source`` ``startup`` or ``resume``),
``Notification`` when the run waits for a human, ``PermissionRequest`` at a pause for
approval (once per pending call), ``SessionEnd`` when the process is done with the run.

What ``SessionStart`` prints (plain stdout or ``additionalContext``) is returned as text for
the model, which the caller hands to ``Pod.notify``; a ``PermissionRequest`` answer is
returned as ``allow`` (with ``updatedInput``, the arguments to approve instead) or ``deny``
(with ``interrupt: true``, stopping the run) for the caller to turn into ``Approve``,
``Skip`` or ``Abort``; ``updatedPermissions`` is not applied (a warning says so). The
``PermissionRequest`` hooks of a call run side by side and merge (:func:`merged_permission`,
a deny beats an allow). A failing
hook is a warning line naming its command, exit status and stderr; a failing
``PermissionRequest`` hook also denies (a guard fails closed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, cast, final

import pydantic_core

from ._claude_code import BLOCKING_EXIT, ClaudeSession
from ._process import ProcessFailure, hook_environment, run_once

__all__ = ["SESSION_EVENTS", "SessionHook", "SessionHookOutcome", "merged_permission"]

SESSION_EVENTS: Final = ("SessionStart", "SessionEnd", "Notification", "PermissionRequest")
"""The Claude Code events ``pod run`` runs around the run (``PermissionRequest``: at a
pause for approval, once per pending call)."""


@final
@dataclass(frozen=True, slots=True)
class SessionHookOutcome:
    """What one session hook gave: text for the model, or a warning for the user."""

    context: str = ""
    """``SessionStart``: its plain stdout or ``additionalContext`` (``""``: none)."""
    warning: str = ""
    """Why it failed, or its ``systemMessage`` (``""``: nothing to say)."""
    behavior: Literal["allow", "deny"] | None = None
    """``PermissionRequest``: the hook's ``decision.behavior`` (``deny`` too when it failed:
    a guard fails closed); ``None``: no opinion, a human decides."""
    message: str = ""
    """``PermissionRequest``: why (``decision.message``, or the failure)."""
    updated_input: str | None = None
    """``PermissionRequest`` ``allow``: ``decision.updatedInput`` as JSON object text, the
    arguments the call is approved with (``None``: as it stands)."""
    interrupt: bool = False
    """``PermissionRequest`` ``deny``: ``decision.interrupt``, stop the run (not only the
    call)."""


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
    fail_closed: bool | None = None
    """Whether a failing ``PermissionRequest`` hook denies the call (``onFailure:
    "block"``; ``None``: yes, a guard fails closed) or leaves it to a human with a warning
    (``"continue"``). At the other events a failure is a warning."""

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
            problem = f"{self.event_name} hook `{self.display}` {failure.problem}{detail}"
            return self._failed(problem)
        if status == BLOCKING_EXIT:
            if self.event_name == "PermissionRequest":  # exit 2 denies, stderr the reason
                return SessionHookOutcome(behavior="deny", message=stderr or "denied by a hook")
            return SessionHookOutcome(warning=f"{self.event_name} hook `{self.display}`: {stderr}")
        return self._answer(stdout)

    def _failed(self, problem: str) -> SessionHookOutcome:
        if self.event_name == "PermissionRequest" and self.fail_closed is not False:
            return SessionHookOutcome(warning=problem, behavior="deny", message=problem)
        return SessionHookOutcome(warning=problem)

    def _answer(self, stdout: bytes) -> SessionHookOutcome:
        text = stdout.decode("utf-8", "replace").strip()
        starting = self.event_name == "SessionStart"
        if not text.startswith("{"):
            return SessionHookOutcome(context=text if starting else "")
        try:
            answer: object = pydantic_core.from_json(text, allow_inf_nan=False)
        except ValueError as exc:
            return self._failed(
                f"{self.event_name} hook `{self.display}` printed an invalid Claude "
                f"Code answer ({exc}): {text[:120]!r}"
            )
        fields = cast(dict[str, object], answer) if isinstance(answer, dict) else {}
        given = fields.get("hookSpecificOutput")
        specific = cast(dict[str, object], given) if isinstance(given, dict) else {}
        context = specific.get("additionalContext")
        message = fields.get("systemMessage")
        warning = f"{self.display}: {message}" if isinstance(message, str) and message else ""
        decided = specific.get("decision")
        if self.event_name == "PermissionRequest" and isinstance(decided, dict):
            decision = cast(dict[str, object], decided)
            return self._permission(decision, warning)
        shown = context if isinstance(context, str) and starting else ""
        return SessionHookOutcome(context=shown, warning=warning)

    def _permission(self, decision: dict[str, object], warning: str) -> SessionHookOutcome:
        """A ``PermissionRequest``'s ``decision``: ``behavior``, and with ``allow``
        ``updatedInput`` (``updatedPermissions``: a warning), with ``deny`` ``message`` and
        ``interrupt``."""
        behavior, why = decision.get("behavior"), decision.get("message")
        updated, interrupt = decision.get("updatedInput"), decision.get("interrupt", False)
        named = f"{self.event_name} hook `{self.display}`"
        if behavior not in ("allow", "deny"):
            return self._failed(f"{named} answered decision.behavior {behavior!r} (allow or deny)")
        if updated is not None and not isinstance(updated, dict):
            return self._failed(f"{named} answered a decision.updatedInput that is not an object")
        if not isinstance(interrupt, bool):
            return self._failed(f"{named} answered a decision.interrupt that is not true or false")
        if "updatedPermissions" in decision:
            not_applied = (
                f"{named}: updatedPermissions is not applied (llm-pod does not change its "
                "permission rules during a run); only this call is decided"
            )
            warning = f"{warning}; {not_applied}" if warning else not_applied
        allowed = behavior == "allow"
        return SessionHookOutcome(
            warning=warning,
            behavior="allow" if allowed else "deny",
            message=why if isinstance(why, str) else "",
            updated_input=json.dumps(updated) if allowed and updated is not None else None,
            interrupt=interrupt and not allowed,
        )


def merged_permission(outcomes: Sequence[SessionHookOutcome]) -> SessionHookOutcome:
    """One answer for the ``PermissionRequest`` hooks of a call that ran side by side (in
    file order), merged as Claude Code merges them: a deny beats an allow (an interrupt
    among the denies stops the run; their messages are joined), and an allow carries its
    ``updatedInput``; two different ones deny the call (neither hook saw the other's)."""
    denies = [o for o in outcomes if o.behavior == "deny"]
    allows = [o for o in outcomes if o.behavior == "allow"]
    if denies:
        return SessionHookOutcome(
            behavior="deny",
            message="; ".join(dict.fromkeys(o.message for o in denies if o.message)),
            interrupt=any(o.interrupt for o in denies),
        )
    if not allows:
        return SessionHookOutcome()
    rewrites = list(dict.fromkeys(o.updated_input for o in allows if o.updated_input is not None))
    if len(rewrites) > 1:
        return SessionHookOutcome(
            behavior="deny",
            message="PermissionRequest hooks approved the call with different arguments "
            f"(updatedInput): {' / '.join(rewrites)}",
        )
    return SessionHookOutcome(behavior="allow", updated_input=rewrites[0] if rewrites else None)
