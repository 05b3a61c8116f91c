"""What ``pod run`` and ``pod resume`` print, and where.

- stdout holds results only: the answer (streamed or at the end), or with ``--json`` one
  JSON object per line: ``{"type": "trace", ...}`` per trace event, ``{"type": "text",
  "text": ...}`` per streamed chunk, and a final ``{"type": "result", ...}``.
- stderr holds the trace, the prompts and the diagnostics. Before a trace line, a streamed
  line left open on stdout is ended, so the two never share a line.
- Nothing is wrapped when the stream is not a terminal (logs keep whole lines).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any, TextIO, final

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from llm_worker import Usage, visible

from ..runtime._pod import PodResult
from ..runtime._trace import TraceEvent
from ._demo import render_trace_event
from ._terminal import shown

__all__ = ["RunOutput", "RunStats", "console_for", "result_object"]


def console_for(stream: TextIO, *, soft_wrap: bool = True) -> Console:
    """A console on ``stream``: soft-wrapped unless told (rich never cuts a line), no
    highlighting of arbitrary text, and a closed pipe raises ``BrokenPipeError`` (the
    command ends quietly: ``pod.cli._main``)."""
    return _Console(file=stream, soft_wrap=soft_wrap, highlight=False)


class _Console(Console):
    def on_broken_pipe(self) -> None:
        raise BrokenPipeError  # rich's own answer, exit 1, would differ from the rest


@final
class RunStats:
    """Counts for the closing line: requests, tool calls, wall time."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.requests = 0
        self.tool_calls: set[str] = set()

    def count(self, event: TraceEvent) -> None:
        if event.source != "hooks":
            return
        if event.actor == "PRE_LLM_REQUEST":
            self.requests += 1
        elif event.actor == "PRE_TOOL_CALL":
            self.tool_calls.add(event.message.partition(" ")[0])  # message starts with the id

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started


@final
class RunOutput:
    """Routes a run's trace, streamed text, diagnostics and result to stdout and stderr."""

    def __init__(
        self,
        *,
        json_lines: bool,
        quiet: bool,
        debug: bool,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        self.json_lines = json_lines
        self.quiet = quiet
        self.debug = debug
        self._stdout = stdout if stdout is not None else sys.stdout
        self.errors = console_for(stderr if stderr is not None else sys.stderr)
        self.stats = RunStats()
        self.streamed: list[str] = []
        """The text streamed of the current reply."""
        self._line_open = False
        self.paused_by: str | None = None
        """The hook whose ``Pause`` stopped the run last (from the trace)."""

    # -- during the run -------------------------------------------------------------------

    def trace(self, event: TraceEvent) -> None:
        """Receive one trace event (the Pod's ``trace=`` callback)."""
        self.stats.count(event)
        if event.source == "hooks" and event.actor == "PRE_LLM_REQUEST":
            self.streamed.clear()  # a new reply: the answer is the last reply's text
        if event.decided is not None and event.decided.kind == "Pause":
            self.paused_by = event.decided.hook
        if self.json_lines:
            self._json(trace_object(event))
            return
        if self.quiet:
            return
        self.end_streamed_line()
        line = render_trace_event(_without_abort_reason(event))
        if self.debug:
            line = Text(f"{self.stats.seconds:7.3f}s", style="dim") + line
        self.errors.print(line)

    def text(self, chunk: str) -> None:
        """Receive streamed model text."""
        self.streamed.append(chunk)
        if self.json_lines:
            self._json({"type": "text", "text": chunk})
            return
        self._stdout.write(self._on_stdout(chunk))
        self._stdout.flush()
        self._line_open = not chunk.endswith("\n")

    def end_streamed_line(self) -> None:
        """End a streamed line left open, so what comes next starts a line of its own."""
        if self._line_open:
            self._stdout.write("\n")
            self._stdout.flush()
            self._line_open = False

    # -- at the end -----------------------------------------------------------------------

    def error(self, message: str) -> None:
        """One diagnostic line on stderr (``error: ...``)."""
        self.end_streamed_line()
        self.errors.print(f"[bold red]error:[/] {escape(shown(message))}")

    def note(self, message: str) -> None:
        """One informative line on stderr."""
        self.end_streamed_line()
        self.errors.print(escape(shown(message)))

    def answer(self, text: str) -> None:
        """The final answer on stdout (once: not again if it was streamed)."""
        if self.json_lines:
            return
        if "".join(self.streamed).strip() == text.strip() and self.streamed:
            self.end_streamed_line()
            return
        self.end_streamed_line()
        self._stdout.write(self._on_stdout(text if text.endswith("\n") else text + "\n"))
        self._stdout.flush()

    def closing_line(self, usage: Usage) -> None:
        """``3 requests · 4 tool calls · 1200 tokens (1000 in, 200 out) · 2.1s`` on stderr."""
        if self.json_lines or self.quiet:
            return
        stats = self.stats
        total = usage.input_tokens + usage.output_tokens
        self.errors.print(
            f"[dim]{_plural(stats.requests, 'request')} · "
            f"{_plural(len(stats.tool_calls), 'tool call')} · {total} tokens "
            f"({usage.input_tokens} in, {usage.output_tokens} out) · {stats.seconds:.1f}s[/]"
        )

    def result(self, document: dict[str, Any]) -> None:
        """The final ``--json`` object."""
        if self.json_lines:
            self._json({"type": "result", **document})

    def _on_stdout(self, text: str) -> str:
        """The model's text as stdout gets it: written out visibly on a terminal (no escape
        sequence reaches it), byte for byte into a pipe or a file."""
        isatty = getattr(self._stdout, "isatty", None)
        return visible(text, multiline=True) if isatty is not None and isatty() else text

    def _json(self, document: dict[str, Any]) -> None:
        self._stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
        self._stdout.flush()


def trace_object(event: TraceEvent) -> dict[str, Any]:
    """A ``--json`` trace line: the decision as data (``{"kind", "reason", "hook"}``)."""
    decided = None if event.decided is None else event.decided.model_dump()
    return {
        "type": "trace",
        **event.model_dump(exclude={"decision", "decided"}),
        "decision": decided,
    }


def result_object(
    result: PodResult | None,
    *,
    status: str,
    exit_code: int,
    usage: Usage,
    stats: RunStats,
    snapshot: str | None,
    reason: str | None = None,
) -> dict[str, Any]:
    """The ``--json`` result: status, text, reason, pending calls, usage, counts, snapshot."""
    text = result.text if result is not None and result.kind == "finished" else None
    pending = (
        [call.model_dump() for call in result.pending_calls]
        if result is not None and result.kind == "paused"
        else []
    )
    return {
        "status": status,
        "exit_code": exit_code,
        "text": text,
        "reason": reason,
        "pending_calls": pending,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
        "requests": stats.requests,
        "tool_calls": len(stats.tool_calls),
        "seconds": round(stats.seconds, 3),
        "snapshot": snapshot,
    }


def _without_abort_reason(event: TraceEvent) -> TraceEvent:
    # The reason is printed once, on the closing "aborted: ..." line.
    if event.source == "hooks" and event.actor == "ABORT":
        return event.model_copy(update={"message": "the run ends (reason below)"})
    return event


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
