"""The package as a student installs it: a wheel built by `python -m build`, installed in a
fresh virtual environment, plays the shipped maps exactly as the golden logs say, with the
compiled modules and without them (TREASURE_CLI_PURE_PYTHON=1 at build time: a py3-none-any
wheel, what a machine without a C compiler can use)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from helpers import GOLDEN, ROOT

pytest.importorskip("build")

COMPILED = ["treasure_cli.rules._draws", "treasure_cli.rules._grid", "treasure_cli.islands._gen",
            "treasure_cli.agents._mass"]
SHOW = ("import importlib.util, sys, treasure_cli\n"
        "print(treasure_cli.__file__)\n"
        f"print(*[importlib.util.find_spec(m) is not None for m in {COMPILED!r}])")


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """What the build reads, copied: the build's own files (build/, *.egg-info) stay out of the
    worktree, and the compiled modules an editable install left in src/ out of the wheel."""
    out = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, out / name)
    shutil.copytree(ROOT / "src", out / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.egg-info"))
    return out


def build_wheel(source: Path, out: Path, pure: bool) -> Path:
    env = {k: v for k, v in os.environ.items() if k != "TREASURE_CLI_PURE_PYTHON"}
    if pure:
        env["TREASURE_CLI_PURE_PYTHON"] = "1"
    done = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(source)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheels = list(out.glob("*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def fresh_env(folder: Path, wheel: Path) -> Path:
    """A new virtual environment with the wheel pip-installed; its dependencies (numpy, ...) are
    this environment's, seen through a .pth file, so nothing is downloaded again. This pip
    installs into it (`--python`): putting a pip of its own there took 5-10 s a test."""
    venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt").create(folder)
    python = folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True, timeout=300)
    # Only now: pip would take a treasure-cli installed in this environment for the wheel's.
    ours = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (site / "zz_dependencies.pth").write_text("".join(f"{p}\n" for p in ours))
    return python


def plays_the_golden_logs(python: Path, tmp_path: Path) -> None:
    treasure = python.parent / "treasure"
    env = {k: v for k, v in os.environ.items() if k != "TREASURE_CLI_PURE_PYTHON"}
    # From the checkout, as `make golden` ran it: the log records the map's path as given.
    done = subprocess.run([str(treasure), "run", "input/", str(tmp_path / "out")], env=env,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    logs = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert logs == [f"LOG_0{i}.txt" for i in range(1, 6)]
    for name in logs:
        assert (tmp_path / "out" / name).read_bytes() == (GOLDEN / name).read_bytes(), name


def installed(python: Path, folder: Path) -> list[bool]:
    """Which compiled modules the installed package has; checks it is the wheel's copy that runs."""
    where, flags = subprocess.run([str(python), "-c", SHOW], capture_output=True, text=True, check=True,
                                  cwd=folder).stdout.splitlines()
    assert Path(where).resolve().is_relative_to(folder.resolve()), where  # not this checkout's
    return [flag == "True" for flag in flags.split()]


def test_a_pure_python_wheel_installs_and_plays_the_golden_logs(source, tmp_path):
    wheel = build_wheel(source, tmp_path / "dist", pure=True)
    assert wheel.name.endswith("-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert not [n for n in names if n.endswith((".so", ".pyd", ".c"))]
    assert "treasure_cli/view/page_template.html" in names
    python = fresh_env(tmp_path / "env", wheel)
    assert installed(python, tmp_path / "env") == [False] * 4
    plays_the_golden_logs(python, tmp_path)


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler here")
def test_the_default_wheel_carries_the_compiled_modules_and_plays_the_golden_logs(source, tmp_path):
    wheel = build_wheel(source, tmp_path / "dist", pure=False)
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert f"-{tag}-{tag}-" in wheel.name
    python = fresh_env(tmp_path / "env", wheel)
    assert installed(python, tmp_path / "env") == [True] * 4
    plays_the_golden_logs(python, tmp_path)
