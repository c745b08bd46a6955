"""The languages a group may hand in source of: how each is detected, built and started.

One row a language, as a contest judge keeps one build script a language:

| language | detected by                     | built by (in the sandbox)                        | started as           |
|----------|---------------------------------|--------------------------------------------------|----------------------|
| make     | a `Makefile` (or `makefile`)    | `make`                                           | the one program made |
| cmake    | a `CMakeLists.txt`              | `cmake -S . -B build` then `cmake --build build` | the one program made |
| java     | a `.java` file                  | `javac -d .` on every `.java` file (JVM_OPTIONS)  | `java -cp . CLASS`   |
| node     | `agent.js`                      | nothing                                          | `node agent.js`      |
| cargo    | a `Cargo.toml`                  | `cargo build --release --offline`                | the one program in `target/release/` |

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

A language with a start command (Java, Node.js) gets a launcher script,
`treasure-start`, written beside its files in the build's copy: it plays as a
program, in that folder. The sandbox shows a runtime's files outside /usr
(sandbox/levels.py: runtime_paths), and the launcher names the JDK's `lib/`
(a game's jail has no /proc, so `$ORIGIN` cannot be resolved). The JVM is
held to the agent's address-space limit by its options (JVM_OPTIONS).

A Rust toolchain installed by rustup lives outside /usr (`~/.rustup/toolchains/...`):
a cargo build is shown that toolchain read-only (`rustc --print sysroot`) and finds
its `cargo` first on its PATH; a group's dependencies are not fetched (no network:
`--offline`), so a crate must build from the standard library and its own files.
"""

from __future__ import annotations

import dataclasses
import fcntl
import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from treasure_cli.sandbox import tree
from treasure_cli.sandbox.levels import AgentLimits, _mounts, bwrap_works, runtime_paths, set_limits

BUILD_SECONDS = 120.0
BUILD_LOG = 64 << 10  # bytes of a build's output kept


# The JVM's own memory, sized to fit under the agent's 1 GiB address-space limit (RLIMIT_AS): a
# default JVM reserves a heap of a quarter of the machine's memory, 240 MB of code cache and 1 GB
# of class space up front, and does not start under that limit at all. With these it starts in
# 650 to 700 MB of address space (measured with `ulimit -v`), and uses a handful of threads
# (the process limit counts them).
JVM_HEAP = 256  # MiB of heap at most; less where the address-space limit is lower (JVM_SIZING)
JVM_OVERHEAD = 420  # MiB of address space a JVM with JVM_OPTIONS reserves besides its heap (measured: 400 to 450)
# The launcher's shell lines that size the heap to the limit it runs under (`ulimit -v`, KiB) into
# $sized: a teacher's --agent-memory 512M leaves a 92 MiB heap, where a fixed 256 MiB heap would not start.
JVM_SIZING = (f'heap={JVM_HEAP}\nlimit=$(ulimit -v)\ncase "$limit" in ""|unlimited) ;; *)\n'
              f'  heap=$((limit / 1024 - {JVM_OVERHEAD}))\n  [ "$heap" -gt {JVM_HEAP} ] && heap={JVM_HEAP}\n'
              f'  [ "$heap" -lt 16 ] && heap=16 ;;\nesac\nsized="-Xmx${{heap}}m"\n')
# Node.js (V8) reserves its code range up front and does not start under about 800 MiB of address
# space (measured with `ulimit -v`: "Fatal process OOM ... CodeRange"); without a JIT (--jitless,
# slower: an interpreter) it starts under 300 MiB. The launcher drops the JIT only under NODE_JIT MiB.
NODE_JIT = 850
NODE_SIZING = (f'sized=\nlimit=$(ulimit -v)\ncase "$limit" in ""|unlimited) ;; *)\n'
               f'  [ $((limit / 1024)) -lt {NODE_JIT} ] && sized=--jitless ;;\nesac\n')
BUILDS = "treasure-cli-builds-"  # the kept builds' folder, under the temporary folder, + the user id
JVM_OPTIONS = ("-Xss1m", "-XX:ReservedCodeCacheSize=32m", "-XX:MaxMetaspaceSize=96m",
               "-XX:CompressedClassSpaceSize=32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
               "-XX:CICompilerCount=1", "-Xshare:auto",
               "-XX:-UsePerfData")  # no hsperfdata file in /tmp for monitoring tools: nothing here reads it


