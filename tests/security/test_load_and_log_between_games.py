"""A game cannot read the machine's load averages or the kernel's log, where a game before it wrote.

The kernel samples the runnable tasks of the whole machine every 5 seconds, and its load averages
keep each sample for minutes. A game that kept 40 children running until the next sample left
the 1-minute average about 3 higher, and the next game of its agent read it with `sysinfo` at its
start: through `treasure tournament` with one worker, every one of 9 hand-overs read exactly what
the game before had left, one bit a game for at most 5 seconds of waiting. The seccomp filter
refuses `sysinfo` (ENOSYS), and the game's `/proc` is empty, so `/proc/loadavg` is not there
either.

The kernel also logs what a game does (a crash, an out-of-memory kill with the sizes its process
held), and on a machine whose `kernel.dmesg_restrict` is 0 any process reads the log: a game
could leave bits there for the next. With it 0 here (set by hand, then back), a game read it; the
filter refuses `syslog` whatever the setting (here, without the filter: EPERM, not ENOSYS).

This probe asks each way in every game, then plays `logic`'s game.
"""

from __future__ import annotations

import errno
import re
import uuid

import pytest
from helpers import cheat_beside_logic, hidden_maps, probe_group, seccomp_answer

from treasure_cli.sandbox import seccomp

NAME = "loads_" + uuid.uuid4().hex[:10]  # no other test's agent has this name
SYSINFO = {0xC000003E: 99, 0x40000003: 116, 0xC00000B7: 179}  # x86_64, i386, aarch64
SYSLOG = {0xC000003E: 103, 0x40000003: 103, 0xC00000B7: 116}

PROBE = '''\
import ctypes
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)


def averages():
    info = ctypes.create_string_buffer(128)  # struct sysinfo: uptime, then the three loads
    if libc.sysinfo(info) != 0:
        return f"refused {ctypes.get_errno()}"
    return " ".join(f"{x / 65536:.2f}" for x in struct.unpack_from("3Q", info, 8))


def proc():
    try:
        with open("/proc/loadavg") as f:
            return f.read().strip()
    except OSError as e:
        return f"refused {e.errno}"


def log():
    size = libc.klogctl(10, None, 0)  # SYSLOG_ACTION_SIZE_BUFFER: allowed to anyone the log is
    return f"refused {ctypes.get_errno()}" if size < 0 else str(size)


print(f"loads: {averages()}; {proc()}", file=sys.stderr, flush=True)
print(f"klog: {log()}", file=sys.stderr, flush=True)
'''


@pytest.mark.parametrize("arch", sorted(seccomp.DENIED))
def test_the_filter_refuses_sysinfo_and_syslog(arch):
    program = seccomp.program()
    assert seccomp_answer(program, arch, SYSINFO[arch], 0, 0, 0) == 0x50000 | errno.ENOSYS
    assert seccomp_answer(program, arch, SYSLOG[arch], 3, 0, 0) == 0x50000 | errno.ENOSYS


def test_no_game_reads_the_load_averages_or_the_kernel_log(tmp_path):
    maps, students = hidden_maps(tmp_path, 100), tmp_path / "students"
    probe_group(students, NAME, PROBE)
    cheat, fair = cheat_beside_logic(students, maps, tmp_path / "results.sqlite", NAME)
    for r in cheat:
        loads, klog = (re.search(rf"^{what}: (.*)$", r.output, flags=re.M) for what in ("loads", "klog"))
        assert loads and klog, r.output[:2000]
        assert loads[1] == f"refused {errno.ENOSYS}; refused {errno.ENOENT}", loads[1]
        assert klog[1] == f"refused {errno.ENOSYS}", klog[1]
    assert {(r.map_digest, r.seed): (r.outcome, r.turns) for r in cheat} == fair
