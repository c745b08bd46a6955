"""What this machine gives an agent's games, protection by protection (`treasure doctor`).

Each check tries the thing itself, as the referee would, rather than reading a kernel
version: bubblewrap's namespaces, a game's jail made inside the sandbox, a memory and a
cpuset control group made and removed. Nothing stays behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from treasure_cli.sandbox import cgroups, seccomp
from treasure_cli.sandbox.game_memory import COUNTS, WATCH_SECONDS
from treasure_cli.sandbox.levels import AgentLimits, bwrap_works, launch, pipe_max_size, set_limits, worst_case_memory


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0 or n >= 10 << shift:
            value = n / (1 << shift)
            return f"{value:g} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} B"


def _jail_in_sandbox() -> str | None:
    """Why a game's jail cannot be made inside the sandbox here, or None if it can."""
    code = "from treasure_cli.sandbox.warm_host import _probe_jail; print(_probe_jail() or 'ok')"
    argv = list(launch([sys.executable, "-I", "-c", code], "sandbox", None, python=True).argv)
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                              preexec_fn=lambda: set_limits(AgentLimits()))
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    said = done.stdout.strip()
    return None if said == "ok" else (said or done.stderr.strip()[-200:] or f"exit status {done.returncode}")


def _in_a_child(code: str) -> tuple[str, str]:
    """What `code` (Python) prints on its standard output and error, run in a child started with
    the agents' limits (("", why) if it could not run)."""
    try:
        done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60,
                              preexec_fn=lambda: set_limits(AgentLimits()))
    except (OSError, subprocess.SubprocessError) as exc:
        return "", str(exc)
    return done.stdout.strip(), done.stderr.strip()


def _filter_works() -> str | None:
    """Why an agent's process can still make System V objects here (the seccomp filter,
    sandbox/seccomp.py, not set), or None if it cannot: tried in a child."""
    said, error = _in_a_child("import ctypes, errno; libc = ctypes.CDLL(None, use_errno=True); print('refused' if "
                              "libc.shmget(0, 4096, 0o1600) < 0 and ctypes.get_errno() == errno.ENOSYS else 'made')")
    return None if said == "refused" else ((error.splitlines() if not said else []) or ["the kernel did not take the seccomp filter"])[-1]


def _budget_works() -> str | None:
    """Why an exec: program's pipes and sockets cannot be counted here (sandbox/seccomp.py,
    `Budget`), or None if they can: tried in a child, whose main thread's pipe, with a budget of
    none, must be refused by the thread that listens."""
    said, error = _in_a_child(
        "import errno, os, select, threading; from treasure_cli.sandbox import seccomp\n"
        "fd = []\n"
        "def listen():\n"
        "    while not fd: pass\n"
        "    if select.select(fd, [], [], 10)[0]: seccomp.Budget(fd[0], allowed=0).answer()\n"
        "threading.Thread(target=listen, daemon=True).start()\n"
        "fd.append(seccomp.budgeted())\n"
        "try:\n    os.pipe(); print('made')\n"
        "except OSError as e:\n    print('refused' if e.errno == errno.EPERM else 'made')\n")
    return None if said == "refused" else (error.splitlines() or ["the kernel did not count them"])[-1]


