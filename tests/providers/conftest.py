"""A local HTTP server that replays recorded provider replies and records the requests.

The SDKs under test talk real HTTP to 127.0.0.1: what a test asserts on is what the SDK put
on the wire and what the client made of the provider's documented reply formats.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest

from llm_worker import tool

RECORDINGS = Path(__file__).parent / "recordings"

Cut = Literal["eof", "broken"]
"""How a streamed reply is cut short: ``eof`` closes the connection cleanly mid-stream
(the body had no declared length); ``broken`` closes it before the declared length."""


def recording(name: str) -> bytes:
    """Return the bytes of a recorded reply body."""
    return (RECORDINGS / name).read_bytes()


def recorded_json(name: str) -> Any:
    """Return a recorded JSON document."""
    return json.loads(recording(name))


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP reply."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    headers: tuple[tuple[str, str], ...] = ()
    cut_at: int | None = None
    cut: Cut = "eof"


@dataclass(frozen=True)
class SeenRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class ReplayServer:
    """Serves scripted replies in order and keeps every request it got."""

    url: str = ""
    replies: deque[Reply] = field(default_factory=deque[Reply])
    requests: list[SeenRequest] = field(default_factory=list[SeenRequest])

    def reply_json(self, body: Any, *, status: int = 200, **headers: str) -> None:
        """Queue a JSON reply (``body`` is a recording name or a JSON value)."""
        data = recording(body) if isinstance(body, str) else json.dumps(body).encode()
        self.replies.append(Reply(body=data, status=status, headers=tuple(_header_items(headers))))

    def reply_sse(
        self,
        name: str,
        *,
        cut_at_event: int | None = None,
        cut: Cut = "eof",
        replace: dict[str, str] | None = None,
    ) -> None:
        """Queue a recorded event stream, optionally cut after ``cut_at_event`` events.

        ``replace`` edits the recording first (old text to new text, each must occur).
        """
        body = recording(name)
        for old, new in (replace or {}).items():
            assert old.encode() in body, f"{old!r} is not in {name}"
            body = body.replace(old.encode(), new.encode())
        cut_at = None
        if cut_at_event is not None:
            events = body.split(b"\n\n")
            cut_at = len(b"\n\n".join(events[:cut_at_event])) + 2
        self.replies.append(
            Reply(body=body, content_type="text/event-stream", cut_at=cut_at, cut=cut)
        )


def _header_items(headers: dict[str, str]) -> Iterator[tuple[str, str]]:
    for name, value in headers.items():
        yield name.replace("_", "-"), value


def _handler(server: ReplayServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(length)
            server.requests.append(
                SeenRequest(
                    method="POST",
                    path=self.path,
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=json.loads(raw) if raw else None,
                )
            )
            if not server.replies:
                self._send(Reply(body=b'{"error": {"message": "no reply scripted"}}', status=500))
                return
            self._send(server.replies.popleft())

        def _send(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            for name, value in reply.headers:
                self.send_header(name, value)
            if reply.cut_at is not None and reply.cut == "eof":
                self.send_header("Connection", "close")  # the body ends when the socket does
            else:
                self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            if reply.cut_at is None:
                self.wfile.write(reply.body)
                return
            self.wfile.write(reply.body[: reply.cut_at])
            self.wfile.flush()
            self.close_connection = True

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[ReplayServer]:
    """A replay server on 127.0.0.1 (a free port), stopped after the test."""
    replay = ReplayServer()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(replay))
    httpd.daemon_threads = True
    replay.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield replay
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def closed_port_url() -> str:
    """The URL of a port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


WEATHER = {"Paris": "sunny, 21 °C", "Tokyo": "rain, 14 °C"}


@tool
def get_weather(city: str) -> str:
    """Current weather in a city."""
    if city not in WEATHER:
        raise LookupError(f"no weather for {city}")
    return f"{city}: {WEATHER[city]}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@dataclass(frozen=True)
class Session:
    """The recorded multi-tool session both providers replay."""

    tools: tuple[Any, ...] = (get_weather, add)
    system_prompt: str = "You are a concise assistant."
    prompt: str = "What is the weather in Paris and Tokyo, and what is 2 + 3?"
    final_text: str = (
        "Paris is sunny (21 °C), Tokyo is rainy (14 °C), 2 + 3 = 5, "
        "and I have no weather for Atlantis."
    )

    @staticmethod
    def recorded(name: str) -> Any:
        """Load a recorded JSON document (an expected request, say) by name."""
        return recorded_json(name)


@pytest.fixture
def session() -> Session:
    """The recorded multi-tool session."""
    return Session()
