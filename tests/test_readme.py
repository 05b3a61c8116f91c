"""The README's first example runs exactly as written: its ``hooks.py`` and ``main.py`` blocks
are saved as files and ``python main.py`` is run (issue 27)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)


def test_the_first_example_runs_as_written(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## A hook in ten lines") : readme.index("## Layout and docs")]
    hooks, host = _blocks(section, "python")
    assert "Pod(" not in hooks  # a hook module builds no Pod (pod_mypy refuses setup code)
    (tmp_path / "hooks.py").write_text(hooks)
    (tmp_path / "main.py").write_text(host)
    (tmp_path / ".env").write_text("TOKEN=secret\n")
    done = subprocess.run(
        [sys.executable, "main.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout == "finished - I may not read .env.\n"
    promised = re.search(r"`python main.py` prints `(.*?)`", section)
    assert promised is not None
    assert done.stdout == promised.group(1) + "\n"  # the prose says what the run prints
    [quickstart] = _blocks(section, "sh")
    assert "--hooks hooks.py:registry" in quickstart


def test_the_quickstart_loads_the_same_hooks_file(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text()
    section = readme[readme.index("## A hook in ten lines") : readme.index("## Layout and docs")]
    (tmp_path / "hooks.py").write_text(_blocks(section, "python")[0])
    done = subprocess.run(  # no key: the options, the hooks file included, are checked first
        [
            sys.executable,
            "-m",
            "pod",
            "run",
            "hi",
            "--model",
            "openai:gpt-4o-mini",
            "--hooks",
            "hooks.py:registry",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr == "error: no API key for openai: pass --api-key or set OPENAI_API_KEY\n"
