"""PermissionHook: rules, first match, default, TOML loading, and its place before user hooks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pod_helpers import assert_well_formed

from llm_worker import ScriptedCall, ScriptedClient, ScriptedReply, ToolResult, tool
from pod import (
    Continue,
    Finished,
    HookRegistry,
    PermissionHook,
    PermissionRule,
    PermissionRulesError,
    Pod,
    RegistryFrozenError,
    Skip,
    ToolCallSummary,
    events,
)


def call(tool_name: str, **arguments: object) -> ToolCallSummary:
    return ToolCallSummary(
        call_id="c1", tool_name=tool_name, arguments=json.dumps(arguments), turn=0
    )


ALLOW = Continue()


def test_allow_deny_and_the_default() -> None:
    hook = PermissionHook(
        [
            PermissionRule(action="allow", tool="read_*"),
            PermissionRule(action="deny", tool="delete", reason="nothing is deleted here"),
        ]
    )
    assert hook(call("read_file", path="a")) == ALLOW
    assert hook(call("delete", path="a")) == Skip(reason="nothing is deleted here")
    assert hook(call("write_file")) == Skip(
        reason="no permission rule allows this call to write_file"
    )
    assert PermissionHook(default="allow")(call("write_file")) == ALLOW


def test_the_first_matching_rule_wins() -> None:
    deny_first = PermissionHook(
        [
            PermissionRule(action="deny", tool="shell", command_prefix="git push"),
            PermissionRule(action="allow", tool="shell", command_prefix="git"),
        ],
        default="deny",
    )
    assert deny_first(call("shell", command="git push origin main")) == Skip(
        reason="denied by permission rule 1 (tool=shell command_prefix='git push')"
    )
    assert deny_first(call("shell", command="git status")) == ALLOW
    allow_first = PermissionHook(list(reversed(deny_first.rules)))
    assert allow_first(call("shell", command="git push origin main")) == ALLOW
    assert allow_first.first_match(call("shell", command="git push")) == 0


def test_path_globs_match_the_normalised_path() -> None:
    hook = PermissionHook([PermissionRule(action="allow", tool="read_file", path="/work/*")])
    assert hook(call("read_file", path="/work/src/a.py")) == ALLOW
    assert isinstance(hook(call("read_file", path="/work/../etc/passwd")), Skip)
    assert isinstance(hook(call("read_file", path="/etc/passwd")), Skip)
    assert isinstance(hook(call("read_file", path=["/work/a"])), Skip)  # not a string
    assert isinstance(hook(call("read_file")), Skip)  # no path at all


def test_command_prefixes_match_whole_words_and_fail_closed_on_shell_syntax() -> None:
    hook = PermissionHook(
        [
            PermissionRule(action="deny", tool="shell", command_prefix="rm", reason="no rm"),
            PermissionRule(action="allow", tool="shell", command_prefix="ls"),
        ],
        default="allow",
    )
    assert hook(call("shell", command="rm -rf build")) == Skip(reason="no rm")
    assert hook(call("shell", command="rmdir build")) == ALLOW  # the default: "rm" is a word
    assert hook(call("shell", command="ls; rm -rf /")) == Skip(reason="no rm")
    assert hook(call("shell", command="echo $(rm -rf /)")) == Skip(reason="no rm")
    assert hook(call("shell", command="ls && rm x")) == Skip(reason="no rm")
    strict = PermissionHook([PermissionRule(action="allow", tool="shell", command_prefix="ls")])
    assert strict(call("shell", command="ls -la src")) == ALLOW
    assert isinstance(strict(call("shell", command="ls > listing.txt")), Skip)
    assert isinstance(strict(call("shell", command="ls | sh")), Skip)
    assert isinstance(strict(call("shell", command="lsblk")), Skip)


def test_generic_argument_patterns() -> None:
    hook = PermissionHook(
        [
            PermissionRule(
                action="allow", tool="fetch", arguments={"method": "GET", "url": "https://*"}
            ),
            PermissionRule(action="allow", tool="retry", arguments={"times": "[1-3]"}),
        ]
    )
    assert hook(call("fetch", method="GET", url="https://example.org")) == ALLOW
    assert isinstance(hook(call("fetch", method="POST", url="https://example.org")), Skip)
    assert isinstance(hook(call("fetch", method="GET")), Skip)  # url missing
    assert hook(call("retry", times=2)) == ALLOW  # non-strings match as their JSON text
    assert isinstance(hook(call("retry", times=9)), Skip)


def test_argument_rules_do_not_match_malformed_arguments() -> None:
    hook = PermissionHook(
        [PermissionRule(action="allow", tool="read_file", path="*")], default="deny"
    )
    broken = ToolCallSummary(call_id="c", tool_name="read_file", arguments="{not json", turn=0)
    assert isinstance(hook(broken), Skip)


def test_bad_rules_are_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="must be plain words"):
        PermissionRule(action="deny", command_prefix="rm; ls")
    with pytest.raises(ValueError, match="must not be empty"):
        PermissionRule(action="deny", tool=" ")
    with pytest.raises(ValueError, match="Input should be 'allow' or 'deny'"):
        PermissionRule(action="ask")  # type: ignore[arg-type]


RULES_TOML = """\
# permissions for the test agent
default = "deny"

