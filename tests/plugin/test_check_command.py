"""``python -m pod_mypy check``: the boundary report, its exit codes, and what cannot
silence it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pod_mypy import __version__

HOOKS = """\
from pod import Continue, HookRegistry, PreToolDecision, ToolCallSummary, events

registry = HookRegistry()


@registry.on(events.PRE_TOOL_CALL)
def peeks(call: ToolCallSummary) -> PreToolDecision:
    print(call.__class__)  # type: ignore[hook-escape]
    return Continue()


@registry.on(events.PRE_TOOL_CALL)
def fine(call: ToolCallSummary) -> PreToolDecision:
    return Continue()
"""
IGNORED = "# mypy: ignore-errors\n" + HOOKS.replace("  # type: ignore[hook-escape]", "")


def _check(project: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pod_mypy", *arguments],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


def test_findings_are_reported_whatever_the_ignore_comments_say(tmp_path: Path) -> None:
    (tmp_path / "hooks.py").write_text(HOOKS)
    (tmp_path / "ignored.py").write_text(IGNORED)

    done = _check(tmp_path, "check", "--json", "hooks.py", "ignored.py")

    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["version"] == __version__
    hooks = {(entry["path"], entry["hook"]): entry for entry in report["hooks"]}
    # The verdict is the module's: a hook module with a finding verifies none of its hooks.
    assert hooks["hooks.py", "fine"]["status"] == "unverifiable"
    assert hooks["hooks.py", "fine"]["event"] == "PRE_TOOL_CALL"
    assert hooks["hooks.py", "peeks"]["status"] == "unverifiable"
    assert hooks["ignored.py", "fine"]["status"] == "unverifiable"
    findings = [(f["path"], f["line"], f["code"]) for f in report["findings"]]
    assert ("hooks.py", 8, "hook-escape") in findings  # despite its # type: ignore
    assert ("hooks.py", 1, "hook-escape") in findings  # the ignore itself
    assert any(path == "ignored.py" for path, _, _ in findings)


def test_a_clean_project_prints_the_report_and_exits_0(tmp_path: Path) -> None:
    clean = HOOKS.replace("    print(call.__class__)  # type: ignore[hook-escape]\n", "")
    (tmp_path / "hooks.py").write_text(clean)

    done = _check(tmp_path, "check", "hooks.py")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "hooks.py:7  PRE_TOOL_CALL  peeks  verified" in done.stdout
    assert "hooks.py:12  PRE_TOOL_CALL  fine  verified" in done.stdout
    assert done.stdout.rstrip().endswith("2 hooks (2 verified); 0 findings")


def test_usage_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    missing = _check(tmp_path, "check", "nowhere.py")
    no_command = _check(tmp_path)

    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr == "pod_mypy: error: no such file or directory: nowhere.py\n"
    assert no_command.returncode == 2
    assert len(no_command.stderr.splitlines()) == 1


def test_version(tmp_path: Path) -> None:
    done = _check(tmp_path, "--version")
    assert (done.returncode, done.stdout) == (0, f"pod_mypy {__version__}\n")


DECLARED = """\
from pod import Continue, Hook, HookRegistry, PreToolDecision, ToolCallSummary, events, hook

registry = HookRegistry()


@hook(events.PRE_TOOL_CALL)
def declared(call: ToolCallSummary) -> PreToolDecision:
    return Continue()


class Guard(Hook[ToolCallSummary, PreToolDecision]):
    def __call__(self, call: ToolCallSummary) -> PreToolDecision:
        return Continue()


registry.on(events.PRE_TOOL_CALL, declared)
registry.on(events.PRE_TOOL_CALL, Guard())
"""


def test_each_registration_is_listed_once(tmp_path: Path) -> None:
    # mypy tries registry.on's overload items one by one, running the plugin for each.
    (tmp_path / "hooks.py").write_text(DECLARED)

    done = _check(tmp_path, "check", "--json", "hooks.py")

    assert done.returncode == 0, done.stdout + done.stderr
    listed = [(entry["line"], entry["hook"]) for entry in json.loads(done.stdout)["hooks"]]
    assert sorted(listed) == [(7, "declared"), (11, "Guard"), (16, "declared"), (17, "Guard")]


def test_the_report_lists_the_grants_and_every_hook_module(tmp_path: Path) -> None:
    # A reviewer reads every grant of the configuration and every hook module in one place.
    (tmp_path / "hooks.py").write_text(HOOKS)
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nstrict = true\n\n[pod_mypy]\ncapabilities = acme.audit.record\n"
        "host_modules = app.main\n"
    )

    done = _check(tmp_path, "check", "--config-file", "mypy.ini", "hooks.py")

    assert done.returncode == 1, done.stderr
    assert "  capabilities: acme.audit.record\n" in done.stdout
    assert "  host_modules: app.main\n" in done.stdout
    assert "  hook_modules: (none)\n" in done.stdout
    assert "  hooks.py  hooks  2 finding(s)\n" in done.stdout
    listed = json.loads(
        _check(tmp_path, "check", "--json", "--config-file", "mypy.ini", "hooks.py").stdout
    )
    assert listed["grants"]["capabilities"] == ["acme.audit.record"]
    assert listed["hook_modules"] == [{"path": "hooks.py", "module": "hooks", "findings": 2}]


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path: Path) -> None:
    reader = subprocess.Popen(
        [sys.executable, "-m", "pod_mypy", "database", "--json"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None
    assert reader.stdout.read(10) == b'{\n  "diges'
    reader.stdout.close()  # as `| head -c 10` does
    _, stderr = reader.communicate(timeout=60)

    assert (reader.returncode, stderr) == (141, b"")
