"""The batching runner (``_mypy_batch``) keeps pytest-mypy-plugins' verdicts, case by case.

These tests run the runner itself: cases that share a build must each get exactly the output a
build of their own would give (no error leaks from one case into another or hides one), a case
that expects an error and gets none fails, and a case that breaks its build does not take the
other cases down with it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _mypy_batch._build import BuildSettings, CaseOutput, check_together
from _mypy_batch._namespace import MovedCase, namespace
from mypy import build
from mypy.main import process_options

HERE = Path(__file__).parent
ROOT = HERE.parent
CONFIG = str(HERE / "mypy.ini")

WORLD = (
    "world.py",
    "from llm_worker import ScriptedClient, Worker\nWORKER = Worker(ScriptedClient([]))\n",
)
HOOK_READING_WORLD = """\
from pod import Continue, HookRegistry, PreToolDecision, ToolCallSummary, events
from world import WORKER

registry = HookRegistry()

@registry.on(events.PRE_TOOL_CALL)
def h(call: ToolCallSummary) -> PreToolDecision:
    print(WORKER)
    return Continue()
"""
HARMLESS_HOOK = HOOK_READING_WORLD.replace("print(WORKER)", "print(call.tool_name)").replace(
    "from world import WORKER\n", ""
)
NOT_A_HOOK_MODULE = (
    'error: module "world" is not a hook module, so a hook module may not import it: '
    "list it in [tool.pod_mypy] hook_modules (it is then checked as hook code), or grant what "
    "hooks use of it in capabilities  [hook-untamed]"
)


@pytest.fixture
def settings(request: pytest.FixtureRequest, tmp_path: Path) -> BuildSettings:
    base = Path(str(request.config.getoption("mypy_testing_base")))
    return BuildSettings(
        root=tmp_path,
        config_file=CONFIG,
        # Shared with the suite's cases of the base config: warm after the first build.
        cache_dir=str(base / ".mypy_cache" / "batch-runner-tests"),
        mypy_path=str(ROOT),
    )


def _move(number: int, *files: tuple[str, str]) -> MovedCase:
    moved = namespace(f"tcase{number}", files, mypy_config="", shadowed_root=ROOT)
    assert moved.reason is None
    return moved


def test_cases_sharing_a_build_get_only_their_own_errors(settings: BuildSettings) -> None:
    # Three cases with the same module names: two identical leaky ones (the plugin's state is
    # per module, so neither may hide the other's error) and a harmless one between them.
    leaky = ("main.py", HOOK_READING_WORLD)
    a_typo = ("world.py", WORLD[1] + 'typo: int = "x"\n')  # an error in a followed module
    outputs = check_together(
        [
            _move(0, leaky, a_typo),
            _move(1, ("main.py", HARMLESS_HOOK), WORLD),
            _move(2, leaky, WORLD),
        ],
        settings,
    )

    assert outputs == {
        "tcase0": CaseOutput(
            (
                "tcase0/world.py:3: error: Incompatible types in assignment (expression has type "
                '"str", variable has type "int")  [assignment]',  # mypy checks world first
                f"tcase0/main.py:2: {NOT_A_HOOK_MODULE}",
            )
        ),
        "tcase1": CaseOutput(()),
        "tcase2": CaseOutput((f"tcase2/main.py:2: {NOT_A_HOOK_MODULE}",)),
    }
    # The next run checks the cases afresh, as pytest-mypy-plugins does; the rest stays warm.
    cached = _cached_modules(settings)
    assert "pod" in cached
    assert [name for name in cached if name.startswith("tcase")] == []


def _cached_modules(settings: BuildSettings) -> set[str]:
    with contextlib.chdir(settings.root):
        args = ["--cache-dir", settings.cache_dir, f"--config-file={CONFIG}", "tcase0/main.py"]
        _, options = process_options(args)
    store = build.create_metastore(options, parallel_worker=False)
    try:
        return {name.split("/")[0].split(".")[0] for name in store.list_all()}
    finally:
        store.close()


def test_a_case_that_breaks_its_build_is_left_to_run_alone(settings: BuildSettings) -> None:
    # `break` outside a loop is a blocking error: mypy stops the whole build (exit status 2).
    outputs = check_together(
        [_move(0, ("main.py", HOOK_READING_WORLD), WORLD), _move(1, ("main.py", "break\n"))],
        settings,
    )

    expected = f"tcase0/main.py:2: {NOT_A_HOOK_MODULE}"
    assert outputs == {"tcase0": CaseOutput((expected,)), "tcase1": None}


def test_a_case_subclassing_a_builtin_does_not_change_another_cases_output(
    settings: BuildSettings,
) -> None:
    # A class one case defines must not change what another case's check sees in a shared
    # build (pod_mypy 0.2 counted every subclass of dict in the build). Alone, each passes.
    lenient = (
        "class Lenient(dict[str, int]):\n"
        "    def __missing__(self, key: str) -> int:\n"
        "        return 0\n"
    )
    limits = (
        "world.py",
        "from pod import HookRegistry\n\nhelpers = HookRegistry()\n"
        "LIMITS: dict[str, int] = {'a': 1}\n",
    )
    reader = HARMLESS_HOOK.replace(
        "from pod import", "from world import LIMITS\nfrom pod import"
    ).replace("print(call.tool_name)", "print(LIMITS['a'])")
    cases = [_move(0, ("main.py", lenient)), _move(1, ("main.py", reader), limits)]

    outputs = check_together(cases, settings)

    assert cases[0].own_build is not None
    assert outputs == {"tcase0": CaseOutput(()), "tcase1": CaseOutput(())}


SUITE = """\
- case: meta_right
  main: |
    from world import WORKER
    WORKER.nope  # E: "Worker" has no attribute "nope"  [attr-defined]
  files: &world
    - path: world.py
      content: |
        from llm_worker import ScriptedClient, Worker
        WORKER = Worker(ScriptedClient([]))

