"""Without control groups, what a game's process can hold outside its address space is bounded.

The fallback (docs/security.md, "Control groups"): where the machine gives no memory group,
a game is held by the limits of each of its processes. Memory that no address space counts
must then be bounded by those limits too. This agent tries every such store it knows, all at
once, through both ways a sandboxed game is launched, with the control groups turned off:
files in its /tmp and /dev/shm (tmpfs: memory), System V segments attached, filled and
detached one after another, System V queues and semaphores, BPF maps, memfd files held open,
pipes filled and in flight on a Unix socket (closed here, held by the kernel), and files
registered in an io_uring ring (held without a descriptor). Each store is bounded by the
limit docs/security.md names for it, and all of them together by `worst_case_memory`. (memfd
files, held open or in flight, were the largest store: `memfd_create` is refused now.)
"""

from __future__ import annotations

import errno
import json
import os
import textwrap
import uuid

import numpy as np
import pytest
from helpers import ROOT, without_control_groups

import treasure_cli
from treasure_cli.play.games import play_game
from treasure_cli.sandbox.levels import TMP_BYTES, AgentLimits, bwrap_works, worst_case_memory

pytestmark = pytest.mark.skipif(not bwrap_works(), reason="no bubblewrap")
TOKEN = "hoard_" + uuid.uuid4().hex[:12]
MIB = 1 << 20
LIMITS = AgentLimits(file_size=4 * MIB, open_files=32)
GOAL = 192 * MIB  # what it tries to hold in each store: past each bound, not much past

HOARDER = textwrap.dedent('''\
    import array, ctypes, errno, fcntl, json, os, platform, socket, struct, sys
    from treasure_cli import LargeScan

    MIB = 1 << 20
    GOAL = GOAL_BYTES
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    KEEP = []


    def why():
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


    def fill(fd, limit):
        block, n = b"x" * MIB, 0
        try:
            while n < limit:
                n += os.write(fd, block)
        except OSError:  # EFBIG, ENOSPC
            pass
        return n


    def tmpfs(folder):
        held = 0
        for i in range(GOAL // MIB):
            try:
                fd = os.open(f"{folder}/hoard{i}", os.O_CREAT | os.O_WRONLY, 0o600)
            except OSError as exc:
                return held, exc.strerror
            got = fill(fd, GOAL - held)
            os.close(fd)
            held += got
            if got == 0 or held >= GOAL:
                break
        return held, None


    def system_v():
        held = 0
        while held < GOAL:
            seg = libc.shmget(0, 8 * MIB, 0o1600)  # IPC_PRIVATE, IPC_CREAT
            if seg < 0:
                return held, "shmget " + why()
            at = libc.shmat(seg, None, 0)
            if at in (None, ctypes.c_void_p(-1).value):
                return held, "shmat " + why()
            ctypes.memset(at, 1, 8 * MIB)
            libc.shmdt(at)  # detached: no address space, the pages stay
            held += 8 * MIB
        return held, None


    def queues_and_semaphores():
        made = []
        if libc.msgget(0, 0o1600) >= 0:
            made.append("msgget")
        else:
            made.append("msgget " + why())
        if libc.semget(0, 1000, 0o1600) >= 0:
            made.append("semget")
        else:
            made.append("semget " + why())
        # bpf(BPF_MAP_CREATE): an array map of 1024 entries of 4 KiB (where users may make them)
        attr = ctypes.create_string_buffer(struct.pack("=IIII", 2, 4, 4096, 1024), 72)
        if libc.syscall({"x86_64": 321, "aarch64": 280}[platform.machine()], 0, attr, 72) >= 0:
            made.append("bpf")
        else:
            made.append("bpf " + why())
        return 0, made


    def in_flight():
        """Pipes, each grown to the most a user may ask and filled, their read ends
        sent on a Unix socket and closed: held by the kernel alone."""
        a, b = socket.socketpair()
        KEEP.extend([a, b])
        held = 0
        while held < GOAL:
            try:
                r, w = os.pipe()
            except OSError as exc:
                return held, exc.strerror
            size = 1 << 24
            while size > 65536:  # the largest size allowed (pipe-max-size, 1 MiB by default)
                try:
                    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, size)
                    break
                except OSError:
                    size //= 2
            os.set_blocking(w, False)
            got = 0
            try:
                while True:
                    got += os.write(w, b"x" * 65536)
            except BlockingIOError:
                pass
            try:
                a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [r]))], socket.MSG_DONTWAIT)
            except OSError as exc:
                return held, exc.strerror
            finally:
                os.close(r)
                os.close(w)
            held += got
        return held, None


    def io_uring():
        params = ctypes.create_string_buffer(120)
        ring = libc.syscall(425, 8, params)  # io_uring_setup
        if ring < 0:
            return 0, "io_uring_setup " + why()
        KEEP.append(ring)
        fds = [os.memfd_create("ring") for _ in range(8)]
        held = sum(fill(fd, GOAL // 8) for fd in fds)
        registered = libc.syscall(427, ring, 2, (ctypes.c_int * 8)(*fds), 8)  # IORING_REGISTER_FILES
        for fd in fds:
            os.close(fd)
        return (held, None) if registered == 0 else (0, "register " + why())


    def memfds():
        held = 0
        while held < GOAL:
            try:
                fd = os.memfd_create("open")
            except OSError as exc:
                return held, exc.strerror
            KEEP.append(fd)
            got = fill(fd, GOAL - held)
            held += got
            if got == 0:
                break
        return held, None


    def hoard():
        said = {}
        for name, store in (("/tmp", lambda: tmpfs("/tmp")), ("/dev/shm", lambda: tmpfs("/dev/shm")),
                            ("System V segments", system_v), ("queues, semaphores, BPF maps", queues_and_semaphores),
                            ("in flight", in_flight), ("io_uring", io_uring), ("memfd", memfds)):
            try:
                said[name] = store()
            except Exception as exc:
                said[name] = (0, repr(exc))
        print("hoard " + json.dumps(said), file=sys.stderr, flush=True)


    class Hoarder:
        def __init__(self):
            hoard()

        def act(self, obs):
            return LargeScan()
''').replace("GOAL_BYTES", str(GOAL))


