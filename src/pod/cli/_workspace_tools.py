"""The read-only tools ``pod run --toolset workspace`` gives the model: read a file, list a
folder. They live in ``pod.toolsets`` (confined to the workspace, as every built-in tool);
this module keeps the name the CLI and its tests import."""

from __future__ import annotations

from ..toolsets._toolsets import workspace_tools

__all__ = ["workspace_tools"]