@dataclasses.dataclass(frozen=True)
class Language:
    name: str
    markers: tuple[str, ...]              # a file at the top of the build's folder matching one of these
    steps: tuple[tuple[str, ...], ...]    # the build's commands, in its folder
    start: tuple[str, ...] = ()           # the command that starts it in its folder ({main}: the class
                                          # or file named); none: the one program the build made
    libraries: bool = False               # its runtime finds its libraries from its own path ($ORIGIN),
                                          # which a game's jail (no /proc) cannot tell: named for it
    sizing: str = ""                      # the launcher's shell lines before the start, that set
                                          # $sized: options for the limit it runs under ({sized})
    output: str = ""                      # the folder (from the build file's) its program is made in;
                                          # "": anywhere in it
    toolchain: str = ""                   # a compiler whose own files the build needs too (toolchain())


LANGUAGES = (
    Language("make", ("Makefile", "makefile", "GNUmakefile"), (("make",),)),
    Language("cmake", ("CMakeLists.txt",), (("cmake", "-S", ".", "-B", "build"), ("cmake", "--build", "build"))),
    Language("java", ("*.java",),
             (("sh", "-c", "find . -name '*.java' -exec javac -encoding UTF-8 -d . "
                           + " ".join("-J" + o for o in (f"-Xmx{JVM_HEAP}m", *JVM_OPTIONS)) + " {} +"),),
             ("java", "{sized}", *JVM_OPTIONS, "-cp", ".", "{main}"), libraries=True, sizing=JVM_SIZING),
    Language("node", ("agent.js",), (), ("node", "{sized}", "{main}"), sizing=NODE_SIZING),
    Language("cargo", ("Cargo.toml",), (("cargo", "build", "--release", "--offline"),),
             output="target/release", toolchain="rustc"),
)
BY_NAME = {language.name: language for language in LANGUAGES}
LAUNCHER = "treasure-start"  # the script a build writes for a language started by a command
LAUNCHER_FORMAT = 6  # a new launcher script builds again


def detect(folder: Path) -> Language | None:
    """The language whose build files are at the top of `folder`."""
    for language in LANGUAGES:
        if any(any(folder.glob(marker)) if "*" in marker else (folder / marker).is_file()
               for marker in language.markers):
            return language
    return None


@dataclasses.dataclass(frozen=True)
class Built:
    program: Path | None  # the program the build made, when it made one
    log: Path             # the build's output
    verdict: str          # "" when built, else a one-line reason


