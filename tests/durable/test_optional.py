"""``pod.durable`` is optional: nothing else imports it (or DBOS) until a durable command runs."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import importlib, pkgutil, sys
import llm_worker, pod
for package in (llm_worker, pod):
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not module.name.startswith("pod.durable") and not module.name.endswith("__main__"):
            importlib.import_module(module.name)
from pod._cli import main
main(["events"])
loaded = sorted(m for m in sys.modules if m == "dbos" or m.startswith(("dbos.", "pod.durable")))
print("loaded:", loaded)
"""


def test_no_module_but_pod_durable_imports_dbos() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines()[-1] == "loaded: []"
