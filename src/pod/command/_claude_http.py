"""``HttpHook``: a Claude Code ``type: "http"`` hook. It POSTs what a command script would
read on stdin (``_claude_code``) to a URL, and maps a 2xx answer's JSON body as a script's
stdout at exit status 0; plain text decides nothing.

Headers may name environment variables (``$VAR`` or ``${VAR}``): only those listed in
``allowedEnvVars`` are filled in, any other is left empty, as in Claude Code. A non-2xx
status, a connection failure or a timeout fails the hook (:class:`CommandHookError` naming
``POST URL``), so the registration's failure policy applies: closed for guard events, a
warning line for observe-only ones.
"""

from __future__ import annotations

import asyncio
import os
import re
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Final, TypeVar, final

from pydantic import BaseModel

from ..hooks._base import Hook
from ..hooks._errors import CommandHookError
from ..hooks._events import HookEvent
from ..hooks._registry import reads_only_hook
from ._claude_code import (
    DEFAULT_SESSION,
    ClaudeSession,
    claude_name,
    encode_claude_request,
    hears_of,
    parse_claude_answer,
)
from ._protocol import matcher_selects, tool_name_of

__all__ = ["HTTP_DEFAULT_TIMEOUT", "HttpHook", "interpolated_headers"]

InputT = TypeVar("InputT", bound=BaseModel)
DecisionT = TypeVar("DecisionT")

HTTP_DEFAULT_TIMEOUT: Final = 30.0
"""Seconds an ``http`` hook may take, unless its ``timeout`` says otherwise."""
_MAX_BODY: Final = 1 << 20
_VARIABLE: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def interpolated_headers(
    headers: Mapping[str, str],
    allowed: Sequence[str],
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """``headers`` with ``$VAR``/``${VAR}`` filled in from ``environ`` for the names in
    ``allowed``; any other variable becomes ``""``."""
    source = os.environ if environ is None else environ
    permitted = set(allowed)

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return source.get(name, "") if name in permitted else ""

    return {key: _VARIABLE.sub(value, text) for key, text in headers.items()}


@final
@reads_only_hook
class HttpHook(Hook[InputT, DecisionT]):
    """Ask an HTTP endpoint, in Claude Code's hook contract, about one event."""

    def __init__(
        self,
        event: HookEvent[InputT, DecisionT],
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = HTTP_DEFAULT_TIMEOUT,
        cwd: str,
        matcher: str | None = None,
        session: ClaudeSession = DEFAULT_SESSION,
        claude_event: str | None = None,
    ) -> None:
        self._event = event
        self._url = url
        self._headers = {"Content-Type": "application/json", **(headers or {})}
        self._timeout = timeout
        self._cwd = cwd
        self._matcher = None if matcher is None else re.compile(matcher)
        self._session = session
        self._claude_event = claude_event or claude_name(event)
        self._display = f"POST {url}"
        self.__qualname__ = f"HttpHook({self._display})"

    @property
    def timeout(self) -> float:
        """Seconds the endpoint may take."""
        return self._timeout

    @property
    def headers(self) -> Mapping[str, str]:
        """The headers sent (variables filled in; a copy)."""
        return dict(self._headers)

    def selects(self, tool_name: str) -> bool:
        """Whether a call of ``tool_name`` is put to the endpoint."""
        return matcher_selects(self._matcher, tool_name)

    async def __call__(self, info: InputT) -> DecisionT:
        """POST the event and map the answer.

        Raises:
            CommandHookError: the endpoint failed, timed out, or answered illegally.
        """
        event = self._event
        if not self.selects(tool_name_of(info)):
            return event.neutral
        if not hears_of(info, self._claude_event):
            return event.neutral  # PostToolUse: successes; PostToolUseFailure: errors
        body = encode_claude_request(
            event,
            info,
            cwd=self._cwd,
            command=self._display,
            session=self._session,
            name=self._claude_event,
        )
        status, answer = await asyncio.to_thread(self._post, body)
        if not 200 <= status < 300:
            raise CommandHookError(
                command=self._display,
                problem=f"answered HTTP {status}",
                stderr=answer[:2048].decode("utf-8", "replace"),
            )
        return parse_claude_answer(
            event, 0, answer, "", command=self._display, name=self._claude_event
        )

    def _post(self, body: bytes) -> tuple[int, bytes]:
        request = urllib.request.Request(self._url, data=body, headers=self._headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                return int(response.status), response.read(_MAX_BODY)
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(_MAX_BODY)
        except TimeoutError:
            raise CommandHookError(
                command=self._display, problem=f"timed out after {self._timeout:g}s"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise CommandHookError(
                command=self._display, problem=f"could not be reached ({reason})"
            ) from None
