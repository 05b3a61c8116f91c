"""Fixtures of the CLI tests: the providers' replay server, and a tiny OpenAI-style script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.providers.conftest import ReplayServer, server

__all__ = [
    "FINAL_TEXT",
    "PROMPT",
    "ReplayServer",
    "chat_reply",
    "pod_command",
    "project",
    "queue_weather_session",
    "run_arguments",
    "server",
]


def chat_reply(*, text: str | None = None, calls: tuple[tuple[str, str, Any], ...] = ()) -> Any:
    """An OpenAI Chat Completions reply: ``text`` and/or ``calls`` (id, tool, arguments)."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if calls else "stop",
                "message": {
                    "role": "assistant",
                    "content": text,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                        for call_id, name, arguments in calls
                    ]
                    or None,
                },
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


@pytest.fixture(autouse=True)
def no_provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "200")


HELPERS = """
NEEDS_APPROVAL = frozenset({"get_weather"})
"""

# A hooks file as users write them: postponed annotations, a dataclass, a sibling import.
APPROVAL_HOOKS = """
from __future__ import annotations

from dataclasses import dataclass

from helpers import NEEDS_APPROVAL

from pod import Continue, HookRegistry, Pause, ToolCallSummary, events


@dataclass(frozen=True)
class Policy:
    tools: frozenset[str]


POLICY = Policy(NEEDS_APPROVAL)

registry = HookRegistry()


@registry.on(events.PRE_TOOL_CALL)
def ask_first(call: ToolCallSummary) -> Continue | Pause:
    if call.tool_name in POLICY.tools:
        return Pause(reason=f"{call.tool_name} needs a human")
    return Continue()


no_pause = HookRegistry()
"""

# Host-written hooks that write a file: only with --trust-hooks (hook files may not do I/O).
REVIEW_HOOKS = """
from pathlib import Path

from pod import AbortInfo, HookRegistry, Pause, TurnEndInfo, events

review = HookRegistry()


@review.on(events.TURN_END)
def review_the_answer(info: TurnEndInfo) -> Pause:
    return Pause(reason="a human reviews the answer")


@review.on(events.ABORT)
def count_abort(info: AbortInfo) -> None:
    with Path("aborts.log").open("a") as log:  # counted outside the process
        log.write(info.reason + "\\n")
"""

TOOLS = '''
from llm_worker import tool


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    return {"Paris": "sunny, 21 °C", "Tokyo": "rain, 14 °C"}[city]


TOOLS = [get_weather]
'''

PROMPT = "Weather in Paris and Tokyo?"
FINAL_TEXT = "Paris is sunny; Tokyo is rainy."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with a hooks file (and its sibling helper) and a tools file."""
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "helpers.py").write_text(HELPERS)
    (folder / "approval_hooks.py").write_text(APPROVAL_HOOKS)
    (folder / "review_hooks.py").write_text(REVIEW_HOOKS)
    (folder / "weather_tools.py").write_text(TOOLS)
    return folder


def queue_weather_session(server: ReplayServer) -> None:
    """Two replies: two weather calls, then the answer."""
    server.reply_json(
        chat_reply(
            text="Checking both cities.",
            calls=(
                ("call_paris", "get_weather", {"city": "Paris"}),
                ("call_tokyo", "get_weather", {"city": "Tokyo"}),
            ),
        )
    )
    server.reply_json(chat_reply(text=FINAL_TEXT))


def run_arguments(server: ReplayServer, project: Path, hooks: str = "registry") -> list[str]:
    """The options of a weather run against ``server`` (the prompt comes first)."""
    return [
        "--model=openai:m",
        f"--base-url={server.url}/v1",
        "--api-key=k",
        f"--hooks={project / 'approval_hooks.py'}:{hooks}",
        f"--tools={project / 'weather_tools.py'}:TOOLS",
        "--max-retries=0",
    ]


def pod_command(
    *argv: str, cwd: Path, stdin: str = "", columns: int = 200
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m pod ...`` in a new process (stdin not a terminal)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
    return subprocess.run(
        [sys.executable, "-m", "pod", *argv],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**env, "COLUMNS": str(columns)},
        timeout=60,
        check=False,
    )
