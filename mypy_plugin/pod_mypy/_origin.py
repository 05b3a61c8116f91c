"""Whose code a module is: the standard library, an installed package, llm-pod itself (the
host's library), or the project being checked.

Code of the standard library and of installed packages is trusted like the interpreter, but
hook code may use only the standard-library modules listed in :data:`HOOK_STDLIB`: the
others can reach objects by reflection (frames, the heap, imports, pickling, tracing) and are
unverifiable. Project modules are checked by the plugin; a project module's code that hook
code runs must be in the build and visible to the plugin.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Final

from mypy.nodes import MypyFile

__all__ = ["HOOK_STDLIB", "HOST_PACKAGES", "hook_may_use", "is_installed", "is_library"]

HOST_PACKAGES: Final = frozenset({"llm_worker", "pod"})
"""llm-pod's own packages: the host's library (their hooks are checked where defined)."""

HOOK_STDLIB: Final = frozenset(
    {
        "builtins",
        "typing",
        "typing_extensions",
        "_typeshed",
        "abc",
        "annotated_types",
        "asyncio",
        "base64",
        "binascii",
        "bisect",
        "calendar",
        "collections",
        "contextlib",
        "copy",
        "csv",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "email",
        "enum",
        "errno",
        "fnmatch",
        "fractions",
        "functools",
        "hashlib",
        "heapq",
        "hmac",
        "html",
        "http",
        "io",
        "ipaddress",
        "itertools",
        "json",
        "logging",
        "math",
        "numbers",
        "operator",
        "os",
        "pathlib",
        "posixpath",
        "pprint",
        "queue",
        "random",
        "re",
        "reprlib",
        "secrets",
        "shlex",
        "sqlite3",
        "statistics",
        "string",
        "struct",
        "textwrap",
        "threading",
        "time",
        "tomllib",
        "unicodedata",
        "urllib",
        "uuid",
        "zlib",
        "zoneinfo",
    }
)
"""Standard-library modules hook code may use: text, data, time, math, logging (as a caller),
typed parsing, locks, HTTP clients. Reflection lives elsewhere (``sys``, ``types``, ``inspect``,
``gc``, ``pickle``, ``copyreg``, ``importlib``, ``runpy``, ``code``, ``timeit``, profilers...)."""

HOOK_STDLIB_DENIED: Final = frozenset(
    {
        "asyncio.all_tasks",
        "asyncio.current_task",
        "asyncio.tasks.all_tasks",
        "asyncio.tasks.current_task",
        "asyncio.get_running_loop",
        "asyncio.get_event_loop",
        "asyncio.events.get_running_loop",
        "asyncio.events.get_event_loop",
        "threading.settrace",
        "threading.setprofile",
        "threading.settrace_all_threads",
        "threading.setprofile_all_threads",
        "threading.enumerate",
        "logging.setLoggerClass",
        "logging.setLogRecordFactory",
        "logging.getLogRecordFactory",
        "logging.addLevelName",
        "os.register_at_fork",
    }
)
"""Members of allowed modules that reach the interpreter's state or install callbacks."""

_STDLIB: Final = frozenset(sys.stdlib_module_names) | {"builtins", "_typeshed"}
_THIRD_PARTY_TYPING: Final = frozenset({"typing_extensions", "mypy_extensions"})


def _top(module: str) -> str:
    return module.partition(".")[0]


def is_stdlib(module: str) -> bool:
    return _top(module) in _STDLIB


def is_installed(module: str, modules: Mapping[str, MypyFile]) -> bool:
    """A module of an installed third-party package (not llm-pod, not the project)."""
    if _top(module) in _THIRD_PARTY_TYPING:
        return True
    file = modules.get(module)
    path = file.path if file is not None else ""
    return "site-packages" in path or "dist-packages" in path


_LIBRARY: dict[tuple[int, str], bool] = {}
"""Answers of :func:`is_library` (a module's place does not change while mypy runs)."""


def is_library(module: str, modules: Mapping[str, MypyFile]) -> bool:
    """Code the host trusts as it trusts the interpreter: the standard library, installed
    packages and llm-pod itself."""
    key = (id(modules), module)  # per build: each build has its own modules
    known = _LIBRARY.get(key)
    if known is None:
        known = _LIBRARY[key] = (
            is_stdlib(module) or _top(module) in HOST_PACKAGES or is_installed(module, modules)
        )
    return known


_ACCELERATORS: Final = {"_thread": "threading"}
"""C modules whose public face has another name (``_struct`` is ``struct``'s, generically)."""


def hook_may_use(fullname: str) -> bool:
    """Whether hook code may use this standard-library name (a module or a member)."""
    top, dot, rest = fullname.partition(".")
    public = _ACCELERATORS.get(top, top[1:] if top.startswith("_") and top != "_typeshed" else top)
    name = f"{public}{dot}{rest}"
    if fullname in HOOK_STDLIB_DENIED or name in HOOK_STDLIB_DENIED:
        return False
    return public in HOOK_STDLIB
