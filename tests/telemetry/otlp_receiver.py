"""A tiny OTLP/HTTP trace receiver on the loopback: it decodes each
``ExportTraceServiceRequest`` it is sent (protobuf, as ``opentelemetry-proto`` defines it)."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

__all__ = ["ReceivedSpan", "Receiver", "otlp_receiver"]


def _value(value: AnyValue) -> object:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, kind) if kind is not None else None


def _attributes(pairs: list[KeyValue]) -> dict[str, object]:
    return {pair.key: _value(pair.value) for pair in pairs}


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as it arrived: its names, ids, attributes, events and its resource's."""

    name: str
    trace_id: bytes
    span_id: bytes
    parent_span_id: bytes
    attributes: dict[str, object]
    events: dict[str, dict[str, object]]
    resource: dict[str, object]
    scope: str


@dataclass
class Receiver:
    """What the receiver was sent: the decoded spans, and the paths it was posted to."""

    endpoint: str = ""
    paths: list[str] = field(default_factory=list[str])
    spans: list[ReceivedSpan] = field(default_factory=list[ReceivedSpan])

    def named(self, name: str) -> list[ReceivedSpan]:
        return [span for span in self.spans if span.name == name]


def _decode(receiver: Receiver, body: bytes) -> None:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    for resource_spans in request.resource_spans:
        resource = _attributes(list(resource_spans.resource.attributes))
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                receiver.spans.append(
                    ReceivedSpan(
                        name=span.name,
                        trace_id=span.trace_id,
                        span_id=span.span_id,
                        parent_span_id=span.parent_span_id,
                        attributes=_attributes(list(span.attributes)),
                        events={e.name: _attributes(list(e.attributes)) for e in span.events},
                        resource=resource,
                        scope=scope_spans.scope.name,
                    )
                )


@contextmanager
def otlp_receiver() -> Generator[Receiver]:
    """A receiver on 127.0.0.1 (a free port); ``endpoint`` is its base URL."""
    receiver = Receiver()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            with lock:
                receiver.paths.append(self.path)
                _decode(receiver, body)
            reply = ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    receiver.endpoint = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
