"""The taming database: the library names hook modules may use, and how a build resolves them.

The data lives in one file, ``pod/hooks/taming.toml``, shipped with ``pod`` (its loader of
hook files reads the same file at run time). Entries are written as users write the names
(``asyncio.sleep``); a build resolves each through mypy's symbol tables to the full name of
its definition (``asyncio.tasks.sleep``), which is what the plugin sees in a checked tree.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tomllib
from collections.abc import Iterator, Mapping
from typing import Final, NamedTuple, cast, final

from mypy.nodes import MypyFile, SymbolNode, TypeAlias, TypeInfo
from mypy.types import Instance, get_proper_type

__all__ = [
    "DATABASE_TABLES",
    "Entry",
    "RawDatabase",
    "Tamed",
    "database_path",
    "file_digest",
    "load",
    "prefixes",
    "render_markdown",
    "resolve",
]

DATABASE_TABLES: Final = (
    "classes",
    "types",
    "members",
    "functions",
    "values",
    "json",
    "refused",
    "reflective",
)
"""The file's tables, in the order ``docs/plugin.md`` renders them."""


@final
class Entry(NamedTuple):
    table: str
    name: str
    """As written in the file: the public dotted name."""
    text: str
    """The reason (the fix, for ``refused``)."""


@final
class RawDatabase(NamedTuple):
    entries: tuple[Entry, ...]
    digest: str
    """A hash of the file: part of every module's cache key."""

    def table(self, name: str) -> list[Entry]:
        return [entry for entry in self.entries if entry.table == name]


def database_path() -> str:
    """Where ``pod/hooks/taming.toml`` is, found without importing ``pod``.

    Raises:
        SystemExit: ``pod`` or its database is missing (failing closed: without it no name
            is known to be safe).
    """
    spec = importlib.util.find_spec("pod")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        path = os.path.join(location, "hooks", "taming.toml")
        if os.path.exists(path):
            return path
    raise SystemExit(
        "pod_mypy: cannot find llm-pod's taming database (pod/hooks/taming.toml): "
        "install llm-pod in the environment mypy runs in"
    )


_LOADED: dict[str, RawDatabase] = {}


