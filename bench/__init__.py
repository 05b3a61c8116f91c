"""Benchmarks of llm-pod's agent loop, measured side by side with a hand-written loop.

``make bench`` (``python -m bench``) runs every section in one process, prints a table of
ratios, and writes the raw figures as JSON and a plot of per-turn cost against history
length to ``bench/results/``. ``make bench-peers`` runs the same workload on other agent
frameworks, each in its own virtual environment under ``bench/.venvs/``.

Nothing here is imported by the library; the figures are only as good as the machine is
quiet, so every figure is a best-of or a median over repeats, and the report says which.
"""
