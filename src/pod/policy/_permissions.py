"""``PermissionHook``: rule-based allow/deny of tool calls, a public ``PRE_TOOL_CALL`` hook.

Contract:
- Rules are tried in order; the first whose every condition matches decides. ``allow``
  returns ``Continue`` (the policy has no objection: later hooks are still asked), ``deny``
  returns ``Skip`` with the rule's reason. A call no rule matches gets the default
  (``deny`` unless configured otherwise).
- Conditions: ``tool`` (a glob on the tool name), ``path`` (a glob on the ``path`` argument,
  or ``file_path`` as Claude Code's tools spell it, see below; an ``allow`` needs every one
  the call has to match, a ``deny`` any one), ``command_prefix`` (leading words of the
  ``command`` argument of a shell tool), ``arguments`` (globs on any named arguments). A rule
  with an argument condition does not match a call whose arguments are not a JSON object or
  lack that argument. Globs are ``fnmatch`` patterns, case-sensitive; ``*`` also matches
  ``/``.
- Paths are anchored in the workspace: the ``path`` argument is resolved as the workspace
  tools resolve it (relative to the workspace, ``..`` and symlinks resolved). A relative glob
  (``docs/*.md``) is matched against the resolved path relative to the workspace, an absolute
  glob against the resolved absolute path. A path resolving outside the workspace never
  matches a relative ``allow`` glob. A ``deny`` rule fails safe: it also matches the path as
  written (normalised without touching the disk), so a symlink cannot hide a denied name.
- Rules are checked against the run before it starts (:meth:`PermissionHook.check_tools`,
  called by the Pod): a ``tool`` glob matching no tool, or an argument no matching tool has,
  refuses to start. No rules with an implicit ``deny`` default is refused too.
- Fail closed on shell syntax: an ``allow`` command rule never matches a command holding
  control or redirection characters (``; & | < > ( ) $( `` and backquotes, newlines); a ``deny``
  command rule matches if any segment of the command between such characters starts with
  its prefix. A prefix rule is a policy aid, not a sandbox: run untrusted commands isolated.
- The hook only reads the ``ToolCallSummary`` it is given; the Pod registers it ahead of
  every user hook, so no user hook can let a denied call through.
- Rules load from a policy file (:meth:`PermissionHook.from_toml`, read by ``_loader``); a
  malformed file raises :class:`PermissionRulesError` naming the file, the line and the rule.
"""

from __future__ import annotations

import fnmatch
import json
import os
import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Final, Literal, TypeAlias, final

from pydantic import BaseModel, Field, JsonValue, field_validator

from llm_worker import Continue, Skip, Tool, ToolCallSummary

from ..hooks._base import Hook
from ..hooks._errors import PermissionRulesError, PodUsageError
from ..hooks._registry import reads_only_hook

__all__ = ["PermissionAction", "PermissionHook", "PermissionRule", "locate_rules"]

PermissionAction: TypeAlias = Literal["allow", "deny"]
"""What a rule (or the default) does with a call it matches."""

_CONTINUE: Final = Continue()
PATH_ARGUMENTS: Final = ("path", "file_path")
"""The arguments a ``path`` condition reads: ``path``, and Claude Code's ``file_path``."""
_SHELL_SYNTAX: Final = re.compile(r"[;&|<>()`\n\r]|\$\(")
_COMMAND_SEPARATORS: Final = re.compile(r"&&|\|\||\$\(|[;&|()`\n\r]")


