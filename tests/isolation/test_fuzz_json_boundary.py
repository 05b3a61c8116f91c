"""Fuzzing the JSON boundary: whatever bytes a command hook prints and whatever a snapshot
file holds, the only error is the documented one (``CommandHookError``, ``SnapshotError``),
and whatever is accepted can be written back out.

The bounded runs here are part of ``make test``; the ``fuzz``-marked runs are long
(``pytest -m fuzz``).
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llm_worker import (
    Pause,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    SnapshotError,
    ToolCallSummary,
    Worker,
    WorkerSnapshot,
    tool,
)
from pod import CommandHook, CommandHookError, HookRegistry, events
from pod.command._protocol import parse_decision

from .conftest import CALL

BOUNDED = settings(max_examples=200, deadline=None)
LONG = settings(max_examples=20_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
decision_like = st.fixed_dictionaries(
    {"decision": st.sampled_from(["continue", "skip", "abort", "pause", "yield"]) | st.text()},
    optional={"reason": st.text() | json_values, "extra": json_values},
)
hook_outputs = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    (json_values | decision_like).map(lambda value: json.dumps(value).encode()),
    st.tuples(decision_like, st.sampled_from([b"", b"\n", b"\n\n", b" x", b"\x00", b"{}"])).map(
        lambda pair: json.dumps(pair[0]).encode() + pair[1]
    ),
    st.sampled_from(
        [
            b'{"decision": "skip", "reason": "\\ud800"}',  # a lone surrogate escape
            b"[" * 3000,
            b'{"decision": "continue"}' * 2,
            b'{"decision": NaN}',
            b"\xef\xbb\xbf" + b'{"decision": "continue"}',  # a UTF-8 byte order mark
        ]
    ),
)


def check_output(output: bytes) -> None:
    for event in events.CATALOGUE:
        try:
            decision = parse_decision(event, output, command="policy")
        except CommandHookError as error:
            message = str(error)
        else:
            message = None
        if message is not None:
            assert message.startswith("command `policy` printed ")
            continue
        if not event.decision_types:
            assert decision is None
            continue
        assert decision is not None
        assert type(decision) in event.decision_types
        # Whatever is accepted can be written back out (e.g. into a snapshot) unchanged.
        assert type(decision).model_validate_json(decision.model_dump_json()) == decision


@BOUNDED
@given(hook_outputs)
def test_any_command_output_is_a_legal_decision_or_a_command_hook_error(output: bytes) -> None:
    check_output(output)


@pytest.mark.fuzz
@LONG
@given(hook_outputs)
def test_any_command_output_long_run(output: bytes) -> None:
    check_output(output)


ECHO_FILE = "import sys; sys.stdout.buffer.write(open(sys.argv[1], 'rb').read())"


def outcome(run: Callable[[], Any]) -> object:
    try:
        return run()
    except CommandHookError as error:
        return ("error", error.problem)


@settings(max_examples=15, deadline=None)
@given(hook_outputs)
def test_a_real_command_printing_anything_fails_exactly_like_the_parser(output: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        printed = Path(directory) / "output"
        printed.write_bytes(output)
        hook = CommandHook(events.PRE_TOOL_CALL, [sys.executable, "-c", ECHO_FILE, str(printed)])
        through_process = outcome(lambda: asyncio.run(hook(CALL)))
    parsed = outcome(lambda: parse_decision(events.PRE_TOOL_CALL, output, command="-"))
    assert through_process == parsed


# -- snapshots ---------------------------------------------------------------------------


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@functools.cache
def paused_snapshot() -> str:
    """A real snapshot of a run paused in the middle of a batch of tool calls."""
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def ask(call: ToolCallSummary) -> Pause:
        return Pause(reason=f"approve {call.call_id}?")

    reply = ScriptedReply(
        text="let me look",
        calls=[ScriptedCall("echo", {"text": t}, call_id=t) for t in ("a", "b")],
    )
    worker = Worker(ScriptedClient([reply]), tools=[echo], hooks=registry.freeze())
    asyncio.run(worker.run("go"))
    return worker.snapshot().to_json()


def check_snapshot(data: str | bytes) -> None:
    try:
        snapshot = WorkerSnapshot.from_json(data)
    except SnapshotError:
        return
    # Accepted: it is consistent, and saving it again gives the same snapshot.
    assert WorkerSnapshot.from_json(snapshot.to_json()) == snapshot
    Worker(ScriptedClient([]), tools=[echo]).restore(snapshot)


@st.composite
def mutated_snapshots(draw: st.DrawFn) -> str:
    """The real snapshot with one value somewhere inside replaced or removed."""
    document: Any = json.loads(paused_snapshot())
    parent: Any = None
    key: Any = None
    node: Any = document
    while isinstance(node, dict | list) and node and draw(st.booleans()):
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        parent, key = node, draw(st.sampled_from(keys))
        node = node[key]
    if parent is None:
        return json.dumps(draw(json_values))
    if draw(st.booleans()):
        del parent[key]
    else:
        parent[key] = draw(json_values | st.sampled_from(["running", "paused", -1, 10**6]))
    return json.dumps(document)


snapshot_inputs = st.one_of(
    st.binary(max_size=300),
    json_values.map(json.dumps),
    mutated_snapshots(),
    st.sampled_from(["[" * 3000, '{"format": "llm-pod/worker-snapshot", "version": 1e400}']),
    # The user's prompt replaced by a lone surrogate escape: valid JSON, not valid Unicode.
    st.builds(lambda: paused_snapshot().replace('"go"', '"\\ud800"', 1)),
)


def test_the_snapshot_under_test_is_accepted() -> None:
    snapshot = WorkerSnapshot.from_json(paused_snapshot())
    assert snapshot.state.status == "paused"


@BOUNDED
@given(snapshot_inputs)
def test_any_snapshot_file_loads_or_is_refused_with_a_snapshot_error(data: str | bytes) -> None:
    check_snapshot(data)


@pytest.mark.fuzz
@LONG
@given(snapshot_inputs)
def test_any_snapshot_file_long_run(data: str | bytes) -> None:
    check_snapshot(data)
