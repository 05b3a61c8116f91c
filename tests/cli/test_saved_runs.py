"""A paused run survives the process: saved, then continued by `pod resume` in another."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from llm_worker import call_digest
from pod import PodSnapshot
from tests.cli.conftest import (
    FINAL_TEXT,
    PROMPT,
    ReplayServer,
    chat_reply,
    pod_command,
    queue_weather_session,
    run_arguments,
)


def saved_path(stderr: str) -> Path:
    found = re.search(r"^saved: (\S+)$", stderr, re.MULTILINE)
    assert found, stderr
    return Path(found.group(1))


def history_of(path: Path) -> list[Any]:
    document = json.loads(path.read_text())
    history: list[Any] = document["pod"]["worker"]["history"]
    return history


def test_pause_save_exit_then_resume_elsewhere_gives_the_uninterrupted_history(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    # The uninterrupted run: the same session with hooks that never pause.
    queue_weather_session(server)
    straight = tmp_path / "straight.json"
    done = pod_command(
        "run",
        PROMPT,
        *run_arguments(server, project, "no_pause"),
        f"--save={straight}",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr

    # The paused run: saved under .pod/runs/ of the working folder, the process exits 5.
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), cwd=tmp_path)
    assert paused.returncode == 5, paused.stderr
    assert paused.stdout == ""
    assert (
        "paused at pre_tool_call by approval_hooks.ask_first: get_weather needs a human; "
        "pending: get_weather (call_paris), get_weather (call_tokyo)"
    ) in paused.stderr
    path = saved_path(paused.stderr)
    assert path.parent == Path(".pod/runs")
    assert (
        f"continue: pod resume {path} --approve=call_paris --approve=call_tokyo  "
        "(add --api-key: keys are never saved)"
    ) in paused.stderr
    saved = json.loads((tmp_path / path).read_text())
    assert saved["paused"]["pending_calls"][0]["call_id"] == "call_paris"
    assert "api_key" not in json.dumps(saved["options"])

    # Another process, another folder: the saved options rebuild the Pod.
    resumed = pod_command(
        "resume",
        str(tmp_path / path),
        "--approve=call_paris",
        "--approve",
        "call_tokyo",
        "--api-key=k",
        cwd=project,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == FINAL_TEXT + "\n"
    assert history_of(tmp_path / path) == history_of(straight)
    # The model saw the same conversation both times.
    assert server.requests[3].body == server.requests[1].body


def test_skip_with_a_reason_and_pausing_again(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), cwd=tmp_path)
    path = tmp_path / saved_path(paused.stderr)

    # One call decided: the other is put to the hooks again, which pause again (exit 5).
    again = pod_command(
        "resume", str(path), "--skip=call_paris=ask me tomorrow", "--api-key=k", cwd=tmp_path
    )
    assert again.returncode == 5, again.stderr
    assert "pending: get_weather (call_tokyo)" in again.stderr
    assert saved_path(again.stderr) == path  # the same file, updated

    finished = pod_command("resume", str(path), "--approve=call_tokyo", "--api-key=k", cwd=tmp_path)
    assert finished.returncode == 0, finished.stderr
    results = [i for i in history_of(path) if i["kind"] == "tool_result"]
    assert [(r["call_id"], r["is_error"]) for r in results] == [
        ("call_paris", True),
        ("call_tokyo", False),
    ]
    assert "ask me tomorrow" in results[0]["content"]


def test_abort_ends_the_saved_run(server: ReplayServer, project: Path, tmp_path: Path) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), cwd=tmp_path)
    path = tmp_path / saved_path(paused.stderr)
    aborted = pod_command("resume", str(path), "--abort", "--api-key=k", cwd=tmp_path)
    assert aborted.returncode == 1, aborted.stderr
    assert "aborted: aborted by the user" in aborted.stderr
    assert len(server.requests) == 1  # nothing more was asked of the model
    kinds = [item["kind"] for item in history_of(path)]
    assert kinds.count("tool_call") == kinds.count("tool_result") == 2


def test_abort_at_a_pause_with_no_pending_call_tells_the_abort_hooks(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    options = [*run_arguments(server, project), f"--hooks={project}/review_hooks.py:review"]
    trusted = [o for o in options if "approval_hooks" not in o] + ["--trust-hooks"]
    paused = pod_command("run", PROMPT, *trusted, cwd=tmp_path)
    assert paused.returncode == 5, paused.stderr  # paused at the turn's end
    path = tmp_path / saved_path(paused.stderr)
    aborted = pod_command(
        "resume", str(path), "--abort", "--api-key=k", "--trust-hooks", cwd=tmp_path
    )
    assert aborted.returncode == 1, aborted.stderr
    assert "aborted: aborted by the user" in aborted.stderr
    assert (tmp_path / "aborts.log").read_text() == "aborted by the user\n"
    assert len(server.requests) == 2  # nothing more was asked of the model


def test_json_output_is_one_object_per_line_ending_with_the_result(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    done = pod_command(
        "run", PROMPT, *run_arguments(server, project, "no_pause"), "--json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    *trace, result = lines
    assert {line["type"] for line in trace} == {"trace"}
    assert [t["actor"] for t in trace if t["source"] == "hooks"][:3] == [
        "RUN_START",
        "PROMPT_SUBMIT",
        "PRE_LLM_REQUEST",
    ]
    assert [t["actor"] for t in trace if t["source"] == "hooks"][-2:] == ["OUTPUT", "RUN_END"]
    assert result == {
        "type": "result",
        "status": "finished",
        "exit_code": 0,
        "text": FINAL_TEXT,
        "reason": None,
        "pending_calls": [],
        "usage": {"input_tokens": 20, "output_tokens": 10},
        "requests": 2,
        "tool_calls": 2,
        "seconds": result["seconds"],
        "snapshot": None,
    }
    assert done.stderr == ""


def test_json_result_of_a_pause_names_the_snapshot(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), "--json", cwd=tmp_path)
    result = json.loads(paused.stdout.splitlines()[-1])
    assert result["status"] == "paused"
    assert result["exit_code"] == paused.returncode == 5
    assert [c["call_id"] for c in result["pending_calls"]] == ["call_paris", "call_tokyo"]
    assert (tmp_path / result["snapshot"]).is_file()


def test_bad_decisions_change_nothing(server: ReplayServer, project: Path, tmp_path: Path) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), cwd=tmp_path)
    path = tmp_path / saved_path(paused.stderr)
    before = path.read_text()
    refused = pod_command(
        "resume",
        str(path),
        "--approve=call_nope",
        "--approve=call_paris",
        "--skip=call_paris",
        "--api-key=k",
        cwd=tmp_path,
    )
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-2:] == [
        "pod resume: error: no pending tool call 'call_nope' "
        "(pending: call_paris get_weather, call_tokyo get_weather)",
        "pod resume: error: 'call_paris' is given two decisions",
    ]
    assert path.read_text() == before
    assert len(server.requests) == 1


def test_with_no_decision_and_no_terminal_the_hooks_are_asked_again(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), cwd=tmp_path)
    path = tmp_path / saved_path(paused.stderr)
    # The saved run resumed with hooks that no longer pause: it finishes.
    done = pod_command(
        "resume",
        str(path),
        f"--hooks={project / 'approval_hooks.py'}:no_pause",
        "--api-key=k",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == FINAL_TEXT + "\n"


def test_a_finished_run_saved_with_save_continues_with_a_new_prompt(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    path = tmp_path / "conversation.json"
    first = pod_command(
        "run", PROMPT, *run_arguments(server, project, "no_pause"), f"--save={path}", cwd=tmp_path
    )
    assert first.returncode == 0, first.stderr
    assert f"saved: {path}" in first.stderr
    # The saved Pod snapshot is the API's: PodSnapshot reads it as it is.
    snapshot = PodSnapshot.from_json(json.dumps(json.loads(path.read_text())["pod"]))
    assert len(snapshot.worker.history) == 7  # prompt, text, 2 calls, 2 results, answer

    refused = pod_command("resume", str(path), "--approve=call_paris", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-2:] == [
        "pod resume: error: the saved run is not paused: there is no call to decide",
        "pod resume: error: the saved run is not paused: give the next PROMPT",
    ]

    server.reply_json(chat_reply(text="Berlin is cloudy."))
    second = pod_command("resume", str(path), "And Berlin?", "--api-key=k", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout == "Berlin is cloudy.\n"
    history = history_of(path)
    assert [item.get("text") for item in history[-2:]] == ["And Berlin?", "Berlin is cloudy."]
    sent = server.requests[-1].body["messages"]  # the whole conversation was sent
    assert (sent[0]["content"], sent[-1]["content"]) == (PROMPT, "And Berlin?")
    assert [m["role"] for m in sent].count("tool") == 2


def test_resuming_with_other_tools_is_refused(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), cwd=tmp_path)
    path = tmp_path / saved_path(paused.stderr)
    (project / "other_tools.py").write_text(
        "from llm_worker import tool\n\n"
        "@tool\ndef get_time(city: str) -> str:\n    '''The time.'''\n    return '12:00'\n"
    )
    before = path.read_text()
    refused = pod_command(
        "resume",
        str(path),
        f"--tools={project / 'other_tools.py'}:get_time",
        "--approve=call_paris",
        "--api-key=k",
        cwd=tmp_path,
    )
    assert refused.returncode == 2
    last = refused.stderr.splitlines()[-1]
    assert last.startswith(f"pod resume: error: {path}: ")
    assert "get_time" in last
    assert path.read_text() == before
    assert len(server.requests) == 1


def replace_city(document: Any, old: str, new: str) -> None:
    """Change a pending call's arguments in the saved snapshot, history and run state alike
    (a consistent snapshot), leaving the saved pause, what the approver was shown, as it was."""
    worker = document["pod"]["worker"]
    for call in [
        *(item for item in worker["history"] if item["kind"] == "tool_call"),
        *(state["call"] for state in worker["state"]["batch"]["calls"]),
    ]:
        call["arguments"] = call["arguments"].replace(old, new)


def test_an_approval_is_bound_to_the_digest_of_the_call_that_was_shown(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), "--json", cwd=tmp_path)
    assert paused.returncode == 5, paused.stderr
    result = json.loads(paused.stdout.splitlines()[-1])
    digests = {c["call_id"]: c["digest"] for c in result["pending_calls"]}
    assert all(digest.startswith("jcs-sha256:") for digest in digests.values())
    path = tmp_path / saved_path(paused.stderr)
    saved_text = path.read_text()
    # The digests name the saved run: its snapshot is of the run the file names.
    document = json.loads(saved_text)
    assert document["pod"]["worker"]["run_id"] == document["run_id"]
    assert digests["call_paris"] == call_digest(
        run_id=document["run_id"],
        turn=0,
        call_id="call_paris",
        tool_name=result["pending_calls"][0]["tool_name"],
        arguments=result["pending_calls"][0]["arguments"],
    )
    # A snapshot of another run in the file: refused before anything is taken.
    document["pod"]["worker"]["run_id"] = "another-run"
    path.write_text(json.dumps(document))
    other_run = pod_command(
        "resume", str(path), "--approve=call_paris", "--api-key=k", cwd=tmp_path
    )
    assert other_run.returncode == 2, other_run.stderr
    assert (
        f"the snapshot is of run 'another-run', this Worker is run '{document['run_id']}'"
    ) in other_run.stderr
    path.write_text(saved_text)

    # A digest that is not the pending call's: refused with both, before anything is taken.
    wrong = "jcs-sha256:" + "0" * 64
    refused = pod_command(
        "resume", str(path), f"--approve=call_paris={wrong}", "--api-key=k", cwd=tmp_path
    )
    assert refused.returncode == 2, refused.stderr
    assert (
        f"'call_paris' not approved: the approval names digest {wrong}, the pending call's is "
        f"{digests['call_paris']}"
    ) in refused.stderr
    assert path.read_text() == saved_text  # not taken, not changed

    # The arguments changed after the approver saw them: refused with both digests.
    document = json.loads(saved_text)
    replace_city(document, "Paris", "Atlantis")
    path.write_text(json.dumps(document))
    changed = pod_command("resume", str(path), "--approve=call_paris", "--api-key=k", cwd=tmp_path)
    assert changed.returncode == 2, changed.stderr
    now = PodSnapshot.model_validate(document["pod"]).worker.pending_digests()["call_paris"]
    assert now != digests["call_paris"]
    assert (
        f"'call_paris' not approved: it was shown with digest {digests['call_paris']}, the "
        f"saved run's call is now {now}"
    ) in changed.stderr
    assert len(server.requests) == 1  # no tool ran, the model was not asked again

    # Named with the digest it was shown with, the call runs, once.
    path.write_text(saved_text)
    approved = pod_command(
        "resume",
        str(path),
        f"--approve=call_paris={digests['call_paris']}",
        "--approve=call_tokyo",
        "--api-key=k",
        cwd=tmp_path,
    )
    assert approved.returncode == 0, approved.stderr
    results = [i for i in history_of(path) if i["kind"] == "tool_result"]
    assert [(r["call_id"], r["is_error"]) for r in results] == [
        ("call_paris", False),
        ("call_tokyo", False),
    ]
    again = pod_command("resume", str(path), "--approve=call_paris", "--api-key=k", cwd=tmp_path)
    assert again.returncode == 2, again.stderr  # consumed: the saved run is not paused any more


def test_a_pause_saved_before_calls_had_digests_is_approved_as_the_file_shows_it(
    server: ReplayServer, project: Path, tmp_path: Path
) -> None:
    queue_weather_session(server)
    paused = pod_command("run", PROMPT, *run_arguments(server, project), cwd=tmp_path)
    assert paused.returncode == 5, paused.stderr
    path = tmp_path / saved_path(paused.stderr)
    document = json.loads(path.read_text())
    for call in document["paused"]["pending_calls"]:
        del call["digest"]  # as an earlier version wrote it
    path.write_text(json.dumps(document))

    approved = pod_command(
        "resume",
        str(path),
        "--approve=call_paris",
        "--skip=call_tokyo",
        "--api-key=k",
        cwd=tmp_path,
    )

    assert approved.returncode == 0, approved.stderr
    results = {i["call_id"]: i for i in history_of(path) if i["kind"] == "tool_result"}
    assert not results["call_paris"]["is_error"]
    assert results["call_tokyo"]["content"] == "tool call skipped: skipped by the user"
