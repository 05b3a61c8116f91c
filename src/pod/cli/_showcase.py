"""The showcase: a scripted Pod session in which every mechanism acts once or more.

``build_showcase_pod(trace)`` returns a Pod on a scripted model (no network) with the three
interceptors and a ``PermissionHook`` loaded from TOML; ``await pod.run(SHOWCASE_PROMPT)``
then shows, through ``trace``: a tool output truncated, a call denied by a rule (a user
hook registered after the policy is never asked), a call the policy allows and a user hook
pauses for a human (``SHOWCASE_ANSWERS`` approves it), a notification pushed from another
thread and flushed before the next request, a call denied by the default, and a compaction
(the interceptor yields, the Pod summarises, the hooks see the smaller counts).
``make demo`` renders it.
"""

from __future__ import annotations

from typing import Final

from llm_worker import (
    Continue,
    LlmRequest,
    Pause,
    ScriptedCall,
    ScriptedClient,
    ScriptedReply,
    ToolCallSummary,
    tool,
)

from ..hooks import _events as events
from ..hooks._registry import HookRegistry
from ..policy._permissions import PermissionHook
from ..runtime._pod import Pod
from ..runtime._settings import PodSettings
from ..runtime._trace import Tracer

__all__ = ["SHOWCASE_ANSWERS", "SHOWCASE_PROMPT", "SHOWCASE_RULES", "build_showcase_pod"]

SHOWCASE_PROMPT: Final = "Clean the build directory, then tell me what the project contains."

SHOWCASE_ANSWERS: Final = ("approve",)
"""The scripted human's answers to the showcase's one pause (the ``ls``)."""

SHOWCASE_RULES: Final = """\
# The showcase's permission rules: first match wins; anything else is denied.
default = "deny"

[[rule]]
action = "deny"
tool = "shell"
command_prefix = "rm"
reason = "deleting files needs a human: ask the user instead"

[[rule]]
action = "allow"
tool = "shell"
command_prefix = "ls"

[[rule]]
action = "allow"
tool = "read_file"
path = "/work/*"
"""
"""The rules the showcase loads, as a TOML file would hold them."""

_SYSTEM_PROMPT: Final = "You are a careful coding agent working in /work."
_README: Final = (
    "# llm-pod\n\n"
    + "Hooks observe and decide; interceptors act. Les hooks observent et décident. "
    + "フックは観察して決める。インターセプターは行動する。\n" * 24
)
_SCRIPT: Final = (
    ScriptedReply(
        text="Let me read the README first.",
        calls=(ScriptedCall("read_file", {"path": "/work/README.md"}),),
    ),
    ScriptedReply(
        text="Now I'll clean the build directory.",
        calls=(ScriptedCall("shell", {"command": "rm -rf /work/build"}),),
    ),
    ScriptedReply(
        text="Deleting is not allowed. Listing the sources instead.",
        calls=(ScriptedCall("shell", {"command": "ls /work/src"}),),
    ),
    ScriptedReply(
        text="Let me check the system users too.",
        calls=(ScriptedCall("read_file", {"path": "/etc/passwd"}),),
    ),
    ScriptedReply(
        text=(
            "The project has two packages, llm_worker (the engine) and pod (hooks and the Pod). "
            "I could not delete /work/build: that needs your approval. CI reports build 42 green."
        )
    ),
)


def confirm_shell(call: ToolCallSummary) -> Continue | Pause:
    """A user hook asking a human before any shell command: it never sees a call the
    policy denied (the ``rm``), only the ones the policy let through (the ``ls``)."""
    if call.tool_name == "shell":
        return Pause(reason="shell commands need a human's OK")
    return Continue()


def build_showcase_pod(trace: Tracer) -> Pod:
    """Return the showcase Pod; ``trace`` receives every interceptor action and hook decision.

    Run it with ``await pod.run(SHOWCASE_PROMPT)``: it pauses once (a user hook asks for a
    human before ``ls``); ``resume`` with the call approved finishes it, after five model
    requests and one compaction summary.
    """
    agent_requests: list[int] = []

    def model(request: LlmRequest) -> ScriptedReply:
        if request.system_prompt != _SYSTEM_PROMPT:  # the compaction summariser's request
            return ScriptedReply(
                text="The user asked to clean /work/build and describe the project. The README "
                "was read (truncated); deleting was denied by policy; src holds llm_worker and pod."
            )
        agent_requests.append(len(request.items))
        return _SCRIPT[min(len(agent_requests), len(_SCRIPT)) - 1]

    @tool
    def read_file(path: str) -> str:
        """Read a text file."""
        return _README if path.endswith("README.md") else f"(contents of {path})"

    @tool
    def shell(command: str) -> str:
        """Run a shell command."""
        # Sync tools run in a worker thread: this notification comes from another thread.
        pod.notify("CI: build 42 passed on main")
        return "llm_worker/  pod/" if command.startswith("ls") else ""

    audit = HookRegistry()
    audit.on(events.PRE_TOOL_CALL, confirm_shell)

    pod = Pod(
        ScriptedClient(then=model),
        tools=[read_file, shell],
        hooks=audit,
        permissions=PermissionHook.from_toml_text(SHOWCASE_RULES, source="permissions.toml"),
        settings=PodSettings(
            compaction_threshold_tokens=200, compaction_keep_recent=4, max_tool_output_bytes=512
        ),
        system_prompt=_SYSTEM_PROMPT,
        trace=trace,
    )
    return pod
