"""``python -m bench.peers``: install each peer in its venv, drive it, print the table.

Options: ``--peers NAME ...`` (default: all), ``--turns N ...`` (default: 100 1000),
``--timeout SECONDS`` per peer (default 900). Figures go to ``bench/results/peers.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ..loop import _one
from ..workload import make_baseline, make_runner
from ._venvs import PEERS, ensure_venv, venv_python

_HERE = Path(__file__).resolve().parent


async def _ours(turn_counts: list[int]) -> dict[str, dict[str, float]]:
    """llm-pod and the floor in this process, for the same turn counts."""
    figures: dict[str, dict[str, float]] = {}
    for turns in turn_counts:
        await _one(make_runner, turns)
        pod = min([(await _one(make_runner, turns))[0] for _ in range(5)])
        floor = min([(await _one(make_baseline, turns))[0] for _ in range(5)])
        figures[str(turns)] = {"peer": pod, "floor": floor}
    return figures


def _drive(peer: str, turn_counts: list[int], timeout: float, log: Path) -> dict[str, Any]:
    ok, problem = ensure_venv(peer, log)
    if not ok:
        return {"peer": peer, "error": f"not installed: {problem}"}
    command = [
        str(venv_python(peer)),
        str(_HERE / f"drive_{peer}.py"),
        "--turns",
        *map(str, turn_counts),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"peer": peer, "error": f"did not finish within {timeout:.0f} s"}
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}\n")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"peer": peer, "error": f"driver failed: {last}"}
    figures: dict[str, Any] = json.loads(lines[-1])
    return figures


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.3f} ms" if seconds < 0.01 else f"{seconds * 1e3:,.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.peers", description=__doc__)
    parser.add_argument("--peers", nargs="+", choices=sorted(PEERS), default=list(PEERS))
    parser.add_argument("--turns", type=int, nargs="+", default=[100, 1_000])
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    arguments = parser.parse_args()
    out: Path = arguments.out
    out.mkdir(parents=True, exist_ok=True)
    log = out / "peers.log"
    console = Console(width=None if sys.stdout.isatty() else 130)
    turn_counts: list[int] = arguments.turns
    results: list[dict[str, Any]] = [
        {"peer": "llm-pod (Worker)", "version": "this checkout", "notes": [],
         "per_turn": asyncio.run(_ours(turn_counts))}
    ]  # fmt: skip
    for peer in arguments.peers:
        console.print(f"{peer}: installing (first run only) and driving ...")
        results.append(_drive(peer, turn_counts, arguments.timeout, log))
    (out / "peers.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")

    table = Table(title="Per turn, one tool call per model turn (CPU time, best of repeats)")
    table.add_column("framework")
    table.add_column("version")
    for turns in turn_counts:
        table.add_column(f"N = {turns:,}", justify="right")
        table.add_column(f"÷ floor at {turns:,}", justify="right")
    for result in results:
        if "error" in result:
            table.add_row(result["peer"], "", result["error"])
            continue
        cells = [result["peer"], result["version"]]
        for turns in turn_counts:
            pair = result["per_turn"].get(str(turns))
            cells += (
                [_ms(pair["peer"]), f"{pair['peer'] / pair['floor']:,.0f}x"] if pair else ["", ""]
            )
        table.add_row(*cells)
    console.print(table)
    for result in results:
        for note in result.get("notes", []):
            console.print(f"  {result['peer']}: {note}")
    console.print(f"raw figures: {out / 'peers.json'}; install and driver output: {log}")


if __name__ == "__main__":
    main()
