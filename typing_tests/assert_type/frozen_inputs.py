"""The boundary types alone give, under mypy and pyright: hook Inputs and decisions are frozen.

Type-checked, never executed. Each expected error is pinned for both checkers; a missing
error fails both (unused ignore).
"""

from pod import Continue, Skip, ToolCallSummary


def touch(call: ToolCallSummary, decision: Skip) -> None:
    call.turn = 5  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    call.tool_name += "!"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    decision.reason = "changed"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
    Continue().decision = "continue"  # type: ignore[misc]  # pyright: ignore[reportAttributeAccessIssue]
