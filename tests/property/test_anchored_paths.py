"""Permission paths are anchored in the workspace: over generated paths (``..``, ``.``,
absolute paths, symlinks in and out), a relative ``allow`` glob only ever allows a path that the
workspace tools would open inside the workspace, and a ``deny`` glob cannot be dodged by a
symlink or by ``..``."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pod import Continue, PermissionHook, PermissionRule, ToolCallSummary
from pod.toolsets import workspace_tools

SEGMENTS = ["docs", "a.md", "b.txt", "..", ".", "", "link_out", "link_in", "outside", "s.md"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``root/ws`` (the workspace) and ``root/outside``, with symlinks both ways."""
    root = tmp_path_factory.mktemp("anchored").resolve()
    workspace, outside = root / "ws", root / "outside"
    (workspace / "docs").mkdir(parents=True)
    outside.mkdir()
    (workspace / "docs" / "a.md").write_text("inside")
    (workspace / "b.txt").write_text("inside")
    (outside / "s.md").write_text("secret")
    (workspace / "link_out").symlink_to(outside)  # a folder outside, reached from inside
    (workspace / "link_in").symlink_to(workspace / "docs")
    (workspace / "s.md").symlink_to(outside / "s.md")  # a file that points out
    return workspace, outside


paths = st.one_of(
    st.lists(st.sampled_from(SEGMENTS), max_size=6).map("/".join),
    st.lists(st.sampled_from(SEGMENTS), max_size=4).map(lambda parts: "/" + "/".join(parts)),
)


def call(path: str) -> ToolCallSummary:
    return ToolCallSummary(
        call_id="c", tool_name="read_file", arguments=json.dumps({"path": path}), turn=0
    )


def resolved_inside(workspace: Path, path: str) -> str | None:
    """Where the path lands, relative to the workspace, or ``None`` if outside (the oracle,
    computed with os.path rather than pathlib)."""
    target = os.path.realpath(os.path.join(workspace, path))
    if os.path.commonpath([target, str(workspace)]) != str(workspace):
        return None
    return os.path.relpath(target, workspace)


def allowed(hook: PermissionHook, path: str) -> bool:
    return hook(call(path)) == Continue()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=paths, glob=st.sampled_from(["*", "*.md", "docs/*", "docs/*.md", "*.txt"]))
def test_a_relative_allow_glob_allows_only_what_resolves_inside(
    tree: tuple[Path, Path], path: str, glob: str
) -> None:
    workspace, _ = tree
    hook = PermissionHook([PermissionRule(action="allow", path=glob)], workspace=workspace)
    where = resolved_inside(workspace, path)
    expected = where is not None and fnmatch.fnmatchcase(where, glob)
    assert allowed(hook, path) == expected, (path, where)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=paths)
def test_an_allowed_path_is_one_the_workspace_tool_opens_inside(
    tree: tuple[Path, Path], path: str
) -> None:
    workspace, _ = tree
    hook = PermissionHook([PermissionRule(action="allow", path="*")], workspace=workspace)
    if allowed(hook, path):
        read_file = workspace_tools(workspace)[0]
        try:
            asyncio.run(read_file.call({"path": path}))
        except PermissionError as exc:  # pragma: no cover  # the property failing
            raise AssertionError(f"allowed {path!r}, which the tool refuses: {exc}") from exc
        except (IsADirectoryError, FileNotFoundError, NotADirectoryError):
            pass  # inside the workspace: the tool tried to open it


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=paths)
def test_only_an_absolute_glob_allows_a_path_outside(tree: tuple[Path, Path], path: str) -> None:
    workspace, outside = tree
    absolute = PermissionHook(
        [PermissionRule(action="allow", path=f"{outside}/*")], workspace=workspace
    )
    target = os.path.realpath(os.path.join(workspace, path))
    assert allowed(absolute, path) == fnmatch.fnmatchcase(target, f"{outside}/*")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=paths)
def test_a_deny_glob_catches_the_name_written_and_the_file_reached(
    tree: tuple[Path, Path], path: str
) -> None:
    workspace, _ = tree
    hook = PermissionHook(
        [PermissionRule(action="deny", path="*.md")], default="allow", workspace=workspace
    )
    where = resolved_inside(workspace, path)
    written = os.path.relpath(os.path.normpath(os.path.join(workspace, path)), workspace)
    reaches_md = where is not None and where.endswith(".md")
    if reaches_md or written.endswith(".md"):
        assert not allowed(hook, path), path


def test_the_documented_escapes_are_closed(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    markdown = PermissionHook([PermissionRule(action="allow", path="*.md")], workspace=workspace)
    assert allowed(markdown, "docs/a.md")
    assert allowed(markdown, "link_in/a.md")  # a symlink that stays inside
    assert not allowed(markdown, "../../etc/passwd.md")  # the example
    assert not allowed(markdown, "s.md")  # a symlink out of the workspace
    assert not allowed(markdown, "link_out/s.md")
    assert not allowed(markdown, f"{outside}/s.md")
    assert not allowed(markdown, "docs/a.md\x00")  # cannot be resolved: never allowed
    secrets = PermissionHook(
        [PermissionRule(action="deny", path="outside/*")], default="allow", workspace=workspace
    )
    assert not allowed(secrets, "outside/s.md")  # as written, though no such folder inside
    absolute = PermissionHook(
        [PermissionRule(action="deny", path=f"{outside}/*")], default="allow", workspace=workspace
    )
    assert not allowed(absolute, "link_out/s.md")  # the file reached
    assert not allowed(absolute, "s.md")