- case: meta_expects_an_error_and_gets_none
  main: |
    from world import WORKER
    w = WORKER  # E: "Worker" has no attribute "run"  [attr-defined]
  files: *world

- case: meta_gets_an_error_it_does_not_expect
  main: |
    from world import WORKER
    WORKER.nope
  files: *world

- case: meta_expected_to_fail_and_failing
  expect_fail: yes
  main: |
    from world import WORKER
    w = WORKER  # E: this message is wrong
  files: *world

- case: meta_expected_to_fail_but_passing
  expect_fail: yes
  main: |
    from world import WORKER
    w = WORKER
  files: *world
"""


KEYS = """\
- case: keys_out
  main: |
    from world import WORKER
    WORKER.nope
  out: |
    main:2: error: "Worker" has no attribute "nope"  [attr-defined]
  files: &world
    - path: world.py
      content: |
        from llm_worker import ScriptedClient, Worker
        WORKER = Worker(ScriptedClient([]))

- case: keys_out_wrong
  main: |
    from world import WORKER
    WORKER.nope
  out: |
    main:1: error: "Worker" has no attribute "nope"  [attr-defined]
  files: *world

- case: keys_regex
  regex: yes
  main: |
    from world import WORKER
    WORKER.nope  # E: "Worker" has no attribute "n.*e"  \\[attr-defined\\]
  files: *world

- case: keys_parametrized
  parametrized:
    - attr: nope
    - attr: other
  main: |
    from world import WORKER
    WORKER.{{ attr }}  # E: "Worker" has no attribute "{{ attr }}"  [attr-defined]
  files: *world

- case: keys_mypy_config
  mypy_config: |
    disable_error_code = attr-defined
  main: |
    from world import WORKER
    WORKER.nope
  files: *world

- case: keys_skip
  skip: sys.version_info > (3, 0)
  main: |
    x: int = "never checked"

