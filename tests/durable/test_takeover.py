"""The heartbeat thread's rounds, without a database: ``beat`` and ``take_over`` are stubbed,
the clock is an argument. (``test_scale_out.py`` runs the real thing on PostgreSQL.)"""

from __future__ import annotations

import pytest

from pod.durable._takeover import Heartbeat, TakeoverError

DEAD_AFTER = 30.0


class Database:
    """What the stubs saw: beats fail while ``down``; takeovers are counted."""

    def __init__(self) -> None:
        self.down = False
        self.fenced: TakeoverError | None = None
        self.takeovers: list[float] = []
        """When a round looked for dead workers (the clock given to ``tick``)."""
        self.now = 0.0


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> tuple[Heartbeat, Database]:
    database = Database()

    def fence(error: TakeoverError) -> None:
        database.fenced = error

    heartbeat = Heartbeat(
        "postgresql://nowhere/db",
        "w1",
        heartbeat_seconds=5.0,
        dead_after_seconds=DEAD_AFTER,
        on_fenced=fence,
    )

    def beat() -> None:
        if database.fenced is not None:
            raise database.fenced
        if database.down:
            raise OSError("connection refused")

    def take_over() -> list[tuple[str, float, int]]:
        database.takeovers.append(database.now)
        return []

    monkeypatch.setattr(heartbeat, "beat", beat)
    monkeypatch.setattr(heartbeat, "take_over", take_over)
    monkeypatch.setattr(heartbeat, "_healthy_since", 0.0 - DEAD_AFTER)  # as register() does
    return heartbeat, database


def _tick(world: tuple[Heartbeat, Database], at: float) -> bool:
    heartbeat, database = world
    database.now = at
    return heartbeat.tick(at)


def test_a_registered_worker_looks_for_dead_workers_at_every_beat(
    world: tuple[Heartbeat, Database],
) -> None:
    _, database = world
    assert _tick(world, 5.0)
    assert _tick(world, 10.0)
    assert database.takeovers == [5.0, 10.0]


def test_after_an_outage_a_worker_declares_nobody_dead_for_dead_after(
    world: tuple[Heartbeat, Database],
) -> None:
    _, database = world
    database.down = True
    assert _tick(world, 5.0)  # a failed beat: go on beating
    database.down = False
    for at in (10.0, 15.0, 20.0, 25.0, 30.0, 35.0):  # the others may be reconnecting too
        assert _tick(world, at)
    assert database.takeovers == []
    assert _tick(world, 40.0)  # 30 s of good beats since 10.0
    assert database.takeovers == [40.0]


def test_a_worker_taken_over_stops_beating_and_is_told(
    world: tuple[Heartbeat, Database],
) -> None:
    _, database = world
    database.fenced = TakeoverError("worker w1 was declared dead")
    assert not _tick(world, 5.0)
    assert database.takeovers == []
