"""``PermissionHook``: rule-based allow/deny of tool calls, a public ``PRE_TOOL_CALL`` hook.

Contract:
- Rules are tried in order; the first whose every condition matches decides. ``allow``
  returns ``Continue`` (the policy has no objection: later hooks are still asked), ``deny``
  returns ``Skip`` with the rule's reason. A call no rule matches gets the default
  (``deny`` unless configured otherwise).
- Conditions: ``tool`` (a glob on the tool name), ``path`` (a glob on the ``path`` argument,
  normalised first so ``/work/../etc`` is ``/etc``), ``command_prefix`` (leading words of the
  ``command`` argument of a shell tool), ``arguments`` (globs on any named arguments). A rule
  with an argument condition does not match a call whose arguments are not a JSON object or
  lack that argument. Globs are ``fnmatch`` patterns, case-sensitive; ``*`` also matches ``/``.
- Fail closed on shell syntax: an ``allow`` command rule never matches a command holding
  control or redirection characters (``; & | < > ( ) $( `` and backquotes, newlines); a ``deny``
  command rule matches if any segment of the command between such characters starts with
  its prefix. A prefix rule is a policy aid, not a sandbox: run untrusted commands isolated.
- The hook only reads the ``ToolCallSummary`` it is given; the Pod registers it ahead of
  every user hook, so no user hook can let a denied call through.
- Rules load from TOML (:meth:`PermissionHook.from_toml`); a malformed file raises
  :class:`PermissionRulesError` naming the file, the line and the rule.
"""

from __future__ import annotations

import fnmatch
import json
import os
import posixpath
import re
import tomllib
from collections.abc import Iterable, Mapping
from typing import Any, Final, Literal, TypeAlias, cast, final

from pydantic import BaseModel, Field, JsonValue, ValidationError, field_validator

from llm_worker import Continue, Skip, ToolCallSummary

from ._errors import PermissionRulesError, PodUsageError
from ._hook_base import Hook
from ._toml_lines import TomlLines

__all__ = ["PermissionAction", "PermissionHook", "PermissionRule"]

PermissionAction: TypeAlias = Literal["allow", "deny"]
"""What a rule (or the default) does with a call it matches."""

_CONTINUE: Final = Continue()
_SHELL_SYNTAX: Final = re.compile(r"[;&|<>()`\n\r]|\$\(")
_COMMAND_SEPARATORS: Final = re.compile(r"&&|\|\||\$\(|[;&|()`\n\r]")
_TOP_LEVEL_KEYS: Final = ("default", "rule", "hook")
"""``hook`` tables (command hooks) share the file; ``load_command_hooks`` reads them."""


