"""AGENT-HOOKS-0.1 interceptors as llm-pod hooks (``llm-pod[agent-hooks]``).

See ``docs/agent-hooks.md``: the mapping of interception points onto llm-pod's events, of
verdicts onto decisions, and the capabilities llm-pod declares.
"""

from ._adapter import FRAMEWORK as FRAMEWORK
from ._adapter import AgentHooks as AgentHooks

__all__ = ["FRAMEWORK", "AgentHooks"]