def _group_works() -> dict[str, str | None]:
    """Controller -> None if a game's group of it could be made and used here, else why not."""
    chosen = cgroups.choice()
    found: dict[str, str | None] = {
        "memory": chosen.why if chosen.kind == "count" else "not in the chosen groups",
        "cpuset": "no writable cgroup v1 hierarchy of it" + (", and the cgroup v2 tree hands on none"
                                                             if chosen.kind == "v2" else "")}
    if not cgroups.available():
        return found
    try:
        group = cgroups.GameGroup(64 << 20, set(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None)
    except OSError as exc:
        return {name: str(exc) for name in found}
    try:
        # A child put in the group and ended at once (started, not forked: this process may have
        # no fork, as on macOS's default start or in the spawn-only tests).
        child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
        try:
            group.add(child.pid)
            for name in group.folders:
                found[name] = None
        except OSError as exc:
            found = {name: str(exc) for name in found}
        finally:
            child.communicate()
    finally:
        group.close()
        cgroups.remove_bases()
    return found


def diagnose(memory: int) -> list[tuple[str, str, str]]:
    """(protection, "yes"/"no", what it means here) for each protection, in order."""
    rows: list[tuple[str, str, str]] = []
    linux = sys.platform.startswith("linux")
    sandbox = bwrap_works()
    exe = shutil.which("bwrap")
    rows.append(("bubblewrap sandbox", "yes" if sandbox else "no",
                 f"{exe}: no network, files or processes of the machine" if sandbox else
                 ("installed, but it cannot make its namespaces here" if exe else
                  "not installed (apt-get install bubblewrap): agents play in plain processes")))
    if sandbox:
        why = _jail_in_sandbox()
        rows.append(("a jail for each game", "yes" if why is None else "no",
                     "user, PID, mount, IPC, network and UTS namespaces of its own, made for the game"
                     if why is None else f"{why}: each game then gets a sandbox of its own (slower)"))
    chosen = cgroups.choice() if linux else None  # (before _group_works, which removes this process's folders)
    groups = _group_works() if linux else {name: "not Linux" for name in cgroups.CONTROLLERS}
    rows.append(("memory per game", "yes" if groups["memory"] is None else "no",
                 f"{chosen.why if chosen else ''}: a memory control group holds all of a game's processes to"
                 f" --agent-memory ({_size(memory)}), then "
                 + ("reclaims the file pages it cached" if chosen and chosen.kind == "v2" else
                    "empties the file caches it filled")
                 if groups["memory"] is None else f"{groups['memory']}: "
                 + ("the referee counts what all a game's processes hold instead (below)" if COUNTS else
                    "only the limits per process below")
                 + ", and a game can leave cached file pages for a later one to time"))
    rows.append(("CPU set per game", "yes" if groups["cpuset"] is None else "no",
                 "a cpuset control group: a game cannot widen the CPUs the referee gave it"
                 if groups["cpuset"] is None else
                 f"{groups['cpuset']}: a game may widen its CPU affinity to every CPU"))
    limits = AgentLimits(memory=memory)
    rows.append(("limits per process", "yes" if os.name == "posix" else "no",
                 f"address space {_size(limits.memory)}, CPU {limits.cpu_seconds} s, file size "
                 f"{_size(limits.file_size)}, {limits.processes} processes, {limits.open_files} open files"))
    refused = _filter_works() if linux else "not Linux"
    rows.append(("system calls refused", "yes" if refused is None else "no",
                 "System V shared memory, queues and semaphores, memfd_create, io_uring, bpf: memory no limit counts;"
                 " page cache hints, file watches, disks' free space, socket cookies, pidfds, load averages, the kernel's log, new user namespaces:"
                 " what a game could leave for the next"
                 if refused is None else f"{refused}: a game may hold memory past every limit here"))
    counted = _budget_works() if linux else "not Linux"
    rows.append(("pipes counted", "yes" if counted is None else "no",
                 f"an exec: program's game takes at most {seccomp.BUDGET} of the machine's pipe and socket numbers"
                 " in the sandbox, and a random count is taken before it"
                 if counted is None else f"{counted}: an exec: program's game may leave a count for the next"))
    worst = worst_case_memory(limits, groups["memory"] is None)
    rows.append(("worst case of a game", "", f"{_size(worst)} of memory ({worst / memory:.3g} x --agent-memory)"
                 + ("" if groups["memory"] is None else
                    f": {_size(limits.memory)} over all its processes (their resident pages,"
                    f" counted every {WATCH_SECONDS * 1000:g} ms) + {limits.open_files + 1} descriptors in flight"
                    f" at {_size(max(limits.file_size, pipe_max_size()))} each (an upper bound)"
                    f" + its /tmp and /dev/shm + what {limits.processes} x {limits.open_files} sockets queue,"
                    " and what it takes between two counts" if COUNTS else
                    f": {limits.processes} processes x ({_size(limits.memory)} + {limits.open_files} memfd files"
                    f" x {_size(limits.file_size)}) + {limits.open_files + 1} memfd files in flight"
                    " + its /tmp and /dev/shm")
                 + ("" if refused is None or groups["memory"] is None else ", and no bound")))
    return rows
