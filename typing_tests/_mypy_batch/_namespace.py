"""Moving one case's files into a package of its own, so that many cases share one mypy build.

Every case names its modules ``main``, ``world``, ``hooks``...: in one build they would clash.
Case ``n`` is written under the package ``tcase<n>`` instead, and the imports of its own modules
are rewritten in place (``from world import X`` becomes ``from tcase7.world import X``, ``import
world`` becomes ``import tcase7.world as world``). Only text inside an import statement moves, so
every line keeps its number; mypy's output is mapped back by stripping the package from paths and
names (:func:`strip_namespace`).

A case this cannot move faithfully is *not batchable* and runs alone (:func:`namespace`'s
``reason``): a file that is not Python, a module that shadows an installed or standard-library
module (``pod`` must import the case's fake ``llm_worker``), a relative import at the top level,
``import pkg.sub`` of a case package (it binds ``pkg``, which no rewrite keeps), a file that does
not parse, a top-level ``__init__.py``, a config that names modules, or a file naming a
``tcase<n>`` package (in a shared build it could import another case).
"""

from __future__ import annotations

import ast
import importlib.util
import io
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["PREFIX", "MovedCase", "namespace", "strip_namespace"]

PREFIX: Final = "tcase"
"""Case packages are ``tcase0``, ``tcase1``...: no prefix the plugin or mypy treat specially."""

_PYTHON_SUFFIXES: Final = (".py", ".pyi")
_FROM_MODULE: Final = re.compile(r"from\s+")
_NAMES_A_PACKAGE: Final = re.compile(rf"\b{PREFIX}\d+\b")
"""A case that could import another case's package runs alone."""


@dataclass(frozen=True, slots=True)
class MovedCase:
    """A case's files as written under its package, or why it must run alone."""

    package: str
    files: Mapping[str, str]
    """Path under the package -> rewritten content, in the order the case writes them."""
    reason: str | None
    """Why the case cannot share a build (``files`` is then empty), or ``None``."""
    own_build: str | None = None
    """Why the case gets a build of its own in the runner (it subclasses, with methods, a
    class from outside the case and llm-pod), or ``None``."""


def namespace(
    package: str, files: Sequence[tuple[str, str]], *, mypy_config: str, shadowed_root: Path
) -> MovedCase:
    """Move a case's ``files`` (``(path, content)``, ``main.py`` first) into ``package``.

    Args:
        package: the package the case's modules go under, e.g. ``tcase7``.
        files: the case's files as pytest-mypy-plugins writes them.
        mypy_config: the case's extra mypy config (a config naming modules cannot be moved).
        shadowed_root: a directory on mypy's path (the pytest rootdir): its top-level names
            are taken, as installed modules are.
    """
    local: set[str] = set()
    for path, _ in files:
        if not path.endswith(_PYTHON_SUFFIXES):
            return _alone(package, f"{path} is not a Python file")
        if Path(path).stem == "__init__" and len(Path(path).parts) == 1:
            return _alone(package, f"{path} would make the case's own directory a package")
        local.add(Path(path).parts[0].removesuffix(".pyi").removesuffix(".py"))
    for name in sorted(local):
        if _is_taken(name, shadowed_root):
            return _alone(package, f"module {name!r} shadows one outside the case")
    if re.search(r"^\s*\[(?!mypy\])", mypy_config, re.MULTILINE) or any(
        re.search(rf"\b{re.escape(name)}\b", mypy_config) for name in local
    ):
        return _alone(package, "its mypy_config names modules")
    moved: dict[str, str] = {}
    for path, content in files:
        if _NAMES_A_PACKAGE.search(content):
            return _alone(package, f"{path} names a {PREFIX}<n> package of the runner")
        rewritten = _rewrite_imports(package, content, local, top_level=len(Path(path).parts) == 1)
        if isinstance(rewritten, _Refusal):
            return _alone(package, f"{path}: {rewritten.reason}")
        moved[path] = rewritten
    return MovedCase(package, moved, None, _subclasses_outside([content for _, content in files]))


_HARMLESS_BASES: Final = frozenset({"pod", "llm_worker", "pydantic", "typing", "typing_extensions"})
"""Packages whose classes a case may subclass in a shared build: a value typed one of
llm-pod's classes is judged by its privilege, and typing constructs are not values."""


