"""A durable run's spans are one trace across a crash: a worker process is killed with SIGKILL
mid-run and a new process recovers it; every span both processes sent (each written to
``spans.log`` as it ends) is in the trace the run id names, and a step replayed from its
record adds no span: each model request and tool call has one span, from the process that
ran it."""

from __future__ import annotations

import collections
import hashlib
import json
from typing import Any

from llm_worker import Finished
from llm_worker.testing import assert_well_formed
from pod.durable import RunOutcome

from . import app
from .conftest import Scene, kill


def spans(scene: Scene) -> list[dict[str, Any]]:
    lines = (scene.folder / "spans.log").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_recovered_run_continues_its_trace_and_replays_no_span(sqlite_scene: Scene) -> None:
    first = sqlite_scene.start(
        ["-m", "tests.durable.app", "run", "otel", "s", "run-1"], POD_TEST_BLOCK_TOOL="2"
    )
    sqlite_scene.wait_for("blocked", first)
    kill(first)
    before = spans(sqlite_scene)

    done = sqlite_scene.run(["-m", "tests.durable.app", "recover", "run-1"])
    assert done.returncode == 0, done.stderr
    outcome = RunOutcome.model_validate_json(done.stdout)
    assert isinstance(outcome.result, Finished)
    assert_well_formed(outcome.history)

    every = spans(sqlite_scene)
    digest = hashlib.sha256(b"llm-pod run run-1").digest()
    assert {span["trace_id"] for span in every} == {digest[:16].hex()}  # one trace
    assert len({span["pid"] for span in every}) == 2  # sent by both processes
    assert {span["pid"] for span in before} == {first.pid}
    # Before the kill: model requests 0-2 and tool calls 0-1 ended (tool call 2 was in flight).
    names = collections.Counter(span["name"] for span in before)
    assert names["chat scripted"] == 3
    assert names["execute_tool work"] == 2
    assert names["invoke_agent otel"] == 0  # the run's span never ended in that process
    # After recovery: every request and call has one span in all (replays add none); the
    # call in flight at the kill ran again, and its first attempt never ended.
    names = collections.Counter(span["name"] for span in every)
    assert names["chat scripted"] == app.STEPS + 1
    assert names["execute_tool work"] == app.STEPS
    steps = sorted(
        str(span["attributes"]["gen_ai.tool.call.id"])
        for span in every
        if span["name"] == "execute_tool work"
    )
    assert steps == [f"s-{n}" for n in range(app.STEPS)]
    assert names["invoke_agent otel"] == 1
    (run,) = (span for span in every if span["name"] == "invoke_agent otel")
    assert run["parent"] == digest[16:24].hex()  # the parent the run id names
