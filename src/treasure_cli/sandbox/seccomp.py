"""System calls an agent's process may not make (Linux): a seccomp filter, set with its limits.

Without a memory control group (sandbox/cgroups.py), what bounds a game's memory is the
limits of each of its processes (sandbox/levels.py). Some kernel objects hold memory that no
such limit counts, and an IPC namespace of the game's own does not bound them either:

* System V shared memory: a segment's pages stay when it is detached, so a process that
  attaches, fills and detaches one segment after another holds memory far past its address
  space (measured: 768 MiB, as much as it asked, under a 1 GiB limit with nothing mapped);
* System V message queues and semaphore sets: kernel memory, up to the namespace's
  `msgmni` x `msgmnb` (about 500 MiB) and `semmni` x `semmsl` semaphores (gigabytes);
* io_uring: a ring's registered files are held without a descriptor, so a process keeps
  open files past its open-file limit (measured: 320 MiB of memfd pages in one ring);
* bpf: where a machine lets users without privilege make BPF maps
  (`kernel.unprivileged_bpf_disabled` 0), their memory is counted by memory control groups
  only (Linux 5.11 and later), no longer by `RLIMIT_MEMLOCK`.

An agent needs none of them: `shmget`, `msgget`, `semget` (and i386's `ipc` multiplexer,
through which its programs reach them), `io_uring_setup` and `bpf` fail with ENOSYS, as on a
kernel built without them, and programs that can use them fall back (libuv, for one). On an
architecture whose numbers this module does not know, nothing is filtered.

The same filter closes what the kernel keeps about files that every game shares (the
read-only `/usr`, the interpreter, the agent's own copy, the same inodes in every sandbox):

* the page cache: `posix_fadvise(POSIX_FADV_DONTNEED)` drops a file's clean pages, which any
  reader may do, and `preadv2(RWF_NOWAIT)` tells, without waiting, whether a page is cached
  (`cachestat` tells it too). A game left 16 bits in the pages of a data file of its group
  and the next game of the same tournament read them back, exactly. `fadvise64`, `preadv2`
  and `cachestat` are refused; without them a game can only bring pages in, never drop them,
  and what is left is timing its reads, which the docs count among the side channels;
* watches: `inotify`, `fanotify` and `fcntl(F_NOTIFY)` on a shared folder, which another game
  running at the same time sees, and leases (`F_SETLEASE`): refused (ENOSYS). Locks (`flock`,
  `fcntl`'s record locks) are allowed: a game holding one on a shared file is seen by a game
  running beside it, as its CPU use is (docs/security.md, "Side channels"), but SQLite and other
  libraries lock the files they read (with locks refused, a group reading its own SQLite table
  failed with "disk I/O error"). A lock dies with its process: it carries nothing to a later game.
"""

from __future__ import annotations

import ctypes
import errno
import struct
import sys

# linux/audit.h: AUDIT_ARCH_*; asm/unistd*.h: the calls' numbers on each
_X86_64, _I386, _AARCH64 = 0xC000003E, 0x40000003, 0xC00000B7
_X32_BIT = 0x40000000  # x86_64's x32 ABI: the same calls with this bit set
_IO_URING_SETUP = 425  # one number on every architecture (the calls numbered alike since 5.1)
_CACHESTAT = 451       # the same (6.5)
DENIED: dict[int, tuple[int, ...]] = {
    _X86_64: (29, 68, 64, _IO_URING_SETUP, 321,             # shmget, msgget, semget, .., bpf
              221, 327, _CACHESTAT,                          # fadvise64, preadv2, ..
              253, 294, 300),                                # inotify_init, inotify_init1, fanotify_init
    _I386: (117, 395, 399, 393, _IO_URING_SETUP, 357,       # ipc, shmget, msgget, semget, .., bpf
            250, 272, 378, _CACHESTAT,                       # fadvise64, fadvise64_64, preadv2, ..
            291, 332, 338),                                  # inotify_init, inotify_init1, fanotify_init
    _AARCH64: (194, 186, 190, _IO_URING_SETUP, 280,         # shmget, msgget, semget, .., bpf
               223, 286, _CACHESTAT,                         # fadvise64, preadv2, ..
               26, 262),                                     # inotify_init1, fanotify_init
}
# fcntl (and i386's fcntl64), refused for these commands only (its second argument): F_SETLEASE
# and F_NOTIFY (record locks are allowed: see above).
FCNTL: dict[int, tuple[int, ...]] = {_X86_64: (72,), _I386: (55, 221), _AARCH64: (25,)}
FCNTL_DENIED = (1024, 1026)

# linux/filter.h, linux/seccomp.h, linux/prctl.h
_LD_W_ABS, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_NR, _ARCH, _ARG1 = 0, 4, 24  # struct seccomp_data's offsets (an argument's low word: little-endian)
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


def program() -> list[tuple[int, int, int, int]]:
    """The filter's BPF instructions (code, jump if true, jump if false, k): for each known
    architecture, its denied numbers, and fcntl with a denied command; anything else is allowed."""
    allow, denied = (_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_ERRNO | errno.ENOSYS)
    blocks: list[list[tuple[int, int, int, int]]] = []
    for arch, numbers in DENIED.items():
        checks = [(_JSET_K, _X32_BIT)] if arch == _X86_64 else []
        checks += [(_JEQ_K, n) for n in numbers]
        commands = [(_JEQ_K, c) for c in FCNTL_DENIED]
        # laid out: the call's checks (each jumps to `denied`), its fcntl numbers (each jumps to
        # the commands' checks), allow; the commands' checks (each to `denied`), allow; denied
        body = [(code, len(checks) - i + len(FCNTL[arch]) + len(commands) + 2, 0, k)
                for i, (code, k) in enumerate(checks)]
        body += [(_JEQ_K, len(FCNTL[arch]) - i, 0, n) for i, n in enumerate(FCNTL[arch])]
        body += [allow, (_LD_W_ABS, 0, 0, _ARG1)]
        body += [(code, len(commands) - i, 0, k) for i, (code, k) in enumerate(commands)]
        body += [allow, denied]
        block = [(_LD_W_ABS, 0, 0, _ARCH), (_JEQ_K, 0, len(body) + 1, arch), (_LD_W_ABS, 0, 0, _NR), *body]
        blocks.append(block)
    return [x for block in blocks for x in block] + [allow]


class _Program(ctypes.Structure):  # struct sock_fprog
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_CODE = program()
_BUFFER = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *x) for x in _CODE))
_PROGRAM = _Program(len(_CODE), ctypes.cast(_BUFFER, ctypes.c_void_p))  # made once, in the referee
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None  # (none on Windows)


def install() -> None:
    """Set the filter on this process and all it starts (a subprocess's preexec_fn: so the
    filter is built beforehand, at import). It needs `no_new_privs` (which every sandboxed
    agent has anyway) or CAP_SYS_ADMIN (root); raises OSError if the kernel refuses it."""
    if _LIBC is None:
        return
    fprog = _PROGRAM
    libc = _LIBC
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0:
        return
    if ctypes.get_errno() == errno.EACCES:  # neither no_new_privs nor CAP_SYS_ADMIN: take the first
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 and \
                libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0:
            return
    err = ctypes.get_errno()
    raise OSError(err, f"seccomp filter: {errno.errorcode.get(err, err)}")
