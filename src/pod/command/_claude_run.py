"""The Claude Code side of a run, for every way of running one: ``pod run``/``pod resume``
and durable runs (``pod worker``).

:class:`ClaudeCodeFiles` names the settings files and plugin folders that guard a run;
:meth:`ClaudeCodeFiles.read` reads them for one session into a :class:`ClaudeRun`: the
hooks to register, the ``SessionStart``/``SessionEnd``/``Notification``/``PermissionRequest``
hooks the runner runs around the run, the session the scripts read and the transcript kept
for them (``WORKDIR/.pod/transcripts/SESSION_ID.jsonl``). What differs between the runners
(a terminal, or steps recorded for a recovery) stays with them; what the hooks decide is
worked out here, once.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import final

from llm_worker import Abort, Approve, HookPort, Item, Paused, Skip

from ..hooks._errors import PodUsageError
from ._claude_code import ClaudeSession
from ._claude_code_settings import (
    ClaudeSettings,
    read_claude_plugin,
    read_claude_settings,
    run_in_parallel,
)
from ._claude_merge import ClaudeHookGroup
from ._claude_prompt import PromptAsk
from ._claude_session_hooks import SessionHook, SessionHookOutcome, merged_permission
from ._claude_transcript import ClaudeTranscript, TranscriptPort
from ._configured import ConfiguredCommandHook
from ._hook import CommandHook

__all__ = ["ClaudeCodeFiles", "ClaudeRun", "transcript_path"]


def transcript_path(project_dir: str, session_id: str) -> Path:
    """Where a run keeps its Claude Code transcript."""
    return Path(project_dir) / ".pod" / "transcripts" / f"{session_id}.jsonl"


@final
@dataclass(frozen=True, slots=True)
class ClaudeRun:
    """What Claude Code hooks need of one run: its session, its hooks and its transcript."""

    session: ClaudeSession
    configured: tuple[ConfiguredCommandHook, ...] = ()
    """The hooks of events llm-pod serves, as they run: the hooks of one event, of every
    file, in one group asked in parallel (registered after the policy's)."""
    session_hooks: tuple[SessionHook, ...] = ()
    """``SessionStart``, ``SessionEnd``, ``Notification`` and ``PermissionRequest`` hooks,
    which the runner runs itself."""
    warnings: tuple[str, ...] = ()
    """One line per file with events that will not run."""
    project_dir: str = "."

    def wrap_hooks(
        self, history: Callable[[], Sequence[Item]], *, hold: Callable[[], bool] | None = None
    ) -> Callable[[HookPort], HookPort] | None:
        """The Pod's ``wrap_hooks`` that brings the transcript up to date (from ``history``,
        the Pod's, read late) before a hook is asked, except while ``hold`` says not to;
        ``None`` without a transcript."""
        session = self.session
        if session.transcript_path is None:
            return None
        # One per Pod: it reads what the file holds when the Pod is built (a restored Pod's
        # history, written before).
        transcript = ClaudeTranscript(
            session.transcript_path, session_id=session.session_id, cwd=self.project_dir
        )
        return functools.partial(TranscriptPort, transcript=transcript, history=history, hold=hold)

    async def aclose(self) -> None:
        """End the long-lived processes of persistent hooks (a later event starts them
        again): when the run ends, or waits for long."""
        for configured in self.configured:
            hook = configured.hook
            for member in hook.hooks if isinstance(hook, ClaudeHookGroup) else (hook,):
                if isinstance(member, CommandHook):
                    await member.aclose()

    async def run_session_hooks(
        self, event_name: str, fields: Mapping[str, object], *, match: str | None = None
    ) -> list[SessionHookOutcome]:
        """Run the hooks of ``event_name`` that select ``match`` (default: the first field's
        value: ``source``, ``reason``) side by side, as Claude Code runs them; their
        outcomes come back in file order."""
        selected = str(next(iter(fields.values())) if match is None else match)
        chosen = [
            hook
            for hook in self.session_hooks
            if hook.event_name == event_name and hook.selects(selected)
        ]
        return list(
            await asyncio.gather(*(hook.run(fields, session=self.session) for hook in chosen))
        )

    async def notify_waiting(self, paused: Paused) -> list[SessionHookOutcome]:
        """Claude Code's ``Notification``: the run waits for a human."""
        kind = "permission_prompt" if paused.pending_calls else "idle_prompt"
        fields = {"message": paused.reason or "the run waits for you", "notification_type": kind}
        return await self.run_session_hooks("Notification", fields, match=kind)

    async def permission_decisions(
        self, paused: Paused
    ) -> tuple[dict[str, Approve | Skip | Abort], list[str]]:
        """Claude Code's ``PermissionRequest``: each pending call put to its hooks side by
        side, as Claude Code runs them, their answers merged (a deny beats an allow).
        Returns what they allow (``Approve`` by the call's digest, with ``updatedInput`` as
        the arguments), deny (``Skip``; ``Abort`` with ``interrupt``), and the lines to
        show the user."""
        decisions: dict[str, Approve | Skip | Abort] = {}
        notes: list[str] = []
        for call in paused.pending_calls:
            fields: dict[str, object] = {
                "tool_name": call.tool_name,
                "tool_input": _object_or_text(call.arguments),
                "permission_suggestions": [],
            }
            asked = [
                hook
                for hook in self.session_hooks
                if hook.event_name == "PermissionRequest" and hook.selects(call.tool_name)
            ]
            if not asked:
                continue
            outcomes = await asyncio.gather(*(h.run(fields, session=self.session) for h in asked))
            notes += [f"warning: {o.warning}" for o in outcomes if o.warning]
            outcome = merged_permission(outcomes)
            names = ", ".join(f"`{hook.display}`" for hook in asked)
            reason = outcome.message or f"denied by PermissionRequest hook {names}"
            if outcome.behavior == "allow":  # with updatedInput: as the hook rewrote it
                decisions[call.call_id] = Approve(
                    digest=call.digest, arguments=outcome.updated_input
                )
            elif outcome.interrupt:  # deny + interrupt: the run stops
                decisions[call.call_id] = Abort(reason=reason)
            elif outcome.behavior == "deny":
                decisions[call.call_id] = Skip(reason=reason)
            if call.call_id in decisions:
                how = " (interrupt)" if outcome.interrupt else ""
                rewritten = " with updatedInput" if outcome.updated_input is not None else ""
                notes.append(
                    f"PermissionRequest hook{'s' if len(asked) > 1 else ''} {names}: "
                    f"{outcome.behavior}{how}{rewritten} {call.call_id} ({call.tool_name})"
                )
        return decisions, notes


def _object_or_text(arguments: str) -> object:
    try:
        return json.loads(arguments or "{}")
    except ValueError:
        return arguments


@final
@dataclass(frozen=True, slots=True)
class ClaudeCodeFiles:
    """The Claude Code settings files and plugin folders that guard a run (``pod run
    --claude-settings/--claude-plugin``, ``pod worker`` the same), and the project folder
    their commands run in and ``CLAUDE_PROJECT_DIR`` names."""

    settings: tuple[str, ...] = ()
    plugins: tuple[str, ...] = ()
    project_dir: str = "."

    def __bool__(self) -> bool:
        return bool(self.settings or self.plugins)

    def read(
        self,
        *,
        session_id: str | None,
        ask: PromptAsk | None,
        ask_model: Callable[[str], PromptAsk] | None = None,
    ) -> tuple[ClaudeRun, list[str]]:
        """Read every file for the session ``session_id`` (``None``: no files, the default
        session and no transcript); return the run and every problem (one line each, naming
        the option and the file, as the command line gave it). ``ask`` answers prompt hooks
        with the run's model, ``ask_model`` with the model a hook names (without it, such a
        hook is refused)."""
        if session_id is None or not self:
            return ClaudeRun(ClaudeSession()), []
        session = ClaudeSession(session_id, str(transcript_path(self.project_dir, session_id)))
        readers = [
            (f"--claude-settings {file}", functools.partial(read_claude_settings, file))
            for file in self.settings
        ] + [
            (f"--claude-plugin {folder}", functools.partial(read_claude_plugin, folder))
            for folder in self.plugins
        ]
        files: list[ClaudeSettings] = []
        session_hooks: list[SessionHook] = []
        warnings: list[str] = []
        problems: list[str] = []
        for given, read in readers:
            try:
                claude = read(
                    project_dir=self.project_dir, session=session, ask=ask, ask_model=ask_model
                )
            except PodUsageError as exc:
                problems.append(f"{given}: {exc}")
                continue
            files.append(claude)
            session_hooks += claude.session_hooks
            if (warning := claude.warning()) is not None:
                warnings.append(warning)
        configured = tuple(run_in_parallel(files))  # one event's hooks, of every file, at once
        run = ClaudeRun(
            session, configured, tuple(session_hooks), tuple(warnings), self.project_dir
        )
        return run, problems
