"""Build the mypyc-compiled pod_mypy that release wheels ship, and an environment that runs it.

The wheel's ``mypyc`` build hook (hatch-mypyc, configured in ``pyproject.toml``) is off by
default, as black's is: ``HATCH_BUILD_HOOKS_ENABLE=1`` turns it on. It compiles in place, so
it must never run on the checkout itself: compiled modules left next to the sources would
shadow them in the editable install and run stale code after the next edit. This script
builds from a copy, without build isolation, so the compiler is the mypy of this environment:
the one the compiled modules run against. Under ``ROOT/<fingerprint>`` it keeps the compiled
package (``site``) and an environment (``env``): a venv whose ``python`` and ``mypy`` see the
compiled package first, then everything this environment has. It prints that environment's
folder. The fingerprint covers the plugin's sources, ``pyproject.toml``, this script, mypy's
version and the interpreter, so an unchanged tree is not compiled twice.

Usage: ``python mypy_plugin/compile_plugin.py ROOT [--wheel-dir DIR]`` (``make typing-compiled``,
``make bench-plugin``); ``--wheel-dir`` also keeps the release wheel.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
import zipfile
from pathlib import Path
from typing import Final

import mypy.version

PROJECT: Final = Path(__file__).resolve().parent.parent
PACKAGE: Final = "pod_mypy"
COPIED: Final = ("pyproject.toml", "README.md", "src", f"mypy_plugin/{PACKAGE}")
"""What the wheel is built from: the project file, the readme its metadata names, and the
packages it lists."""
_IGNORED: Final = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd")


def fingerprint() -> str:
    """The plugin's sources and everything else that decides the build (this script too)."""
    digest = hashlib.sha256()
    for part in (mypy.version.__version__, sys.version, sysconfig.get_platform()):
        digest.update(part.encode())
    sources = sorted((PROJECT / "mypy_plugin" / PACKAGE).rglob("*.py"))
    for path in [PROJECT / "pyproject.toml", Path(__file__).resolve(), *sources]:
        digest.update(str(path.relative_to(PROJECT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build(root: Path, wheel_dir: Path | None = None) -> Path:
    """The environment that runs the compiled ``pod_mypy`` of the current sources (built if
    need be)."""
    target = root / fingerprint()
    if (target / "env").is_dir() and wheel_dir is None:
        return target / "env"
    with tempfile.TemporaryDirectory(prefix="pod-mypy-compile-") as directory:
        staging = Path(directory) / "build"
        wheel = _wheel(Path(directory))
        with zipfile.ZipFile(wheel) as archive:
            members = [
                name
                for name in archive.namelist()
                if name.startswith(f"{PACKAGE}/") or "__mypyc." in name
            ]
            archive.extractall(staging / "site", members)
        if not any((staging / "site").glob(f"{PACKAGE}/**/*.so")):
            raise SystemExit(f"compile_plugin: {wheel.name} holds no compiled module")
        if wheel_dir is not None:
            wheel_dir.mkdir(parents=True, exist_ok=True)
            shutil.copy2(wheel, wheel_dir / wheel.name)
            print(f"compile_plugin: wrote {wheel_dir / wheel.name}", file=sys.stderr)
        root.mkdir(parents=True, exist_ok=True)
        for stale in root.iterdir():  # only the current build is kept
            shutil.rmtree(stale)
        shutil.move(staging, target)
    _environment(target)
    return target / "env"


def _wheel(directory: Path) -> Path:
    """The release wheel, built from a copy of the tree with the mypyc hook on."""
    copy = directory / "project"
    for name in COPIED:
        source = PROJECT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=_IGNORED)
        else:
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    dist = directory / "dist"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"),
            *("--no-build-isolation", "--wheel-dir", str(dist), str(copy)),
        ],
        env={**os.environ, "HATCH_BUILD_HOOKS_ENABLE": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"compile_plugin: the wheel build failed:\n{done.stdout}{done.stderr}")
    (wheel,) = dist.glob("*.whl")
    return wheel


def _environment(target: Path) -> None:
    """A venv over this one: the compiled package first on its path, then this environment's
    site-packages with its ``.pth`` files (the editable install's among them)."""
    env = target / "env"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    purelib = _printed(python, "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    here = sysconfig.get_paths()["purelib"]
    Path(purelib, "_pod_mypy_compiled.pth").write_text(
        f"{target / 'site'}\nimport site; site.addsitedir({here!r})\n", encoding="utf-8"
    )
    mypy = env / "bin" / "mypy"
    mypy.write_text(
        f"#!{python}\nimport sys\nfrom mypy.__main__ import console_entry\n\n"
        "sys.exit(console_entry())\n",
        encoding="utf-8",
    )
    mypy.chmod(0o755)
    loaded = _printed(python, "import pod_mypy._features.tamed as m; print(m.__file__)")
    if not loaded.endswith(".so"):
        raise SystemExit(f"compile_plugin: {env} loads pod_mypy from {loaded}")


def _printed(python: Path, code: str) -> str:
    """What ``code`` prints when ``python`` runs it."""
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"compile_plugin: {python} -c {code!r} failed:\n{done.stderr}")
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Build the mypyc-compiled pod_mypy and an environment that runs it."
    )
    parser.add_argument("root", type=Path, help="where compiled builds are kept")
    parser.add_argument("--wheel-dir", type=Path, help="also keep the release wheel here")
    args = parser.parse_args()
    print(build(args.root.resolve(), args.wheel_dir))


if __name__ == "__main__":
    main()
