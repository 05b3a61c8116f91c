"""How a hook, and what went wrong in it, are named in errors and traces: by the public path
users import it from, and the line in the hook's own file. (Kept apart from
``_registry.py``, which registers and dispatches.)
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable

from ._errors import CommandHookError

__all__ = ["exception_text", "hook_name", "raised"]


def hook_name(fn: Callable[..., object]) -> str:
    """The hook's qualified name, by its public path when a package re-exports it
    (``pod.PermissionHook``, not ``pod.policy._permissions.PermissionHook``)."""
    named: object = fn if hasattr(fn, "__qualname__") else type(fn)
    module = getattr(named, "__module__", None) or "?"
    qualname: str = getattr(named, "__qualname__", None) or type(fn).__qualname__
    if module.startswith("_") or "._" in module:
        package = sys.modules.get(module.partition(".")[0])
        outer = qualname.partition(".")[0]
        defining = sys.modules.get(module)
        exported = package is not None and defining is not None
        if exported and getattr(package, outer, None) is getattr(defining, outer, object()):
            module = package.__name__ if package is not None else module
    return f"{module}.{qualname}"


def raised(fn: Callable[..., object], exc: BaseException) -> str:
    """``raised KeyError: 'b' at hooks.py:12``: the line is the innermost frame of the
    traceback in the file the hook is defined in (else the innermost frame of all)."""
    if isinstance(exc, CommandHookError):
        # The command's failure, named by its command, status and stderr: where in this
        # package the error was raised tells its reader nothing.
        return str(exc)
    frames = traceback.extract_tb(exc.__traceback__)
    home = _defining_file(fn)
    own = [frame for frame in frames if home is not None and frame.filename == home]
    where = (own or frames)[-1:] if frames else []
    place = f" at {_shown_path(where[0].filename)}:{where[0].lineno}" if where else ""
    return f"raised {exception_text(exc)}{place}"


def exception_text(exc: BaseException) -> str:
    """``KeyError: 'b'``; never raises, whatever the exception's ``__str__`` or class does
    (a hook's exception must not escape the failure policy): falls back to the type name."""
    kind = _type_name(exc)
    try:
        message = str(exc)
    except Exception:
        return f"{kind} (its message could not be formatted)"
    if type(message) is not str:  # a str subclass could run code when formatted
        return f"{kind} (its message could not be formatted)"
    return f"{kind}: {message}"


def _type_name(exc: BaseException) -> str:
    # ``type.__getattribute__``: a metaclass may override ``__name__`` with code that raises.
    try:
        name = type.__getattribute__(type(exc), "__name__")
    except Exception:
        return "an exception"
    return name if type(name) is str else "an exception"


def _shown_path(filename: str) -> str:
    """Relative to the working folder when inside it (shorter, and what users type)."""
    path = os.path.abspath(filename)
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _defining_file(fn: Callable[..., object]) -> str | None:
    code = getattr(fn, "__code__", None) or getattr(
        getattr(type(fn), "__call__", None),  # noqa: B004  # a hook object's __call__
        "__code__",
        None,
    )
    filename = getattr(code, "co_filename", None)
    return filename if isinstance(filename, str) else None
