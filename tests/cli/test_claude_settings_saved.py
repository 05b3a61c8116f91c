"""``--claude-settings`` is a run option like ``--rules``: a saved run records it, and
``pod resume`` registers the same Claude Code hooks again (a resumed run is not less guarded)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.conftest import PROMPT, ReplayServer, pod_command, queue_weather_session
from tests.cli.test_saved_runs import saved_path

ASK_ABOUT_TOKYO = """
import json, sys
data = json.load(sys.stdin)
if data["tool_input"].get("city") == "Tokyo":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "ask", "permissionDecisionReason": "Tokyo needs a human"}}))
"""


def test_a_saved_run_keeps_its_claude_code_hooks(server: ReplayServer, tmp_path: Path) -> None:
    script = tmp_path / "ask_about_tokyo.py"
    script.write_text(ASK_ABOUT_TOKYO)
    settings = tmp_path / "settings.json"
    hook = {"type": "command", "command": f"{sys.executable} {script}"}
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "get_weather", "hooks": [hook]}]}})
    )
    tools = tmp_path / "weather_tools.py"
    tools.write_text(
        "from llm_worker import tool\n\n@tool\ndef get_weather(city: str) -> str:\n"
        '    """Weather."""\n    return "fine"\n\nTOOLS = [get_weather]\n'
    )
    queue_weather_session(server)
    paused = pod_command(
        "run",
        PROMPT,
        "--model=openai:m",
        f"--base-url={server.url}/v1",
        "--api-key=k",
        f"--tools={tools}:TOOLS",
        f"--claude-settings={settings}",
        cwd=tmp_path,
    )
    assert paused.returncode == 5, paused.stderr
    assert "Tokyo needs a human" in paused.stderr
    path = tmp_path / saved_path(paused.stderr)
    saved = json.loads(path.read_text())
    assert saved["options"]["claude_settings"] == [str(settings.resolve())]
    # Resumed with no decision and no terminal: the hooks are asked again, and the Claude
    # Code hook (re-registered from the saved options) pauses again.
    again = pod_command("resume", str(path), "--api-key=k", cwd=tmp_path)
    assert again.returncode == 5, again.stderr
    assert "Tokyo needs a human" in again.stderr
