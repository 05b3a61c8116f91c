"""Errors raised by ``pod``.

```
PodError
 +-- PodUsageError             the programmer's fault, at start-up
      +-- RegistryFrozenError  a hook registered after the registry was frozen
      +-- UnknownEventError    an object or a name that is not a catalogue event (declared
                               beside the catalogue, in ``_events``: it lists the events)
      +-- PermissionRulesError a policy file (rules, command hooks) is malformed, or a
                               rule names a tool or argument the run does not have
 +-- CommandHookError          a hook command failed: did not start, crashed, timed out, or
                               printed something that is not a decision legal for its event
 +-- McpServerError            an MCP server (``pod.mcp``) did not start, or listed tools
                               that cannot be offered; a failing call is an error result

Raised by ``pod``'s API from ``llm_worker`` (re-exported by ``pod``):
HookFailedError    a hook raised, timed out or answered illegally (the Pod turns it into Aborted)
SnapshotError      a saved run cannot be restored (corrupt, or another version)
WorkerStateError   run/resume/snapshot called while the Pod is running, or with nothing to resume
```
"""

from __future__ import annotations

__all__ = [
    "CommandHookError",
    "McpServerError",
    "PermissionRulesError",
    "PodError",
    "PodUsageError",
    "RegistryFrozenError",
]


class PodError(Exception):
    """Root of every error ``pod`` raises (run-time hook failures are ``HookFailedError``)."""


class PodUsageError(PodError):
    """The calling code is wrong; raised at start-up."""


class RegistryFrozenError(PodUsageError):
    """A hook was registered after ``freeze()``: hooks are fixed once a run can start."""

    def __init__(self, event: str, hook: str) -> None:
        super().__init__(
            f"cannot register {hook} on {event}: the registry is frozen "
            "(register every hook before the Pod starts)"
        )


class PermissionRulesError(PodUsageError):
    """A policy is wrong: a policy file is malformed (bad TOML, an unknown field, an illegal
    value), one of its ``[[hook]]`` tables is invalid, or a rule can never apply to the run
    (it names a tool or an argument the run does not have).

    ``source`` names where the policy came from (a file path or ``<string>``), ``line`` is the
    1-based line of the problem when it is known, ``rule`` the 1-based number of the table at
    fault (``None`` for a problem outside the tables) and ``table`` its kind (``"rule"`` or
    ``"hook"``). The message reads ``FILE, line N: [[rule]] 2: PROBLEM``.
    """

    def __init__(
        self,
        *,
        source: str,
        problem: str,
        line: int | None = None,
        rule: int | None = None,
        table: str = "rule",
    ) -> None:
        self.source = source
        self.problem = problem
        self.line = line
        self.rule = rule
        self.table = table
        where = source if line is None else f"{source}, line {line}"
        what = "" if rule is None else f"[[{table}]] {rule}: "
        super().__init__(f"{where}: {what}{problem}")

    also: tuple[PermissionRulesError, ...] = ()
    """The policy's other problems, found in the same check (the message has one line each)."""

    @staticmethod
    def together(problems: list[PermissionRulesError]) -> PermissionRulesError:
        """The first of ``problems`` carrying the others: every one is reported at once."""
        first = problems[0]
        first.also = tuple(problems[1:])
        first.args = ("\n".join(str(problem.args[0]) for problem in problems),)
        return first


class CommandHookError(PodError):
    """A :class:`~pod.CommandHook`'s command failed at run time (the command's fault, not the
    caller's): it could not start, crashed, timed out, exited non-zero, or printed something
    that is not a decision its event allows.

    Raised from the hook, so the registration's failure policy applies: under ``"abort"`` the
    run ends with a reason that contains this message. ``stderr`` is the end of what the
    command wrote there (at most 2 KB, decoded leniently).
    """

    def __init__(self, *, command: str, problem: str, stderr: str = "") -> None:
        self.command = command
        self.problem = problem
        self.stderr = stderr
        detail = f"; stderr: {stderr}" if stderr else ""
        super().__init__(f"command `{command}` {problem}{detail}")


class McpServerError(PodError):
    """An MCP server (:class:`pod.mcp.McpServer`) could not be used: it did not start or
    answer the handshake in time, or it listed tools that cannot be offered to the model (a
    name that is not a tool name, the same tool twice).

    A call that fails once the server runs is not raised: it becomes the call's error result.
    """

    def __init__(self, *, server: str, problem: str) -> None:
        self.server = server
        self.problem = problem
        super().__init__(f"MCP server {server!r} {problem}")
