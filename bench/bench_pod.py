"""Benchmarks of the Pod's internal mechanisms (run: .venv/bin/python bench/bench_pod.py).

Prints the cost of: planning a compaction (O(n) in history length), one compaction check
(O(1): the History keeps the estimate), a truncation of a large output, a permission
decision, and a notification push. Figures vary with the machine; compare runs on one box.
"""

from __future__ import annotations

import json
import timeit
from collections.abc import Callable

from llm_worker import Item, Message, ToolCall, ToolCallSummary, ToolResult
from llm_worker.interceptor import History
from pod import PermissionHook, PermissionRule
from pod.runtime._interceptors import (
    CompactionInterceptor,
    NotificationQueue,
    plan_compaction,
    truncate_output,
)


def _history(turns: int) -> History:
    items: list[Item] = []
    for turn in range(turns):
        items.append(Message(role="assistant", text=f"step {turn}"))
        items.append(ToolCall(call_id=f"c{turn}", name="read", arguments='{"path": "/work/a"}'))
        items.append(ToolResult(call_id=f"c{turn}", name="read", content="x" * 200))
    return History(items)


def _report(label: str, fn: Callable[[], object], number: int) -> None:
    best = min(timeit.repeat(fn, number=number, repeat=5)) / number
    print(f"{label:<48} {best * 1e6:>10.2f} us")


def main() -> None:
    for turns in (1_000, 10_000):
        history = _history(turns)
        _report(f"plan_compaction, {3 * turns} items", lambda h=history: plan_compaction(h, 8), 20)
        check = CompactionInterceptor(threshold_tokens=10**9, keep_recent=8)
        _report(
            f"compaction check under threshold, {3 * turns} items",
            lambda h=history, c=check: c.pre_llm_request(h),
            10_000,
        )
    big = "日本語 text " * 100_000
    _report(
        "truncate_output, 1.4 MB mixed UTF-8 to 32 KiB", lambda: truncate_output(big, 32_768), 50
    )
    rules = [
        PermissionRule(action="deny", tool="shell", command_prefix=f"cmd{i}") for i in range(50)
    ]
    hook = PermissionHook(
        [*rules, PermissionRule(action="allow", tool="shell", command_prefix="ls")]
    )
    call = ToolCallSummary(
        call_id="c", tool_name="shell", arguments=json.dumps({"command": "ls -la"}), turn=0
    )
    _report("PermissionHook, 51 rules, last one matches", lambda: hook(call), 2_000)
    queue = NotificationQueue()
    _report("NotificationQueue.push", lambda: queue.push("note"), 100_000)


if __name__ == "__main__":
    main()
