"""What every ``claude-code`` tool shares: arguments validated against Claude Code's own
parameter names, a text result for the model, a structured ``tool_response`` for the hooks.

A tool is a :class:`ClaudeCodeTool`: its arguments are a pydantic model (aliases carry Claude
Code's spellings, such as Grep's ``-i``), its ``run`` returns the text the model reads and the
``tool_response`` object Claude Code's hooks read (recorded in ``_responses``). A call the
tool refuses raises :class:`ToolError`; the Worker turns it into an error result the model
sees (``tool Edit failed: ToolError: ...``).
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import ClassVar, Generic, TypeVar, cast

from pydantic import BaseModel, JsonValue, ValidationError

from llm_worker import ToolArgumentsError, current_tool_call_id

from ._responses import record_tool_response

__all__ = ["ClaudeCodeTool", "ThreadedTool", "ToolError"]

ArgumentsT = TypeVar("ArgumentsT", bound=BaseModel)


class ToolError(Exception):
    """The tool refuses the call (a missing file, a non-unique ``old_string``, ...); the
    message is what the model reads."""


class ClaudeCodeTool(ABC, Generic[ArgumentsT]):
    """A tool of the ``claude-code`` toolset (implements ``llm_worker.Tool``)."""

    name: ClassVar[str]
    description: ClassVar[str]
    arguments: ClassVar[type[BaseModel]]

    @property
    def parameters(self) -> Mapping[str, JsonValue]:
        """JSON schema of the arguments, by Claude Code's names."""
        schema: dict[str, JsonValue] = self.arguments.model_json_schema(by_alias=True)
        return _plain(schema)

    async def call(self, arguments: dict[str, JsonValue]) -> str:
        """Validate ``arguments``, run, record the ``tool_response``, return the text."""
        try:
            validated = self.arguments.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
                for err in exc.errors(include_url=False)
            )
            raise ToolArgumentsError(problems) from exc
        text, response = await self.run(cast(ArgumentsT, validated))
        call_id = current_tool_call_id()
        if call_id is not None:
            record_tool_response(call_id, self.name, response)
        return text

    @abstractmethod
    async def run(self, arguments: ArgumentsT) -> tuple[str, dict[str, JsonValue]]:
        """The text the model reads and the ``tool_response`` hooks read.

        Raises:
            ToolError: the call is refused; the message says why.
        """

    def __repr__(self) -> str:
        return f"<claude-code tool {self.name}>"


class ThreadedTool(ClaudeCodeTool[ArgumentsT]):
    """A tool whose work is blocking file I/O: it runs in a worker thread, never on the
    event loop."""

    async def run(self, arguments: ArgumentsT) -> tuple[str, dict[str, JsonValue]]:
        return await asyncio.to_thread(self.run_in_thread, arguments)

    @abstractmethod
    def run_in_thread(self, arguments: ArgumentsT) -> tuple[str, dict[str, JsonValue]]:
        """What :meth:`ClaudeCodeTool.run` does, blocking."""


def _plain(schema: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The schema as Claude Code's tools write theirs: no titles, and an optional parameter
    typed as its value (``string``), not ``string or null`` (``null`` is still accepted)."""
    schema.pop("title", None)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, value in list(properties.items()):
            if not isinstance(value, dict):
                continue
            value.pop("title", None)
            options = value.get("anyOf")
            if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
                kept = next(o for o in options if o != {"type": "null"})
                if isinstance(kept, dict):
                    del value["anyOf"]
                    value.update(kept)
            if value.get("default", 0) is None:
                del value["default"]
            properties[name] = value
    return schema
