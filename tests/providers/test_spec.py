"""Building clients: model specs, keys, base URLs, missing extras, a caller's own SDK client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from llm_worker import LlmRequest, Message, UsageError
from llm_worker.providers import (
    AnthropicClient,
    MissingCredentialsError,
    MissingExtraError,
    ModelSpecError,
    OpenAIChatClient,
    ProviderSetupError,
    client_from_spec,
)

_PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ADMIN_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_PROFILE",
    "ANTHROPIC_IDENTITY_TOKEN",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_CONFIG_DIR",
)


@pytest.fixture(autouse=True)
def bare_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No provider settings from the machine running the tests."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no SDK profile on disk either


_EXPECTED_FORM = "expected provider:model, e.g. openai:gpt-4o-mini"
_KNOWN = "(providers: openai, anthropic)"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt-4o-mini", f"bad model spec 'gpt-4o-mini': {_EXPECTED_FORM} {_KNOWN}"),
        ("openai:", f"bad model spec 'openai:': {_EXPECTED_FORM} {_KNOWN}"),
        (":gpt-4o-mini", f"bad model spec ':gpt-4o-mini': {_EXPECTED_FORM} {_KNOWN}"),
        ("mistral:large", f"bad model spec 'mistral:large': unknown provider 'mistral' {_KNOWN}"),
    ],
)
def test_a_bad_spec_says_what_is_expected(spec: str, message: str) -> None:
    with pytest.raises(ModelSpecError) as caught:
        client_from_spec(spec, api_key="k")

    assert str(caught.value) == message
    assert caught.value.spec == spec


async def test_a_spec_builds_the_named_provider_client(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")

    local = client_from_spec("openai:qwen3:8b", base_url="http://127.0.0.1:11434/v1")
    claude = client_from_spec("Anthropic:claude-test")

    assert isinstance(local, OpenAIChatClient)
    assert (local.model, local.base_url) == ("qwen3:8b", "http://127.0.0.1:11434/v1/")
    assert isinstance(claude, AnthropicClient)
    assert claude.model == "claude-test"
    await local.aclose()
    await claude.aclose()


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("openai:gpt-4o-mini", "OPENAI_API_KEY"), ("anthropic:claude-test", "ANTHROPIC_API_KEY")],
)
def test_a_missing_key_is_a_setup_error_naming_the_variable(spec: str, variable: str) -> None:
    with pytest.raises(MissingCredentialsError, match=rf"pass api_key=\.\.\. or set {variable}$"):
        client_from_spec(spec)


async def test_a_local_server_needs_no_key(server: Any) -> None:
    server.reply_json("openai_reply3_text.json")
    client = client_from_spec("openai:qwen3:8b", base_url=f"{server.url}/v1", max_retries=0)

    response = await client.complete(LlmRequest(items=[Message(role="user", text="hi")]))

    assert response.text.startswith("Paris is sunny")
    assert server.requests[0].headers["authorization"] == "Bearer no-key"
    assert isinstance(client, OpenAIChatClient)
    await client.aclose()


async def test_the_base_url_comes_from_the_environment(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    server.reply_json("openai_reply3_text.json")
    server.reply_json("anthropic_reply3_text.json")
    request = LlmRequest(items=[Message(role="user", text="hi")])

    for spec in ("openai:gpt-4o-mini", "anthropic:claude-test"):
        client = client_from_spec(spec, max_retries=0)
        assert (await client.complete(request)).text.startswith("Paris is sunny")
        assert isinstance(client, OpenAIChatClient | AnthropicClient)
        await client.aclose()

    assert [r.path for r in server.requests] == ["/v1/chat/completions", "/v1/messages"]
    assert "sk-ant-env" in str(server.requests[1].headers)


@pytest.mark.parametrize(("spec", "module"), [("openai:m", "openai"), ("anthropic:m", "anthropic")])
def test_a_missing_sdk_names_the_extra(
    spec: str, module: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes `import <module>` fail

    with pytest.raises(MissingExtraError) as caught:
        client_from_spec(spec, api_key="k")

    assert str(caught.value) == (
        f"the {module} client needs the {module!r} package: pip install 'llm-pod[{module}]'"
    )
    assert isinstance(caught.value, ProviderSetupError)
    assert isinstance(caught.value, UsageError)


def test_the_package_imports_without_the_sdks() -> None:
    script = (
        "import sys\n"
        "sys.modules['openai'] = sys.modules['anthropic'] = None\n"
        "import llm_worker, llm_worker.providers\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in "
        "('openai', 'anthropic', 'httpx', 'httpx2') and sys.modules[name] is not None))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("make", [OpenAIChatClient, AnthropicClient])
async def test_a_callers_sdk_client_is_used_and_left_open(make: Any) -> None:
    sdk: Any = (
        openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
        if make is OpenAIChatClient
        else anthropic.AsyncAnthropic(api_key="k", base_url="http://127.0.0.1:9")
    )
    with pytest.raises(UsageError, match=r"^pass either sdk_client or api_key, timeout: "):
        make("m", sdk_client=sdk, api_key="k", timeout=1.0)

    async with make("m", sdk_client=sdk) as client:
        assert client.base_url.startswith("http://127.0.0.1:9")

    assert not sdk.is_closed()
    await sdk.close()
