"""Every bad input ends with exit 2 (3 for a missing key alone) and one clear line per
problem, all problems at once, and no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pod.cli._main import main

MODEL = ["--model=openai:m", "--api-key=k"]


def problems(err: str) -> list[str]:
    return [
        line.removeprefix("pod run: error: ") for line in err.splitlines() if ": error: " in line
    ]


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--max-requests=0"], "--max-requests must be a whole number of at least 1, not '0'"),
        (
            ["--max-requests=many"],
            "--max-requests must be a whole number of at least 1, not 'many'",
        ),
        (["--timeout=-1"], "--timeout must be a positive number of seconds, not '-1'"),
        (["--timeout=nan"], "--timeout must be a positive number of seconds, not 'nan'"),
        (["--max-retries=-2"], "--max-retries must be a whole number of at least 0, not '-2'"),
        (["--workdir=/no/such/folder"], "--workdir /no/such/folder: no such folder"),
        (["--rules=/no/such/rules.toml"], "--rules /no/such/rules.toml: no such file"),
        (["--hooks=nope.py:registry"], "--hooks nope.py:registry: no such file 'nope.py'"),
        (
            ["--hooks=json:dumps"],
            "--hooks json:dumps: json:dumps is a function, not a HookRegistry",
        ),
        (["--tools=json"], "--tools json: 'json' is not module:attr or file.py:attr"),
        (
            ["--tools=no_such_module_x:T"],
            "--tools no_such_module_x:T: cannot import "
            "'no_such_module_x': ModuleNotFoundError: No module named 'no_such_module_x'",
        ),
    ],
)
def test_each_bad_option_is_one_line_and_exit_2(
    argv: list[str], problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "hello", *MODEL, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: pod run ")
    assert problems(err) == [problem]
    assert "Traceback" not in err


def test_a_bad_model_spec(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "hello", "--model=nope:x"]) == 2
    [problem] = problems(capsys.readouterr().err)
    assert problem.startswith("--model nope:x: ")
    assert "nope" in problem.removeprefix("--model nope:x: ")


def test_a_missing_key_alone_exits_3_with_the_cli_words(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "hello", "--model=openai:m"]) == 3
    err = capsys.readouterr().err
    assert err == "error: no API key for openai: pass --api-key or set OPENAI_API_KEY\n"


def test_all_problems_are_reported_together(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text("default = [broken")
    code = main(
        ["run", "hello", "--model=openai:m", f"--rules={rules}", "--max-requests=0", "--timeout=-1"]
    )
    assert code == 2
    found = problems(capsys.readouterr().err)
    assert found[0] == "no API key for openai: pass --api-key or set OPENAI_API_KEY"
    assert found[1].startswith("--max-requests ")
    assert found[2].startswith("--timeout ")
    assert found[3].startswith(f"--rules {rules}: ")
    assert len(found) == 4


def test_a_hooks_file_registering_a_hook_on_the_wrong_event_is_refused_before_any_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hooks = tmp_path / "wrong_event_hooks.py"
    hooks.write_text(
        "from pod import Continue, HookRegistry, PromptSubmitInfo, events\n"
        "registry = HookRegistry()\n"
        "def check(info: PromptSubmitInfo) -> Continue:\n"
        "    return Continue()\n"
        "registry.on(events.PRE_TOOL_CALL, check)\n"
    )
    # The base URL is a closed port: a request would fail with exit 4, not 2.
    code = main(
        ["run", "hi", *MODEL, "--base-url=http://127.0.0.1:9/v1", f"--hooks={hooks}:registry"]
    )
    assert code == 2
    [problem] = problems(capsys.readouterr().err)
    assert problem.endswith(
        "wrong_event_hooks.check cannot be registered on PRE_TOOL_CALL: it takes "
        "PromptSubmitInfo (the Input of PROMPT_SUBMIT), but PRE_TOOL_CALL gives ToolCallSummary"
    )


def test_resume_of_a_missing_or_foreign_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["resume", str(tmp_path / "gone.json")]) == 2
    assert problems(capsys.readouterr().err.replace("pod resume: ", "pod run: ")) == [
        f"{tmp_path / 'gone.json'}: No such file or directory"
    ]
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"format": "something-else"}')
    assert main(["resume", str(foreign)]) == 2
    [problem] = problems(capsys.readouterr().err.replace("pod resume: ", "pod run: "))
    assert problem.startswith(f"{foreign}: not a saved run")


def test_version() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pod", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("pod (llm-pod) ")


def test_an_argparse_error_has_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pod", "run", "hello"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "pod run: error: the following arguments are required: --model"
    )
    assert "Traceback" not in done.stderr


def test_save_naming_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "hello", *MODEL, f"--save={tmp_path}"]) == 2
    assert problems(capsys.readouterr().err) == [
        f"--save {tmp_path}: is a folder; give a file name"
    ]


def test_a_hooks_file_named_like_an_imported_module_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shadow = tmp_path / "json.py"
    shadow.write_text("registry = None\n")
    assert main(["run", "hello", *MODEL, f"--hooks={shadow}:registry"]) == 2
    assert problems(capsys.readouterr().err) == [
        f"--hooks {shadow}:registry: cannot import {str(shadow)!r}: a module named 'json' is "
        "already loaded from elsewhere; rename the file"
    ]
