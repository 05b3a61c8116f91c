"""``pod.durable`` is optional: nothing else imports it (or DBOS) until a durable command runs."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import importlib, sys
from pathlib import Path
import llm_worker, pod
for package in (llm_worker, pod):
    root = Path(package.__file__).parent
    for path in sorted(root.rglob("*.py")):  # walk_packages would import pod.durable
        parts = (package.__name__, *path.relative_to(root).with_suffix("").parts)
        name = ".".join(p for p in parts if p != "__init__")
        if not name.startswith("pod.durable") and not name.endswith("__main__"):
            importlib.import_module(name)
from pod.cli._main import main
main(["events"])
loaded = sorted(m for m in sys.modules if m == "dbos" or m.startswith(("dbos.", "pod.durable")))
print("loaded:", loaded)
"""


def test_no_module_but_pod_durable_imports_dbos() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.splitlines()[-1] == "loaded: []"
