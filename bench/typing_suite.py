"""Speed of the typing suite: pytest-mypy-plugins' one mypy process per case against batching.

Times ``pytest`` on the pod_mypy cases of ``typing_tests/`` (its ``*.yml``) and on a synthetic
suite of at least ``--cases`` cases made of copies of them (renamed, so every copy is its own
test), each way:

- per case: pytest-mypy-plugins alone, one mypy process per case;
- batched: with the batching runner ``_mypy_batch`` (what ``typing_tests/conftest.py`` loads),
  one mypy build per config.

Each way runs on the real suite twice (cold caches, then warm), then once on the synthetic
suite (warm). Reports wall time, child CPU time (what the mypy runs cost, less disturbed by
other load on the machine) and the wall time per case. Every run must pass.

Usage: ``python bench/typing_suite.py [--cases 200]``
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
SUITE: Final = ROOT / "typing_tests"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200, help="size of the synthetic suite")
    cases = parser.parse_args().cases
    with tempfile.TemporaryDirectory(prefix="typing-suite-bench-") as scratch:
        work = Path(scratch)
        real = sorted(SUITE.glob("*/test_*.yml"))
        synthetic = _synthetic(real, work / "synthetic", cases)
        print(
            f"{'suite':<10} {'way':<9} {'cache':<5} {'cases':>5} {'wall s':>7} "
            f"{'cpu s':>6} {'s/case':>6}"
        )
        for way in ("per case", "batched"):
            base = work / f"base-{way.replace(' ', '-')}"
            base.mkdir()
            for suite, files, cache in (
                ("real", real, "cold"),
                ("real", real, "warm"),
                ("synthetic", synthetic, "warm"),
            ):
                count, wall, cpu = _run(files, base, batched=way == "batched")
                print(
                    f"{suite:<10} {way:<9} {cache:<5} {count:>5} {wall:>7.1f} {cpu:>6.1f} "
                    f"{wall / count:>6.2f}",
                    flush=True,
                )


def _synthetic(real: list[Path], target: Path, cases: int) -> list[Path]:
    """Copies of the real case files, case names suffixed ``_copy<n>``, until ``cases``."""
    per_copy = _count(real)
    copies = -(-cases // per_copy)
    target.mkdir()
    made = []
    for copy in range(copies):
        for path in real:
            text = re.sub(r"^(- case: \w+)", rf"\1_copy{copy}", path.read_text(), flags=re.M)
            made.append(target / f"test_copy{copy}_{path.parent.name}_{path.stem[5:]}.yml")
            made[-1].write_text(text)
    return made


def _count(paths: list[Path]) -> int:
    """How many test items pytest collects from ``paths`` (parametrized cases count each)."""
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "--noconftest", *map(str, paths)],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    return sum("::" in line for line in listed.splitlines())


def _run(files: list[Path], base: Path, *, batched: bool) -> tuple[int, float, float]:
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--rootdir={ROOT}",
        "--noconftest",
        f"--mypy-ini-file={SUITE / 'mypy.ini'}",
        f"--mypy-testing-base={base}",
        "--mypy-closed-schema",
    ]
    if batched:
        # What typing_tests/conftest.py does, also for the synthetic files outside typing_tests/.
        command += ["-p", "_mypy_batch"]
    environment = {
        **os.environ,
        "PATH": os.pathsep.join((str(Path(sys.executable).parent), os.environ.get("PATH", ""))),
        "PYTHONPATH": str(SUITE),
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [*command, *map(str, files)],
        check=False,
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    passed = re.search(r"(\d+) passed", done.stdout)
    if done.returncode != 0 or passed is None:
        sys.exit(f"pytest failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(passed[1]), wall, cpu


if __name__ == "__main__":
    main()
