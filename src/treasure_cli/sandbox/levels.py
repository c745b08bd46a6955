"""How an agent's process is started: the isolation level, the sandbox, the limits.

Levels (`--agent-isolation`):

* `none`: the agent runs in the program's own process (built-in agents always do);
* `process`: in a process of its own, in its own session, with the resource
  limits the OS offers (address space, CPU time, file size, processes, open
  files), dying with its parent, and (where the machine gives control groups)
  each game in control groups of its own (sandbox/cgroups.py); on a machine without bubblewrap this is all there is;
* `sandbox`: the same process inside bubblewrap (Linux): no network, its own
  PID, IPC and UTS namespaces, a read-only view of only the interpreter, the
  installed packages and its own folder, an empty private `/tmp`, no capabilities,
  an unprivileged user of its own (so the process limit holds);
* `auto` (the default): `sandbox` where bubblewrap runs, else `process` with
  a one-line warning. `sandbox` asked for by name refuses to run without it.

docs/security.md states what each level stops and what it does not.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from treasure_cli.errors import TreasureError
from treasure_cli.sandbox import seccomp
from treasure_cli.sandbox.game_memory import COUNTS

LEVELS = ("auto", "none", "process", "sandbox")
TMP_BYTES = 64 << 20  # a game jail's private /tmp and /dev/shm (memory): what it may write in each, at most
NO_SANDBOX = ("the agent sandbox needs bubblewrap (Linux: apt-get install bubblewrap), which cannot run here")


@dataclasses.dataclass(frozen=True)
class AgentLimits:
    """What the referee allows an agent's process; times are wall-clock seconds."""

    memory: int = 1 << 30            # bytes of address space (RLIMIT_AS)
    cpu_seconds: int = 600           # CPU time of one agent process over its games (RLIMIT_CPU), a backstop
    processes: int = 64              # processes and threads of the sandbox's user (RLIMIT_NPROC)
    file_size: int = 16 << 20        # bytes of any file it writes (RLIMIT_FSIZE), in its private /tmp
    open_files: int = 32             # descriptors open at once (RLIMIT_NOFILE); one more may be in flight
                                     # on a socket (docs/security.md, "Without a memory group")
    action_timeout: float | None = None  # wall-clock seconds per action (None: only the game's limit)
    output: int = 64 << 10           # bytes of the agent's standard error kept per game
    steady_replies: bool = False     # hold each turn's question to a fixed delay (sandbox/pacing.py): secret-seeded games


@dataclasses.dataclass(frozen=True)
class Launch:
    """An agent process's command line, ready for subprocess.Popen."""

    argv: tuple[str, ...]
    level: str                       # "process" or "sandbox"
    env: tuple[tuple[str, str], ...]
    cwd: str
    uid: int | None                  # the unprivileged user to run as (sandbox as root), else None
    forks: bool = False              # a warm host (sandbox/warm_host.py) that forks a fresh process for each game


def effective_level(asked: str) -> tuple[str, str | None]:
    """The level to use for an agent that is not built in, and a warning when it is less than asked."""
    if asked not in LEVELS:
        raise TreasureError(f"--agent-isolation must be one of {', '.join(LEVELS)}, got {asked!r}")
    if asked in ("none", "process"):
        return asked, None
    if bwrap_works():
        return "sandbox", None
    if asked == "sandbox":
        raise TreasureError(NO_SANDBOX + "; use --agent-isolation process to run agents without it")
    return "process", ("warning: bubblewrap cannot run here, so agents run in plain processes with OS limits "
                       "only (no private file system, network or PID namespace): see docs/security.md")