def file_digest(path: str) -> str:
    """The hash of the database file at ``path``, read but not parsed: a warm run that
    re-checks no module needs the cache key, not the entries (parsing costs it 12 ms)."""
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def load(path: str | None = None) -> RawDatabase:
    """The database file, parsed (once per process and path).

    Raises:
        SystemExit: the file is malformed.
    """
    where = path or database_path()
    known = _LOADED.get(where)
    if known is not None:
        return known
    with open(where, "rb") as file:
        data = file.read()
    try:
        document = tomllib.loads(data.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SystemExit(f"pod_mypy: malformed taming database {where}: {error}") from error
    entries: list[Entry] = []
    for table in DATABASE_TABLES:
        section = document.get(table, {})
        if not isinstance(section, dict):
            raise SystemExit(f"pod_mypy: malformed taming database {where}: [{table}]")
        for name, text in cast(dict[str, object], section).items():
            if not isinstance(text, str) or not text.strip():
                raise SystemExit(
                    f"pod_mypy: malformed taming database {where}: [{table}] {name!r} "
                    "needs a one-line reason"
                )
            entries.append(Entry(table, name, text))
    unknown = set(document) - {*DATABASE_TABLES, "version"}
    if unknown:
        raise SystemExit(f"pod_mypy: malformed taming database {where}: {sorted(unknown)}")
    loaded = _LOADED[where] = RawDatabase(tuple(entries), hashlib.sha256(data).hexdigest())
    return loaded


def prefixes(fullname: str) -> Iterator[str]:
    """A dotted name and every name above it, longest first (``a.b.c``, ``a.b``, ``a``)."""
    name = fullname
    while name:
        yield name
        name = name.rpartition(".")[0]


def _module_part(name: str, modules: Mapping[str, MypyFile]) -> MypyFile | None:
    """The module of the build that ``name`` starts with (the longest such prefix)."""
    return next((modules[part] for part in prefixes(name) if part in modules), None)


def resolve(name: str, modules: Mapping[str, MypyFile]) -> SymbolNode | MypyFile | None:
    """What the dotted ``name`` names in this build (``None``: its module is not in it).

    The longest prefix that is a module in the build, then the rest through symbol tables:
    ``asyncio.sleep`` is ``asyncio``'s ``sleep`` (the function ``asyncio.tasks.sleep``),
    ``logging.Logger.info`` the member ``info`` of the class ``logging.Logger``.
    """
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        file = modules.get(".".join(parts[:cut]))
        if file is None:
            continue
        node: SymbolNode | MypyFile | None = file
        for part in parts[cut:]:
            if isinstance(node, (MypyFile, TypeInfo)):
                symbol = node.names.get(part)
            else:
                return None
            node = symbol.node if symbol is not None else None
            if node is None:
                return None
        return node
    return None


@final
class Tamed:
    """The database resolved for one build: full names as the checked trees spell them."""

    def __init__(self, raw: RawDatabase, modules: Mapping[str, MypyFile]) -> None:
        self.whole: set[str] = set()
        """Classes tamed whole."""
        self.types: set[str] = set()
        """Classes tamed member by member."""
        self.members: set[tuple[str, str]] = set()
        self.names: set[str] = set()
        """Functions, values and classes hook code may name."""
        self.json: set[str] = set()
        self.refused: dict[str, str] = {
            entry.name: entry.text for entry in raw.entries if entry.table == "refused"
        }
        """Full names (and public names) with the fix their refusal shows."""
        self.reflective: frozenset[str] = frozenset(
            entry.name for entry in raw.entries if entry.table == "reflective"
        )
        """Member names refused on every receiver (they lead to frames); not resolved."""
        self.modules: set[str] = set()
        """Modules hook code may import: those the database names something of."""
        self.unresolved: list[Entry] = []
        self._pending: list[Entry] = [e for e in raw.entries if e.table != "reflective"]
        self._absent: list[Entry] = []
        """Pending entries whose module is not in the build: looked at again only when the
        build has more modules."""
        self._build_size = -1
        self.refresh(modules)

    def refresh(self, modules: Mapping[str, MypyFile]) -> bool:
        """Resolve the entries whose modules had no symbols before: mypy analyses modules one
        import cycle at a time, so a module a later one imports may not be analysed yet (and a
        warm run adds what it loads from the cache as it goes)."""
        pending, self._pending = self._pending, []
        if len(modules) != self._build_size:
            self._build_size = len(modules)
            pending += self._absent
            self._absent = []
        if not pending:
            return False
        resolved = False
        for entry in pending:
            owner = _module_part(entry.name, modules)
            if owner is None:
                self._absent.append(entry)
            elif not owner.names:
                self._pending.append(entry)
            else:
                resolved = True
                if entry.table == "refused":
                    node = resolve(entry.name, modules)
                    if node is not None and not isinstance(node, MypyFile):
                        self.refused.setdefault(node.fullname, entry.text)
                else:
                    self._add(entry, modules)
        return resolved

    def _add(self, entry: Entry, modules: Mapping[str, MypyFile]) -> None:
        if entry.table == "members":
            owner, _, member = entry.name.rpartition(".")
            info = resolve(owner, modules)
            if isinstance(info, TypeInfo):
                self.members.add((info.fullname, member))
                self._module_of(owner, modules)
            elif owner.partition(".")[0] in modules:
                self.unresolved.append(entry)
            return
        node = resolve(entry.name, modules)
        if node is None or isinstance(node, MypyFile):
            if entry.name.partition(".")[0] in modules:
                self.unresolved.append(entry)
            return
        fullname = node.fullname
        if isinstance(node, TypeAlias):  # ``Lock = _thread.LockType`` in a stub
            self.names.add(fullname)  # the name as written, and the class it stands for
            target = get_proper_type(node.target)
            if isinstance(target, Instance):
                fullname = target.type.fullname
        if entry.table == "classes":
            self.whole.add(fullname)
        elif entry.table == "types":
            self.types.add(fullname)
        elif entry.table == "json":
            self.json.add(fullname)
        self.names.add(fullname)
        self._module_of(entry.name, modules)

    def _module_of(self, name: str, modules: Mapping[str, MypyFile]) -> None:
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:cut])
            if module in modules:
                self.modules.add(module)
                return

    def refusal(self, fullname: str) -> str | None:
        """The fix the database gives for ``fullname`` or a module above it, if any."""
        for name in prefixes(fullname):
            if name == "builtins" and name != fullname:
                return None  # that entry is about importing the module, not each builtin
            fix = self.refused.get(name)
            if fix is not None:
                return fix
        return None


_TABLE_TITLES: Final = {
    "classes": (
        "Classes tamed whole (every public member the class itself defines; "
        "a base for hook-module classes)"
    ),
    "types": "Classes tamed member by member (values may be held; members as listed below)",
    "members": "Members of those classes",
    "functions": "Functions and decorators",
    "values": "Module-level values",
    "json": "Functions re-typed to return a JSON value instead of Any",
    "refused": "Refused on purpose, with the fix the error shows",
    "reflective": (
        "Member names refused on every receiver, whatever its type, and as names a "
        "hook-module class defines"
    ),
}


def render_markdown(raw: RawDatabase) -> str:
    """The database as ``docs/plugin.md`` shows it: one table per kind of entry."""
    lines: list[str] = []
    for table in DATABASE_TABLES:
        entries = sorted(raw.table(table), key=lambda entry: entry.name)
        if not entries:
            continue
        column = {"refused": "fix", "reflective": "where it leads"}.get(
            table, "why it cannot reach process state"
        )
        lines += [f"#### {_TABLE_TITLES[table]} ({len(entries)})", "", f"| name | {column} |"]
        lines.append("|---|---|")
        lines += [f"| `{entry.name}` | {_cell(entry.text)} |" for entry in entries]
        lines.append("")
    return "\n".join(lines)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
