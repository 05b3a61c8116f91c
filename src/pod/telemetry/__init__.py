"""pod.telemetry: a Pod's runs, model requests, tool calls and hook dispatches as
OpenTelemetry spans per the GenAI semantic conventions (the ``llm-pod[otel]`` extra).

``Pod(client, ..., telemetry=Telemetry())``; see ``docs/observability.md``. It imports
``llm_worker`` only; ``opentelemetry`` when a ``Telemetry`` is built.
"""

from ._telemetry import CAPTURE_CONTENT_VARIABLE as CAPTURE_CONTENT_VARIABLE
from ._telemetry import DecidingHooks as DecidingHooks
from ._telemetry import Telemetry as Telemetry

__all__ = ["CAPTURE_CONTENT_VARIABLE", "DecidingHooks", "Telemetry"]
