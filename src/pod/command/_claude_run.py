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

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import final

from llm_worker import Approve, HookPort, Item, Paused, Skip

from ..hooks._errors import PodUsageError
from ._claude_code import ClaudeSession
from ._claude_code_settings import read_claude_plugin, read_claude_settings
from ._claude_prompt import PromptAsk
from ._claude_session_hooks import SessionHook, SessionHookOutcome
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
    """The hooks of events llm-pod serves, in file order (registered after the policy's)."""
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
            if isinstance(configured.hook, CommandHook):
                await configured.hook.aclose()

    async def run_session_hooks(
        self, event_name: str, fields: Mapping[str, object], *, match: str | None = None
    ) -> list[SessionHookOutcome]:
        """Run the hooks of ``event_name`` that select ``match`` (default: the first field's
        value: ``source``, ``reason``), in file order."""
        selected = str(next(iter(fields.values())) if match is None else match)
        return [
            await hook.run(fields, session=self.session)
            for hook in self.session_hooks
            if hook.event_name == event_name and hook.selects(selected)
        ]

    async def notify_waiting(self, paused: Paused) -> list[SessionHookOutcome]:
        """Claude Code's ``Notification``: the run waits for a human."""
        kind = "permission_prompt" if paused.pending_calls else "idle_prompt"
        fields = {"message": paused.reason or "the run waits for you", "notification_type": kind}
        return await self.run_session_hooks("Notification", fields, match=kind)

    async def permission_decisions(
        self, paused: Paused
    ) -> tuple[dict[str, Approve | Skip], list[str]]:
        """Claude Code's ``PermissionRequest``: each pending call put to the hooks, in file
        order; the first that decides wins. Returns what they allow (``Approve`` by the
        call's digest) or deny (``Skip``), and the lines to show the user."""
        decisions: dict[str, Approve | Skip] = {}
        notes: list[str] = []
        for call in paused.pending_calls:
            fields: dict[str, object] = {
                "tool_name": call.tool_name,
                "tool_input": _object_or_text(call.arguments),
                "permission_suggestions": [],
            }
            for hook in self.session_hooks:
                if hook.event_name != "PermissionRequest" or not hook.selects(call.tool_name):
                    continue
                outcome = await hook.run(fields, session=self.session)
                if outcome.warning:
                    notes.append(f"warning: {outcome.warning}")
                if outcome.behavior == "allow":
                    decisions[call.call_id] = Approve(digest=call.digest)
                elif outcome.behavior == "deny":
                    reason = outcome.message or f"denied by PermissionRequest hook {hook.display}"
                    decisions[call.call_id] = Skip(reason=reason)
                if call.call_id in decisions:
                    notes.append(
                        f"PermissionRequest hook `{hook.display}`: {outcome.behavior} "
                        f"{call.call_id} ({call.tool_name})"
                    )
                    break
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

    def read(self, *, session_id: str | None, ask: PromptAsk | None) -> tuple[ClaudeRun, list[str]]:
        """Read every file for the session ``session_id`` (``None``: no files, the default
        session and no transcript); return the run and every problem (one line each, naming
        the option and the file, as the command line gave it)."""
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
        configured: list[ConfiguredCommandHook] = []
        session_hooks: list[SessionHook] = []
        warnings: list[str] = []
        problems: list[str] = []
        for given, read in readers:
            try:
                claude = read(project_dir=self.project_dir, session=session, ask=ask)
            except PodUsageError as exc:
                problems.append(f"{given}: {exc}")
                continue
            configured += claude.hooks
            session_hooks += claude.session_hooks
            if (warning := claude.warning()) is not None:
                warnings.append(warning)
        run = ClaudeRun(
            session, tuple(configured), tuple(session_hooks), tuple(warnings), self.project_dir
        )
        return run, problems
