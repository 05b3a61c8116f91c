"""``pod worker``'s settings: a bad value is one usage line (exit 2), before anything starts
(the app named is not even imported: it does not exist here); so is a Claude Code settings
file the worker's agents cannot run, once the app is loaded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pod.cli._main import main

BAD_OPTIONS = [
    (
        ["--heartbeat", "5", "--dead-after", "6"],
        "the dead-after time (6 s) must be at least twice the heartbeat interval (5 s): "
        "one late beat is not a death",
    ),
    (["--heartbeat", "0"], "--heartbeat: Input should be greater than 0"),
    (["--dead-after", "inf"], "--dead-after: Input should be a finite number"),
    (["--executor-id="], "--executor-id: String should have at least 1 character"),
    (["--concurrency", "0"], "--concurrency: Input should be greater than or equal to 1"),
    (["--claude-settings", "no_such.json"], "--claude-settings no_such.json: no such file"),
    (["--claude-plugin", "no_such_dir"], "--claude-plugin no_such_dir: no such folder"),
    (
        ["--toolset", "workspace"],
        "--toolset goes with --claude-settings or --claude-plugin (without them the agents "
        "run with their own tools only)",
    ),
]


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS)
def test_a_bad_worker_setting_is_one_usage_line(
    options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["worker", "--app", "no_such_module:agent", "--database", "postgresql://nowhere/db"]
    assert main([*argv, *options]) == 2
    assert capsys.readouterr() == ("", f"error: {message}\n")


def test_a_refused_settings_file_is_one_usage_line_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = tmp_path / "settings.json"
    hook = {"type": "agent", "prompt": "check"}
    settings.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}))
    argv = ["worker", "--app", "tests.durable.app:claude_agent", "--database", "sqlite:///x"]
    assert main([*argv, f"--claude-settings={settings}", f"--workdir={tmp_path}"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"error: --claude-settings {settings}: {settings}: hooks.Stop[0]")
    assert err.count("\n") == 1
    assert 'an "agent" hook cannot run here' in err
