"""The policy file: permission rules and command hooks in one TOML file, read by one loader.

```toml
default = "deny"          # allow | deny; required when there is no [[rule]]

[[rule]]                  # fields of PermissionRule (see docs/pod.md)
action = "allow"
tool = "read_file"
path = "docs/*"

[[hook]]                  # fields of a command hook (see _hook_config)
event = "pre_tool_call"
command = ["python3", "policy.py"]
```

Contract: the file is parsed once; every table is checked in full before anything is built;
the first bad table raises :class:`PermissionRulesError` in one style for both kinds of table:
``FILE, line N: [[hook]] 2: FIELD: PROBLEM`` (the line of the offending key when it can be
found, else the table's header). Relative paths in ``[[hook]]`` tables (``cwd``) are relative
to the file's folder. Nothing runs and no hook starts while loading.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar, cast, final

from pydantic import ValidationError

from ..command._configured import ConfiguredCommandHook
from ..hooks._errors import PermissionRulesError
from ._hook_config import build_command_hook
from ._permissions import PermissionAction, PermissionHook, PermissionRule, locate_rules
from ._toml_lines import TableProblem, TomlLines

__all__ = ["PolicyFile", "load_command_hooks", "load_policy", "parse_policy"]

_TOP_LEVEL_KEYS: Final = ("default", "rule", "hook")
T = TypeVar("T")


@final
@dataclass(frozen=True, slots=True)
class PolicyFile:
    """What one policy file declares."""

    source: str
    """Where it was read from (a path, or ``<string>``)."""
    permissions: PermissionHook | None
    """The rules and default; ``None`` when the file has neither (only ``[[hook]]`` tables
    cannot leave this ``None``: see :meth:`permissions_or_refuse`)."""
    hooks: tuple[ConfiguredCommandHook, ...]
    """The command hooks of its ``[[hook]]`` tables, in order."""

    def permissions_or_refuse(self) -> PermissionHook:
        """The permission hook.

        Raises:
            PermissionRulesError: the file has no rules and no ``default``.
        """
        if self.permissions is None:
            raise PermissionRulesError(source=self.source, problem=_NO_RULES)
        return self.permissions


_NO_RULES: Final = (
    "no [[rule]] tables and no default: every tool call would be denied. Write "
    'default = "deny" to confirm that, default = "allow" to leave the calls to the hooks, '
    "or add [[rule]] tables"
)


def load_policy(
    path: str | os.PathLike[str], *, workspace: str | os.PathLike[str] = "."
) -> PolicyFile:
    """Read and check a policy file.

    Args:
        path: the TOML file.
        workspace: the folder rules resolve ``path`` arguments in.

    Raises:
        PermissionRulesError: the file is not UTF-8 TOML, a table is malformed, or it has no
            rules and no default.
        OSError: the file cannot be read.
    """
    source = os.fspath(path)
    with open(source, "rb") as file:
        data = file.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PermissionRulesError(source=source, problem=f"not UTF-8 text ({exc})") from exc
    return parse_policy(text, source=source, base_dir=Path(source).parent, workspace=workspace)


def load_command_hooks(path: str | os.PathLike[str]) -> list[ConfiguredCommandHook]:
    """Read a policy file and build the hooks of its ``[[hook]]`` tables, in order.

    The whole file is checked (rules too); a relative ``cwd`` is relative to its folder.

    Raises:
        PermissionRulesError: the file is not UTF-8 TOML or a table is invalid.
        OSError: the file cannot be read.
    """
    return list(load_policy(path).hooks)


def parse_policy(
    text: str,
    *,
    source: str = "<string>",
    base_dir: str | os.PathLike[str] = ".",
    workspace: str | os.PathLike[str] = ".",
) -> PolicyFile:
    """Check a policy given as text (see :func:`load_policy`); ``source`` names it in errors
    and ``base_dir`` stands for its folder (the default ``cwd`` of its hooks, and what a
    relative ``cwd`` is relative to).

    Raises:
        PermissionRulesError: the text is not TOML, a table is malformed, or it has no rules
            and no default.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = TomlLines.syntax_error_line(str(exc))
        raise PermissionRulesError(
            source=source, line=line, problem=f"invalid TOML: {exc}"
        ) from exc
    lines = TomlLines(text)
    top_stop = lines.first_table_line()
    for key in document:
        if key not in _TOP_LEVEL_KEYS:
            line = lines.key_line(key, stop=top_stop)
            raise PermissionRulesError(
                source=source,
                line=line if line is not None else lines.table_header_line(key),
                problem=f"unknown key {key!r} (expected: default, [[rule]], [[hook]])",
            )
    written_default: object = document.get("default")
    if written_default is not None and written_default not in ("allow", "deny"):
        raise PermissionRulesError(
            source=source,
            line=lines.key_line("default", stop=top_stop),
            problem=f"default must be 'allow' or 'deny', not {written_default!r}",
        )
    rule_tables = _tables(document, "rule", source, lines)
    hook_tables = _tables(document, "hook", source, lines)
    problems: list[PermissionRulesError] = []
    rules = _build(rule_tables, "rule", source, lines, _rule, problems=problems)
    base = Path(base_dir)
    hooks = _build(
        hook_tables,
        "hook",
        source,
        lines,
        lambda t: build_command_hook(t, base_dir=base),
        problems=problems,
    )
    if problems:  # every bad table at once
        raise PermissionRulesError.together(problems)
    permissions: PermissionHook | None = None
    if rules or written_default is not None:
        default: PermissionAction = "allow" if written_default == "allow" else "deny"
        permissions = locate_rules(
            PermissionHook(rules, default=default, workspace=workspace),
            source=source,
            lines=_header_lines(rule_tables, "rule", lines),
        )
    located = tuple(
        ConfiguredCommandHook(h.event, h.hook, h.on_error, f"{source}: [[hook]] {number}")
        for number, h in enumerate(hooks, start=1)
    )
    return PolicyFile(source, permissions, located)


