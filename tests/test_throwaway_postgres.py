"""The throwaway PostgreSQL that ``make unit`` starts for the durable tests."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import psycopg

from tests.throwaway_postgres import server_binaries, throwaway_cluster


def test_a_cluster_answers_on_the_loopback_and_is_gone_afterwards() -> None:
    assert (server_binaries() / "postgres").is_file()
    with throwaway_cluster() as url, psycopg.connect(url) as connection:
        assert connection.execute("SELECT 1 + 1").fetchone() == (2,)
        port = urlsplit(url).port
        assert urlsplit(url).hostname == "127.0.0.1"
    assert port is not None
    with socket.socket() as probe:  # stopped: nothing listens on its port any more
        assert probe.connect_ex(("127.0.0.1", port)) != 0