@final
class PermissionRule(BaseModel, frozen=True, extra="forbid"):
    """One rule: an action and the conditions a call must all meet for it to apply."""

    action: PermissionAction
    tool: str = "*"
    """Glob on the tool name; ``*`` (the default) matches every tool."""
    path: str | None = None
    """Glob on the normalised ``path`` argument; ``None``: no condition."""
    command_prefix: str | None = None
    """Leading words of the ``command`` argument (``"git push"`` matches ``git push -f``,
    not ``git pushx``); ``None``: no condition."""
    arguments: Mapping[str, str] = Field(default_factory=dict[str, str])
    """Globs on named arguments; a non-string value is matched as its JSON text."""
    reason: str = ""
    """The ``Skip`` reason of a denial (the model reads it); empty: a generated one."""

    @field_validator("tool", "path")
    @classmethod
    def _non_empty(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be empty")
        return value

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

    def matches(self, call: ToolCallSummary) -> bool:
        """Return whether every condition of this rule holds for ``call``."""
        return _rule_matches(self, call.tool_name, _LazyArguments(call))

    def describe(self) -> str:
        """The rule's conditions in one line (``tool=shell command_prefix='rm'``)."""
        parts = [f"tool={self.tool}"]
        if self.path is not None:
            parts.append(f"path={self.path}")
        if self.command_prefix is not None:
            parts.append(f"command_prefix={self.command_prefix!r}")
        parts.extend(f"{name}={pattern}" for name, pattern in self.arguments.items())
        return " ".join(parts)


@final
class _LazyArguments:
    """Parses a call's arguments at most once, when a rule first needs them."""

    __slots__ = ("_call", "_parsed", "_value")

    def __init__(self, call: ToolCallSummary) -> None:
        self._call = call
        self._parsed = False
        self._value: dict[str, JsonValue] | None = None

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
        path = arguments.get("path")
        if not isinstance(path, str) or not fnmatch.fnmatchcase(_normalise(path), rule.path):
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


def _command_matches(command: str, prefix: list[str], *, allow: bool) -> bool:
    if allow:  # fail closed: shell syntax could run more than the prefix names
        return not _SHELL_SYNTAX.search(command) and command.split()[: len(prefix)] == prefix
    return any(
        segment.split()[: len(prefix)] == prefix for segment in _COMMAND_SEPARATORS.split(command)
    )


def _normalise(path: str) -> str:
    return posixpath.normpath(path) if path else path


def _as_text(value: JsonValue) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


@final
class PermissionHook(Hook[ToolCallSummary, Continue | Skip]):
    """A ``PRE_TOOL_CALL`` hook that allows or denies calls by rules; first match wins.

    Args:
        rules: tried in this order.
        default: what happens to a call no rule matches (deny by default: fail closed).

    Example:
        ```python
        permissions = PermissionHook(
            [
                PermissionRule(action="deny", tool="shell", command_prefix="rm",
                               reason="deleting files is not allowed"),
                PermissionRule(action="allow", tool="shell", command_prefix="ls"),
                PermissionRule(action="allow", tool="read_file", path="/work/*"),
            ]
        )
        pod = Pod(client, tools=tools, permissions=permissions)
        ```
    """

    def __init__(
        self, rules: Iterable[PermissionRule] = (), *, default: PermissionAction = "deny"
    ) -> None:
        self._rules = tuple(rules)
        for rule in self._rules:
            if not isinstance(rule, PermissionRule):  # pyright: ignore[reportUnnecessaryIsInstance]
                raise PodUsageError(f"a permission rule must be a PermissionRule, not {rule!r}")
        if default not in ("allow", "deny"):
            raise PodUsageError(f"the default must be 'allow' or 'deny', not {default!r}")
        self._default: PermissionAction = default

    @property
    def rules(self) -> tuple[PermissionRule, ...]:
        """The rules, in the order they are tried."""
        return self._rules

    @property
    def default(self) -> PermissionAction:
        """What happens to a call no rule matches."""
        return self._default

    def first_match(self, call: ToolCallSummary) -> int | None:
        """Return the 0-based index of the first rule matching ``call``, or ``None``."""
        lazy = _LazyArguments(call)
        return next(
            (i for i, rule in enumerate(self._rules) if _rule_matches(rule, call.tool_name, lazy)),
            None,
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
    def from_toml(cls, path: str | os.PathLike[str]) -> PermissionHook:
        """Load rules from a TOML file.

        The file holds an optional ``default = "allow" | "deny"`` and one ``[[rule]]`` table
        per rule, with the fields of :class:`PermissionRule` (see ``docs/pod.md``).

        Raises:
            PermissionRulesError: the file is not UTF-8 TOML or a rule is malformed; the
                message names the file, the line and the rule.
            OSError: the file cannot be read.
        """
        source = os.fspath(path)
        with open(source, "rb") as file:
            data = file.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise PermissionRulesError(source=source, problem=f"not UTF-8 text ({exc})") from exc
        return cls.from_toml_text(text, source=source)

    @classmethod
    def from_toml_text(cls, text: str, *, source: str = "<string>") -> PermissionHook:
        """Load rules from TOML text (see :meth:`from_toml`); ``source`` names it in errors.

        Raises:
            PermissionRulesError: the text is not TOML or a rule is malformed.
        """
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            line = TomlLines.syntax_error_line(str(exc))
            raise PermissionRulesError(
                source=source, line=line, problem=f"invalid TOML: {exc}"
            ) from exc
        lines = TomlLines(text)
        for key in document:
            if key not in _TOP_LEVEL_KEYS:
                line = lines.key_line(key, stop=lines.first_table_line())
                raise PermissionRulesError(
                    source=source,
                    line=line if line is not None else lines.table_header_line(key),
                    problem=f"unknown key {key!r} (expected: default, [[rule]], [[hook]])",
                )
        default = document.get("default", "deny")
        if default not in ("allow", "deny"):
            raise PermissionRulesError(
                source=source,
                line=lines.key_line("default", stop=lines.first_table_line()),
                problem=f"default must be 'allow' or 'deny', not {default!r}",
            )
        raw_rules: object = document.get("rule", [])
        if not isinstance(raw_rules, list) or not all(
            isinstance(r, dict) for r in cast(list[object], raw_rules)
        ):
            raise PermissionRulesError(
                source=source,
                line=lines.key_line("rule", stop=lines.first_table_line()),
                problem="'rule' must be an array of tables: write each rule under [[rule]]",
            )
        tables = cast(list[dict[str, Any]], raw_rules)
        headers = lines.array_table_headers("rule")
        if len(headers) != len(tables):  # e.g. inline tables: no reliable line numbers
            headers = []
        rules: list[PermissionRule] = []
        for index, table in enumerate(tables):
            try:
                rules.append(PermissionRule.model_validate(table))
            except ValidationError as exc:
                raise _rule_error(exc, source, index, headers, lines) from None
        return cls(rules, default=default)


def _rule_error(
    exc: ValidationError, source: str, index: int, headers: list[int], lines: TomlLines
) -> PermissionRulesError:
    problems: list[str] = []
    first_field: str | None = None
    for error in exc.errors():
        location = ".".join(str(part) for part in error["loc"])
        if first_field is None and error["loc"]:
            first_field = str(error["loc"][0])
        match error["type"]:
            case "extra_forbidden":
                known = ", ".join(PermissionRule.model_fields)
                problems.append(f"unknown field {location!r} (fields: {known})")
            case "missing":
                problems.append(f"missing field {location!r}")
            case _:
                problems.append(f"{location}: {error['msg']}")
    line: int | None = None
    if headers:
        header = headers[index]
        stop = headers[index + 1] if index + 1 < len(headers) else None
        field_line = None
        if first_field is not None:
            field_line = lines.key_line(first_field, first=header, stop=stop)
        line = field_line or header
    return PermissionRulesError(
        source=source, line=line, rule=index + 1, problem="; ".join(problems)
    )