def _rule(table: Mapping[str, object]) -> PermissionRule:
    try:
        return PermissionRule.model_validate(dict(table))
    except ValidationError as exc:
        raise TableProblem.from_validation(exc, PermissionRule.model_fields) from None


def _tables(
    document: Mapping[str, object], name: str, source: str, lines: TomlLines
) -> list[Mapping[str, object]]:
    found: object = document.get(name, [])
    if not isinstance(found, list) or not all(
        isinstance(table, dict) for table in cast(list[object], found)
    ):
        raise PermissionRulesError(
            source=source,
            line=lines.key_line(name, stop=lines.first_table_line())
            or lines.table_header_line(name),
            problem=f"{name!r} must be an array of tables: write each one under [[{name}]]",
        )
    return cast(list[Mapping[str, object]], found)  # TOML tables have string keys


def _header_lines(tables: list[Mapping[str, object]], name: str, lines: TomlLines) -> list[int]:
    headers = lines.array_table_headers(name)
    return headers if len(headers) == len(tables) else []  # e.g. inline tables: no lines


def _build(
    tables: list[Mapping[str, object]],
    name: str,
    source: str,
    lines: TomlLines,
    build: Callable[[Mapping[str, object]], T],
    *,
    problems: list[PermissionRulesError],
) -> list[T]:
    """The tables built; the problem of each bad one is added to ``problems``."""
    headers = _header_lines(tables, name, lines)
    built: list[T] = []
    for index, table in enumerate(tables):
        try:
            built.append(build(table))
        except TableProblem as problem:
            line: int | None = None
            if headers:
                stop = headers[index + 1] if index + 1 < len(headers) else None
                field_line = None
                if problem.field is not None:
                    field_line = lines.key_line(problem.field, first=headers[index], stop=stop)
                line = field_line or headers[index]
            problems.append(
                PermissionRulesError(
                    source=source, line=line, rule=index + 1, table=name, problem=problem.problem
                )
            )
    return built
