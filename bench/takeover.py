"""Durable runs on PostgreSQL: how long a killed worker's runs wait for a live worker.

Two ``pod worker`` processes serve the scripted sessions of ``tests.durable.app`` (four tool
calls of 50 ms each); once the second holds runs it is killed with SIGKILL and never
restarted. Reported, from the kill: when the first worker logs the takeover, and when the
last run the killed worker held has finished. Expected: the takeover between
``dead_after - heartbeat`` (the killed worker's last beat came up to one interval before the
kill) and ``dead_after + heartbeat`` (the live worker looks once per interval), plus delays.

    POD_BENCH_POSTGRES_URL=postgresql://... python -m bench.takeover [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from pod.durable import DurableRuns

REPO = Path(__file__).resolve().parents[1]
SETTINGS = (("0.5", "3"), ("5", "30"))
"""(heartbeat, dead-after) in seconds: the scale-out test's, and the defaults."""
SESSIONS = 20


def _worker(database: str, name: str, heartbeat: str, dead_after: str) -> list[str]:
    return [
        sys.executable, "-m", "pod", "worker", "--app", "tests.durable.app:scale_agent",
        "--database", database, "--executor-id", name, "--worker-concurrency", "4",
        "--heartbeat", heartbeat, "--dead-after", dead_after,
    ]  # fmt: skip


def _wait(ready: Callable[[], bool], timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError("the workers did not get there")
        time.sleep(0.02)


def once(server: str, heartbeat: str, dead_after: str) -> tuple[float, float]:
    """(seconds from the kill to the takeover, to the last of the dead worker's runs)."""
    database = f"{server.rpartition('/')[0]}/pod_bench_{uuid.uuid4().hex[:10]}"
    with tempfile.TemporaryDirectory() as folder:
        env = dict(
            os.environ,
            POD_TEST_COUNTS=folder,
            POD_TEST_TOOL_SECONDS="0.05",
            PYTHONPATH=str(REPO),
        )
        logs = [Path(folder) / f"w{n}.log" for n in (1, 2)]
        workers: list[subprocess.Popen[bytes]] = []
        for n, log in enumerate(logs, start=1):
            with log.open("w") as output:
                workers.append(
                    subprocess.Popen(
                        _worker(database, f"w{n}", heartbeat, dead_after),
                        cwd=REPO,
                        env=env,
                        stdout=output,
                        stderr=subprocess.STDOUT,
                    )
                )
        try:
            _wait(lambda: all("serving" in log.read_text() for log in logs))
            with DurableRuns(database) as runs:
                run_ids = [runs.submit("scale", f"s{i}") for i in range(SESSIONS)]

                def held() -> set[str]:
                    return {
                        i.run_id
                        for i in runs.list_runs()
                        if i.status == "running" and i.executor == "w2"
                    }

                _wait(lambda: bool(held()))
                workers[1].send_signal(signal.SIGKILL)
                killed = time.monotonic()
                workers[1].wait()
                lost = held()
                _wait(lambda: "took over worker w2" in logs[0].read_text())
                taken_over = time.monotonic() - killed
                _wait(
                    lambda: all(
                        i.status == "finished" for i in runs.list_runs() if i.run_id in lost
                    )
                )
                finished = time.monotonic() - killed
                _wait(
                    lambda: all(
                        i.status == "finished" for i in runs.list_runs() if i.run_id in run_ids
                    )
                )
            return taken_over, finished
        finally:
            for worker in workers:
                if worker.poll() is None:
                    worker.kill()
                    worker.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    server = os.environ.get("POD_BENCH_POSTGRES_URL")
    if not server:
        sys.stderr.write("set POD_BENCH_POSTGRES_URL to a PostgreSQL server\n")
        return 2
    print("heartbeat  dead-after  takeover after kill (s)  dead worker's runs done (s)")
    for heartbeat, dead_after in SETTINGS:
        measured = [once(server, heartbeat, dead_after) for _ in range(args.repeat)]
        takeovers = [t for t, _ in measured]
        done = [d for _, d in measured]
        print(
            f"{heartbeat:>9}  {dead_after:>10}  "
            f"median {statistics.median(takeovers):5.2f} (max {max(takeovers):5.2f})  "
            f"median {statistics.median(done):5.2f} (max {max(done):5.2f})",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
