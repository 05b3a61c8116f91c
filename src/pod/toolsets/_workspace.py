"""One workspace folder, and the only way the built-in tools turn a path into a file.

A path is taken relative to the workspace (an absolute path is taken as it is), then
resolved: ``..`` and every symlink on the way are followed. What resolves outside the
workspace is refused with :class:`OutsideWorkspaceError`, which the model sees as the call's
error result. Both toolsets (``workspace`` and ``claude-code``) use it.
"""

from __future__ import annotations

from pathlib import Path
from typing import final

__all__ = ["OutsideWorkspaceError", "Workspace"]


class OutsideWorkspaceError(PermissionError):
    """A path resolves outside the workspace (``..``, an absolute path elsewhere, a symlink
    out)."""


@final
class Workspace:
    """The folder the tools may touch, resolved once."""

    __slots__ = ("root",)

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()

    def contains(self, resolved: Path) -> bool:
        """Whether an already resolved path is the workspace or inside it."""
        return resolved == self.root or self.root in resolved.parents

    def resolve(self, path: str) -> Path:
        """``path`` resolved in the workspace (it need not exist).

        Raises:
            OutsideWorkspaceError: it resolves outside the workspace.
        """
        target = (self.root / path).resolve()
        if not self.contains(target):
            raise OutsideWorkspaceError(f"{path} is outside the workspace {self.root}")
        return target