# The same stores tried by an exec: program (the starter agent in plain Python, run by the
# system's python3, the hoard first), whose game is not sealed: it may make pipes and sockets.
PROGRAM = ("#!/usr/bin/env python3\n"
           + HOARDER.replace("from treasure_cli import LargeScan\n", "").split("\n\nclass Hoarder:")[0]
           + "\n\nhoard()\n" + (ROOT / "examples" / "plain_agent.py").read_text().split("\n", 1)[1])


@pytest.fixture(params=["warm host", "a sandbox per game"])
def route(request, monkeypatch):
    """Both ways a sandboxed game is launched (as in tests/sandbox/test_wall_layers.py), and no
    control group: the machine without them."""
    yield from without_control_groups(monkeypatch, request.param)


@pytest.mark.parametrize("kind", ["python", "exec"])
def test_without_control_groups_memory_outside_the_address_space_is_bounded(tmp_path, route, kind):
    """A Python agent's game is sealed (no pipe, no socket: sandbox/seccomp.py), so its pipes in
    flight are refused; an exec program's game still holds some, and is held to the same bounds."""
    if kind == "python":
        file = tmp_path / f"{TOKEN}.py"
        file.write_text(HOARDER)
        spec = f"{file}:Hoarder"
    else:
        file = tmp_path / TOKEN
        file.write_text(PROGRAM)
        file.chmod(0o755)
        spec = f"exec:{file}"
    island = treasure_cli.generate_island(12, 10, rng=np.random.default_rng(9))
    record, _ = play_game(island, spec, 1, map_name="m", isolation="sandbox", max_turns=2,
                          limits=LIMITS, game_timeout=60)
    assert not record.failed, record.error
    line = [x for x in record.output.splitlines() if x.startswith("hoard ")]
    assert line, record.output
    held = {name: tuple(v) for name, v in json.loads(line[0][6:]).items()}
    bounds = {"/tmp": TMP_BYTES, "/dev/shm": TMP_BYTES, "System V segments": 0, "queues, semaphores, BPF maps": 0,
              "in flight": (LIMITS.open_files + 1) * LIMITS.file_size, "io_uring": 0,
              "memfd": LIMITS.open_files * LIMITS.file_size}
    over = {name: (held[name], bound) for name, bound in bounds.items() if held[name][0] > bound}
    assert not over, (over, held)
    assert held["queues, semaphores, BPF maps"][1] == ["msgget ENOSYS", "semget ENOSYS", "bpf ENOSYS"], held
    assert held["memfd"] == (0, os.strerror(errno.ENOSYS)), held  # refused (the seccomp filter)
    if kind == "python":
        assert held["in flight"] == (0, "PermissionError(1, 'Operation not permitted')"), held  # sealed
    else:
        assert held["in flight"][0] > 0, held  # the store it may use, it did use
    # What the referee does not count (sandbox/game_memory.py) is bounded on its own: the pipes in
    # flight and the two tmpfs.
    uncounted = sum(v[0] for v in held.values())
    assert uncounted <= worst_case_memory(LIMITS, False) - LIMITS.memory, held
