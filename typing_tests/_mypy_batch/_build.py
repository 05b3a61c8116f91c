"""One mypy build over many moved cases, its output split back per case.

The build runs as pytest-mypy-plugins runs one case: a mypy process with the same flags, the
merged config file, ``MYPYPATH`` ending with the pytest rootdir and nothing else in its
environment, started in the directory holding the case files; except that this directory holds
one package per case and every case's ``main`` is a source. Case modules are removed from the
cache afterwards, as pytest-mypy-plugins does, so every run checks them afresh; what stays warm is
the standard library, pydantic and ``pod``.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from mypy import build
from mypy.main import process_options
from mypy.metastore import MetadataStore

from ._namespace import MovedCase, strip_namespace

__all__ = ["BuildSettings", "CaseOutput", "check_together"]

_FLAGS: Final = ("--show-traceback", "--no-error-summary", "--no-pretty", "--hide-error-context")
"""What pytest-mypy-plugins passes before the config file."""
_FATAL: Final = 2
"""mypy's exit status when it could not check (pytest-mypy-plugins' ``FATAL_ERROR``)."""
_WARM_UP: Final = "tcase_library"
_LIBRARY: Final = "import llm_worker\nimport llm_worker.interceptor\nimport pod\n"


@dataclass(frozen=True, slots=True)
class BuildSettings:
    """What every build of one group of cases shares."""

    root: Path
    """An empty directory: the case packages are written there and mypy runs there."""
    config_file: str | None
    cache_dir: str
    mypy_path: str
    """Appended to ``MYPYPATH`` (pytest-mypy-plugins appends the pytest rootdir)."""


@dataclass(frozen=True, slots=True)
class CaseOutput:
    """mypy's output for one case, each path still under the case's package."""

    lines: tuple[str, ...]

    @property
    def returncode(self) -> int:
        return 1 if self.lines else 0


def check_together(
    cases: Sequence[MovedCase], settings: BuildSettings
) -> dict[str, CaseOutput | None]:
    """Type-check ``cases`` in as few builds as possible: one for all of them, except the
    cases that need a build of their own (``MovedCase.own_build``).

    Returns:
        Each case's output by package; ``None`` for a case whose build failed even with no
        other case in it (a crash, a blocking error): it must run on its own. A failed build is
        split in halves, so one crashing case costs a few builds, not one per case.
    """
    for case in cases:
        _write(settings.root / case.package, case.files)
    _warm_library(settings)
    results: dict[str, CaseOutput | None] = {}
    shared = [case for case in cases if case.own_build is None]
    pending = [[case] for case in cases if case.own_build is not None]
    if shared:
        pending.append(shared)
    while pending:
        group = pending.pop()
        outputs = _build(group, settings)
        if outputs is not None:
            results.update(outputs)
        elif len(group) == 1:
            results[group[0].package] = None
        else:
            middle = len(group) // 2
            pending += [group[:middle], group[middle:]]
    return results


def _write(package_dir: Path, files: Mapping[str, str]) -> None:
    package_dir.mkdir(parents=True)
    (package_dir / "__init__.py").write_text("", encoding="utf-8")
    for path, content in files.items():
        target = package_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")


def _build(cases: Sequence[MovedCase], settings: BuildSettings) -> dict[str, CaseOutput] | None:
    targets = [f"{case.package}/main.py" for case in cases]
    status, lines = _mypy(targets, settings, forget={case.package for case in cases})
    return None if status == _FATAL else _split(cases, lines)


def _warm_library(settings: BuildSettings) -> None:
    """Bring the library up to date in the cache before the cases are checked.

    Under pytest-mypy-plugins every case but the first finds ``pod`` and ``llm_worker`` in the
    cache, and mypy's output depends on it: the note ``"__init__" defined in
    "llm_worker._summaries"`` appears only when that module comes from the cache. Whether the
    cache is up to date (the plugin's source is part of every entry) only mypy can tell, so this
    runs on every build; on an up-to-date cache it costs a mypy start-up.
    """
    target = settings.root / f"{_WARM_UP}.py"
    target.write_text(_LIBRARY, encoding="utf-8")
    _mypy([target.name], settings, forget={_WARM_UP})


def _mypy(
    targets: list[str], settings: BuildSettings, *, forget: set[str]
) -> tuple[int, list[str]]:
    """Run mypy on ``targets``, then drop the modules of the ``forget`` packages from the
    cache, so that the next run checks them afresh. Returns the exit status and the output."""
    # A process of its own, as pytest-mypy-plugins runs mypy: inside pytest, mypy would take
    # pytest's sys.path for installed packages and silence errors in the case files.
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *_arguments(settings), *targets],
        cwd=settings.root,
        env=_environment(settings.mypy_path),
        capture_output=True,
        text=True,
        check=False,
    )
    with _metastore(targets, settings) as store:
        for name in list(store.list_all()):
            if name.split("/", 1)[0].split(".", 1)[0] in forget:
                store.remove(name)
        store.commit()
    return done.returncode, (done.stdout + done.stderr).splitlines()


def _arguments(settings: BuildSettings) -> list[str]:
    config = [] if settings.config_file is None else [f"--config-file={settings.config_file}"]
    return [*_FLAGS, "--cache-dir", settings.cache_dir, *config]


def _split(cases: Sequence[MovedCase], lines: list[str]) -> dict[str, CaseOutput]:
    own: dict[str, list[str]] = {case.package: [] for case in cases}
    shared: list[str] = []
    for line in lines:
        path, _, rest = line.partition(":")
        package = path.split("/", 1)[0] if "/" in path else None
        if package in own:
            own[package].append(f"{path}:{strip_namespace(package, rest)}")
        else:
            shared.append(line)  # about no one case (a config warning): each would see it
    return {package: CaseOutput((*found, *shared)) for package, found in own.items()}


def _environment(mypy_path: str) -> dict[str, str]:
    parts = (os.environ.get("MYPYPATH"), mypy_path)
    environment = {"MYPYPATH": os.pathsep.join(part for part in parts if part)}
    if "SYSTEMROOT" in os.environ:  # Windows needs it to start Python
        environment["SYSTEMROOT"] = os.environ["SYSTEMROOT"]
    return environment


@contextlib.contextmanager
def _metastore(targets: list[str], settings: BuildSettings) -> Generator[MetadataStore, None, None]:
    """The cache of the build of ``targets`` (files under ``settings.root``)."""
    with contextlib.chdir(settings.root):
        _, options = process_options(
            [*_arguments(settings), *targets], stdout=io.StringIO(), stderr=io.StringIO()
        )
    store = build.create_metastore(options, parallel_worker=False)
    try:
        yield store
    finally:
        store.close()