def build(folder: Path, language: Language, limits: AgentLimits | None = None,
          seconds: float = BUILD_SECONDS, main: str = "", inside: Path = Path()) -> Built:
    """`folder` (a group's, never written to) copied whole and built in the sandbox, in its
    subfolder `inside` (where the build file is: the rest of the group's tree is beside it, as at
    home). A language with a start command gets a launcher script (LAUNCHER) that runs it in that
    folder of the copy, `main` (the class or file to start) in place of `{main}`."""
    listed = tree.files(folder)
    # (file names as the file system has them: a name that is not UTF-8, résumé.txt from a Latin-1
    # archiver, is hashed by its bytes, not refused with a UnicodeEncodeError that stopped the run)
    digest = hashlib.sha256(f"{language!r}\0{main}\0{LAUNCHER_FORMAT}\0{inside.as_posix()}".encode("utf-8", "surrogateescape"))
    for rel, size in listed:
        digest.update(f"\0{rel}\0{size}\0".encode("utf-8", "surrogateescape"))
        with open(folder / rel, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    root = Path(tempfile.gettempdir()) / f"{BUILDS}{os.getuid()}"
    root.mkdir(mode=0o755, exist_ok=True)
    if root.is_symlink() or root.lstat().st_uid != os.getuid():  # made by someone else, to swap our programs
        return Built(None, root, f"{root} is not this user's own folder (a link, or another user's): "
                                 "groups are not built there; set TMPDIR to a folder of your own")
    work = root / digest.hexdigest()[:16]
    # One build of a source at a time, across a run's workers and other runs: a second would remove
    # the first's copy under it. The second waits for the lock, then finds the build kept.
    with open(work.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_in(work, folder, listed, language, limits, seconds, main, inside)


def _build_in(work: Path, folder: Path, listed: list[tuple[Path, int]], language: Language,
              limits: AgentLimits | None, seconds: float, main: str, inside: Path) -> Built:
    """`build`'s work, in `work` (its lock held)."""
    log = work.with_suffix(".log")
    done = work.with_suffix(".built")  # the program's path in `work`, once built
    if done.is_file() and log.is_file():
        kept = work / done.read_text().strip()
        if kept.is_file() and _runs(kept) and _sealed(work):  # built already from the same source: the same program
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
    if not language.steps:  # nothing to build: started as it is
        _write_log(log, b"nothing to build\n")
        return _launcher(work, inside, done, log, language, main)
    if not bwrap_works():
        log.write_text("not built: builds run only in the sandbox (bubblewrap), which cannot run here\n")
        return Built(None, log, "needs a build, and builds run only in the sandbox (bubblewrap), which cannot run here")
    limits = limits or AgentLimits()
    output = b""
    for step in language.steps:
        code, said, why, capped = _run_step(_sandboxed(work, step, inside, toolchain(language.toolchain)),
                                            limits, seconds, work)
        output += said[:BUILD_LOG - len(output)]
        if why:
            _write_log(log, output + f"\nstopped: {why}\n".encode())
            if capped:  # what it wrote goes at once: it may fill the disk the builds are kept on
                shutil.rmtree(work, ignore_errors=True)
            return Built(None, log, why)
        if code != 0:
            _write_log(log, output)
            return Built(None, log, f"the build failed: {first_error(output.decode('utf-8', 'replace'))}")
    _write_log(log, output)
    if language.start:
        return _launcher(work, inside, done, log, language, main)
    try:
        listed_after = tree.files(work)
    except tree.TooBig as exc:  # (caught by _run_step's watch unless it came between two looks)
        shutil.rmtree(work, ignore_errors=True)
        return Built(None, log, f"the build wrote {exc}")
    made = [rel for rel, _ in listed_after if rel not in before and _runs(work / rel)]
    made = [rel for rel in made if rel.is_relative_to(inside)]  # (what it made in its own folder)
    if language.output:  # (not its build scripts, nor the copies in deps/)
        made = [rel for rel in made if rel.parent == inside / language.output]
    made = [rel for rel in made if "CMakeFiles" not in rel.parts]
    if len(made) != 1:
        what = "no program" if not made else f"{len(made)} programs ({', '.join(map(str, made))})"
        return Built(None, log, f"the build made {what}; name the program with agent.toml: entry = \"PATH\"")
    _seal(work)
    tmp = done.with_suffix(".tmp")
    tmp.write_text(str(made[0]))
    os.replace(tmp, done)
    return Built(work / made[0], log, "")


BUILD_WATCH = 0.2  # seconds between two looks at what a build has written


def _run_step(argv: list[str], limits: AgentLimits, seconds: float, work: Path
              ) -> tuple[int | None, bytes, str, bool]:
    """One build command: its exit status, the first BUILD_LOG bytes of its output, why it was
    stopped ("" if it was not), and whether that was a cap. It is stopped past `seconds`, and as soon as its folder holds more
    files or bytes than a group may (sandbox/tree.py: caps): a build's writes land on the referee's
    disk, and a Makefile that wrote without end filled it (RLIMIT_FSIZE bounds one file only). Its
    output is read as it comes and all but BUILD_LOG bytes dropped, never held whole in memory."""
    import threading
    import time

    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=lambda: set_limits(limits))
    kept = bytearray()

    def drain() -> None:
        assert proc.stdout is not None
        for block in iter(lambda: proc.stdout.read(1 << 16), b""):  # type: ignore[union-attr]
            if len(kept) < BUILD_LOG:
                kept.extend(block[:BUILD_LOG - len(kept)])

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    deadline, why = time.monotonic() + seconds, ""
    while True:
        try:
            proc.wait(timeout=BUILD_WATCH)
        except subprocess.TimeoutExpired:
            pass
        why = _over_caps(work)
        capped = bool(why)
        if not why and proc.returncode is None and time.monotonic() > deadline:
            why = f"the build took more than {seconds:g} s"
        if why or proc.returncode is not None:
            break
    if proc.returncode is None:
        proc.kill()  # bubblewrap: the build's whole PID namespace ends with it (--die-with-parent)
        proc.wait()
    reader.join(timeout=5)
    return proc.returncode, bytes(kept), why, capped


def _over_caps(work: Path) -> str:
    """Why `work` holds more than a group may, or "": files (folders counted too, an attacker's
    million empty folders being as costly to walk) and bytes, looked at without following links
    and given up at the first cap passed."""
    caps = tree.caps()
    entries, total, pending = 0, 0, [str(work)]
    while pending:
        try:
            with os.scandir(pending.pop()) as found:
                for entry in found:
                    entries += 1
                    if entries > caps.files:
                        return f"the build wrote more than {caps.files} files (the cap)"
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    else:
                        total += st.st_size
                        if total > caps.bytes:
                            return f"the build wrote more than {tree.cap_text(caps.bytes)} (the cap)"
        except OSError:
            continue
    return ""


def _seal(work: Path) -> None:
    """The build's copy made the referee's and writable by no one else. It was open to the build's
    own user (`/build` in the sandbox); left so, any local user could swap the program that this
    run, and every rerun that finds the build kept, plays."""
    me, group = os.geteuid(), os.getegid()
    for top, folders, files in os.walk(work):  # (links are not followed)
        for path in [top, *(os.path.join(top, name) for name in folders + files)]:
            st = os.lstat(path)
            if st.st_uid != me:
                os.lchown(path, me, group)  # (only root gets here: a user's build writes as that user)
            if not os.path.islink(path):  # readable by the game's user; executable where its owner could run it
                os.chmod(path, (st.st_mode | 0o444 | (0o111 if st.st_mode & 0o100 else 0)) & 0o755)


def _sealed(work: Path) -> bool:
    """Whether a kept build is still as `_seal` left it: the referee's, writable by no one else."""
    me = os.geteuid()
    for top, folders, files in os.walk(work):
        for path in [top, *(os.path.join(top, name) for name in folders + files)]:
            st = os.lstat(path)
            if st.st_uid != me or (not os.path.islink(path) and st.st_mode & 0o022):
                return False
    return True


def _launcher(work: Path, inside: Path, done: Path, log: Path, language: Language, main: str) -> Built:
    """A `#!/bin/sh` script in `work`'s folder `inside` that starts `language`'s command there: the program to play."""
    words = [word.replace("{main}", main) for word in language.start]
    found = shutil.which(words[0])
    env = ""
    if found is not None and language.libraries:
        # The runtime by its real path, its `lib/` named: a jailed game has an empty /proc, so the
        # loader cannot resolve `$ORIGIN/../lib` (java: "error while loading shared libraries: libjli.so").
        words[0] = os.path.realpath(found)
        env = f"LD_LIBRARY_PATH={shlex.quote(str(Path(words[0]).parent.parent / 'lib'))}\nexport LD_LIBRARY_PATH\n"
    command = " ".join("$sized" if word == "{sized}" else shlex.quote(word) for word in words)  # (split: 0 or 1 word)
    script = work / inside / LAUNCHER
    script.write_text(f'#!/bin/sh\ncd "$(dirname "$0")" || exit 1\n{env}{language.sizing}exec {command}\n')
    os.chmod(script, 0o755)
    _seal(work)
    tmp = done.with_suffix(".tmp")
    tmp.write_text((inside / LAUNCHER).as_posix())
    os.replace(tmp, done)
    return Built(script, log, "")


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


@functools.lru_cache(maxsize=8)
def toolchain(compiler: str) -> str | None:
    """The folder of `compiler`'s toolchain (its sysroot) when it is outside /usr, else None: a
    rustup toolchain, whose `cargo` and `rustc` on PATH are proxies that need the user's home.
    The teacher's own compiler is asked, not a group's code."""
    if not compiler or shutil.which(compiler) is None:
        return None
    try:
        ran = subprocess.run([compiler, "--print", "sysroot"], stdin=subprocess.DEVNULL, capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    root = ran.stdout.strip()
    if ran.returncode != 0 or not os.path.isdir(os.path.join(root, "bin")) or root == "/usr" or root.startswith("/usr/"):
        return None
    return os.path.realpath(root)


def _sandboxed(work: Path, command: tuple[str, ...], inside: Path = Path(), tools: str | None = None) -> list[str]:
    """`command` in bubblewrap: no network, read-only /usr and /etc's linker files (and `tools`, a
    toolchain outside /usr, its `bin/` first on PATH), `work` writable at /build, run in its folder
    `inside`."""
    path = "/usr/local/bin:/usr/bin:/bin" if tools is None else f"{tools}/bin:/usr/local/bin:/usr/bin:/bin"
    argv = ["bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv",
            "--setenv", "PATH", path, "--setenv", "HOME", "/tmp", "--setenv", "CARGO_HOME", "/tmp/cargo",
            "--setenv", "LC_ALL", "C", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            *_mounts(["/usr", "/etc/ld.so.cache", "/etc/alternatives", *runtime_paths(),
                      *([tools] if tools is not None else [])])]
    for d in ("bin", "lib", "lib64", "sbin"):
        if os.path.islink("/" + d):
            argv += ["--symlink", os.readlink("/" + d), "/" + d]
    argv += ["--bind", str(work), "/build", "--chdir", ("/build" / inside).as_posix()]
    if os.geteuid() == 0:  # as in sandbox/levels.py: a user of its own, no capability
        uid = 1_900_000_000 + os.getpid() % 100_000_000
        argv += ["--", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--no-new-privs"]
    else:
        argv += ["--unshare-user", "--cap-drop", "ALL", "--"]
    return argv + list(command)
