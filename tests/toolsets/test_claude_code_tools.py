"""The ``claude-code`` toolset: each tool does what Claude Code's does with the same
arguments, and none of them reaches outside the workspace."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue

from llm_worker import Continue, Skip, Tool, ToolArgumentsError, ToolCall, ToolCallSummary
from llm_worker._tool_runner import ToolRunner
from pod import PermissionHook, PermissionRule
from pod.toolsets import CLAUDE_CODE_TOOL_NAMES, ToolError, claude_code_tools, tool_response


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """``tmp/ws`` (the workspace) beside ``tmp/outside`` (a secret), with symlinks out."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET\n")
    (workspace / "src" / "app.py").write_text("import os\n\nx = 1\ny = 2\nx = 3\n")
    (workspace / "notes.md").write_text("# Notes\nX marks the spot\n")
    (workspace / "link_out").symlink_to(outside)
    (workspace / "secret_link.txt").symlink_to(outside / "secret.txt")
    return workspace.resolve()


def tools_of(root: Path, **options: Any) -> dict[str, Tool]:
    return {tool.name: tool for tool in claude_code_tools(root, **options)}


def call(tools: dict[str, Tool], name: str, **arguments: JsonValue) -> str:
    return asyncio.run(tools[name].call(dict(arguments)))


def refused(tools: dict[str, Tool], name: str, **arguments: JsonValue) -> str:
    with pytest.raises((ToolError, PermissionError)) as caught:
        call(tools, name, **arguments)
    return str(caught.value)


def test_the_toolset_is_claude_codes_six_tools_with_its_parameter_names(root: Path) -> None:
    tools = tools_of(root)
    assert tuple(tools) == CLAUDE_CODE_TOOL_NAMES
    properties = {name: set(tool.parameters["properties"]) for name, tool in tools.items()}  # type: ignore[arg-type]
    assert properties["Bash"] == {"command", "timeout", "description"}
    assert properties["Read"] == {"file_path", "offset", "limit"}
    assert properties["Write"] == {"file_path", "content"}
    assert properties["Edit"] == {"file_path", "old_string", "new_string", "replace_all"}
    assert properties["Glob"] == {"pattern", "path"}
    assert {"pattern", "path", "glob", "output_mode", "-i", "-n", "-A", "-B", "-C"} <= properties[
        "Grep"
    ]


# -- Read -------------------------------------------------------------------------------


def test_read_numbers_lines_as_cat_n_from_offset_for_limit_lines(root: Path) -> None:
    tools = tools_of(root)
    assert call(tools, "Read", file_path="src/app.py") == (
        "     1\timport os\n     2\t\n     3\tx = 1\n     4\ty = 2\n     5\tx = 3"
    )
    assert call(tools, "Read", file_path="src/app.py", offset=3, limit=2) == (
        "     3\tx = 1\n     4\ty = 2"
    )


def test_read_says_when_a_file_is_empty_or_shorter_than_the_offset(root: Path) -> None:
    (root / "empty.txt").write_text("")
    tools = tools_of(root)
    assert "the contents are empty" in call(tools, "Read", file_path="empty.txt")
    assert "The file has 5 lines" in call(tools, "Read", file_path="src/app.py", offset=9)


