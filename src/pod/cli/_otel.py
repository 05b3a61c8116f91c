"""OTLP/HTTP export of a command's spans (``pod run --otel``, or the standard variables).

Only the command line installs an SDK provider, and only its own (never the global one):
library code sends spans to the provider it is given. The exporter reads the standard
``OTEL_EXPORTER_OTLP_*`` variables itself (endpoint, headers, timeout, compression,
certificates); ``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES`` name the service
(``pod`` by default). Spans are batched and flushed when the command ends.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, final

from ..telemetry import Telemetry

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

__all__ = ["ENDPOINT_VARIABLES", "OtlpExport", "otlp_export", "wants_export"]

ENDPOINT_VARIABLES: Final = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")
"""Either one set turns export on without ``--otel``."""

_MISSING: Final = (
    "--otel needs the OpenTelemetry SDK and its OTLP/HTTP exporter: "
    "pip install 'llm-pod[otel-export]'"
)


def wants_export(flag: bool, environ: Mapping[str, str] = os.environ) -> bool:
    """Export when ``--otel`` is given or an OTLP endpoint variable is set, unless
    ``OTEL_SDK_DISABLED=true`` or ``OTEL_TRACES_EXPORTER=none``."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if environ.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return False
    return flag or any(environ.get(name) for name in ENDPOINT_VARIABLES)


@final
class OtlpExport:
    """This command's provider, exporting over OTLP/HTTP in batches."""

    def __init__(self, provider: TracerProvider) -> None:
        self._provider: TracerProvider | None = provider

    def telemetry(self, *, model: str | None = None) -> Telemetry:
        """The Pod's ``telemetry=``: spans go to this provider."""
        return Telemetry(tracer_provider=self._provider, model=model)

    def close(self) -> None:
        """Send what is left and stop; idempotent."""
        provider, self._provider = self._provider, None
        if provider is not None:
            provider.shutdown()


def otlp_export(problems: list[str]) -> OtlpExport | None:
    """A provider exporting over OTLP/HTTP, or ``None`` with the problem added."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        problems.append(_MISSING)
        return None
    named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    )
    defaults = {} if named else {"service.name": "pod"}
    provider = TracerProvider(resource=Resource.create(defaults))
    try:
        exporter = OTLPSpanExporter()
    except ValueError as exc:  # e.g. a malformed OTEL_EXPORTER_OTLP_HEADERS
        problems.append(f"--otel: {exc}")
        return None
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return OtlpExport(provider)
