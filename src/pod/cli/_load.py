"""Loading ``--hooks`` and ``--tools`` specs (``module:attr`` or ``file.py:attr``).

A ``file.py`` is loaded as Python imports a module: it is registered in ``sys.modules``
under its stem while it runs (so ``@dataclass`` with postponed annotations works) and its
folder is put on ``sys.path`` (so it can ``import`` its sibling files). A module already
imported under that name from another file is a clash, reported rather than shadowed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
import weakref
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Final, cast

from llm_worker import Tool

from ..hooks._errors import PodUsageError
from ..hooks._hook_files import check_hook_file
from ..hooks._registry import FrozenHookRegistry, HookRegistry

__all__ = ["LoadError", "check_hook_spec", "load_hooks", "load_tools"]


class LoadError(Exception):
    """A ``--hooks``/``--tools`` spec cannot be loaded; the message says why."""


def load_hooks(specs: Iterable[str], *, trust_hooks: bool = False) -> FrozenHookRegistry:
    """The registries named by ``specs``, asked in the order given.

    Each hook file (``file.py:attr``, or a ``module:attr`` found as a file) and the sibling
    modules it imports are checked against the taming database before any of it runs,
    unless ``trust_hooks`` (``--trust-hooks``) says the host vouches for them.

    Raises:
        LoadError: a spec cannot be imported or is not a ``HookRegistry``.
        HookFileError: a hook file names what hook code may not (nothing of it ran).
    """
    combined = HookRegistry().freeze()
    for spec in specs:
        if not trust_hooks:
            check_hook_spec(spec)
        loaded = _load_object(spec)
        if isinstance(loaded, HookRegistry):
            loaded = loaded.freeze()
        if not isinstance(loaded, FrozenHookRegistry):
            raise LoadError(f"{spec} is a {type(loaded).__name__}, not a HookRegistry")
        combined = combined.then(loaded)
    return combined


def load_tools(specs: Iterable[str]) -> list[Tool]:
    """The tools named by ``specs`` (each a tool, or a list or tuple of tools).

    Raises:
        LoadError: a spec cannot be imported or names something that is not a tool.
    """
    tools: list[Tool] = []
    for spec in specs:
        loaded = _load_object(spec)
        candidates: list[object] = (
            list(cast(Iterable[object], loaded)) if isinstance(loaded, list | tuple) else [loaded]
        )
        for candidate in candidates:
            if not all(hasattr(candidate, name) for name in ("name", "parameters", "call")):
                raise LoadError(f"{spec}: {candidate!r} is not a tool (use @tool)")
            tools.append(cast(Tool, candidate))
    return tools


def check_hook_spec(spec: str) -> None:
    """Check the hook file ``spec`` names, and its local imports, without running them.

    Raises:
        HookFileError: with every problem found.
    """
    module_name = spec.rpartition(":")[0]
    if module_name.endswith(".py"):
        path: Path | None = Path(module_name)
    else:  # a module of the current folder; an installed package is the host's
        parts = module_name.split(".")
        found = [Path(*parts).with_suffix(".py"), Path(*parts, "__init__.py")]
        path = next((p for p in found if p.is_file()), None)
    if path is not None and path.is_file():
        check_hook_file(path)


def _load_object(spec: str) -> object:
    module_name, colon, attribute = spec.rpartition(":")
    if not colon or not module_name or not attribute:
        raise LoadError(f"{spec!r} is not module:attr or file.py:attr")
    try:
        module = _import(module_name)
    except LoadError:
        raise
    except PodUsageError as exc:  # pod refused what the file does (a hook on the wrong event)
        raise LoadError(f"{_where_in(module_name, exc)}{_first_line(exc)}") from exc
    except Exception as exc:  # importing user code can raise anything
        raise LoadError(
            f"cannot import {module_name!r}: {type(exc).__name__}: {_first_line(exc)}"
        ) from exc
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise LoadError(f"{module_name!r} has no attribute {attribute!r}") from None


def _import(name: str) -> ModuleType:
    if not name.endswith(".py"):
        if "" not in sys.path:
            sys.path.insert(0, "")  # module:attr is looked up from the current folder too
        return importlib.import_module(name)
    path = Path(name).resolve()
    if not path.is_file():
        raise LoadError(f"no such file {name!r}")
    module_name = path.stem
    existing = sys.modules.get(module_name)
    if existing is not None and existing not in _FROM_FILES:
        if Path(getattr(existing, "__file__", "") or "").resolve() == path:
            return existing  # the same file, already imported
        raise LoadError(
            f"cannot import {name!r}: a module named {module_name!r} is already loaded "
            f"from elsewhere; rename the file"
        )
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise LoadError(f"cannot load {name!r}")
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # its siblings import as they would next to a script
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while it runs
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    _FROM_FILES.add(module)
    return module


# Modules this loader ran from files: loading a file of the same name again (another
# command in the same process, as in tests) replaces them rather than clashing.
_FROM_FILES: Final[weakref.WeakSet[ModuleType]] = weakref.WeakSet()


def _where_in(module_name: str, exc: BaseException) -> str:
    """``hooks.py, line 7: ``: the innermost line of the traceback in the user's file."""
    path = Path(module_name).resolve() if module_name.endswith(".py") else None
    if path is None:
        spec = importlib.util.find_spec(module_name)
        path = Path(spec.origin).resolve() if spec is not None and spec.origin else None
    line = None
    for frame, number in traceback.walk_tb(exc.__traceback__):
        if path is not None and Path(frame.f_code.co_filename).resolve() == path:
            line = number
    return f"{module_name}, line {line}: " if line is not None else ""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else "(no message)"
