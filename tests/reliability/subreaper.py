"""Run a command as the child of a subreaper and tell which of its descendants are alive (Linux).

    python subreaper.py COMMAND...

Its own stdout's first line is the command's pid. Then, for each line read on stdin:
`tree` prints the live descendants (JSON: [[pid, command line], ...]); `survivors` waits
until the command itself has ended, then up to 10 s for every descendant to end too, prints
those still alive (the same JSON), kills them and exits.

A process orphaned by its parent's death is re-parented to the nearest subreaper, this one:
whatever started it (fork, the forkserver, spawn, subprocess), and whatever its command line
or environment, it stays in view as a descendant.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def descendants() -> list[tuple[int, str]]:
    """Live (not zombie) processes below this one, with their command lines; zombies reaped."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
    parent, cmdline = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
            if fields[0] == "Z":
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline[int(entry)] = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            parent[int(entry)] = int(fields[1])
        except OSError:
            continue
    below, frontier = [], [os.getpid()]
    while frontier:
        frontier = [pid for pid, ppid in parent.items() if ppid in frontier]
        below += frontier
    return [(pid, cmdline[pid]) for pid in sorted(below)]


def main() -> None:
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1) != 0:
        raise SystemExit("prctl(PR_SET_CHILD_SUBREAPER) failed")
    child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    print(child.pid, flush=True)
    for line in sys.stdin:
        if line.strip() == "tree":
            print(json.dumps(descendants()), flush=True)
        elif line.strip() == "survivors":
            child.wait(timeout=30)
            deadline = time.monotonic() + 10
            while (alive := descendants()) and time.monotonic() < deadline:
                time.sleep(0.1)
            print(json.dumps(alive), flush=True)
            for pid, _ in alive:
                os.kill(pid, signal.SIGKILL)  # not left behind by the test that found them
            return


if __name__ == "__main__":
    main()
