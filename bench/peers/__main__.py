"""``python -m bench.peers``: install each peer in its venv, drive it, print the table.

Options: ``--peers NAME ...`` (default: all), ``--turns N ...`` (default: 100 1000),
``--timeout SECONDS`` per peer (default 1800). Figures go to ``bench/results/peers.json``
and the per-turn curves to ``bench/results/peers.png``.
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

from ..floor import CLOCK, curve
from ..loop import _one
from ..workload import make_baseline, make_runner
from ._venvs import NAMES, PEERS, ensure_venv, venv_python

_HERE = Path(__file__).resolve().parent
_EARLY, _LATE = 8, 800  # curve windows [8, 13) and [800, 1,000): turn ~10 and turn ~1,000


async def _ours(turn_counts: list[int]) -> dict[str, Any]:
    """llm-pod and the floor in this process, for the same turn counts."""
    per_turn: dict[str, dict[str, float]] = {}
    curves: dict[str, dict[int, float]] = {}
    for turns in turn_counts:
        await _one(make_runner, turns)
        pod, floor = [], []
        for _ in range(5):
            pod.append((await _one(make_runner, turns))[0])
            if turns == max(turn_counts):
                curves["peer"] = curve(CLOCK.stamps)
            floor.append((await _one(make_baseline, turns))[0])
            if turns == max(turn_counts):
                curves["floor"] = curve(CLOCK.stamps)
        per_turn[str(turns)] = {"peer": min(pod), "floor": min(floor)}
    return {"peer": "llm-pod (Worker)", "version": "this checkout", "notes": [],
            "per_turn": per_turn, "curve": curves}  # fmt: skip


def _drive(peer: str, turn_counts: list[int], timeout: float, log: Path) -> dict[str, Any]:
    ok, problem = ensure_venv(peer, log)
    if not ok:
        return {"peer": NAMES[peer], "error": f"not installed: {problem}"}
    command = [str(venv_python(peer)), str(_HERE / f"drive_{peer}.py"), "--turns"]
    command += map(str, turn_counts)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"peer": NAMES[peer], "error": f"did not finish within {timeout:.0f} s"}
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(command)}\n{done.stdout}{done.stderr}\n")
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"peer": NAMES[peer], "error": f"driver failed: {last}"}
    figures: dict[str, Any] = json.loads(lines[-1])
    return figures


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.3f} ms" if seconds < 0.01 else f"{seconds * 1e3:,.1f} ms"


def _print(results: list[dict[str, Any]], turn_counts: list[int], console: Console) -> None:
    table = Table(title="Per turn, one tool call per model turn (CPU time, best of repeats)")
    table.add_column("framework")
    table.add_column("version")
    for turns in turn_counts:
        table.add_column(f"N = {turns:,}", justify="right")
        table.add_column("÷ floor", justify="right")
    table.add_column("turn ~1,000 ÷ turn ~10", justify="right")
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
        points = {int(k): v for k, v in result["curve"].get("peer", {}).items()}
        growth = points[_LATE] / points[_EARLY] if _LATE in points else None
        cells.append(f"{growth:,.1f}x" if growth is not None else "")
        table.add_row(*cells)
    console.print(table)
    for result in results:
        for note in result.get("notes", []):
            console.print(f"  {result['peer']}: {note}")


def _plot(results: list[dict[str, Any]], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    figure, axes = plt.subplots(figsize=(7.5, 5))
    floor_drawn = False
    for result in results:
        if "error" in result:
            continue
        for side in ("peer", "floor"):
            points = sorted((int(k), v) for k, v in result["curve"].get(side, {}).items())
            if not points or (side == "floor" and floor_drawn):
                continue
            label = result["peer"] if side == "peer" else "hand-written loop"
            style = "o-" if side == "peer" else "k--"
            axes.plot([t for t, _ in points], [v * 1e3 for _, v in points], style, label=label)
            floor_drawn = floor_drawn or side == "floor"
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("turn (history holds 2 items per turn)")
    axes.set_ylabel("ms per turn (median in window)")
    axes.set_title("Per-turn cost against history length, same workload")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.peers", description=__doc__)
    parser.add_argument("--peers", nargs="+", choices=sorted(PEERS), default=list(PEERS))
    parser.add_argument("--turns", type=int, nargs="+", default=[100, 1_000])
    parser.add_argument("--timeout", type=float, default=1_800.0)
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    arguments = parser.parse_args()
    out: Path = arguments.out
    out.mkdir(parents=True, exist_ok=True)
    log = out / "peers.log"
    console = Console(width=None if sys.stdout.isatty() else 130)
    turn_counts: list[int] = arguments.turns
    results = [asyncio.run(_ours(turn_counts))]
    for peer in arguments.peers:
        console.print(f"{NAMES[peer]}: installing (first run only) and driving ...")
        results.append(_drive(peer, turn_counts, arguments.timeout, log))
    (out / "peers.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    _print(results, turn_counts, console)
    if _plot(results, out / "peers.png"):
        console.print(f"plot: {out / 'peers.png'}")
    console.print(f"raw figures: {out / 'peers.json'}; install and driver output: {log}")


if __name__ == "__main__":
    main()
