"""The syntactic half of ``pod_mypy``'s rules, checked on hook files before they run.

``pod run --hooks FILE:ATTR`` (and any loader of hook files) reads the file and its local
imports (sibling modules) with :mod:`ast` and refuses, before any of it is executed, what the
taming database (``taming.toml``, the plugin's own file, read here with :mod:`tomllib`) does
not allow a hook module to name: untamed imports, untamed builtins, dunder attributes, class
bases that are neither tamed classes nor the file's own, ``metaclass=``, ``TYPE_CHECKING``
branches, star imports and imports inside ``try``. It sees no types, so it is a second fence
behind the plugin, not the proof (``docs/security.md``).
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import tomllib
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Final, NamedTuple, final

from ._errors import PodUsageError

__all__ = ["HookFileError", "TamingDatabase", "check_hook_file", "taming_database"]

DATABASE_PATH: Final = Path(__file__).with_name("taming.toml")
TABLES: Final = (
    "classes",
    "types",
    "members",
    "functions",
    "values",
    "json",
    "refused",
    "reflective",
)
_NOT_TAMING: Final = frozenset({"refused", "reflective"})
HOOK_API_MODULES: Final = frozenset({"pod", "pod.events", "pod.hooks"})
_CONDITIONS: Final = frozenset({"TYPE_CHECKING", "MYPY"})
_BY_LITERAL: Final = frozenset({"getattr", "hasattr"})
"""Builtins the database allows with a literal, non-dunder attribute name only."""


class HookFileError(PodUsageError):
    """A hook file names what hook code may not; ``problems`` are ``file:line: rule: fix``."""

    def __init__(self, problems: tuple[str, ...]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@final
class TamingDatabase(NamedTuple):
    """The entries of ``taming.toml``, by table: ``{table: {name: reason or fix}}``."""

    tables: Mapping[str, Mapping[str, str]]

    def tamed(self, name: str) -> bool:
        return any(name in self.tables[table] for table in TABLES if table not in _NOT_TAMING)

    def names_something_of(self, module: str) -> bool:
        prefix = module + "."
        return any(
            name.startswith(prefix)
            for table in TABLES
            if table not in _NOT_TAMING
            for name in self.tables[table]
        )

    def fix(self, name: str, default: str) -> str:
        return self.tables["refused"].get(name, default)

    def leads_to_frames(self, member: str) -> str | None:
        """Where a ``[reflective]`` member name leads, if it is one."""
        return self.tables["reflective"].get(member)


@cache
def taming_database(path: Path = DATABASE_PATH) -> TamingDatabase:
    """Read the taming database (once per path).

    Raises:
        PodUsageError: the file is malformed (no name is then known to be safe).
    """
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PodUsageError(f"cannot read the taming database {path}: {exc}") from exc
    tables: dict[str, dict[str, str]] = {}
    for table in TABLES:
        section: object = document.get(table, {})
        if not isinstance(section, dict):
            raise PodUsageError(f"malformed taming database {path}: [{table}]")
        entries: dict[str, str] = {}
        for name, text in section.items():  # pyright: ignore[reportUnknownVariableType]
            if not isinstance(name, str) or not isinstance(text, str) or not text.strip():
                raise PodUsageError(f"malformed taming database {path}: [{table}] {name!r}")
            entries[name] = text
        tables[table] = entries
    return TamingDatabase(tables)


def check_hook_file(path: Path, database: TamingDatabase | None = None) -> None:
    """Check ``path`` and the sibling modules it imports, without running any of them.

    Raises:
        HookFileError: every problem of every file, ``file:line: rule: fix``, one a line.
    """
    known = database or taming_database()
    problems: list[str] = []
    pending, seen = [path.resolve()], set[Path]()
    while pending:
        file = pending.pop()
        if file in seen:
            continue
        seen.add(file)
        checker = _Checker(file, known)
        problems += checker.problems()
        pending += checker.local_files
    if problems:
        raise HookFileError(tuple(problems))


class _Checker(ast.NodeVisitor):
    def __init__(self, file: Path, database: TamingDatabase) -> None:
        self.file = file
        self.database = database
        self.local_files: list[Path] = []
        self._problems: list[str] = []
        self._names: dict[str, str] = {}
        """Imported names: local name -> full dotted name (``""`` for a local module's)."""
        self._modules: set[str] = set()
        """Local names bound to a whole imported (non-local) module."""
        self._local_modules: set[str] = set()
        """Local names bound to a sibling module (``import helpers``)."""
        self._classes: set[str] = set()
        self._try_depth = 0
        self._receivers: set[int] = set()
        """Expressions read a member of (``os.path`` in ``os.path.join``)."""

    def problems(self) -> list[str]:
        try:
            tree = ast.parse(self.file.read_bytes(), filename=str(self.file))
        except (OSError, SyntaxError, ValueError) as exc:
            return [f"{self.file}:{getattr(exc, 'lineno', 0) or 0}: hook-file: {exc}"]
        nodes = list(ast.walk(tree))
        self._classes = {n.name for n in nodes if isinstance(n, ast.ClassDef)}
        self._receivers = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
        self.visit(tree)
        return self._problems

    def _refuse(self, node: ast.AST, rule: str, fix: str) -> None:
        self._problems.append(f"{self.file}:{getattr(node, 'lineno', 0)}: {rule}: {fix}")

    def _local(self, module: str) -> Path | None:
        folder = self.file.parent
        parts = module.split(".")
        for candidate in (
            folder.joinpath(*parts).with_suffix(".py"),
            folder.joinpath(*parts, "__init__.py"),
        ):
            if candidate.is_file():
                return candidate.resolve()
        return None

    # -- imports ------------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        self._no_try(node)
        for alias in node.names:
            local = self._local(alias.name)
            bound = alias.asname or alias.name.partition(".")[0]
            if local is not None:
                self.local_files.append(local)
                self._names[bound] = ""
                self._local_modules.add(bound)
            elif self._is_module(alias.name):
                self._names[bound] = alias.name if alias.asname else bound
                self._modules.add(bound)
            else:
                self._refuse(
                    node,
                    "hook-import",
                    f"`{alias.name}` has no tamed name: "
                    "a hook module imports only what taming.toml lists",
                )

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._no_try(node)
        module = node.module or ""
        if module == "__future__":
            return
        local = self._local(module) if node.level <= 1 and module else None
        for alias in node.names:
            bound = alias.asname or alias.name
            if alias.name == "*":
                self._refuse(
                    node, "hook-star-import", f"name what you use: `from {module} import NAME`"
                )
            elif local is not None or node.level > 0:
                if local is not None:
                    self.local_files.append(local)
                self._names[bound] = ""
            elif self.database.tamed(f"{module}.{alias.name}"):
                self._names[bound] = f"{module}.{alias.name}"
            elif self._is_module(f"{module}.{alias.name}"):
                self._names[bound] = f"{module}.{alias.name}"
                self._modules.add(bound)
            else:
                name = f"{module}.{alias.name}"
                self._refuse(
                    node,
                    "hook-import",
                    self.database.fix(
                        name,
                        f"`{name}` is not tamed: use a name taming.toml lists, or move "
                        "the code into a host module",
                    ),
                )

    def _is_module(self, name: str) -> bool:
        return name in HOOK_API_MODULES or self.database.names_something_of(name)

    def _no_try(self, node: ast.stmt) -> None:
        if self._try_depth:
            self._refuse(
                node,
                "hook-import-in-try",
                "import unconditionally: a fallback import may differ from what was checked",
            )

    def visit_Try(self, node: ast.Try) -> None:
        self._inside_try(node)

    def visit_TryStar(self, node: ast.TryStar) -> None:
        self._inside_try(node)

    def _inside_try(self, node: ast.Try | ast.TryStar) -> None:
        self._try_depth += 1
        self.generic_visit(node)
        self._try_depth -= 1

    # -- names, attributes, classes, conditions -----------------------------------------

    def _module_value(self, node: ast.expr, module: str) -> None:
        """A module held as a value: its attributes lead to every module (``posixpath.os``)."""
        if id(node) not in self._receivers and isinstance(getattr(node, "ctx", None), ast.Load):
            self._refuse(
                node,
                "hook-module-value",
                f"`{module}` is a module used as a value: name the member you use",
            )

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in self._modules or name in self._local_modules:
            self._module_value(node, name)
        if name in self._names or name in self._classes or not hasattr(builtins, name):
            return
        full = f"builtins.{name}"
        if isinstance(node.ctx, ast.Store | ast.Del):
            self._refuse(node, "hook-builtin", f"`{name}` shadows a builtin: pick another name")
        elif name in _CONDITIONS:
            pass
        elif not self.database.tamed(full) and name not in ("__name__", "__doc__"):
            self._refuse(node, "hook-builtin", self.database.fix(full, f"`{name}` is not tamed"))

    def visit_Call(self, node: ast.Call) -> None:
        function = node.func
        if isinstance(function, ast.Name) and function.id in _BY_LITERAL:
            attribute = node.args[1] if len(node.args) > 1 else None
            literal = isinstance(attribute, ast.Constant) and isinstance(attribute.value, str)
            name = str(attribute.value) if literal else ""  # type: ignore[union-attr]
            if literal and self._reflective(node, name):
                return
            if literal and not name.startswith("__"):
                for child in [*node.args, *node.keywords]:
                    self.visit(child)
                return
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attribute = node.attr
        value = node.value
        calls_super = (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
        )
        if self._reflective(node, attribute):
            pass
        elif attribute.startswith("__") and attribute.endswith("__") and not calls_super:
            self._refuse(
                node,
                "hook-dunder",
                f"`.{attribute}` is reflection: use the object's public attributes",
            )
        elif isinstance(value, ast.Name) and value.id in self._modules:
            full = f"{self._names[value.id]}.{attribute}"
            if _is_submodule(full):
                self._module_value(node, full)
            if not (self.database.tamed(full) or self.database.names_something_of(full)):
                self._refuse(
                    node,
                    "hook-untamed",
                    self.database.fix(full, f"`{full}` is not tamed: use a name taming.toml lists"),
                )
        self.generic_visit(node)

    def _reflective(self, node: ast.AST, member: str) -> bool:
        leads = self.database.leads_to_frames(member)
        if leads is not None:
            self._refuse(node, "hook-escape", f"`.{member}` is refused: {leads}")
        return leads is not None

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for member in node.kwd_attrs:  # case C(name=...) reads the attribute
            self._reflective(node, member)
        self.generic_visit(node)

    # -- quoted annotations ----------------------------------------------------------------

    def visit_arg(self, node: ast.arg) -> None:
        self._quoted(node.annotation)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._quoted(node.returns)
        self.generic_visit(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._quoted(node.returns)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._quoted(node.annotation)
        if self._dotted(node.annotation) in {"TypeAlias", "typing.TypeAlias"}:
            self._quoted(node.value)  # X: TypeAlias = "..."
        self.generic_visit(node)

    def _quoted(self, annotation: ast.expr | None) -> None:
        """A quoted annotation is code too: ``typing.get_type_hints`` (which singledispatch's
        ``register`` calls) evaluates it, and the strings in its type positions, in the
        module's namespace."""
        for quoted, text in self._type_strings(annotation):
            try:
                parsed = ast.parse(text.strip(), mode="eval")
            except SyntaxError:
                self._refuse(quoted, "hook-annotation", "a quoted annotation must be a type")
                continue
            for inner in ast.walk(parsed):
                ast.copy_location(inner, quoted)
                if isinstance(inner, ast.Attribute):
                    self._receivers.add(id(inner.value))
            self.visit(parsed.body)

    def _type_strings(self, node: ast.expr | None) -> Iterator[tuple[ast.Constant, str]]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node, node.value
        elif isinstance(node, ast.Subscript):
            if (self._dotted(node.value) or "").rpartition(".")[2] != "Literal":
                yield from self._type_strings(node.slice)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for item in node.elts:
                yield from self._type_strings(item)
        elif isinstance(node, ast.BinOp):
            yield from self._type_strings(node.left)
            yield from self._type_strings(node.right)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            target = base.value if isinstance(base, ast.Subscript) else base
            name = self._dotted(target)
            if name is None or not self._tamed_class(name):
                shown = ast.unparse(target)
                self._refuse(
                    base,
                    "hook-class-base",
                    f"`{shown}` is not a tamed class: derive from a tamed class "
                    "(object, Exception, pod.Hook, ...) or one of the file's own",
                )
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                self._refuse(
                    keyword, "hook-metaclass", "no metaclass in a hook module: use a plain class"
                )
        self.generic_visit(node)

    def _dotted(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            head = self._dotted(node.value)
            return None if head is None else f"{head}.{node.attr}"
        return None

    def _tamed_class(self, name: str) -> bool:
        head, _, rest = name.partition(".")
        if head in self._classes and not rest:
            return True
        imported = self._names.get(head)
        if imported == "":
            return True  # a class of a local hook module, checked in its own file
        full = f"{imported}.{rest}".rstrip(".") if imported else f"builtins.{name}"
        if imported and not rest:
            full = imported
        return full in self.database.tables["classes"]

    def visit_If(self, node: ast.If) -> None:
        self._condition(node.test)
        self.generic_visit(node)

    def visit_IfExp(self, node: ast.IfExp) -> None:
        self._condition(node.test)
        self.generic_visit(node)

    def visit_While(self, node: ast.While) -> None:
        self._condition(node.test)
        self.generic_visit(node)

    def _condition(self, test: ast.expr) -> None:
        for node in _names_in(test):
            if node in _CONDITIONS:
                self._refuse(
                    test,
                    "hook-type-checking",
                    f"no `{node}` branch: the checker and the run would see "
                    "different code; write one version",
                )
                return


def _names_in(test: ast.expr) -> Iterator[str]:
    for node in ast.walk(test):
        if isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr


def _is_submodule(name: str) -> bool:
    """Whether ``name`` (``os.path``) is a module of the standard library or an installed
    package: its parent package is imported to answer, never the hook file."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
