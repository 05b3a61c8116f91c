"""pod.mcp: tools from MCP servers (the ``llm-pod[mcp]`` extra), as ordinary Pod tools.

``McpServer`` starts a stdio server or reaches a Streamable HTTP one and offers its tools as
``mcp__<server>__<tool>``; ``load_mcp_config`` reads the ``mcpServers`` file other clients
use. See ``docs/mcp.md``. It imports ``pod.hooks`` (for pod's errors) and ``llm_worker``;
the ``mcp`` package only when a server is entered.
"""

from ..hooks._errors import McpServerError as McpServerError
from ._config import McpConfigError as McpConfigError
from ._config import load_mcp_config as load_mcp_config
from ._server import McpServer as McpServer
from ._server import McpTool as McpTool
from ._server import McpToolError as McpToolError
from ._server import tool_name as tool_name

__all__ = [
    "McpConfigError",
    "McpServer",
    "McpServerError",
    "McpTool",
    "McpToolError",
    "load_mcp_config",
    "tool_name",
]
