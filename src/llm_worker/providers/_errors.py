"""Errors raised while building a provider client, before any request is sent.

```
UsageError (llm_worker)
 +-- ProviderSetupError          a provider client cannot be built
      +-- ModelSpecError         a "provider:model" string is malformed or names no provider
      +-- MissingExtraError      the provider's SDK (a pip extra) is not installed
      +-- MissingCredentialsError no API key was given or found in the environment
```

Failures of a request (auth, rate limit, context too long, a dropped stream) are runtime
errors: :class:`llm_worker.LlmClientError` and its subclass ``ContextTooLongError``.
"""

from __future__ import annotations

from .._errors import UsageError

__all__ = [
    "MissingCredentialsError",
    "MissingExtraError",
    "ModelSpecError",
    "ProviderSetupError",
]


class ProviderSetupError(UsageError):
    """A provider client cannot be built; the message says what to change."""


class ModelSpecError(ProviderSetupError):
    """A model spec is not ``provider:model`` with a known provider."""

    def __init__(self, spec: str, problem: str) -> None:
        self.spec = spec
        self.problem = problem
        super().__init__(f"bad model spec {spec!r}: {problem}")


class MissingExtraError(ProviderSetupError):
    """The SDK a provider client needs is not installed."""

    def __init__(self, provider: str, module: str) -> None:
        self.provider = provider
        self.module = module
        super().__init__(
            f"the {provider} client needs the {module!r} package: pip install 'llm-pod[{provider}]'"
        )


class MissingCredentialsError(ProviderSetupError):
    """No API key was given and none was found where the SDK looks for one."""

    def __init__(self, provider: str, env_var: str) -> None:
        self.provider = provider
        self.env_var = env_var
        super().__init__(f"no API key for {provider}: pass api_key=... or set {env_var}")
