"""The read-only tools ``pod run`` gives the model: read a file, list a folder.

Both are confined to one workspace folder: a path that resolves outside it (``..``,
absolute paths elsewhere, symlinks out) is refused with an error the model sees.
"""

from __future__ import annotations

from pathlib import Path

from llm_worker import FunctionTool, tool

__all__ = ["workspace_tools"]

_MAX_LISTED = 200


def workspace_tools(root: Path) -> list[FunctionTool]:
    """Return ``read_file`` and ``list_files`` confined to ``root``."""
    workspace = root.resolve()

    def inside(path: str) -> Path:
        target = (workspace / path).resolve()
        if target != workspace and workspace not in target.parents:
            raise PermissionError(f"{path} is outside the workspace {workspace}")
        return target

    @tool
    def read_file(path: str) -> str:
        """Read a UTF-8 text file of the workspace (path relative to the workspace)."""
        return inside(path).read_text(encoding="utf-8", errors="replace")

    @tool
    def list_files(path: str = ".") -> str:
        """List a folder of the workspace, one entry per line (folders end with /)."""
        folder = inside(path)
        entries = sorted(folder.iterdir(), key=lambda entry: entry.name)
        lines = [entry.name + ("/" if entry.is_dir() else "") for entry in entries[:_MAX_LISTED]]
        if len(entries) > _MAX_LISTED:
            lines.append(f"... and {len(entries) - _MAX_LISTED} more")
        return "\n".join(lines) or "(empty folder)"

    return [read_file, list_files]
