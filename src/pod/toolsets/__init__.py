"""pod.toolsets: built-in tools confined to a workspace folder (``docs/claude-code.md``).

``claude_code_tools(root)`` gives Claude Code's ``Bash``, ``Read``, ``Write``, ``Edit``,
``Glob`` and ``Grep`` (its names, parameters and ``tool_response`` shapes);
``workspace_tools(root)`` the read-only ``read_file`` and ``list_files``. The lowest room
beside ``pod.hooks``: it imports only ``llm_worker``. ``tool_response`` is the seam through
which the Claude Code command protocol gives ``PostToolUse`` hooks a tool's structured
response.
"""

from ._base import ClaudeCodeTool as ClaudeCodeTool
from ._base import ToolError as ToolError
from ._responses import tool_response as tool_response
from ._toolsets import CLAUDE_CODE_TOOL_NAMES as CLAUDE_CODE_TOOL_NAMES
from ._toolsets import TOOLSETS as TOOLSETS
from ._toolsets import ToolsetName as ToolsetName
from ._toolsets import chosen_toolset as chosen_toolset
from ._toolsets import claude_code_tools as claude_code_tools
from ._toolsets import toolset as toolset
from ._toolsets import workspace_tools as workspace_tools
from ._workspace import OutsideWorkspaceError as OutsideWorkspaceError
from ._workspace import Workspace as Workspace

__all__ = [
    "CLAUDE_CODE_TOOL_NAMES",
    "TOOLSETS",
    "ClaudeCodeTool",
    "OutsideWorkspaceError",
    "ToolError",
    "ToolsetName",
    "Workspace",
    "chosen_toolset",
    "claude_code_tools",
    "tool_response",
    "toolset",
    "workspace_tools",
]
