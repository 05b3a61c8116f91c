"""``pod demo`` (``make demo``): the showcase Pod on a scripted model, traced live.

No network: the model is a ``ScriptedClient``. The trace shows every decision point in
order: what each internal interceptor (notification, compaction, truncation) did, then what
the hooks (the permission policy first, then the user's) decided, and the final history.
"""

from __future__ import annotations

import asyncio

from rich.console import Console
from rich.text import Text

from llm_worker import Item, Message, Paused, Summary, ToolCall, ToolResult

from ..runtime._pod import PodResult
from ..runtime._trace import TraceEvent
from ._decisions import answered_events, ask_decisions
from ._showcase import SHOWCASE_ANSWERS, SHOWCASE_PROMPT, SHOWCASE_RULES, build_showcase_pod
from ._tables import Records, print_records
from ._terminal import shown

__all__ = ["history_records", "render_trace_event", "run_demo"]

_SOURCE_STYLE = {"interceptor": "cyan", "hooks": "magenta", "pod": "yellow", "person": "blue"}


def render_trace_event(event: TraceEvent) -> Text:
    """One trace line: who acted (interceptor, hooks, pod), on what, and the decision."""
    line = Text("  ")
    line.append(f"{event.source:<11}", style=_SOURCE_STYLE[event.source])
    line.append(f" {shown(event.actor):<15} ", style="bold")
    line.append(shown(event.message))
    if event.decision is not None:
        style = "green" if event.decision in ("Continue", "observed") else "bold red"
        line.append(" -> ")
        line.append(shown(event.decision), style=style)
    return line


def history_records(history: tuple[Item, ...]) -> Records:
    """The history as records, one per item."""
    rows: list[tuple[str, ...]] = []
    for index, item in enumerate(history):
        match item:
            case Message(role=role, text=text):
                rows.append((str(index), f"{role} message", text))
            case ToolCall(call_id=call_id, name=name, arguments=arguments):
                rows.append((str(index), f"tool call {call_id}", f"{name} {arguments}"))
            case ToolResult(call_id=call_id, content=content, is_error=is_error):
                preview = content if len(content) <= 160 else content[:157] + "..."
                flag = " (error)" if is_error else ""
                rows.append((str(index), f"tool result {call_id}{flag}", preview))
            case Summary(text=text, replaced_items=replaced):
                rows.append((str(index), f"summary of {replaced} items", text))
            case _:
                rows.append((str(index), item.kind, item.text))
    return Records("Final history", ("#", "item", "content"), rows)


async def _demo(console: Console) -> PodResult:
    console.rule("llm-pod demo: interceptors act, then hooks decide")
    console.print(
        Text.assemble(
            ("interceptor", "cyan"),
            " = internal, privileged, changes the context   ",
            ("hooks", "magenta"),
            " = public, read-only summary in, decision out",
        )
    )
    console.print("Permission rules (registered before the user's hooks):", style="bold")
    console.print(Text(SHOWCASE_RULES, style="dim"))
    console.print(f"[bold]user:[/] {SHOWCASE_PROMPT}\n")
    paused_by: list[str | None] = [None]

    def show(event: TraceEvent) -> None:
        if event.decided is not None and event.decided.kind == "Pause":
            paused_by[0] = event.decided.hook
        console.print(render_trace_event(event))

    pod = build_showcase_pod(show)
    result = await pod.run(SHOWCASE_PROMPT)
    answers = list(SHOWCASE_ANSWERS)
    while isinstance(result, Paused):  # a human answers, as `pod run` asks in a terminal
        answer = ask_decisions(result, decided_by=paused_by[0], console=console, answers=answers)
        for event in answered_events(result, answer):
            show(event)
        del answers[: len(answer.decisions)]
        result = await pod.resume(answer.decisions)
    console.print()
    print_records(console, history_records(pod.history))
    console.print(f"[bold green]{type(result).__name__}[/] after turn {result.turn}")
    return result


def run_demo(console: Console | None = None) -> PodResult:
    """Run the showcase and print its live trace; return the run's result."""
    return asyncio.run(_demo(console or Console()))
