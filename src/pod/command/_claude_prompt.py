"""``PromptHook``: a Claude Code ``type: "prompt"`` hook, answered by the Pod's own model.

The hook puts what a command script would read on stdin (``_claude_code``) into its
``prompt`` (in place of ``$ARGUMENTS``, or after it), asks the model one question through a
:data:`PromptAsk` (``pod run`` builds one from the client it runs with, ``_model_ask``), and
reads the reply as Claude Code's prompt hooks answer: a JSON object ``{"ok": true}`` or
``{"ok": false, "reason": "..."}``. ``ok: false`` is taken as a script's exit status 2 with
the reason on stderr, so it maps onto the event's decision the same way (``PreToolUse``: the
call is skipped with the reason; ``Stop``: the turn goes on with the reason as the next
instruction; ``UserPromptSubmit``: the prompt is refused; ``PostToolUse``: feedback).

Any other reply, a failing request or a timeout raises :class:`CommandHookError` naming the
hook, so the registration's failure policy applies: closed for guard events, a warning line
for observe-only ones. The hook never touches the run's history: the model is asked a
question of its own, apart from the conversation.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Final, TypeAlias, TypeVar, final

import pydantic_core
from pydantic import BaseModel, StrictBool, StrictStr, ValidationError

from ..hooks._base import Hook
from ..hooks._errors import CommandHookError
from ..hooks._events import HookEvent
from ..hooks._registry import reads_only_hook
from ._claude_code import (
    BLOCKING_EXIT,
    DEFAULT_SESSION,
    ClaudeSession,
    claude_name,
    encode_claude_request,
    hears_of,
    parse_claude_answer,
)
from ._protocol import matcher_selects, tool_name_of

__all__ = ["PROMPT_HOOK_SYSTEM", "PROMPT_HOOK_TIMEOUT", "PromptAsk", "PromptHook", "prompt_text"]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")

PromptAsk: TypeAlias = Callable[[str, str], Awaitable[str]]
"""Ask a model one question: ``(system prompt, user prompt) -> the reply's text``."""

PROMPT_HOOK_TIMEOUT: Final = 30.0
"""Seconds a ``prompt`` hook may take, unless its ``timeout`` says otherwise (Claude Code's
default for prompt hooks)."""

PROMPT_HOOK_SYSTEM: Final = (
    "You are evaluating a hook of a coding agent. You are given the hook's instructions and "
    "the event it is asked about, as JSON. Decide whether the condition the instructions "
    'describe is met. Answer with one JSON object and nothing else: {"ok": true} when it is, '
    'or {"ok": false, "reason": "why not"} when it is not.'
)
"""The system prompt of every ``prompt`` hook's request."""

_ARGUMENTS: Final = "$ARGUMENTS"
_FENCE: Final = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_PREVIEW: Final = 200


class _Answer(BaseModel, frozen=True, extra="forbid"):
    """A prompt hook's answer; unknown keys fail it, as they fail a script's JSON answer."""

    ok: StrictBool
    reason: StrictStr = ""


def prompt_text(prompt: str, event_json: str) -> str:
    """The hook's ``prompt`` with the event's JSON in place of ``$ARGUMENTS``, or after it
    when it has no ``$ARGUMENTS``."""
    if _ARGUMENTS in prompt:
        return prompt.replace(_ARGUMENTS, event_json)
    return f"{prompt}\n\n{event_json}"


@final
@reads_only_hook
class PromptHook(Hook[InputT, DecisionT]):
    """Ask the model, in Claude Code's prompt-hook contract, about one event."""

    def __init__(
        self,
        event: HookEvent[InputT, DecisionT],
        prompt: str,
        ask: PromptAsk,
        *,
        timeout: float = PROMPT_HOOK_TIMEOUT,
        cwd: str,
        matcher: str | None = None,
        session: ClaudeSession = DEFAULT_SESSION,
        claude_event: str | None = None,
    ) -> None:
        self._event = event
        self._prompt = prompt
        self._ask = ask
        self._timeout = timeout
        self._cwd = cwd
        self._matcher = None if matcher is None else re.compile(matcher)
        self._session = session
        self._claude_event = claude_event or claude_name(event)
        first_line = prompt.strip().splitlines()[0] if prompt.strip() else ""
        shown = first_line if len(first_line) <= 60 else first_line[:57] + "..."
        self._display = f"prompt {shown!r}"
        self.__qualname__ = f"PromptHook({self._display})"

    @property
    def timeout(self) -> float:
        """Seconds the model may take to answer."""
        return self._timeout

    def selects(self, tool_name: str) -> bool:
        """Whether a call of ``tool_name`` is put to the model."""
        return matcher_selects(self._matcher, tool_name)

    async def __call__(self, info: InputT) -> DecisionT:
        """Ask the model and map its answer.

        Raises:
            CommandHookError: the request failed or timed out, or the answer is not
                ``{"ok": ..., "reason": ...}``.
        """
        event = self._event
        if not self.selects(tool_name_of(info)):
            return event.neutral
        if not hears_of(info, self._claude_event):
            return event.neutral
        body = encode_claude_request(
            event,
            info,
            cwd=self._cwd,
            command=self._display,
            session=self._session,
            name=self._claude_event,
        )
        question = prompt_text(self._prompt, body.decode("utf-8"))
        try:
            reply = await asyncio.wait_for(
                self._ask(PROMPT_HOOK_SYSTEM, question), timeout=self._timeout
            )
        except TimeoutError:
            raise CommandHookError(
                command=self._display, problem=f"timed out after {self._timeout:g}s"
            ) from None
        except Exception as exc:  # the model client's failure, whatever its kind
            raise CommandHookError(
                command=self._display, problem=f"could not ask the model ({exc})"
            ) from None
        answer = _read(reply, self._display)
        if answer.ok:
            return event.neutral
        reason = answer.reason or f"refused by a {self._claude_event} prompt hook"
        return parse_claude_answer(
            event, BLOCKING_EXIT, b"", reason, command=self._display, name=self._claude_event
        )


def _read(reply: str, display: str) -> _Answer:
    """The model's reply as ``{"ok", "reason"}`` (a Markdown code fence around it is
    accepted)."""
    text = reply.strip()
    if (fenced := _FENCE.match(text)) is not None:
        text = fenced.group(1)
    try:
        return _Answer.model_validate(pydantic_core.from_json(text, allow_inf_nan=False))
    except (ValueError, ValidationError):
        preview = reply.strip()[:_PREVIEW]
        raise CommandHookError(
            command=display,
            problem=f'answered {preview!r}, which is not {{"ok": true}} or '
            '{"ok": false, "reason": "..."}',
        ) from None
