"""How the batching runner moves a case into its own package (``_mypy_batch._namespace``).

Every rewrite keeps each line at its number (expectations are per line) and binds the names the
case's code uses; a case that cannot be moved faithfully must run alone, with the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _mypy_batch._namespace import namespace, strip_namespace

ROOT = Path(__file__).parent.parent


def _moved(*files: tuple[str, str], mypy_config: str = "") -> dict[str, str]:
    moved = namespace("tcase3", files, mypy_config=mypy_config, shadowed_root=ROOT)
    assert moved.reason is None
    return dict(moved.files)


def test_imports_of_the_case_modules_move_into_its_package() -> None:
    main = """\
import os, world
import world as w2
from world import WORKER  # E: a comment the rewrite keeps
from pkg.sub import (
    thing,
)
def f() -> None:
    import pkg.sub as inner
from typing import TYPE_CHECKING
"""
    files = _moved(("main.py", main), ("world.py", ""), ("pkg/sub.py", "from . import x\n"))

    assert (
        files["main.py"]
        == """\
import os, tcase3.world as world
import tcase3.world as w2
from tcase3.world import WORKER  # E: a comment the rewrite keeps
from tcase3.pkg.sub import (
    thing,
)
def f() -> None:
    import tcase3.pkg.sub as inner
from typing import TYPE_CHECKING
"""
    )
    assert files["pkg/sub.py"] == "from . import x\n"  # relative inside a package: unchanged
    assert files["world.py"] == ""


def test_a_form_feed_does_not_shift_the_lines_rewritten() -> None:
    files = _moved(("main.py", "x = 1  # \f\nimport world\n"), ("world.py", ""))

    assert files["main.py"] == "x = 1  # \f\nimport tcase3.world as world\n"


def test_output_reads_as_a_build_of_the_case_alone() -> None:
    line = ' error: "tcase3.world.Engine" in tcase3/world.py, not "tcase31.x" [misc]'

    assert (
        strip_namespace("tcase3", line)
        == ' error: "world.Engine" in world.py, not "tcase31.x" [misc]'
    )


@pytest.mark.parametrize(
    ("files", "mypy_config", "reason"),
    [
        pytest.param(
            [("main.py", ""), ("llm_worker/__init__.py", "")],
            "",
            "module 'llm_worker' shadows one outside the case",
            id="a module pod imports",
        ),
        pytest.param(
            [("main.py", ""), ("json.py", "")],
            "",
            "module 'json' shadows one outside the case",
            id="a standard-library module",
        ),
        pytest.param(
            [("main.py", ""), ("bench/x.py", "")],
            "",
            "module 'bench' shadows one outside the case",
            id="a package of the pytest rootdir (on MYPYPATH)",
        ),
        pytest.param(
            [("main.py", ""), ("py.typed", "")],
            "",
            "py.typed is not a Python file",
            id="a data file",
        ),
        pytest.param(
            [("main.py", ""), ("__init__.py", "")],
            "",
            "__init__.py would make the case's own directory a package",
            id="a top-level __init__",
        ),
        pytest.param(
            [("main.py", "from . import world\n"), ("world.py", "")],
            "",
            "main.py: a relative import at the top level (line 1)",
            id="a top-level relative import (an error alone, not in a package)",
        ),
        pytest.param(
            [("main.py", "import pkg.sub\n"), ("pkg/sub.py", "")],
            "",
            "main.py: import pkg.sub binds a package (line 1)",
            id="import of a submodule without as",
        ),
        pytest.param(
            [("main.py", "def f(:\n")],
            "",
            "main.py: does not parse (invalid syntax, line 1)",
            id="a syntax error",
        ),
        pytest.param(
            [("main.py", "import tcase1\n")],
            "",
            "main.py names a tcase<n> package of the runner",
            id="a name of the runner's packages",
        ),
        pytest.param(
            [("main.py", ""), ("world.py", "")],
            "[mypy-world]\nignore_errors = true",
            "its mypy_config names modules",
            id="a per-module config section",
        ),
        pytest.param(
            [("main.py", ""), ("world.py", "")],
            "follow_imports_for_stubs = world",
            "its mypy_config names modules",
            id="a config option naming a case module",
        ),
    ],
)
def test_a_case_that_cannot_move_runs_alone(
    files: list[tuple[str, str]], mypy_config: str, reason: str
) -> None:
    moved = namespace("tcase3", files, mypy_config=mypy_config, shadowed_root=ROOT)

    assert (moved.reason, dict(moved.files)) == (reason, {})


@pytest.mark.parametrize(
    ("source", "own_build"),
    [
        pytest.param(
            "class Lenient(dict[str, int]):\n    def __missing__(self, key: str) -> int: ...\n",
            "class Lenient derives from dict (line 1)",
            id="a builtin with a method of its own",
        ),
        pytest.param(
            "import logging\nclass Out(logging.Handler):\n    def emit(self, r: object) -> None:"
            " ...\n",
            "class Out derives from logging.Handler (line 2)",
            id="a standard-library class",
        ),
        pytest.param("class Plain(dict[str, int]):\n    limit = 3\n", None, id="no method"),
        pytest.param(
            "from pod import Hook\nclass H(Hook[int, int]):\n    def __call__(self, i: int) -> int:"
            " ...\n",
            None,
            id="llm-pod's Hook",
        ),
        pytest.param(
            "from pydantic import BaseModel\nclass M(BaseModel):\n    def f(self) -> None: ...\n",
            None,
            id="pydantic's BaseModel",
        ),
        pytest.param(
            "class A:\n    def f(self) -> None: ...\nclass B(A):\n    def f(self) -> None: ...\n",
            None,
            id="a class of the case",
        ),
        pytest.param(
            "class A(dict[str, int]):\n    pass\nclass B(A):\n    def f(self) -> None: ...\n",
            "class B derives from dict (line 3)",
            id="through a class of the case",
        ),
    ],
)
def test_a_case_subclassing_an_outside_class_gets_a_build_of_its_own(
    source: str, own_build: str | None
) -> None:
    moved = namespace("tcase3", [("main.py", source)], mypy_config="", shadowed_root=ROOT)

    assert (moved.reason, moved.own_build) == (None, own_build)
