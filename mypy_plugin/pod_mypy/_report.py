"""Every finding and every hook the plugin saw, for ``python -m pod_mypy check``.

During a normal mypy run the plugin reports through mypy only. The stand-alone command
installs a :class:`Report` first: then every ``hook-*`` error is also recorded here, where no
``# type: ignore`` or ``# mypy: ignore-errors`` can silence it, together with the boundary
report (each hook: where, which event, verified or why not).
"""

from __future__ import annotations

from typing import Literal, NamedTuple, final

from mypy.checker import TypeChecker
from mypy.errorcodes import ErrorCode
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

__all__ = [
    "Finding",
    "HookEntry",
    "HookModule",
    "Report",
    "Status",
    "active",
    "fail",
    "install",
    "record_finding",
    "record_hook",
    "record_module",
]

Status = Literal["verified", "unverifiable", "trusted"]


# NamedTuples and a plain class, not dataclasses: defining a dataclass costs milliseconds, and
# this module loads in every build that checks a module.
@final
class Finding(NamedTuple):
    path: str
    line: int
    code: str
    message: str


@final
class HookEntry(NamedTuple):
    path: str
    line: int
    event: str
    hook: str
    status: Status
    why: str = ""


@final
class HookModule(NamedTuple):
    path: str
    module: str
    findings: int


@final
class Report:
    __slots__ = ("findings", "grants", "hooks", "modules")

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.hooks: list[HookEntry] = []
        self.modules: list[HookModule] = []
        """Every hook module checked, with its number of findings."""
        self.grants: dict[str, list[str]] = {}
        """The configuration's grants: capabilities, host and hook modules, trusted packages."""


_active: list[Report] = []


def install(report: Report | None) -> None:
    """Record into ``report`` from now on (``None``: stop recording)."""
    _active.clear()
    if report is not None:
        _active.append(report)


def active() -> Report | None:
    return _active[0] if _active else None


def record_finding(path: str, line: int, message: str, code: ErrorCode) -> None:
    report = active()
    if report is not None:
        report.findings.append(Finding(path, line, code.code, message))


def record_module(entry: HookModule) -> None:
    report = active()
    if report is not None:
        report.modules.append(entry)


def record_hook(entry: HookEntry) -> None:
    report = active()
    if report is not None:
        report.hooks.append(entry)


def fail(api: CheckerPluginInterface, message: str, context: Context, code: ErrorCode) -> None:
    """Report an error through mypy, and into the active report."""
    record_finding(api.path, context.line, message, code)
    if isinstance(api, TypeChecker) and api.can_skip_diagnostics:
        return  # mypy shows nothing for this module (and may have no scope to report in)
    api.fail(message, context, code=code)