@final
class PermissionRule(BaseModel, frozen=True, extra="forbid"):
    """One rule: an action and the conditions a call must all meet for it to apply."""

    action: PermissionAction
    tool: str = "*"
    """Glob on the tool name; ``*`` (the default) matches every tool."""
    path: str | None = None
    """Glob on the ``path`` (or ``file_path``) argument resolved in the workspace: relative
    (``docs/*.md``, matched inside the workspace only) or absolute (``/data/*``); ``None``: no
    condition."""
    command_prefix: str | None = None
    """Leading words of the ``command`` argument (``"git push"`` matches ``git push -f``,
    not ``git pushx``); ``None``: no condition."""
    arguments: Mapping[str, str] = Field(default_factory=dict[str, str])
    """Globs on named arguments; a non-string value is matched as its JSON text."""
    reason: str = ""
    """The ``Skip`` reason of a denial (the model reads it); empty: a generated one."""

    @field_validator("tool")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("path")
    @classmethod
    def _anchored(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if not value.strip():
            raise ValueError("must not be empty")
        glob = value if value.startswith("/") else posixpath.normpath(value)
        if not value.startswith("/") and (glob == ".." or glob.startswith("../")):
            raise ValueError(
                f"the relative glob {value!r} leaves the workspace: relative globs match "
                "inside the workspace only; write an absolute glob for paths outside it"
            )
        return glob if not value.endswith("/") or glob.endswith("/") else glob + "/"

    @field_validator("command_prefix")
    @classmethod
    def _words(cls, value: str | None) -> str | None:
        if value is not None:
            if not value.split():
                raise ValueError("must hold at least one word")
            if _SHELL_SYNTAX.search(value):
                raise ValueError("must be plain words, without shell control characters")
        return value

    @field_validator("arguments")
    @classmethod
    def _named(cls, value: Mapping[str, str]) -> Mapping[str, str]:
        if any(not name for name in value):
            raise ValueError("argument names must not be empty")
        return value

    def matches(self, call: ToolCallSummary, *, workspace: str | os.PathLike[str] = ".") -> bool:
        """Return whether every condition of this rule holds for ``call``.

        Args:
            call: the tool call.
            workspace: the folder relative paths are resolved in (default: the current one).
        """
        root = Path(workspace).resolve()
        return _rule_matches(self, call.tool_name, _LazyArguments(call, root))

    def describe(self) -> str:
        """The rule's conditions in one line (``tool=shell command_prefix='rm'``)."""
        parts = [f"tool={self.tool}"]
        if self.path is not None:
            parts.append(f"path={self.path}")
        if self.command_prefix is not None:
            parts.append(f"command_prefix={self.command_prefix!r}")
        parts.extend(f"{name}={pattern}" for name, pattern in self.arguments.items())
        return " ".join(parts)

    def argument_names(self) -> tuple[str, ...]:
        """The arguments this rule reads: ``path``, ``command`` and the ``arguments`` keys."""
        named = ["path"] if self.path is not None else []
        if self.command_prefix is not None:
            named.append("command")
        named.extend(name for name in self.arguments if name not in named)
        return tuple(named)


@final
class _LazyArguments:
    """Parses a call's arguments at most once, when a rule first needs them."""

    __slots__ = ("_call", "_parsed", "_value", "workspace")

    def __init__(self, call: ToolCallSummary, workspace: Path) -> None:
        self._call = call
        self._parsed = False
        self._value: dict[str, JsonValue] | None = None
        self.workspace = workspace

    def get(self) -> dict[str, JsonValue] | None:
        if not self._parsed:
            self._value = self._call.parsed_arguments()
            self._parsed = True
        return self._value


def _rule_matches(rule: PermissionRule, tool_name: str, lazy: _LazyArguments) -> bool:
    if not fnmatch.fnmatchcase(tool_name, rule.tool):
        return False
    if rule.path is None and rule.command_prefix is None and not rule.arguments:
        return True
    arguments = lazy.get()
    if arguments is None:
        return False
    if rule.path is not None:
        allow = rule.action == "allow"
        paths = [v for k in PATH_ARGUMENTS if isinstance(v := arguments.get(k), str)]
        hits = [_path_matches(rule.path, path, lazy.workspace, allow=allow) for path in paths]
        # allow: every path the call names must match; deny: any one (fail safe)
        if not paths or not (all(hits) if allow else any(hits)):
            return False
    if rule.command_prefix is not None:
        command = arguments.get("command")
        if not isinstance(command, str):
            return False
        if not _command_matches(command, rule.command_prefix.split(), allow=rule.action == "allow"):
            return False
    return all(
        name in arguments and fnmatch.fnmatchcase(_as_text(arguments[name]), pattern)
        for name, pattern in rule.arguments.items()
    )


def _path_matches(glob: str, path: str, workspace: Path, *, allow: bool) -> bool:
    """Match ``glob`` against ``path`` as the workspace tools would open it."""
    absolute_glob = glob.startswith("/")
    try:
        resolved: Path | None = (workspace / path).resolve()
    except (OSError, ValueError, RuntimeError):  # NUL byte, symlink loop: cannot be opened
        resolved = None
    if resolved is not None:
        if absolute_glob and fnmatch.fnmatchcase(str(resolved), glob):
            return True
        inside = resolved == workspace or workspace in resolved.parents
        relative = resolved.relative_to(workspace).as_posix() if inside else None
        if relative is not None and not absolute_glob and fnmatch.fnmatchcase(relative, glob):
            return True
    if allow:  # only the resolved path can allow
        return False
    # A deny rule also matches the path as written, so a symlink cannot hide a denied name.
    lexical = posixpath.normpath(posixpath.join(str(workspace), path))
    if absolute_glob:
        return fnmatch.fnmatchcase(lexical, glob)
    return fnmatch.fnmatchcase(posixpath.relpath(lexical, str(workspace)), glob)


def _command_matches(command: str, prefix: list[str], *, allow: bool) -> bool:
    if allow:  # fail closed: shell syntax could run more than the prefix names
        return not _SHELL_SYNTAX.search(command) and command.split()[: len(prefix)] == prefix
    return any(
        segment.split()[: len(prefix)] == prefix for segment in _COMMAND_SEPARATORS.split(command)
    )


def _as_text(value: JsonValue) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _parameters(tool: Tool) -> frozenset[str] | None:
    """The argument names ``tool`` declares; ``None`` if its schema explicitly admits others
    (``additionalProperties`` other than ``false``; left out, only the declared names count,
    as for ``@tool``)."""
    schema = tool.parameters
    if schema.get("additionalProperties", False) is not False:
        return None
    properties = schema.get("properties")
    return frozenset(properties) if isinstance(properties, dict) else frozenset()


@final
@reads_only_hook
class PermissionHook(Hook[ToolCallSummary, Continue | Skip]):
    """A ``PRE_TOOL_CALL`` hook that allows or denies calls by rules; first match wins.

    Args:
        rules: tried in this order.
        default: what happens to a call no rule matches. With no rules it must be given:
            an empty rule set that silently denies every call is refused.
        workspace: the folder ``path`` arguments are resolved in, as the workspace tools
            resolve them (default: the current folder when the hook is made).

    Raises:
        PodUsageError: a rule is not a :class:`PermissionRule`, the default is neither
            ``allow`` nor ``deny``, or there are no rules and no explicit default.

    Example:
        ```python
        permissions = PermissionHook(
            [
                PermissionRule(action="deny", tool="shell", command_prefix="rm",
                               reason="deleting files is not allowed"),
                PermissionRule(action="allow", tool="shell", command_prefix="ls"),
                PermissionRule(action="allow", tool="read_file", path="docs/*"),
            ],
            workspace="/work",
        )
        pod = Pod(client, tools=tools, permissions=permissions)
        ```
    """

    def __init__(
        self,
        rules: Iterable[PermissionRule] = (),
        *,
        default: PermissionAction | None = None,
        workspace: str | os.PathLike[str] = ".",
    ) -> None:
        self._rules = tuple(rules)
        for rule in self._rules:
            if not isinstance(rule, PermissionRule):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise PodUsageError(f"a permission rule must be a PermissionRule, not {rule!r}")
        if default is None:
            if not self._rules:
                raise PodUsageError(_NO_RULES)
            default = "deny"
        if default not in ("allow", "deny"):
            raise PodUsageError(f"the default must be 'allow' or 'deny', not {default!r}")
        self._default: PermissionAction = default
        self._workspace = Path(workspace).resolve()
        self._source = "<rules>"
        self._lines: tuple[int | None, ...] = (None,) * len(self._rules)

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        """The rules, in the order they are tried."""
        return self._rules

    @property
    def default(self) -> PermissionAction:
        """What happens to a call no rule matches."""
        return self._default

    @property
    def workspace(self) -> Path:
        """The resolved folder ``path`` arguments are resolved in."""
        return self._workspace

    def first_match(self, call: ToolCallSummary) -> int | None:
        """Return the 0-based index of the first rule matching ``call``, or ``None``."""
        lazy = _LazyArguments(call, self._workspace)
        return next(
            (i for i, rule in enumerate(self._rules) if _rule_matches(rule, call.tool_name, lazy)),
            None,
        )

    def check_tools(self, tools: Iterable[Tool]) -> None:
        """Refuse rules that can never apply to a run with ``tools``.

        Every rule's ``tool`` glob must match a tool, and every argument it reads must be a
        parameter of a tool its glob matches (a tool whose schema admits any argument name
        accepts every name). The Pod calls this before the run starts.

        Raises:
            PermissionRulesError: every rule that cannot apply (the first, with the others
                in ``also``), with its line, what is wrong and the tools (or parameters)
                there are.
        """
        problems: list[PermissionRulesError] = []
        available = {tool.name: tool for tool in tools}
        names = ", ".join(sorted(available)) or "none"
        for index, rule in enumerate(self._rules):
            matched = [t for name, t in available.items() if fnmatch.fnmatchcase(name, rule.tool)]
            if not matched:
                self._refuse(
                    problems,
                    index,
                    f"tool {rule.tool!r} matches no tool of this run (tools: {names}); "
                    "fix the name or remove the rule",
                )
                continue
            parameters = [_parameters(tool) for tool in matched]
            for argument in rule.argument_names():
                spellings = PATH_ARGUMENTS if argument == "path" else (argument,)
                if not any(p is None or any(a in p for a in spellings) for p in parameters):
                    declared = "; ".join(
                        f"{tool.name}: {', '.join(sorted(p or ())) or 'no parameters'}"
                        for tool, p in zip(matched, parameters, strict=True)
                    )
                    self._refuse(
                        problems,
                        index,
                        f"argument {argument!r} is not a parameter of any tool {rule.tool!r} "
                        f"matches ({declared}); fix the argument name or the tool glob",
                    )
        if problems:
            raise PermissionRulesError.together(problems)

    def _refuse(self, problems: list[PermissionRulesError], index: int, problem: str) -> None:
        problems.append(
            PermissionRulesError(
                source=self._source, line=self._lines[index], rule=index + 1, problem=problem
            )
        )

    def __call__(self, call: ToolCallSummary) -> Continue | Skip:
        """Decide on ``call``: ``Continue`` if allowed, ``Skip(reason)`` if denied."""
        index = self.first_match(call)
        if index is None:
            if self._default == "allow":
                return _CONTINUE
            return Skip(reason=f"no permission rule allows this call to {call.tool_name}")
        rule = self._rules[index]
        if rule.action == "allow":
            return _CONTINUE
        return Skip(
            reason=rule.reason or f"denied by permission rule {index + 1} ({rule.describe()})"
        )

    def __repr__(self) -> str:
        return f"PermissionHook({len(self._rules)} rules, default={self._default!r})"

    @classmethod
    def from_toml(
        cls, path: str | os.PathLike[str], *, workspace: str | os.PathLike[str] = "."
    ) -> PermissionHook:
        """Load rules from a policy file (TOML).

        The file holds ``default = "allow" | "deny"`` and one ``[[rule]]`` table per rule,
        with the fields of :class:`PermissionRule` (see ``docs/pod.md``); ``[[hook]]``
        tables may share it. ``default`` may be left out only when there are rules.

        Raises:
            PermissionRulesError: the file is not UTF-8 TOML, a table is malformed, or it
                has no rules and no explicit default; the message names the file, the line
                and the table.
            OSError: the file cannot be read.
        """
        from ._loader import load_policy  # the policy loader builds this class

        return load_policy(path, workspace=workspace).permissions_or_refuse()

    @classmethod
    def from_toml_text(
        cls,
        text: str,
        *,
        source: str = "<string>",
        workspace: str | os.PathLike[str] = ".",
    ) -> PermissionHook:
        """Load rules from TOML text (see :meth:`from_toml`); ``source`` names it in errors.

        Raises:
            PermissionRulesError: the text is not TOML, a table is malformed, or it has no
                rules and no explicit default.
        """
        from ._loader import parse_policy

        return parse_policy(text, source=source, workspace=workspace).permissions_or_refuse()


_NO_RULES: Final = (
    "no permission rules and no default: every tool call would be denied. Write "
    'default = "deny" to confirm that, default = "allow" to leave the calls to the other '
    "hooks, or add [[rule]] tables"
)
"""Why an empty rule set with an implicit default is refused."""


def locate_rules(
    hook: PermissionHook, *, source: str, lines: Sequence[int | None]
) -> PermissionHook:
    """Record where ``hook``'s rules were written, for :meth:`PermissionHook.check_tools`."""
    # Not a constructor argument: where rules were written is the loader's business.
    count = len(hook.rules)
    hook._source = source  # pyright: ignore[reportPrivateUsage]
    hook._lines = tuple(lines) if len(lines) == count else (None,) * count  # pyright: ignore[reportPrivateUsage]
    return hook