def _subclasses_outside(sources: Sequence[str]) -> str | None:
    """A class with methods derived, directly or through classes of the case, from a builtin,
    standard-library or other outside class (``class Lenient(dict): def __missing__...``). In
    a shared build the plugin's closed world counts it among the subclasses of that class for
    every case checked after it, so another case's ``dict`` values would become values that
    may run hidden code (an override of a class in another module). Such a case gets a build
    of its own."""
    trees = [ast.parse(source) for source in sources]
    defined = {
        node.name for tree in trees for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
    }
    own_bases: dict[str, list[str]] = {}
    """Case class -> the case classes it derives from."""
    outside: dict[str, list[str]] = {}
    """Case class -> the outside classes (not harmless) it derives from directly."""
    with_methods: list[ast.ClassDef] = []
    for tree in trees:
        imported = _imported_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            if any(isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) for item in node.body):
                with_methods.append(node)
            for base in node.bases:
                written = ast.unparse(base.value if isinstance(base, ast.Subscript) else base)
                first = written.split(".")[0]
                if written in defined:
                    own_bases.setdefault(node.name, []).append(written)
                elif written != "object" and (
                    imported.get(first, "builtins").split(".")[0] not in _HARMLESS_BASES
                ):
                    outside.setdefault(node.name, []).append(written)
    for node in with_methods:
        found = _outside_base(node.name, own_bases, outside, set())
        if found is not None:
            return f"class {node.name} derives from {found} (line {node.lineno})"
    return None


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """Name bound by an import -> the module it comes from."""
    imported: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            for alias in node.names:
                imported[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported[alias.asname or alias.name.split(".")[0]] = alias.name
    return imported


def _outside_base(
    name: str, own_bases: dict[str, list[str]], outside: dict[str, list[str]], seen: set[str]
) -> str | None:
    if name in seen:
        return None
    seen.add(name)
    direct = outside.get(name)
    if direct:
        return direct[0]
    for base in own_bases.get(name, ()):
        found = _outside_base(base, own_bases, outside, seen)
        if found is not None:
            return found
    return None


def strip_namespace(package: str, line: str) -> str:
    """``line`` of mypy output as a build of the case alone would print it."""
    return re.sub(rf"\b{re.escape(package)}[./]", "", line)


@dataclass(frozen=True, slots=True)
class _Refusal:
    reason: str


def _alone(package: str, reason: str) -> MovedCase:
    return MovedCase(package, {}, reason)


def _is_taken(name: str, shadowed_root: Path) -> bool:
    if name in sys.stdlib_module_names or (shadowed_root / name).exists():
        return True
    if (shadowed_root / f"{name}.py").exists():
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return True


def _rewrite_imports(
    package: str, source: str, local: set[str], *, top_level: bool
) -> str | _Refusal:
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        return _Refusal(f"does not parse ({error.msg}, line {error.lineno})")
    # Lines as ast numbers them: str.splitlines would also split at form feeds and the like.
    lines = io.StringIO(source, newline="").readlines()
    edits: list[tuple[int, int, str]] = []  # (line index, character column, text to insert)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                if top_level:
                    return _Refusal(f"a relative import at the top level (line {node.lineno})")
                continue
            if node.module is None or node.module.split(".")[0] not in local:
                continue
            line = lines[node.lineno - 1]
            found = _FROM_MODULE.match(line, _char_column(line, node.col_offset))
            if found is None or not line.startswith(node.module.split(".")[0], found.end()):
                return _Refusal(f"an import this runner cannot rewrite (line {node.lineno})")
            edits.append((node.lineno - 1, found.end(), f"{package}."))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in local:
                    continue
                if alias.asname is None and "." in alias.name:
                    return _Refusal(f"import {alias.name} binds a package (line {alias.lineno})")
                line = lines[alias.lineno - 1]
                column = _char_column(line, alias.col_offset)
                if not line.startswith(alias.name, column):
                    return _Refusal(f"an import this runner cannot rewrite (line {alias.lineno})")
                edits.append((alias.lineno - 1, column, f"{package}."))
                if alias.asname is None:  # `import world` binds `world`: keep that name
                    edits.append((alias.lineno - 1, column + len(alias.name), f" as {alias.name}"))
    for index, column, text in sorted(edits, reverse=True):
        lines[index] = lines[index][:column] + text + lines[index][column:]
    return "".join(lines)


def _char_column(line: str, byte_offset: int) -> int:
    """ast columns count UTF-8 bytes."""
    return len(line.encode()[:byte_offset].decode(errors="replace"))
