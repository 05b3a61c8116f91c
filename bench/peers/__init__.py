"""``make bench-peers``: the same scripted workload on other agent frameworks.

Each peer gets its own virtual environment under ``bench/.venvs/`` (ignored by git),
installed from the registry by ``python -m bench.peers``; none is a dependency of llm-pod.
Each driver (``drive_<peer>.py``) runs in its peer's environment and times the peer and the
hand-written floor side by side in that process, so every ratio is measured in one process.
"""
