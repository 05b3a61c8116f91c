"""Bad input never crashes the plugin: it runs over a large body of real typed code, every
module of it judged as a hook module, and mypy reports no internal error.

The body: 200 generated hook modules that narrow recursive JSON values (pydantic's
``JsonValue`` through ``ToolCallSummary.argument``, and a recursive alias of their own), this
project's own tests, and a copy of 40 modules of an installed typed package (``rich``)
checked as project code. pod_mypy 0.2 crashed on a recursive alias (INTERNAL ERROR
interpreted, a segmentation fault compiled).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import rich

ROOT = Path(__file__).resolve().parents[2]

HOOK_MODULE = """\
from __future__ import annotations

from typing import TypeAlias

from pod import Continue, HookRegistry, PreToolDecision, Skip, ToolCallSummary, events

Json: TypeAlias = "str | int | float | bool | None | list[Json] | dict[str, Json]"
registry = HookRegistry()


def depth_{i}(value: Json) -> int:
    if isinstance(value, list):
        return 1 + max((depth_{i}(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_{i}(item) for item in value.values()), default=0)
    return 0


@registry.on(events.PRE_TOOL_CALL)
def nested_{i}(call: ToolCallSummary) -> PreToolDecision:
    value = call.argument("payload")
    if isinstance(value, dict) and depth_{i}(value) > {limit}:
        return Skip(reason="too deep")
    return Continue()
"""


def test_the_plugin_checks_a_large_body_of_typed_code_without_an_internal_error(
    tmp_path: Path,
) -> None:
    generated = tmp_path / "generated"
    generated.mkdir()
    (generated / "__init__.py").write_text("")
    for i in range(200):
        (generated / f"hooks_{i:03d}.py").write_text(HOOK_MODULE.format(i=i, limit=i % 7 + 2))
    copy = tmp_path / "richcopy"
    copy.mkdir()
    for source in sorted(Path(rich.__file__).parent.glob("*.py"))[:40]:
        shutil.copy(source, copy / source.name)
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nplugins = pod_mypy\nstrict = true\n\n[pod_mypy]\nhook_modules = *\n"
    )

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(tmp_path / "mypy.ini"),
            "--no-incremental",
            "--show-traceback",
            str(generated),
            str(tmp_path / "richcopy"),
            str(ROOT / "tests"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )

    output = done.stdout + done.stderr
    assert "INTERNAL ERROR" not in output, output[-4000:]
    assert "Traceback (most recent call last)" not in output, output[-4000:]
    assert done.returncode in (0, 1), output[-4000:]  # 2 would be a crash or a usage error
    # The generated hook modules are clean: the recursive aliases are judged, not refused.
    assert "generated/hooks_" not in done.stdout, done.stdout[:4000]
    # The copied package is judged as hook code (and refused: it uses the whole library).
    assert "richcopy/" in done.stdout