def test_read_refuses_a_missing_file_a_folder_and_a_binary_file(root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")
    tools = tools_of(root)
    assert "File does not exist" in refused(tools, "Read", file_path="nope.txt")
    assert "is a directory" in refused(tools, "Read", file_path="src")
    assert "binary file" in refused(tools, "Read", file_path="blob.bin")


def test_read_cuts_long_lines_at_2000_characters(root: Path) -> None:
    (root / "wide.txt").write_text("a" * 5000 + "\n")
    text = call(tools_of(root), "Read", file_path="wide.txt")
    assert text == "     1\t" + "a" * 2000


# -- Write and Edit ---------------------------------------------------------------------


def test_write_creates_a_file_and_its_folders(root: Path) -> None:
    tools = tools_of(root)
    text = call(tools, "Write", file_path="new/deep/file.txt", content="hello\n")
    assert (root / "new" / "deep" / "file.txt").read_text() == "hello\n"
    assert text == f"File created successfully at: {root / 'new' / 'deep' / 'file.txt'}"


def test_write_and_edit_refuse_an_existing_file_not_read_first(root: Path) -> None:
    tools = tools_of(root)
    assert "has not been read yet" in refused(tools, "Write", file_path="notes.md", content="x")
    assert "has not been read yet" in refused(
        tools, "Edit", file_path="notes.md", old_string="X", new_string="Y"
    )
    assert (root / "notes.md").read_text() == "# Notes\nX marks the spot\n"
    call(tools, "Read", file_path="notes.md")
    call(tools, "Write", file_path="notes.md", content="rewritten\n")
    assert (root / "notes.md").read_text() == "rewritten\n"


def test_write_refuses_a_file_changed_since_it_was_read(root: Path) -> None:
    tools = tools_of(root)
    call(tools, "Read", file_path="notes.md")
    path = root / "notes.md"
    path.write_text("changed by someone else\n")
    os.utime(path, ns=(1, 1))  # a different modification time, whatever the clock's grain
    assert "modified since read" in refused(tools, "Write", file_path="notes.md", content="x")
    assert path.read_text() == "changed by someone else\n"


def test_edit_replaces_a_unique_string(root: Path) -> None:
    tools = tools_of(root)
    call(tools, "Read", file_path="src/app.py")
    text = call(tools, "Edit", file_path="src/app.py", old_string="y = 2", new_string="y = 20")
    assert text == f"The file {root / 'src' / 'app.py'} has been updated."
    assert (root / "src" / "app.py").read_text() == "import os\n\nx = 1\ny = 20\nx = 3\n"


def test_edit_refuses_a_non_unique_string_unless_replace_all(root: Path) -> None:
    tools = tools_of(root)
    call(tools, "Read", file_path="src/app.py")
    message = refused(tools, "Edit", file_path="src/app.py", old_string="x = ", new_string="z = ")
    assert message.startswith("Found 2 matches of the string to replace, but replace_all is false")
    assert (root / "src" / "app.py").read_text() == "import os\n\nx = 1\ny = 2\nx = 3\n"
    call(
        tools,
        "Edit",
        file_path="src/app.py",
        old_string="x = ",
        new_string="z = ",
        replace_all=True,
    )
    assert (root / "src" / "app.py").read_text() == "import os\n\nz = 1\ny = 2\nz = 3\n"


def test_edit_refuses_a_missing_string_and_a_change_to_nothing(root: Path) -> None:
    tools = tools_of(root)
    call(tools, "Read", file_path="src/app.py")
    assert refused(
        tools, "Edit", file_path="src/app.py", old_string="w = 9", new_string="w = 0"
    ).startswith("String to replace not found in file.")
    assert "No changes to make" in refused(
        tools, "Edit", file_path="src/app.py", old_string="x = 1", new_string="x = 1"
    )
    assert (root / "src" / "app.py").read_text() == "import os\n\nx = 1\ny = 2\nx = 3\n"


def test_edit_with_an_empty_old_string_creates_a_new_file_only(root: Path) -> None:
    tools = tools_of(root)
    call(tools, "Edit", file_path="fresh.txt", old_string="", new_string="new\n")
    assert (root / "fresh.txt").read_text() == "new\n"
    assert "already exists" in refused(
        tools, "Edit", file_path="notes.md", old_string="", new_string="x"
    )


# -- confinement ------------------------------------------------------------------------

OUTSIDE_CALLS = [
    ("Read", {"file_path": "../outside/secret.txt"}),
    ("Read", "ABSOLUTE"),
    ("Read", {"file_path": "secret_link.txt"}),
    ("Read", {"file_path": "link_out/secret.txt"}),
    ("Write", {"file_path": "../outside/new.txt", "content": "x"}),
    ("Write", {"file_path": "link_out/new.txt", "content": "x"}),
    ("Edit", {"file_path": "link_out/secret.txt", "old_string": "TOP", "new_string": "NO"}),
    ("Edit", {"file_path": "../outside/made.txt", "old_string": "", "new_string": "x"}),
    ("Glob", {"pattern": "*", "path": "link_out"}),
    ("Glob", {"pattern": "*", "path": ".."}),
    ("Grep", {"pattern": "SECRET", "path": "link_out"}),
    ("Grep", {"pattern": "SECRET", "path": "secret_link.txt"}),
    ("Grep", {"pattern": "SECRET", "path": "../outside"}),
]


@pytest.mark.parametrize(("name", "arguments"), OUTSIDE_CALLS)
def test_no_tool_reaches_outside_the_workspace(
    root: Path, name: str, arguments: dict[str, JsonValue] | str
) -> None:
    if arguments == "ABSOLUTE":
        arguments = {"file_path": str(root.parent / "outside" / "secret.txt")}
    assert isinstance(arguments, dict)
    message = refused(tools_of(root), name, **arguments)
    assert "outside the workspace" in message
    assert sorted(p.name for p in (root.parent / "outside").iterdir()) == ["secret.txt"]
    assert (root.parent / "outside" / "secret.txt").read_text() == "TOP SECRET\n"


def test_an_absolute_path_inside_the_workspace_is_fine(root: Path) -> None:
    text = call(tools_of(root), "Read", file_path=str(root / "notes.md"))
    assert "X marks the spot" in text


def test_glob_and_grep_skip_what_a_symlink_leads_out_to(root: Path) -> None:
    tools = tools_of(root)
    listed = call(tools, "Glob", pattern="**/*")
    assert "secret" not in listed
    assert call(tools, "Grep", pattern="SECRET") == "No files found"
    assert call(tools, "Grep", pattern="SECRET", glob="*.txt") == "No files found"


# -- Glob -------------------------------------------------------------------------------


def test_glob_lists_matching_files_newest_first(root: Path) -> None:
    (root / "src" / "b.ts").write_text("")
    (root / "src" / "c.tsx").write_text("")
    os.utime(root / "src" / "b.ts", (1_000, 1_000))
    os.utime(root / "src" / "c.tsx", (2_000, 2_000))
    tools = tools_of(root)
    assert call(tools, "Glob", pattern="**/*.{ts,tsx}") == (
        f"{root / 'src' / 'c.tsx'}\n{root / 'src' / 'b.ts'}"
    )
    assert call(tools, "Glob", pattern="*.py", path="src") == str(root / "src" / "app.py")
    assert call(tools, "Glob", pattern="**/*.rs") == "No files found"


# -- Grep -------------------------------------------------------------------------------


def test_grep_lists_files_by_default_and_shows_lines_in_content_mode(root: Path) -> None:
    tools = tools_of(root)
    app = root / "src" / "app.py"
    assert call(tools, "Grep", pattern=r"x = \d") == f"Found 1 file\n{app}"
    assert call(tools, "Grep", pattern=r"y = 2", output_mode="content", **{"-B": 1}) == (
        f"{app}-3-x = 1\n{app}:4:y = 2"
    )
    assert call(tools, "Grep", pattern="x =", output_mode="content", **{"-n": False}) == (
        f"{app}:x = 1\n--\n{app}:x = 3"
    )
    assert call(tools, "Grep", pattern="x =", output_mode="count") == (
        f"{app}:2\n\nFound 2 total occurrences across 1 file."
    )


def test_grep_filters_by_glob_type_and_case(root: Path) -> None:
    tools = tools_of(root)
    notes = root / "notes.md"
    assert call(tools, "Grep", pattern="x marks", **{"-i": True}) == f"Found 1 file\n{notes}"
    assert call(tools, "Grep", pattern="x marks") == "No files found"
    assert call(tools, "Grep", pattern="X|x", glob="*.md") == f"Found 1 file\n{notes}"
    assert call(tools, "Grep", pattern="X|x", type="py") == f"Found 1 file\n{root / 'src/app.py'}"
    assert "unknown file type" in refused(tools, "Grep", pattern="x", type="cobol")
    assert "invalid regular expression" in refused(tools, "Grep", pattern="(")


def test_grep_skips_hidden_files_unless_the_path_names_them(root: Path) -> None:
    (root / ".env").write_text("API_KEY=hunter2\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("API_KEY in git\n")
    tools = tools_of(root)
    assert call(tools, "Grep", pattern="API_KEY") == "No files found"
    assert call(tools, "Grep", pattern="API_KEY", path=".env") == f"Found 1 file\n{root / '.env'}"


def test_grep_head_limit_bounds_the_entries(root: Path) -> None:
    for number in range(5):
        (root / f"f{number}.txt").write_text("needle\n")
    tools = tools_of(root)
    text = call(tools, "Grep", pattern="needle", head_limit=2)
    assert text.splitlines()[0] == "Found 2 files"
    assert len(text.splitlines()) == 3


# -- Bash -------------------------------------------------------------------------------


def test_bash_runs_a_real_shell_in_the_workspace(root: Path) -> None:
    tools = tools_of(root)
    assert call(tools, "Bash", command="pwd; ls src | wc -l") == f"{root}\n1"
    assert call(tools, "Bash", command="echo out; echo err >&2; exit 3") == (
        "out\nerr\nExit code 3"
    )
    assert call(tools, "Bash", command="true") == "(no output)"


def _gone(pid: int) -> bool:
    """The process ends (is gone, or a zombie waiting for its reaper) once its SIGKILL is
    delivered: the kernel ends it asynchronously, so this waits for it, up to 10 s (a bound
    on a hang, not a measure of speed)."""
    for _ in range(500):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            return True
        if "State:\tZ" in status:
            return True
        time.sleep(0.02)
    return False


def test_bash_timeout_kills_the_whole_process_group(root: Path) -> None:
    tools = tools_of(root)
    text = call(tools, "Bash", command="sleep 60 & echo $! > child.pid; wait", timeout=300)
    assert "Command timed out after 300 ms" in text
    assert _gone(int((root / "child.pid").read_text()))


def test_bash_leaves_nothing_running_behind(root: Path) -> None:
    tools = tools_of(root)
    assert call(tools, "Bash", command="sleep 60 & echo $! > child.pid; echo started") == "started"
    assert _gone(int((root / "child.pid").read_text()))


def test_bash_output_is_bounded(root: Path) -> None:
    tools = tools_of(root, max_output_chars=1000)
    text = call(tools, "Bash", command="head -c 200000 /dev/zero | tr '\\0' a")
    assert text.startswith("a" * 1000 + "\n... [")
    assert "199000 more characters of stdout cut" in text
    assert len(text) < 1100


def test_bash_refuses_a_timeout_past_ten_minutes_and_unknown_parameters(root: Path) -> None:
    tools = tools_of(root)
    with pytest.raises(ToolArgumentsError, match="timeout"):
        call(tools, "Bash", command="true", timeout=600_001)
    with pytest.raises(ToolArgumentsError, match="run_in_background"):
        call(tools, "Bash", command="true", run_in_background=True)


# -- the structured tool_response -------------------------------------------------------


def test_each_tool_records_claude_codes_tool_response_for_its_call(root: Path) -> None:
    tools = tools_of(root)
    runner = ToolRunner(tools, timeout=None)

    def run(call_id: str, name: str, **arguments: JsonValue) -> dict[str, JsonValue] | None:
        result = asyncio.run(
            runner.run(ToolCall(call_id=call_id, name=name, arguments=json.dumps(arguments)))
        )
        assert not result.is_error, result.content
        return tool_response(call_id, name)

    read = run("t1", "Read", file_path="notes.md")
    assert read == {
        "type": "text",
        "file": {
            "filePath": str(root / "notes.md"),
            "content": "# Notes\nX marks the spot",
            "numLines": 2,
            "startLine": 1,
            "totalLines": 2,
        },
    }
    edit = run("t2", "Edit", file_path="notes.md", old_string="X", new_string="Y")
    assert edit is not None
    assert edit["filePath"] == str(root / "notes.md")
    assert edit["structuredPatch"] == [
        {
            "oldStart": 1,
            "oldLines": 2,
            "newStart": 1,
            "newLines": 2,
            "lines": [" # Notes", "-X marks the spot", "+Y marks the spot"],
        }
    ]
    write = run("t3", "Write", file_path="new.txt", content="n\n")
    assert write is not None
    assert (write["type"], write["originalFile"]) == ("create", None)
    bash = run("t4", "Bash", command="echo hi")
    assert bash == {"stdout": "hi\n", "stderr": "", "interrupted": False, "isImage": False}
    glob = run("t5", "Glob", pattern="*.md")
    assert glob is not None
    assert (glob["numFiles"], glob["filenames"]) == (1, [str(root / "notes.md")])
    grep = run("t6", "Grep", pattern="marks")
    assert grep == {
        "mode": "files_with_matches",
        "numFiles": 1,
        "filenames": [str(root / "notes.md")],
    }
    assert tool_response("t6", "Read") is None  # another tool's call of that id: nothing


def test_bash_keeps_nothing_between_calls_and_has_pods_environment(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POD_TOOLSET_PROBE", "seen")
    tools = tools_of(root)
    assert call(tools, "Bash", command="cd src; X=1; pwd") == str(root / "src")
    assert call(tools, "Bash", command='pwd; echo "${X:-unset} $POD_TOOLSET_PROBE"') == (
        f"{root}\nunset seen"
    )
    assert call(tools, "Bash", command="cat") == "(no output)"  # stdin is closed, not waited on


def test_read_refuses_more_than_its_character_cap_and_reads_a_part(root: Path) -> None:
    (root / "big.txt").write_text(("b" * 1000 + "\n") * 300)
    tools = tools_of(root)
    assert "read a part with offset and limit" in refused(tools, "Read", file_path="big.txt")
    assert len(call(tools, "Read", file_path="big.txt", limit=10).splitlines()) == 10


def test_glob_lists_at_most_100_files_and_says_it_cut(root: Path) -> None:
    for number in range(101):
        (root / f"n{number:03}.log").write_text("")
    text = call(tools_of(root), "Glob", pattern="*.log")
    assert len(text.splitlines()) == 101  # 100 paths and the note
    assert text.endswith("(Results are truncated. Consider using a more specific path or pattern.)")


def test_grep_cuts_long_lines_and_bounds_its_text(root: Path) -> None:
    (root / "long.txt").write_text("needle" + "n" * 1000 + "\n")
    text = call(tools_of(root), "Grep", pattern="needle", output_mode="content")
    assert text == f"{root / 'long.txt'}:1:needle" + "n" * 494 + " [...]"
    for number in range(100):
        (root / f"many{number}.txt").write_text(("needle " * 60 + "\n") * 10)
    bounded = call(tools_of(root), "Grep", pattern="needle", output_mode="content", head_limit=0)
    assert len(bounded) < 30_100
    assert bounded.endswith("characters cut; narrow the search]")


def test_permission_rules_govern_the_tools_by_name_and_bash_command(root: Path) -> None:
    rules = [
        PermissionRule(action="deny", tool="Bash", command_prefix="rm", reason="no deleting"),
        PermissionRule(action="allow", tool="*"),
    ]
    permissions = PermissionHook(rules, workspace=root)
    permissions.check_tools(claude_code_tools(root))  # Bash has the command argument

    assert decide_with(permissions, "Bash", command="rm -rf src") == Skip(reason="no deleting")
    assert decide_with(permissions, "Bash", command="ls") == Continue()
    # The path condition reads Read, Write and Edit's file_path as it reads Grep's path,
    # resolved as the tools resolve it: a symlink or ".." does not hide a denied name.
    (root / ".env").write_text("SECRET\n")
    (root / "innocent").symlink_to(root / ".env")
    by_path = PermissionHook(
        [PermissionRule(action="deny", tool="*", path=".env", reason="no secrets")],
        default="allow",
        workspace=root,
    )
    by_path.check_tools(claude_code_tools(root))
    denied = Skip(reason="no secrets")
    assert decide_with(by_path, "Read", file_path=".env") == denied
    assert decide_with(by_path, "Read", file_path=str(root / ".env")) == denied
    assert decide_with(by_path, "Read", file_path="src/../.env") == denied
    assert decide_with(by_path, "Read", file_path="innocent") == denied
    assert decide_with(by_path, "Edit", file_path=".env", old_string="S", new_string="") == denied
    assert decide_with(by_path, "Grep", pattern="S", path=".env") == denied
    assert decide_with(by_path, "Read", file_path="notes.md") == Continue()
    # An allow rule on a path allows only a call whose every path argument matches.
    only_docs = PermissionHook(
        [PermissionRule(action="allow", tool="*", path="src/*")], default="deny", workspace=root
    )
    assert decide_with(only_docs, "Read", file_path="src/app.py") == Continue()
    assert decide_with(only_docs, "Read", file_path="notes.md") != Continue()
    assert decide_with(only_docs, "Bash", command="cat notes.md") != Continue()  # no path


def decide_with(permissions: PermissionHook, name: str, **arguments: JsonValue) -> object:
    summary = ToolCallSummary(call_id="c", tool_name=name, arguments=json.dumps(arguments), turn=0)
    return permissions(summary)


def test_a_cancelled_bash_call_kills_its_process_group(root: Path) -> None:
    """The Pod's tool timeout, or Ctrl-C, cancels the call: its processes end with it."""
    tools = tools_of(root)
    pid_file = root / "child.pid"

    async def cancel_once_started() -> None:
        task = asyncio.create_task(
            tools["Bash"].call({"command": "sleep 60 & echo $! > child.pid; wait"})
        )
        for _ in range(500):  # until the command has started its child (at most 10 s)
            if pid_file.exists() and pid_file.read_text().strip():
                break
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_once_started())
    assert _gone(int(pid_file.read_text()))
