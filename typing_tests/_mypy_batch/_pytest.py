"""pytest glue: every pytest-mypy-plugins case stays one test item, but cases share builds.

pytest-mypy-plugins collects the yml files as usual; once selection (``-k``, ``-m``) is done,
each of its items is replaced by a :class:`BatchedCase` with the same name and data. The first
batched case to run type-checks every selected case with the same ``mypy_config`` in one
build; each case then compares its share of the output with pytest-mypy-plugins' own checker.

A case fails only on the word of a build of that case alone: when its share of the batch does
not match, the case is re-run exactly as pytest-mypy-plugins runs it (a mypy process of its
own) and that run decides. A case that passes alone but not in the batch is a defect of the
batching, listed at the end of the session.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pytest_mypy_plugins.item import OutputChecker, YamlTestItem
from pytest_mypy_plugins.utils import TypecheckAssertionError

from ._build import BuildSettings, CaseOutput, check_together
from ._namespace import PREFIX, MovedCase, namespace

__all__ = [
    "BatchedCase",
    "pytest_collection_modifyitems",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
]


class BatchedCase(YamlTestItem):
    """A pytest-mypy-plugins case whose mypy run is shared with the other cases."""

    def runtest(self) -> None:
        output = self.config.stash[_SUITE].output(self)
        if output is None:
            self._run_alone(f"alone-{_key(self.additional_mypy_config)}")
            return
        package, found = output
        checker = OutputChecker(
            expect_fail=self.expect_fail,
            execution_path=Path(package),
            expected_output=self.expected_output,
        )
        try:
            checker.check(found.returncode, "\n".join(found.lines), "")
        except TypecheckAssertionError:
            pass
        else:
            return
        # The case alone decides: this raises (with its own report) if it fails there too.
        self._run_alone(_batch_cache(self))
        self.config.stash[_SUITE].disagreements[self.nodeid] = found.lines

    def _run_alone(self, cache: str) -> None:
        """Run the case as pytest-mypy-plugins does, in a cache of ``cache``'s config: cases of
        other configs would invalidate it, and a case that runs alone because it shadows an
        installed module would invalidate the batch's."""
        self.incremental_cache_dir = os.path.join(self.incremental_cache_dir, cache)
        super().runtest()


def _key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _batch_cache(item: YamlTestItem) -> str:
    """One cache per config: mypy invalidates a module's cache when its options change."""
    return f"batch-{_key(item.additional_mypy_config)}"


@dataclass
class _Group:
    """Selected cases that share one mypy config, hence one build."""

    cases: dict[str, MovedCase] = field(default_factory=dict[str, MovedCase])
    """By node id."""
    outputs: dict[str, CaseOutput | None] | None = None
    """By package, once built."""


@dataclass
class _Suite:
    groups: dict[str, _Group] = field(default_factory=dict[str, _Group])
    """By the cases' extra mypy config."""
    alone: dict[str, str] = field(default_factory=dict[str, str])
    """Node id -> why the case runs in a build of its own."""
    own_builds: dict[str, str] = field(default_factory=dict[str, str])
    """Node id -> why the case is batched in a build of its own."""
    disagreements: dict[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    """Cases that failed in their shared build but passed alone: the shared build's output."""
    builds: int = 0
    planned: int = 0
    """Cases planned so far: case ``n`` goes in package ``tcase<n>``."""

    def plan(self, items: list[BatchedCase]) -> None:
        for item in items:
            number, self.planned = self.planned, self.planned + 1
            if item.environment_variables or item.disable_cache:
                self.alone[item.nodeid] = "it sets env or disable_cache"
                continue
            files = [(file.path, file.content) for file in item.files]
            moved = namespace(
                f"{PREFIX}{number}",
                files,
                mypy_config=item.additional_mypy_config,
                shadowed_root=Path(str(item.config.rootpath)),
            )
            if moved.reason is not None:
                self.alone[item.nodeid] = moved.reason
                continue
            if moved.own_build is not None:
                self.own_builds[item.nodeid] = moved.own_build
            group = self.groups.setdefault(item.additional_mypy_config, _Group())
            group.cases[item.nodeid] = moved

    def output(self, item: BatchedCase) -> tuple[str, CaseOutput] | None:
        group = self.groups.get(item.additional_mypy_config)
        if group is None or item.nodeid not in group.cases:
            return None
        if group.outputs is None:
            group.outputs = self._build(item, group)
        package = group.cases[item.nodeid].package
        found = group.outputs.get(package)
        return None if found is None else (package, found)

    def _build(self, item: BatchedCase, group: _Group) -> dict[str, CaseOutput | None]:
        base = Path(item.root_directory)
        base.mkdir(parents=True, exist_ok=True)
        cache_dir = os.path.join(item.incremental_cache_dir, _batch_cache(item))
        root = Path(tempfile.mkdtemp(prefix="mypy-batch-", dir=base))
        try:
            own = sum(1 for case in group.cases.values() if case.own_build is not None)
            self.builds += own + (1 if own < len(group.cases) else 0)
            settings = BuildSettings(
                root=root,
                config_file=item.prepare_config_file(root),
                cache_dir=cache_dir,
                mypy_path=str(item.config.rootpath),
            )
            return check_together(list(group.cases.values()), settings)
        finally:
            shutil.rmtree(root)


_SUITE: pytest.StashKey[_Suite] = pytest.StashKey()


@pytest.hookimpl(trylast=True)  # after -k/-m selection: only selected cases are built
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    batched: list[BatchedCase] = []
    for index, item in enumerate(items):
        if type(item) is YamlTestItem and item.parent is not None:
            case = BatchedCase.from_parent(  # pyright: ignore[reportUnknownMemberType]
                item.parent,
                name=item.name,
                files=item.files,
                starting_lineno=item.starting_lineno,
                expected_output=item.expected_output,
                environment_variables=item.environment_variables,
                disable_cache=item.disable_cache,
                mypy_config=item.additional_mypy_config,
                parsed_test_data=item.parsed_test_data,
                expect_fail=item.expect_fail,
                marks=item.parsed_test_data.get("marks", []),
            )
            items[index] = case
            batched.append(case)
    config.stash.setdefault(_SUITE, _Suite()).plan(batched)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A case whose shared build disagrees with its run alone fails the suite: its answer
    depends on the other modules of a build, which users' builds have too."""
    suite = session.config.stash.get(_SUITE, None)
    if suite is not None and suite.disagreements and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    suite = config.stash.get(_SUITE, None)
    if suite is None or not (suite.groups or suite.alone):
        return
    batched = sum(len(group.cases) for group in suite.groups.values())
    own = f", and {len(suite.own_builds)} of one case" if suite.own_builds else ""
    terminalreporter.write_line(
        f"typing suite: {batched} cases shared {suite.builds} mypy builds "
        f"(one per mypy_config{own}), {len(suite.alone)} ran alone"
    )
    for nodeid, reason in suite.own_builds.items():
        terminalreporter.write_line(f"  own build: {nodeid}: {reason}")
    for nodeid, reason in suite.alone.items():
        terminalreporter.write_line(f"  alone: {nodeid}: {reason}")
    for nodeid, lines in suite.disagreements.items():
        terminalreporter.write_line(
            f"  BATCHING DEFECT: {nodeid} fails in its shared build but passes alone; "
            "its shared build said:",
            red=True,
        )
        for line in lines or ("(nothing)",):
            terminalreporter.write_line(f"    {line}")
