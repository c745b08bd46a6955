"""The languages a group may hand in source of: how each is detected, built and started.

One row a language, as a contest judge keeps one build script a language:

| language | detected by                     | built by (in the sandbox)                        | started as           |
|----------|---------------------------------|--------------------------------------------------|----------------------|
| make     | a `Makefile` (or `makefile`)    | `make`                                           | the one program made |
| cmake    | a `CMakeLists.txt`              | `cmake -S . -B build` then `cmake --build build` | the one program made |

A build runs on a private copy of the group's folder, inside bubblewrap like a
game (no network, only `/usr` and that copy, the agent's memory, process and
file limits) with a time limit of its own (BUILD_SECONDS), as an unprivileged
user. Its log is kept beside the copy; a failed build's verdict is the first
line that says `error`. The program is the one executable file the build made
(an ELF binary or a `#!` script). Without bubblewrap nothing is built: a
group's Makefile is a stranger's code, and would run as the teacher.
A build is kept by the digest of its source: the same source is built once,
and plays the same program on every run (a rerun's code digest is unchanged).
Python and ready programs need no build (grading/intake.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from treasure_cli.sandbox import tree
from treasure_cli.sandbox.levels import AgentLimits, bwrap_works, set_limits

BUILD_SECONDS = 120.0
BUILD_LOG = 64 << 10  # bytes of a build's output kept


@dataclasses.dataclass(frozen=True)
class Language:
    name: str
    markers: tuple[str, ...]              # a file at the top of the build's folder with one of these names
    steps: tuple[tuple[str, ...], ...]    # the build's commands, in its folder


LANGUAGES = (
    Language("make", ("Makefile", "makefile", "GNUmakefile"), (("make",),)),
    Language("cmake", ("CMakeLists.txt",), (("cmake", "-S", ".", "-B", "build"), ("cmake", "--build", "build"))),
)


def detect(folder: Path) -> Language | None:
    """The language whose build files are at the top of `folder`."""
    for language in LANGUAGES:
        if any((folder / marker).is_file() for marker in language.markers):
            return language
    return None


@dataclasses.dataclass(frozen=True)
class Built:
    program: Path | None  # the program the build made, when it made one
    log: Path             # the build's output
    verdict: str          # "" when built, else a one-line reason


def build(folder: Path, language: Language, limits: AgentLimits | None = None,
          seconds: float = BUILD_SECONDS) -> Built:
    """`folder` (a group's, never written to) copied and built in the sandbox."""
    listed = tree.files(folder)
    digest = hashlib.sha256(language.name.encode())
    for rel, size in listed:
        digest.update(f"\0{rel}\0{size}\0".encode())
        with open(folder / rel, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    root = Path(tempfile.gettempdir()) / f"treasure-cli-builds-{os.getuid()}"
    root.mkdir(exist_ok=True)
    os.chmod(root, 0o755)
    work = root / digest.hexdigest()[:16]
    log = work.with_suffix(".log")
    done = work.with_suffix(".built")  # the program's path in `work`, once built
    if done.is_file() and log.is_file():
        kept = work / done.read_text().strip()
        if kept.is_file() and _runs(kept):  # built already from the same source: the same program
            return Built(kept, log, "")
    done.unlink(missing_ok=True)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(mode=0o777)
    os.chmod(work, 0o777)  # the sandbox's user writes here
    for rel, _ in listed:
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        os.chmod((work / rel).parent, 0o777)
        shutil.copyfile(folder / rel, work / rel)
        os.chmod(work / rel, 0o777 if os.access(folder / rel, os.X_OK) else 0o666)
    before = {rel for rel, _ in listed}
    if not bwrap_works():
        log.write_text("not built: builds run only in the sandbox (bubblewrap), which cannot run here\n")
        return Built(None, log, "needs a build, and builds run only in the sandbox (bubblewrap), which cannot run here")
    limits = limits or AgentLimits()
    output = b""
    for step in language.steps:
        try:
            ran = subprocess.run(_sandboxed(work, step), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=seconds, preexec_fn=lambda: set_limits(limits))
        except subprocess.TimeoutExpired as exc:
            output += (exc.output or b"")[:BUILD_LOG]
            _write_log(log, output)
            return Built(None, log, f"the build took more than {seconds:g} s")
        output += ran.stdout[:BUILD_LOG]
        if ran.returncode != 0:
            _write_log(log, output)
            return Built(None, log, f"the build failed: {first_error(output.decode('utf-8', 'replace'))}")
    _write_log(log, output)
    made = [rel for rel, _ in tree.files(work) if rel not in before and _runs(work / rel)]
    made = [rel for rel in made if "CMakeFiles" not in rel.parts]
    if len(made) != 1:
        what = "no program" if not made else f"{len(made)} programs ({', '.join(map(str, made))})"
        return Built(None, log, f"the build made {what}; name the program with agent.toml: entry = \"PATH\"")
    tmp = done.with_suffix(".tmp")
    tmp.write_text(str(made[0]))
    os.replace(tmp, done)
    return Built(work / made[0], log, "")


def _runs(path: Path) -> bool:
    try:
        if not os.stat(path).st_mode & 0o111:
            return False
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return head == b"\x7fELF" or head.startswith(b"#!")


def first_error(text: str) -> str:
    """The first line of a build's output that says `error` (a compiler's first error), else its last line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower():
            return line[:300]
    return lines[-1][:300] if lines else "(no output)"


def _write_log(log: Path, output: bytes) -> None:
    tmp = log.with_suffix(".tmp")
    tmp.write_bytes(output[:BUILD_LOG])
    os.replace(tmp, log)


def _sandboxed(work: Path, command: tuple[str, ...]) -> list[str]:
    """`command` in bubblewrap: no network, read-only /usr and /etc's linker files, `work` writable at /build."""
    argv = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv",
            "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp",
            "--setenv", "LC_ALL", "C", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            "--ro-bind", "/usr", "/usr"]
    for extra in ("/etc/ld.so.cache", "/etc/alternatives"):
        if os.path.exists(extra):
            argv += ["--ro-bind", extra, extra]
    for d in ("bin", "lib", "lib64", "sbin"):
        if os.path.islink("/" + d):
            argv += ["--symlink", os.readlink("/" + d), "/" + d]
    argv += ["--bind", str(work), "/build", "--chdir", "/build"]
    if os.geteuid() == 0:  # as in sandbox/levels.py: a user of its own, no capability
        uid = 1_900_000_000 + os.getpid() % 100_000_000
        argv += ["--", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--no-new-privs"]
    else:
        argv += ["--unshare-user", "--cap-drop", "ALL", "--"]
    return argv + list(command)
