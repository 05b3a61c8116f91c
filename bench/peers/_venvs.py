"""One virtual environment per peer framework under ``bench/.venvs/`` (ignored by git).

Each peer is installed from the package registry by its own ``pip``, never into the
project's environment: llm-pod does not depend on any of them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Final

__all__ = ["NAMES", "PEERS", "VENVS", "ensure_venv", "venv_python"]

VENVS: Final = Path(__file__).resolve().parents[1] / ".venvs"

PEERS: Final[dict[str, tuple[str, ...]]] = {
    "strands": ("strands-agents>=1.0",),
    "openai_agents": ("openai-agents>=0.4",),
    "pydantic_ai": ("pydantic-ai-slim>=1.0",),
    "langchain": ("langchain>=1.0",),
    "google_adk": ("google-adk>=1.0",),
}
"""Peer -> what ``pip install`` gets for it."""

NAMES: Final = {
    "strands": "Strands Agents",
    "openai_agents": "OpenAI Agents SDK",
    "pydantic_ai": "pydantic-ai",
    "langchain": "LangChain v1",
    "google_adk": "Google ADK",
}
"""Peer -> how the report names it."""


def venv_python(peer: str) -> Path:
    return VENVS / peer / "bin" / "python"


def ensure_venv(peer: str, log: Path) -> tuple[bool, str]:
    """Create the peer's venv and install it; return (ok, what went wrong)."""
    python = venv_python(peer)
    stamp = VENVS / peer / ".installed"
    if stamp.exists():
        return True, ""
    VENVS.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as out:
        steps = [
            [sys.executable, "-m", "venv", str(VENVS / peer)],
            [str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
            [str(python), "-m", "pip", "install", "--quiet", *PEERS[peer]],
        ]
        for step in steps:
            out.write(f"$ {' '.join(step)}\n")
            out.flush()
            done = subprocess.run(step, stdout=out, stderr=subprocess.STDOUT, check=False)
            if done.returncode != 0:
                return False, f"`{' '.join(step[-2:])}` failed (exit {done.returncode}); see {log}"
    stamp.touch()
    return True, ""