@functools.cache
def bwrap_works() -> bool:
    """Whether bubblewrap is installed and can make its namespaces here (not in every container)."""
    exe = shutil.which("bwrap")
    if exe is None or not sys.platform.startswith("linux"):
        return False
    try:
        done = subprocess.run([exe, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@functools.cache
def _python_paths() -> tuple[str, ...]:
    """What the agent host's interpreter reads: its prefixes and the import path of a fresh,
    isolated (-I) interpreter (no current folder), plus this package."""
    probe = subprocess.run([sys.executable, "-I", "-c",
                            "import json, sys, treasure_cli; print(json.dumps([sys.prefix, sys.base_prefix, "
                            "sys.exec_prefix, *sys.path, *treasure_cli.__path__]))"],
                           capture_output=True, text=True, timeout=60, check=True)
    return tuple(dict.fromkeys(json.loads(probe.stdout)))


def _mounts(paths: list[str]) -> list[str]:
    """Read-only binds of the existing `paths`, each once, parents before children (bwrap mounts in order)."""
    real = sorted({os.path.realpath(p) for p in paths if p and os.path.exists(p)})
    kept = [p for p in real if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in real)]
    # Their parent folders are made first, open to all: bwrap would make them 0700, closed to the
    # agent's unprivileged user.
    parents = sorted({str(a) for p in kept for a in Path(p).parents if str(a) != "/"}, key=len)
    args: list[str] = []
    for d in parents:
        args += ["--perms", "0755", "--dir", d]
    for p in kept:
        args += ["--ro-bind", p, p]
    return args


@functools.cache
def _sized() -> tuple[str, ...]:
    """bwrap's option that caps its next tmpfs at TMP_BYTES, where it has one (0.8 and later):
    a sandbox for each game (no jail) writes into the sandbox's own /tmp and /dev/shm, which
    are memory; without it, as many files of the file-size limit as it likes."""
    exe = shutil.which("bwrap")
    try:
        said = subprocess.run([exe or "bwrap", "--help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return ("--size", str(TMP_BYTES)) if "--size" in said else ()


def host_command(spec: str) -> list[str]:
    """The command of the Python agent host for `spec` (a file spec with its path made absolute)."""
    return [sys.executable, "-I", "-m", "treasure_cli.sandbox.agent_host", spec]


# Where a warm host can fork each game's process and hand its pipes over (SCM_RIGHTS): Linux.
FORKS = sys.platform.startswith("linux") and hasattr(os, "fork")


def zygote_command(spec: str, jail: bool) -> list[str]:
    """The command of the warm Python agent host for `spec` (`jail`: namespaces of its own for each game)."""
    return [sys.executable, "-I", "-m", "treasure_cli.sandbox.warm_host", *(["--jail"] if jail else []), spec]


def zygote_exec_command(program: list[str], jail: bool) -> list[str]:
    """The command of a warm host whose games each become `program` (an exec: agent's command line)."""
    return [sys.executable, "-I", "-m", "treasure_cli.sandbox.warm_host", *(["--jail"] if jail else []), "--exec", *program]


COUNTED = "treasure_cli.sandbox.counted"  # the module an exec: program's process per game runs it under


def unforked(launch: Launch) -> Launch:
    """`launch` with a process per game and no warm host, for where the warm host cannot jail a
    game: the plain Python host, or an exec: agent's program under sandbox/counted.py."""
    argv = list(launch.argv)
    _no_nested_user_namespaces(argv)
    # An empty, read-only /proc, as the warm host's jail gives its games (the host needs its own to
    # write its jails' user maps; a game alone does not): /proc/self/maps showed the inode number a
    # shared mapping took from a counter kept for the whole machine, which a later game could read.
    at = argv.index("--proc")
    argv[at:at + 2] = ["--perms", "0555", "--dir", "/proc"]
    at = argv.index("treasure_cli.sandbox.warm_host")
    end = at + 2 if argv[at + 1] == "--jail" else at + 1
    if argv[end:end + 1] == ["--exec"]:
        # The program runs as the child of a process that counts its pipes and sockets
        # (sandbox/counted.py), in its own folder, as the warm host would have started it.
        argv[at:end + 1] = [COUNTED]
        home = os.path.dirname(argv[at + 1]) or "."
        if "--chdir" in argv[:at - 3]:
            argv[argv.index("--chdir") + 1] = home
            return dataclasses.replace(launch, argv=tuple(argv), forks=False)
        return dataclasses.replace(launch, argv=tuple(argv), forks=False, cwd=home)
    argv[at:end] = ["treasure_cli.sandbox.agent_host"]
    return dataclasses.replace(launch, argv=tuple(argv), forks=False)


def _no_nested_user_namespaces(argv: list[str]) -> None:
    """Without root, bubblewrap makes the sandbox's user namespace; --disable-userns (0.8 and later)
    keeps the game from making another (sandbox/seccomp.py's second filter, for a warm host's
    games, cannot be set before bubblewrap: it needs that namespace)."""
    if "--unshare-user" in argv and "--disable-userns" not in argv and _disables_userns():
        argv.insert(argv.index("--unshare-user") + 1, "--disable-userns")


@functools.cache
def _disables_userns() -> bool:
    try:
        said = subprocess.run([shutil.which("bwrap") or "bwrap", "--help"], capture_output=True, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--disable-userns" in said


RUNTIMES = ("java", "javac", "node")  # language runtimes whose files outside /usr the sandbox shows too


@functools.cache
def runtime_paths() -> tuple[str, ...]:
    """What the runtimes of RUNTIMES need outside /usr, read-only: a JDK's home where it is not
    under /usr (found from the real path of `java`: its `bin/`'s parent, whose `lib/` holds
    libjli.so), and the targets of the links in its top, `lib/` and `conf/` folders (Debian's
    JDK keeps `conf/` and `lib/jvm.cfg` in /etc/java-17-openjdk: without them java stops with
    "Error loading java.security file")."""
    found: list[str] = []
    for name in RUNTIMES:
        exe = shutil.which(name)
        if exe is None:
            continue
        home = Path(os.path.realpath(exe)).parent.parent
        found.append(str(home))
        for folder in (home, home / "lib", home / "conf"):
            try:
                links = [entry for entry in folder.iterdir() if entry.is_symlink()]
            except OSError:
                continue
            for link in links:
                target = os.path.realpath(link)
                if os.path.exists(target) and not target.startswith("/usr/"):
                    found.append(target if os.path.isdir(target) else os.path.dirname(target))
    return tuple(p for p in dict.fromkeys(found) if not p.startswith("/usr/") and p not in ("/", "/usr"))


AGENT_FOLDER = "/agent"  # where the sandbox shows an agent its own folder (a copy: sandbox/launch.py)


def launch(command: list[str], level: str, own: str | None, python: bool, forks: bool = False) -> Launch:
    """See `_launch`; made once per agent and level (resolving the binds' paths took ~1.5 ms a game)."""
    return _launch(tuple(command), level, own, python, forks)


@functools.lru_cache(maxsize=128)
def _launch(command: tuple[str, ...], level: str, own: str | None, python: bool, forks: bool) -> Launch:
    """How to start `command` at `level`. `own` is the agent's own folder, or its file or program
    alone (a copy, see sandbox/launch.py): the sandbox shows it, read-only, as /agent (a file as
    /agent/<name>), and every word of `command` that names it is changed to match. `python`: whether the agent needs
    the interpreter and the installed packages."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
           # numpy's BLAS would start a thread per core, each counted against the process limit
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    # A program starts in its own folder (a launcher script's `cd "$(dirname "$0")"` works anyway);
    # a Python agent's host moves to its file's folder itself (sandbox/agent_host.py).
    home = os.path.dirname(command[0]) if not python and own is not None and os.path.isdir(own) else None
    if level == "process":
        return Launch(command, level, tuple(env.items()), home or tempfile.gettempdir(), None, forks)  # not the referee's
    binds = ["/usr", "/etc/ld.so.cache", "/etc/alternatives", *runtime_paths()]
    if python:
        binds += list(_python_paths())
    mine: list[str] = []
    if own is not None and os.path.isdir(own):  # the agent's folder (a copy of it): /agent
        mine = ["--ro-bind", own, AGENT_FOLDER]
        command = tuple(w.replace(own, AGENT_FOLDER) for w in command)
    elif own is not None:
        seen = f"{AGENT_FOLDER}/{os.path.basename(own)}"
        mine = ["--perms", "0755", "--dir", AGENT_FOLDER, "--ro-bind", own, seen]
        command = tuple(w.replace(own, seen) for w in command)
    argv = ["bwrap",
            # Every namespace but the user's: as root a user namespace would map the agent to root again.
            "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--clearenv",
            *[x for k, v in env.items() for x in ("--setenv", k, v)],
            "--proc", "/proc", "--dev", "/dev", *_sized(), "--tmpfs", "/tmp",
            *_mounts(binds), *mine,
            *[x for d in ("bin", "lib", "lib64", "sbin") if os.path.islink("/" + d)
              for x in ("--symlink", os.readlink("/" + d), "/" + d)],
            # The sandbox's root and /dev are tmpfs that bwrap makes; without root they belong to
            # the agent's own user, and every game of a warm host shares them: a file written
            # there in one game would be read in the next. Read-only, but for /dev/shm.
            "--perms", "1777", *_sized(), "--tmpfs", "/dev/shm", "--remount-ro", "/dev", "--remount-ro", "/",
            "--chdir", home.replace(own, AGENT_FOLDER) if home and own else "/tmp"]
    uid = None
    if os.geteuid() == 0:
        # As root the sandbox's user would be root, whom the kernel exempts from the process
        # limit: drop to a user of this referee's own (no other process has it) before the agent
        # runs; setuid away from root clears every capability, and setpriv empties the bounding set.
        uid = sandbox_user(command, own)
        argv += ["--", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                 "--bounding-set=-all", "--no-new-privs"]
    else:
        argv += ["--unshare-user", "--cap-drop", "ALL", "--"]
        if not forks:
            _no_nested_user_namespaces(argv)
    return Launch((*argv, *command), level, (), "/", uid, forks)


_USERS: dict[tuple[tuple[str, ...], str | None], int] = {}  # each agent's number in this process (sandbox_user)


def sandbox_user(command: tuple[str, ...], own: str | None) -> int:
    """The user an agent's sandbox runs as, when the referee is root: this referee process's own, and
    the agent's own among them (`command` and its folder `own` name it). The process limit counts a
    user's processes and threads together, and an agent's warm host stays in its worker for the
    whole run: with one user for every agent, each agent played before took one of the 64 from
    every later game in the worker (40 agents on, a game could start 20 threads instead of 50).
    Up to 1,000 agents a process get users of their own; then they share, a thousand apart."""
    number = _USERS.setdefault((command, own), len(_USERS)) % 1_000
    return 1_900_000_000 + (os.getpid() % 100_000) * 1_000 + number


def set_limits(limits: AgentLimits) -> None:
    """In the agent's process before its program starts (subprocess's preexec_fn)."""
    import resource

    for name, value in (("RLIMIT_AS", limits.memory), ("RLIMIT_CPU", limits.cpu_seconds),
                        ("RLIMIT_FSIZE", limits.file_size), ("RLIMIT_NPROC", limits.processes),
                        ("RLIMIT_NOFILE", limits.open_files),
                        ("RLIMIT_CORE", 0)):
        which = getattr(resource, name, None)
        if which is not None:
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                pass  # a limit this OS does not offer, or lower already: the agent gets what there is
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the referee
        try:
            seccomp.install()  # no System V IPC, memfd, io_uring: memory no limit above counts
        except OSError:
            pass  # a kernel without seccomp: `treasure doctor` says so




def socket_buffer() -> int:
    """The most a socket of a game queues: the machine's default buffer size (a game cannot change
    it: seccomp.py), plus one message of 64 KiB past it (measured: 28 sockets queued 6.2 MiB)."""
    try:
        with open("/proc/sys/net/core/wmem_default") as f:
            size = int(f.read())
    except (OSError, ValueError):
        size = 212992  # Linux's default
    return size + (64 << 10)


def pipe_max_size() -> int:
    """The most a user's pipe may buffer (`F_SETPIPE_SZ` without privilege)."""
    try:
        with open("/proc/sys/fs/pipe-max-size") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 1 << 20  # Linux's default


def worst_case_memory(limits: AgentLimits, per_game_group: bool) -> int:
    """The most memory one game can hold: its control group's limit where it has one. Else, where
    the referee counts it (Linux, sandbox/game_memory.py), the limit over the resident pages of
    all its processes, plus what it does not count: its two tmpfs (/tmp and /dev/shm), what its
    sockets queue (each thread may have a table of 32 descriptors of its own), and what the
    descriptors it has in flight on a Unix socket hold (the kernel lets a user have one more than
    its open-file limit there), each taken at the file-size limit or a pipe's most, whichever is
    larger: an upper bound (a tmpfs file in flight is in its tmpfs already, a pipe holds 1 MiB by
    default; measured: 33 MiB), which kept the figure it had when memfd files were allowed (a
    game can make none now: seccomp.py), and whose slack covers the pipes its processes hold open
    past a socket's queue each (a user's pipes grow to `pipe-user-pages-soft`, 64 MiB by default,
    then keep 2 pages each). Plus what the game takes between two counts, which no figure gives. Elsewhere (no /proc, no filter) each of its processes at its address-space
    limit, each with files at the open-file and file-size limits, plus the same. (System V IPC,
    memfd_create and io_uring, which no limit here counts, are refused: seccomp.py.)"""
    if per_game_group:
        return limits.memory
    in_flight = (limits.open_files + 1) * max(limits.file_size, pipe_max_size())
    if COUNTS:
        return limits.memory + in_flight + 2 * TMP_BYTES + limits.processes * limits.open_files * socket_buffer()
    return limits.processes * (limits.memory + limits.open_files * limits.file_size) + in_flight + 2 * TMP_BYTES