[[rule]]
action = "deny"
tool = "shell"
command_prefix = "rm"
reason = "deleting files is not allowed"

[[rule]]
action = "allow"
tool = "shell"
command_prefix = "ls"

[[rule]]
action = "allow"
tool = "fetch"
arguments = { method = "GET" }
"""


def test_rules_load_from_a_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "permissions.toml"
    path.write_text(RULES_TOML, encoding="utf-8")
    hook = PermissionHook.from_toml(path)
    assert hook.default == "deny"
    assert [r.action for r in hook.rules] == ["deny", "allow", "allow"]
    assert hook(call("shell", command="rm -r x")) == Skip(reason="deleting files is not allowed")
    assert hook(call("shell", command="ls")) == ALLOW
    assert hook(call("fetch", method="GET")) == ALLOW
    assert isinstance(hook(call("fetch", method="PUT")), Skip)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            RULES_TOML.replace('command_prefix = "ls"', 'comand_prefix = "ls"'),
            r"^rules\.toml, line 13: \[\[rule\]\] 2: unknown field 'comand_prefix' "
            r"\(fields: action, tool, path, command_prefix, arguments, reason\)$",
            id="unknown-field",
        ),
        pytest.param(
            RULES_TOML.replace(
                'action = "allow"\ntool = "fetch"', 'action = "ask"\ntool = "fetch"'
            ),
            r"^rules\.toml, line 16: \[\[rule\]\] 3: action: Input should be 'allow' or 'deny'$",
            id="bad-action",
        ),
        pytest.param(
            RULES_TOML.replace('action = "deny"\n', ""),
            r"^rules\.toml, line 4: \[\[rule\]\] 1: missing field 'action'$",
            id="missing-action",
        ),
        pytest.param(
            RULES_TOML.replace('arguments = { method = "GET" }', "arguments = { method = 1 }"),
            r"^rules\.toml, line 18: \[\[rule\]\] 3: arguments\.method: "
            r"Input should be a valid string$",
            id="bad-argument-pattern",
        ),
        pytest.param(
            RULES_TOML.replace(
                'tool = "shell"\ncommand_prefix = "rm"', 'tool = "shell\ncommand_prefix = "rm"'
            ),
            r"^rules\.toml, line 6: invalid TOML: .*\(at line 6, column \d+\)$",
            id="syntax",
        ),
        pytest.param(
            RULES_TOML.replace('default = "deny"', 'default = "maybe"'),
            r"^rules\.toml, line 2: default must be 'allow' or 'deny', not 'maybe'$",
            id="bad-default",
        ),
        pytest.param(
            'defualt = "allow"\n' + RULES_TOML,
            r"^rules\.toml, line 1: unknown key 'defualt' "
            r"\(expected: default, \[\[rule\]\], \[\[hook\]\]\)$",
            id="unknown-key",
        ),
        pytest.param(
            RULES_TOML + "\n[settings]\nstrict = true\n",
            r"^rules\.toml, line 20: unknown key 'settings' "
            r"\(expected: default, \[\[rule\]\], \[\[hook\]\]\)$",
            id="unknown-table",
        ),
        pytest.param(
            'rule = "allow everything"\n',
            r"^rules\.toml, line 1: 'rule' must be an array of tables: write each one under "
            r"\[\[rule\]\]$",
            id="rule-not-a-table",
        ),
    ],
)
def test_malformed_rules_name_the_line_and_the_rule(text: str, message: str) -> None:
    with pytest.raises(PermissionRulesError, match=message):
        PermissionHook.from_toml_text(text, source="rules.toml")


def test_a_rule_header_inside_a_multiline_string_does_not_shift_the_lines() -> None:
    text = '''\
[[rule]]
action = "deny"
tool = "shell"
reason = """never run:
[[rule]]
rm -rf /"""

[[rule]]
action = "allow"
tol = "read_file"
'''
    with pytest.raises(
        PermissionRulesError, match=r"^<string>, line 10: \[\[rule\]\] 2: unknown field 'tol'"
    ):
        PermissionHook.from_toml_text(text)


def test_inline_rule_tables_report_the_rule_without_a_line() -> None:
    text = 'rule = [{ action = "allow" }, { action = "nope" }]\n'
    with pytest.raises(
        PermissionRulesError, match=r"^<string>: \[\[rule\]\] 2: action: "
    ) as caught:
        PermissionHook.from_toml_text(text)
    assert (caught.value.line, caught.value.rule) == (None, 2)


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_bytes(b'default = "\xff"\n')
    with pytest.raises(PermissionRulesError, match=r"rules\.toml: not UTF-8 text"):
        PermissionHook.from_toml(path)


# -- in a Pod: policy first, user hooks after -----------------------------------------------


async def test_a_later_user_hook_cannot_let_a_denied_call_run() -> None:
    ran: list[str] = []

    @tool
    def shell(command: str) -> str:
        """Run a shell command."""
        ran.append(command)
        return "ok"

    asked: list[str] = []
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def approve_everything(info: ToolCallSummary) -> Continue:
        asked.append(str(info.argument("command")))
        return Continue()

    permissions = PermissionHook(
        [
            PermissionRule(action="deny", tool="shell", command_prefix="rm", reason="no rm"),
            PermissionRule(action="allow", tool="shell"),
        ]
    )
    client = ScriptedClient(
        [
            ScriptedReply(
                calls=[
                    ScriptedCall("shell", {"command": "rm -rf /"}),
                    ScriptedCall("shell", {"command": "ls"}),
                ]
            ),
            ScriptedReply(text="done"),
        ]
    )
    pod = Pod(client, tools=[shell], hooks=registry, permissions=permissions)

    assert isinstance(await pod.run("clean up"), Finished)
    assert ran == ["ls"]
    assert asked == ["ls"]  # the deny ended the chain before the user hook
    denied = next(i for i in pod.history if isinstance(i, ToolResult) and i.call_id == "call_1")
    assert denied.is_error
    assert denied.content == "tool call skipped: no rm"
    assert_well_formed(pod.history)


async def test_an_allowed_call_is_still_put_to_the_user_hooks() -> None:
    registry = HookRegistry()

    @registry.on(events.PRE_TOOL_CALL)
    def user_says_no(info: ToolCallSummary) -> Skip:
        return Skip(reason="the user hook said no")

    @tool
    def shell(command: str) -> str:
        """Run a shell command."""
        raise AssertionError("must not run")

    client = ScriptedClient(
        [ScriptedReply(calls=[ScriptedCall("shell", {"command": "ls"})]), ScriptedReply(text="ok")]
    )
    pod = Pod(
        client,
        tools=[shell],
        hooks=registry,
        permissions=PermissionHook([PermissionRule(action="allow", tool="*")]),
    )
    assert isinstance(await pod.run("list"), Finished)
    result = next(i for i in pod.history if isinstance(i, ToolResult))
    assert result.content == "tool call skipped: the user hook said no"


def test_the_pod_puts_the_policy_first_and_freezes_the_user_registry() -> None:
    registry = HookRegistry()

    def mine(info: ToolCallSummary) -> Continue:
        return Continue()

    registry.on(events.PRE_TOOL_CALL, mine)
    pod = Pod(ScriptedClient(), hooks=registry, permissions=PermissionHook(default="allow"))
    names = pod.hooks.hooks_for(events.PRE_TOOL_CALL)
    assert names == ("pod.PermissionHook", f"{__name__}.{mine.__qualname__}")
    with pytest.raises(RegistryFrozenError):
        registry.on(events.PRE_TOOL_CALL, mine)
