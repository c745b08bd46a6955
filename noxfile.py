"""The test suite on every supported Python this machine has (`make test` runs `nox`).

Sessions, in the order `nox` runs them:

* `suite`: the whole suite in the project's own environment (.venv, the default
  interpreter, editable install with the compiled modules): what `make install` made.
* `suite_other-3.X`: for every other supported version, the package installed from this
  folder (`pip install .[...]`, compiled modules included) in a fresh environment and the
  whole suite run there. A version the machine lacks is reported in one line and skipped.
* `spawn_only`: the tests that start processes again, with `fork` and SIGALRM taken away
  (tests/spawn_only/sitecustomize.py): what Windows has, and what macOS and Python 3.14 use.

Options after `--` go to pytest: `nox -s suite_other-3.13 -- tests/rules -x`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nox

SUPPORTED = ["3.10", "3.11", "3.12", "3.13"]  # pyproject.toml's requires-python and classifiers say the same
DEFAULT = f"{sys.version_info.major}.{sys.version_info.minor}"  # nox runs from .venv: its Python
OTHERS = [v for v in SUPPORTED if v != DEFAULT]
EXTRAS = ".[test,plot,gym,dask]"
PYTEST = ["-p", "no:cacheprovider"]  # pyproject.toml adds -q
# The whole suite spreads over every core (pytest-xdist): it is CPU-bound, and its files are
# independent (each test has its own folders; the process tests find their processes by a
# marker of their own). Within a file they are not always: the two hostile-agent tests look for
# the agents' processes by their names, machine-wide, and would find each other's. So a file's
# tests run on one worker, in order (--dist loadfile; xdist_group marks were not honoured by
# pytest-xdist 3.8 under pytest 9). spawn_only stays on one core: its sitecustomize takes fork
# away from every process.
PARALLEL = ["-n", "auto", "--dist", "loadfile"]
# Tests that time the referee's holds to the millisecond: alone on the machine, after the rest
# (beside another worker, a median hold read 85.8 ms against its 85.4 ms bound in CI).
TIMED = ["tests/sandbox/test_pacing.py"]


def _whole_suite(session: nox.Session, python: str) -> None:
    """The suite in parallel but for TIMED, then TIMED alone; or just what posargs say."""
    if session.posargs:
        session.run(python, "-m", "pytest", *PYTEST, *session.posargs)
        return
    session.run(python, "-m", "pytest", *PYTEST, *PARALLEL, *(f"--ignore={t}" for t in TIMED))
    session.run(python, "-m", "pytest", *PYTEST, *TIMED)

# The tests that start processes: worker pools (run --jobs, bench, the tournament),
# agents in processes of their own, check-agent, interruptions.
PROCESS_TESTS = [
    "tests/test_spawn_only.py", "tests/play", "tests/sandbox", "tests/grading", "tests/reliability", "tests/cli/test_cli_run.py",
    "tests/security", "tests/examples/test_examples.py", "tests/examples/test_cpp_agent.py",
    "tests/benchmarks/test_bench_pool.py",
]

nox.options.download_python = "never"              # test the Pythons the machine has, never fetch one
nox.options.default_venv_backend = "venv"          # the standard library's: nothing more to install
nox.options.reuse_existing_virtualenvs = True      # a venv is rebuilt only when asked (-R) or on a clean clone


def _see_every_pyenv_version() -> None:
    """Make pyenv's shims (python3.10 ...) answer for every supported version installed under pyenv.

    pyenv's shims run only the versions selected (`pyenv global`, here the default one): the
    others' shims refuse, and nox would call those versions missing. PYENV_VERSION selects
    them all, the global one first, so `python3` stays what it was. Left alone if already set.
    """
    root = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    if "PYENV_VERSION" in os.environ or not (root / "versions").is_dir():
        return
    selected = (root / "version").read_text().split() if (root / "version").is_file() else []
    installed = sorted(p.name for p in (root / "versions").iterdir()
                       if any(p.name.startswith(v + ".") for v in SUPPORTED))
    os.environ["PYENV_VERSION"] = ":".join(dict.fromkeys([*selected, *installed]))


_see_every_pyenv_version()


def _runs(version: str) -> bool:
    exe = shutil.which(f"python{version}")
    return exe is not None and subprocess.run([exe, "-c", ""], capture_output=True).returncode == 0


# A version the machine lacks: one line, and the others go on (nox's own report of a missing
# interpreter takes several lines and, where CI is set, fails the run).
PRESENT = [v for v in OTHERS if _runs(v)]
for _missing in sorted(set(OTHERS) - set(PRESENT)):
    print(f"nox > Python {_missing}: not on this machine, its suite is skipped", file=sys.stderr)
nox.options.sessions = ["suite", *(["suite_other"] if PRESENT else []), "spawn_only"]


@nox.session(venv_backend="none")
def suite(session: nox.Session) -> None:
    """The whole suite on the default interpreter, in .venv."""
    _whole_suite(session, sys.executable)


@nox.session(python=PRESENT or OTHERS)
def suite_other(session: nox.Session) -> None:
    """The whole suite on another supported Python, against the package as pip installs it."""
    session.install("--quiet", "--upgrade", "pip")
    session.install("--quiet", EXTRAS)
    _whole_suite(session, "python")


@nox.session(venv_backend="none")
def spawn_only(session: nox.Session) -> None:
    """The process tests with fork and SIGALRM absent (tests/spawn_only/sitecustomize.py)."""
    here = str(Path(__file__).resolve().parent / "tests" / "spawn_only")  # its sitecustomize.py
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)
    session.run(sys.executable, "-m", "pytest", *PYTEST, *(session.posargs or PROCESS_TESTS),
                env={"TREASURE_TEST_SPAWN_ONLY": "1", "PYTHONPATH": path})
