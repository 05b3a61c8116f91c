"""The toolsets ``pod run --toolset`` chooses from, each confined to one workspace folder.

- ``claude-code``: ``Bash``, ``Read``, ``Write``, ``Edit``, ``Glob``, ``Grep``, with Claude
  Code's names and parameters, so that Claude Code hook scripts (which match those names and
  read ``tool_input.file_path``, ``tool_input.command``, ...) see every call;
- ``workspace``: the read-only ``read_file`` and ``list_files``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal, TypeAlias

from llm_worker import FunctionTool, Tool, tool

from ._bash import DEFAULT_TIMEOUT_MS, MAX_OUTPUT_CHARS, BashTool
from ._files import EditTool, ReadFiles, ReadTool, WriteTool
from ._search import GlobTool, GrepTool
from ._workspace import Workspace

__all__ = [
    "CLAUDE_CODE_TOOL_NAMES",
    "TOOLSETS",
    "ToolsetName",
    "chosen_toolset",
    "claude_code_tools",
    "toolset",
    "workspace_tools",
]

ToolsetName: TypeAlias = Literal["workspace", "claude-code"]
TOOLSETS: Final[tuple[ToolsetName, ...]] = ("workspace", "claude-code")
CLAUDE_CODE_TOOL_NAMES: Final = ("Bash", "Read", "Write", "Edit", "Glob", "Grep")

_MAX_LISTED = 200


def claude_code_tools(
    root: Path | str,
    *,
    bash_timeout_ms: int = DEFAULT_TIMEOUT_MS,
    max_output_chars: int = MAX_OUTPUT_CHARS,
) -> list[Tool]:
    """``Bash``, ``Read``, ``Write``, ``Edit``, ``Glob`` and ``Grep``, confined to ``root``.

    ``Write`` and ``Edit`` change an existing file only after ``Read`` read it through the
    same list (each call of this function starts with no file read).
    """
    workspace = Workspace(root)
    read_files = ReadFiles()
    return [
        BashTool(workspace, default_timeout_ms=bash_timeout_ms, max_output_chars=max_output_chars),
        ReadTool(workspace, read_files),
        WriteTool(workspace, read_files),
        EditTool(workspace, read_files),
        GlobTool(workspace),
        GrepTool(workspace),
    ]


def workspace_tools(root: Path | str) -> list[FunctionTool]:
    """``read_file`` and ``list_files``, read-only, confined to ``root``."""
    workspace = Workspace(root)

    @tool
    def read_file(path: str) -> str:
        """Read a UTF-8 text file of the workspace (path relative to the workspace)."""
        return workspace.resolve(path).read_text(encoding="utf-8", errors="replace")

    @tool
    def list_files(path: str = ".") -> str:
        """List a folder of the workspace, one entry per line (folders end with /)."""
        folder = workspace.resolve(path)
        entries = sorted(folder.iterdir(), key=lambda entry: entry.name)
        lines = [entry.name + ("/" if entry.is_dir() else "") for entry in entries[:_MAX_LISTED]]
        if len(entries) > _MAX_LISTED:
            lines.append(f"... and {len(entries) - _MAX_LISTED} more")
        return "\n".join(lines) or "(empty folder)"

    return [read_file, list_files]


def toolset(name: ToolsetName, root: Path | str) -> list[Tool]:
    """The tools of the toolset ``name``, confined to ``root``."""
    if name == "claude-code":
        return claude_code_tools(root)
    return list(workspace_tools(root))


def chosen_toolset(name: ToolsetName | None, *, claude_settings: bool) -> ToolsetName:
    """The toolset of a run: ``name`` if given, else ``claude-code`` when Claude Code hooks
    are loaded (so that they see the tools they were written for), else ``workspace``."""
    if name is not None:
        return name
    return "claude-code" if claude_settings else "workspace"
