"""Time building a provider request body from a long history, without any network.

Run: ``.venv/bin/python bench/bench_provider_payload.py [ITEMS]`` (default 10,000 items).

Prints, per provider, the first build (every item converted), a later build after one more
item (the per-item cache at work: what every request of a long run costs), and the JSON
encoding of that body, which the SDK does on every request anyway. Best of several runs.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

from llm_worker import Item, LlmRequest, Message, ToolCall, ToolResult
from llm_worker.providers import build_anthropic_payload, build_openai_payload


def make_history(size: int) -> list[Item]:
    """A history of user turns, tool calls with results, and answers (4 items per round)."""
    history: list[Item] = []
    for n in range(size // 4):
        history.append(Message(role="user", text=f"Question {n}: " + "words " * 30))
        history.append(ToolCall(call_id=f"call_{n}", name="search", arguments='{"q": "x"}'))
        history.append(ToolResult(call_id=f"call_{n}", name="search", content="result " * 60))
        history.append(Message(role="assistant", text="Answer " * 20))
    return history


def best_of(runs: int, work: Callable[[], object]) -> float:
    """Return the fastest of ``runs`` timings of ``work``, in milliseconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    builders: dict[str, Callable[[LlmRequest], dict[str, Any]]] = {
        "openai": build_openai_payload,
        "anthropic": build_anthropic_payload,
    }
    print(f"{size} items; best of 5 runs, milliseconds")
    print(f"{'provider':<10} {'first build':>12} {'next build':>11} {'json encode':>12}")
    for provider, build in builders.items():
        history = make_history(size)
        first = best_of(1, lambda build=build, history=history: build(LlmRequest(items=history)))
        history.append(Message(role="user", text="one more"))
        request = LlmRequest(items=history, system_prompt="You are terse.")
        warm = best_of(5, lambda build=build, request=request: build(request))
        body = build(request)
        encode = best_of(5, lambda body=body: json.dumps(body, ensure_ascii=False))
        print(f"{provider:<10} {first:>12.1f} {warm:>11.1f} {encode:>12.1f}")


if __name__ == "__main__":
    main()
