"""With no configuration, durable runs live in ``.pod/durable.sqlite`` under the working folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .conftest import REPO


def test_pod_runs_uses_the_sqlite_file_under_dot_pod(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "POD_DATABASE_URL"}
    env["PYTHONPATH"] = str(REPO)
    worker = subprocess.run(  # a process launched there: the file exists, with no run
        [
            sys.executable,
            "-c",
            "import asyncio; from pod.durable import launch, shutdown; "
            "asyncio.run(launch()); shutdown()",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert worker.returncode == 0, worker.stderr
    done = subprocess.run(
        [sys.executable, "-m", "pod", "runs", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout) == []
    assert (tmp_path / ".pod" / "durable.sqlite").is_file()


def test_pod_runs_show_needs_a_run_id(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pod",
            "runs",
            "show",
            "--database",
            f"sqlite:///{tmp_path}/d.sqlite",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: pod runs show needs a RUN_ID\n"