- case: keys_error_in_a_subpackage
  main: |
    from pkg.mod import f
    import pkg.mod as m
    f()
  files:
    - path: pkg/__init__.py
    - path: pkg/mod.py
      content: |
        def f() -> None:
            return 1  # E: No return value expected  [return-value]
"""


def _run_suite(request: pytest.FixtureRequest, folder: Path) -> subprocess.CompletedProcess[str]:
    """Run the typing suite's runner over the cases and conftest written in ``folder``."""
    base = str(request.config.getoption("mypy_testing_base"))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-rfE",
            f"--mypy-ini-file={CONFIG}",
            f"--mypy-testing-base={base}",
            "--mypy-closed-schema",
            str(folder),
        ],
        cwd=folder,
        env={
            **os.environ,
            "PYTHONPATH": str(HERE),
            # A failing case is re-run alone by pytest-mypy-plugins, which finds mypy on PATH.
            "PATH": os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", ""))),
        },
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_runner_fails_exactly_the_wrong_cases(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    (tmp_path / "test_meta.yml").write_text(SUITE)
    (tmp_path / "test_keys.yml").write_text(KEYS)
    (tmp_path / "conftest.py").write_text(
        "from _mypy_batch import pytest_collection_modifyitems, pytest_terminal_summary\n"
    )
    done = _run_suite(request, tmp_path)
    out = done.stdout

    assert done.returncode == 1, out
    # Two configs (one case sets mypy_config), skip leaves a case out, nothing runs alone.
    assert "typing suite: 12 cases shared 2 mypy builds (one per mypy_config), 0 ran alone" in out
    failed = sorted(line.split()[1] for line in out.splitlines() if line.startswith("FAILED "))
    assert failed == [
        "test_keys.yml::keys_out_wrong",
        "test_meta.yml::meta_expected_to_fail_but_passing",
        "test_meta.yml::meta_expects_an_error_and_gets_none",
        "test_meta.yml::meta_gets_an_error_it_does_not_expect",
    ]
    assert "4 failed, 8 passed" in out
    # Every case that passed, passed on its share of a batch (no case passed only alone).
    assert "BATCHING DEFECT" not in out
    # The report names the case's file and the yml line of the missing error.
    assert (
        f"{tmp_path}/test_meta.yml:14: \n"
        "E   pytest_mypy_plugins.utils.TypecheckAssertionError: Invalid output: \n"
        "E   Actual:\n"
        "E     (empty)\n"
        "E   Expected:\n"
        'E     main:2: error: "Worker" has no attribute "run"  [attr-defined] (diff)'
    ) in out, out


DISAGREEING_CONFTEST = """\
from _mypy_batch import _pytest
from _mypy_batch import pytest_collection_modifyitems, pytest_sessionfinish, pytest_terminal_summary
from _mypy_batch._build import CaseOutput

_real = _pytest.check_together


def _planting(cases, settings):
    # What an order-dependent plugin answer looks like: an error only the shared build has.
    outputs = _real(cases, settings)
    for package, found in outputs.items():
        if found is not None:
            planted = f"{package}/main.py:1: error: planted by the shared build  [misc]"
            outputs[package] = CaseOutput((*found.lines, planted))
    return outputs


_pytest.check_together = _planting
"""


def test_a_case_that_fails_only_in_its_shared_build_fails_the_suite(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    (tmp_path / "test_one.yml").write_text("- case: one_clean\n  main: |\n    x: int = 1\n")
    (tmp_path / "conftest.py").write_text(DISAGREEING_CONFTEST)
    done = _run_suite(request, tmp_path)
    out = done.stdout

    # The case passes alone, so pytest counts it passed, but the suite fails and shows what
    # the shared build said.
    assert "1 passed" in out, out
    assert done.returncode == 1, out
    assert "BATCHING DEFECT: test_one.yml::one_clean fails in its shared build" in out, out
    assert "main.py:1: error: planted by the shared build  [misc]" in out, out
