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

And the free space of the file systems a game sees: the read-only `/usr`, the interpreter and
the agent's copy sit on the machine's disks, where the referee writes the store and the logs, and
what it writes for a game depends on the game (its agent's printed lines, up to 64 KiB, its error
text). A game that printed k pages moved the disk's count of free blocks by about k, and the next
game of the same tournament read it with `statvfs("/usr")`: four bits a game. `statfs`,
`fstatfs` (and i386's `statfs64`, `fstatfs64`) and `ustat` are refused; a program asking for a
disk's free space gets ENOSYS, which none of the runtimes needs to start.

And the counters behind socket cookies: the kernel numbers a socket (`SO_COOKIE`) and a network
namespace (`SO_NETNS_COOKIE`) from counters kept for the whole machine, a socket's only when
someone asks for it, which nothing on a quiet machine does. A game asked k times and the next
game of its agent, asking once, read k back: the cookies of consecutive games ran on (1, 2 then
3, 4). getsockopt of either option is refused (ENOPROTOOPT), and so are sock_diag netlink sockets,
which report cookies (EPROTONOSUPPORT). i386 programs reach both through `socketcall`, whose
arguments a filter cannot read: there its getsockopt and socket are refused (the direct calls,
i386's since Linux 4.3, are filtered by their arguments as elsewhere).

And memfd files: their pages are no address space (a process held 32 files of 16 MiB under its
limits, and 33 more in flight on a socket), and their inode numbers come from one counter the
kernel keeps for its internal shmem mount (each CPU takes batches of 1024 from a machine-wide
count that little else moves): a game moved it by making memfd files and the next game of the
tournament read it from a new one's `fstat().st_ino`, 10 bits a game (9 of 11 hand-overs
exact). `memfd_create` is refused (ENOSYS); Python, the JVM with its default collector, Node.js,
C++ and Rust programs start without it. (A shared anonymous mapping takes its number from the
same counter, and `/proc/self/maps` shows it: every sandbox gives a game an empty `/proc`, the
warm host's jail and a sandbox per game (sandbox/levels.py); `process` is no wall.)

And process numbers as the kernel counts them for the whole machine: since Linux 6.9 every process
and thread made anywhere takes the next inode number of `pidfs`, and a pidfd shows its process's
(`fstat().st_ino`). A game made k threads before it ended and the next game of its agent read its
own number through `pidfd_open(getpid())`: through `treasure tournament` with one worker the next
number came k + 2 or k + 3 on, in 5 of 5 hand-overs (about 440 threads in 20 ms: a dozen bits a
game). What hands a program a pidfd is refused: `pidfd_open` and `clone3` (ENOSYS; the C library
falls back to `clone`), `clone` with `CLONE_PIDFD` (EINVAL), and a socket's `SO_PEERPIDFD` and
`SO_PASSPIDFD` (ENOPROTOOPT, as before Linux 6.5). A game still makes threads and children; it
cannot read the count.

And the machine's load averages, which `sysinfo` gives (with its memory and uptime): the kernel
samples the runnable tasks of the whole machine every 5 seconds, and the averages keep a sample
for minutes. A game that kept 40 children running until the next sample was taken left the
1-minute average 3 higher, and the next game of its agent read it at its start: through
`treasure tournament` with one worker, every game read exactly what the game before left, a bit
a game for up to 5 seconds of waiting (more with more children). `sysinfo` is refused (ENOSYS);
the C library's count of the machine's memory pages then says -1, which the runtimes tried
take as unknown.

And the kernel's log, where a game can write (the kernel logs a process's crash, its memory
group's out-of-memory kill with the sizes it held) and which any process reads with `syslog` on a
machine whose `kernel.dmesg_restrict` is 0: `syslog` is refused (ENOSYS), whatever the machine's
setting (`/dev/kmsg` is not in a game's `/dev`).

And what else takes a number from the machine's one counter of pipes' and sockets' inodes
(`get_next_ino`), for nothing an agent needs: `userfaultfd`, `memfd_secret`, `io_setup` (the
kernel's own asynchronous I/O; the C library's `aio_*` use threads) and `mq_open` (ENOSYS), and
`mmap` with `MAP_HUGETLB` (ENOMEM, as a machine without huge pages answers: such a mapping took
a number even when it failed). Pipes and sockets themselves take numbers too: see docs/security.md.

And keys: `add_key`, `request_key` and every `keyctl` but the one a warm host's jail makes for
each game (`KEYCTL_JOIN_SESSION_KEYRING` of a new, nameless keyring) fail with ENOSYS. Where the
jail cannot start (a sandbox per game) and the referee is root, a game runs in the machine's
first user namespace, as its agent's user, whose user keyring and persistent keyring
(`KEYCTL_GET_PERSISTENT`, kept three days) the kernel keeps after the game's last process ends:
a key added to either in one game was found by the next (tests/security/test_keys_between_games.py).

And sockets' buffers, which the kernel holds for a process and neither its limits nor the
referee's count see: `setsockopt(SOL_SOCKET, SO_SNDBUF or SO_RCVBUF)` succeeds and changes
nothing, so a socket keeps the machine's default size (`net.core.wmem_default`, about 208 KiB)
instead of up to twice `net.core.wmem_max` (8 MiB on a machine tuned to 4 MiB: one process
queued 217 MiB in 14 socket pairs under a 32-file limit, 5 MiB with the default size).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import re
import struct
import sys

# linux/audit.h: AUDIT_ARCH_*; asm/unistd*.h: the calls' numbers on each
_X86_64, _I386, _AARCH64 = 0xC000003E, 0x40000003, 0xC00000B7
_X32_BIT = 0x40000000  # x86_64's x32 ABI: the same calls with this bit set
_IO_URING_SETUP = 425  # one number on every architecture (the calls numbered alike since 5.1)
_CACHESTAT = 451       # the same (6.5)
_PIDFD_OPEN, _CLONE3 = 434, 435  # the same (5.3)
_MEMFD_SECRET = 447  # the same (5.14)
DENIED: dict[int, tuple[int, ...]] = {
    _X86_64: (29, 68, 64, _IO_URING_SETUP, 321,             # shmget, msgget, semget, .., bpf
              221, 327, _CACHESTAT,                          # fadvise64, preadv2, ..
              253, 294, 300,                                 # inotify_init, inotify_init1, fanotify_init
              137, 138, 136,                                 # statfs, fstatfs, ustat
              319,                                           # memfd_create
              _PIDFD_OPEN, _CLONE3,
              99, 103,                                       # sysinfo, syslog
              323, _MEMFD_SECRET, 206, 240),                 # userfaultfd, .., io_setup, mq_open
    _I386: (117, 395, 399, 393, _IO_URING_SETUP, 357,       # ipc, shmget, msgget, semget, .., bpf
            250, 272, 378, _CACHESTAT,                       # fadvise64, fadvise64_64, preadv2, ..
            291, 332, 338,                                   # inotify_init, inotify_init1, fanotify_init
            99, 100, 268, 269, 62,                           # statfs, fstatfs, statfs64, fstatfs64, ustat
            356,                                             # memfd_create
            _PIDFD_OPEN, _CLONE3,
            116, 103,                                        # sysinfo, syslog
            374, _MEMFD_SECRET, 245, 277,                    # userfaultfd, .., io_setup, mq_open
            90),                                             # mmap (the old one: its flags in memory)
    _AARCH64: (194, 186, 190, _IO_URING_SETUP, 280,         # shmget, msgget, semget, .., bpf
               223, 286, _CACHESTAT,                         # fadvise64, preadv2, ..
               26, 262,                                      # inotify_init1, fanotify_init
               43, 44,                                       # statfs, fstatfs
               279,                                          # memfd_create
               _PIDFD_OPEN, _CLONE3,
               179, 116,                                     # sysinfo, syslog
               282, _MEMFD_SECRET, 0, 180),                  # userfaultfd, .., io_setup, mq_open
}
# add_key and request_key, refused; keyctl, allowed for KEYCTL_JOIN_SESSION_KEYRING (its first
# argument) of no name (its second, NULL) only: the warm host's jail gives each game a keyring so.
KEYS_DENIED: dict[int, tuple[int, ...]] = {_X86_64: (248, 249), _I386: (286, 287), _AARCH64: (217, 218)}
KEYCTL: dict[int, int] = {_X86_64: 250, _I386: 288, _AARCH64: 219}
KEYCTL_JOIN_SESSION_KEYRING = 1
# fcntl (and i386's fcntl64), refused for these commands only (its second argument): F_SETLEASE
# and F_NOTIFY (record locks are allowed: see above).
FCNTL: dict[int, tuple[int, ...]] = {_X86_64: (72,), _I386: (55, 221), _AARCH64: (25,)}
FCNTL_DENIED = (1024, 1026)

# setsockopt, whose buffer sizes (its second argument SOL_SOCKET, its third one of these) are
# left as they are: the call succeeds and changes nothing (see the module's text).
SETSOCKOPT: dict[int, tuple[int, ...]] = {_X86_64: (54,), _I386: (366,), _AARCH64: (208,)}
SOL_SOCKET = 1
BUFFER_OPTIONS = (7, 8, 32, 33)  # SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE
# i386's programs reach setsockopt through the `socketcall` multiplexer too (its first argument
# SYS_SETSOCKOPT), whose other arguments sit in memory that a filter cannot read: there every
# setsockopt succeeds and changes nothing. A game has no network, and its sockets keep their
# default options; the multiplexer's other calls are allowed.
SOCKETCALL: dict[int, int] = {_I386: 102}
SYS_SETSOCKOPT = 14

# Counters the kernel keeps for the whole machine, which a game could move and the next game read
# (see the module's text): getsockopt of a socket's or a network namespace's cookie refused
# (ENOPROTOOPT, as on a kernel without them), and sock_diag netlink sockets, which report cookies
# too (EPROTONOSUPPORT). On i386 through `socketcall` (whose arguments a filter cannot read),
# every getsockopt and every socket() is refused; socketpair and the direct calls are not.
GETSOCKOPT: dict[int, tuple[int, ...]] = {_X86_64: (55,), _I386: (365,), _AARCH64: (209,)}
COOKIE_OPTIONS = (57, 71)  # SO_COOKIE, SO_NETNS_COOKIE
PIDFD_OPTIONS = (76, 77)   # SO_PASSPIDFD (setsockopt), SO_PEERPIDFD (getsockopt): a pidfd, refused
# clone, refused with CLONE_PIDFD in its flags (its first argument on every architecture here)
CLONE: dict[int, int] = {_X86_64: 56, _I386: 120, _AARCH64: 220}
CLONE_PIDFD = 0x1000
SOCKET: dict[int, tuple[int, ...]] = {_X86_64: (41,), _I386: (359,), _AARCH64: (198,)}
AF_NETLINK, NETLINK_SOCK_DIAG = 16, 4
SYS_SOCKET, SYS_GETSOCKOPT = 1, 15

# mmap with MAP_HUGETLB (its fourth argument), refused as a machine without huge pages answers
# (ENOMEM): each such mapping takes an inode number from the machine's counter, failed or not.
MMAP: dict[int, tuple[int, ...]] = {_X86_64: (9,), _I386: (192,), _AARCH64: (222,)}
MAP_HUGETLB = 0x40000

# linux/filter.h, linux/seccomp.h, linux/prctl.h
_LD_W_ABS, _JEQ_K, _JSET_K, _RET_K = 0x20, 0x15, 0x45, 0x06
_RET_ALLOW, _RET_ERRNO = 0x7FFF0000, 0x00050000
_NR, _ARCH, _ARG0, _ARG1, _ARG2, _ARG3 = 0, 4, 16, 24, 32, 40  # struct seccomp_data's offsets (an argument's low word: little-endian)
_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2


def program() -> list[tuple[int, int, int, int]]:
    """The filter's BPF instructions (code, jump if true, jump if false, k): for each known
    architecture, its denied numbers, keyctl but a nameless session keyring's join, fcntl with a
    denied command, setsockopt of a buffer's size (which succeeds, doing nothing; on i386, any
    setsockopt through socketcall), getsockopt and setsockopt of a machine counter or a pidfd,
    sock_diag sockets and clone with CLONE_PIDFD; anything else is allowed."""
    allow, denied = (_RET_K, "", "", _RET_ALLOW), (_RET_K, "", "", _RET_ERRNO | errno.ENOSYS)
    out: list[tuple[int, int, int, int]] = []
    for arch, numbers in DENIED.items():
        # (code, label if true, label if false, k); "" goes on to the next instruction
        block: list[tuple[int, str, str, int] | str] = [
            (_LD_W_ABS, "", "", _ARCH), (_JEQ_K, "", "end", arch), (_LD_W_ABS, "", "", _NR)]
        if arch == _X86_64:
            block.append((_JSET_K, "denied", "", _X32_BIT))
        block += [(_JEQ_K, "denied", "", n) for n in numbers + KEYS_DENIED[arch]]
        block.append((_JEQ_K, "keyctl", "", KEYCTL[arch]))
        block += [(_JEQ_K, "fcntl", "", n) for n in FCNTL[arch]]
        block += [(_JEQ_K, "sockopt", "", n) for n in SETSOCKOPT[arch]]
        block += [(_JEQ_K, "getsockopt", "", n) for n in GETSOCKOPT[arch]]
        block += [(_JEQ_K, "socket", "", n) for n in SOCKET[arch]]
        block.append((_JEQ_K, "clone", "", CLONE[arch]))
        block += [(_JEQ_K, "mmap", "", n) for n in MMAP[arch]]
        if arch in SOCKETCALL:
            block.append((_JEQ_K, "socketcall", "", SOCKETCALL[arch]))
        block += [allow, "keyctl", (_LD_W_ABS, "", "", _ARG0), (_JEQ_K, "", "denied", KEYCTL_JOIN_SESSION_KEYRING),
                  (_LD_W_ABS, "", "", _ARG1), (_JEQ_K, "", "denied", 0),
                  (_LD_W_ABS, "", "", _ARG1 + 4), (_JEQ_K, "allow", "denied", 0)]  # (both words of the pointer)
        block += ["fcntl", (_LD_W_ABS, "", "", _ARG1)]
        block += [(_JEQ_K, "denied", "", c) for c in FCNTL_DENIED]
        block.append(allow)
        if arch in SOCKETCALL:
            block += ["socketcall", (_LD_W_ABS, "", "", _ARG0), (_JEQ_K, "unchanged", "", SYS_SETSOCKOPT),
                      (_JEQ_K, "no option", "", SYS_GETSOCKOPT), (_JEQ_K, "no protocol", "allow", SYS_SOCKET)]
        block += ["getsockopt", (_LD_W_ABS, "", "", _ARG1), (_JEQ_K, "", "allow", SOL_SOCKET),
                  (_LD_W_ABS, "", "", _ARG2)]
        block += [(_JEQ_K, "no option", "", o) for o in COOKIE_OPTIONS + PIDFD_OPTIONS]
        block += [allow, "clone", (_LD_W_ABS, "", "", _ARG0), (_JSET_K, "invalid", "allow", CLONE_PIDFD)]
        block += ["mmap", (_LD_W_ABS, "", "", _ARG3), (_JSET_K, "no memory", "allow", MAP_HUGETLB)]
        block += ["socket", (_LD_W_ABS, "", "", _ARG0), (_JEQ_K, "", "allow", AF_NETLINK),
                  (_LD_W_ABS, "", "", _ARG2), (_JEQ_K, "no protocol", "allow", NETLINK_SOCK_DIAG)]
        block += ["sockopt", (_LD_W_ABS, "", "", _ARG1), (_JEQ_K, "", "allow", SOL_SOCKET),
                  (_LD_W_ABS, "", "", _ARG2)]
        block += [(_JEQ_K, "unchanged", "", o) for o in BUFFER_OPTIONS]
        block += [(_JEQ_K, "no option", "", o) for o in PIDFD_OPTIONS]
        block += ["allow", allow, "unchanged", (_RET_K, "", "", _RET_ERRNO | 0), "denied", denied,
                  "no option", (_RET_K, "", "", _RET_ERRNO | errno.ENOPROTOOPT),
                  "no protocol", (_RET_K, "", "", _RET_ERRNO | errno.EPROTONOSUPPORT),
                  "invalid", (_RET_K, "", "", _RET_ERRNO | errno.EINVAL),
                  "no memory", (_RET_K, "", "", _RET_ERRNO | errno.ENOMEM), "end"]
        at: dict[str, int] = {}
        code: list[tuple[int, str, str, int]] = []
        for item in block:
            if isinstance(item, str):
                at[item] = len(code)
            else:
                code.append(item)
        for i, (op, true, false, k) in enumerate(code):
            out.append((op, at[true] - i - 1 if true else 0, at[false] - i - 1 if false else 0, k))
    return out + [(_RET_K, 0, 0, _RET_ALLOW)]


# New user namespaces, refused to a game's own code by a second filter, set once the game's jail
# (a user namespace of its own) is made: unshare and clone with CLONE_NEWUSER (EPERM). clone3,
# whose flags sit in memory a filter cannot read, is the first filter's (DENIED, for pidfds too),
# which every agent's process has before this one. In a namespace of its own a game had every
# capability again, and mounted a tmpfs of any size, outside any count but a memory group's.
UNSHARE: dict[int, int] = {_X86_64: 272, _I386: 310, _AARCH64: 97}
CLONE_NEWUSER = 0x10000000


def namespaces_program() -> list[tuple[int, int, int, int]]:
    """The second filter's BPF instructions (code, jump if true, jump if false, k)."""
    out: list[tuple[int, int, int, int]] = []
    for arch in DENIED:
        out += [(_LD_W_ABS, 0, 0, _ARCH), (_JEQ_K, 0, 7, arch), (_LD_W_ABS, 0, 0, _NR),
                (_JEQ_K, 1, 0, UNSHARE[arch]), (_JEQ_K, 0, 3, CLONE[arch]),
                (_LD_W_ABS, 0, 0, _ARG0), (_JSET_K, 0, 1, CLONE_NEWUSER),
                (_RET_K, 0, 0, _RET_ERRNO | errno.EPERM), (_RET_K, 0, 0, _RET_ALLOW)]
    return out + [(_RET_K, 0, 0, _RET_ALLOW)]


# A Python agent's game, sealed by a third filter once its host is ready to play: no new pipe or
# socket, the last objects a game could make that take a number from the machine's one counter of
# pipes' and sockets' inodes (the next game reads it with fstat of its own pipes). Its host talks
# to the referee over the three pipes made for the game; Python makes none to start or to run an
# agent's code, where Node.js and the JVM do (their programs are not sealed). EPERM, which Python
# says as "Operation not permitted".
SEALED: dict[int, tuple[int, ...]] = {
    _X86_64: (22, 293, 41, 53),  # pipe, pipe2, socket, socketpair
    _I386: (42, 331, 359, 360, SOCKETCALL[_I386]),  # the same, and socketcall's socket calls
    _AARCH64: (59, 198, 199),  # pipe2, socket, socketpair
}


def sealed_program() -> list[tuple[int, int, int, int]]:
    """The third filter's BPF instructions (code, jump if true, jump if false, k)."""
    out: list[tuple[int, int, int, int]] = []
    for arch, numbers in SEALED.items():
        out += [(_LD_W_ABS, 0, 0, _ARCH), (_JEQ_K, 0, len(numbers) + 3, arch), (_LD_W_ABS, 0, 0, _NR)]
        out += [(_JEQ_K, len(numbers) - i, 0, n) for i, n in enumerate(numbers)]
        out += [(_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_ERRNO | errno.EPERM)]
    return out + [(_RET_K, 0, 0, _RET_ALLOW)]


# An exec: program's game cannot be sealed (Node.js makes pipes as it starts, the JVM sockets, a
# launcher's shell pipes), so its pipes and sockets are counted instead: the filter hands each such
# call to the program's parent (sandbox/counted.py, with `Budget`), which lets the first BUDGET
# numbers be taken and refuses the rest (EPERM). A game then moves the machine's counter by at most
# BUDGET, where it had moved it by whole batches of 1,024 (a dozen bits a game); a random count of
# numbers is taken before each game (`scatter`), which hides those few.
# Measured: Node.js made 4 pipes in a game, the JVM 2 sockets, C++, Rust and Python programs none.
# The number of inodes each call takes: a socket pair takes two; an accepted connection one.
BUDGETED: dict[int, dict[int, int]] = {
    _X86_64: {22: 1, 293: 1, 41: 1, 53: 2, 43: 1, 288: 1},  # pipe, pipe2, socket, socketpair, accept, accept4
    _I386: {42: 1, 331: 1, 359: 1, 360: 2, 364: 1, SOCKETCALL[_I386]: 0},  # the same (accept4), socketcall
    _AARCH64: {59: 1, 198: 1, 199: 2, 202: 1, 242: 1},  # pipe2, socket, socketpair, accept, accept4
}
SOCKETCALL_TAKES = {1: 1, 8: 2, 5: 1, 18: 1}  # i386's socketcall: SYS_SOCKET, SYS_SOCKETPAIR, SYS_ACCEPT(4)
BUDGET = 16
_RET_USER_NOTIF = 0x7FC00000


def budget_program() -> list[tuple[int, int, int, int]]:
    """The budget filter's BPF instructions: each BUDGETED call goes to the listener."""
    out: list[tuple[int, int, int, int]] = []
    for arch, takes in BUDGETED.items():
        numbers = tuple(takes)
        out += [(_LD_W_ABS, 0, 0, _ARCH), (_JEQ_K, 0, len(numbers) + 3, arch), (_LD_W_ABS, 0, 0, _NR)]
        out += [(_JEQ_K, len(numbers) - i, 0, n) for i, n in enumerate(numbers)]
        out += [(_RET_K, 0, 0, _RET_ALLOW), (_RET_K, 0, 0, _RET_USER_NOTIF)]
    return out + [(_RET_K, 0, 0, _RET_ALLOW)]


class _Program(ctypes.Structure):  # struct sock_fprog
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_CODE = program()
_BUFFER = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *x) for x in _CODE))
_PROGRAM = _Program(len(_CODE), ctypes.cast(_BUFFER, ctypes.c_void_p))  # made once, in the referee
_NS_CODE = namespaces_program()
_NS_BUFFER = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *x) for x in _NS_CODE))
_NS_PROGRAM = _Program(len(_NS_CODE), ctypes.cast(_NS_BUFFER, ctypes.c_void_p))
_SEAL_CODE = sealed_program()
_SEAL_BUFFER = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *x) for x in _SEAL_CODE))
_SEAL_PROGRAM = _Program(len(_SEAL_CODE), ctypes.cast(_SEAL_BUFFER, ctypes.c_void_p))
_BUDGET_CODE = budget_program()
_BUDGET_BUFFER = ctypes.create_string_buffer(b"".join(struct.pack("=HBBI", *x) for x in _BUDGET_CODE))
_BUDGET_PROGRAM = _Program(len(_BUDGET_CODE), ctypes.cast(_BUDGET_BUFFER, ctypes.c_void_p))
_namespaces_refused = False  # in this process (and, through fork, its children)
_sealed = False  # the same, for the third filter
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None  # (none on Windows)


def install() -> None:
    """Set the filter on this process and all it starts (a subprocess's preexec_fn: so the
    filter is built beforehand, at import). It needs `no_new_privs` (which every sandboxed
    agent has anyway) or CAP_SYS_ADMIN (root); raises OSError if the kernel refuses it."""
    _install(_PROGRAM)


def refuse_user_namespaces() -> None:
    """Set the second filter (no new user namespace) on this process and all it starts, once: in
    a game's own process, after its jail is made and before the agent's code, never in the
    referee or a warm host (which make namespaces). OSError if the kernel refuses it."""
    global _namespaces_refused
    if not _namespaces_refused:
        _install(_NS_PROGRAM)
        _namespaces_refused = True


def seal() -> None:
    """Set the third filter (no new pipe or socket) on this process and all it starts: in a
    Python agent's game, once its host holds the game's pipes, before the agent's code. OSError
    if the kernel refuses it."""
    global _sealed
    _install(_SEAL_PROGRAM)
    _sealed = True


def sealed() -> bool:
    """Whether this process's game is sealed (`seal`): its host then explains an agent's EPERM."""
    return _sealed


# seccomp(2)'s number (the listener is made through it, not prctl), linux/seccomp.h's flags and ioctls
_SECCOMP_CALL = {"x86_64": 317, "aarch64": 277, "i386": 354, "i686": 354}
_SECCOMP_SET_MODE_FILTER, _FLAG_NEW_LISTENER, _NOTIF_CONTINUE = 1, 1 << 3, 1
_NOTIF_RECV, _NOTIF_SEND = 0xC0502100, 0xC0182101  # _IOWR('!', 0 and 1, struct seccomp_notif(_resp))


class _Notif(ctypes.Structure):  # struct seccomp_notif, its seccomp_data inline
    _fields_ = [("id", ctypes.c_uint64), ("pid", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("nr", ctypes.c_int), ("arch", ctypes.c_uint32), ("ip", ctypes.c_uint64),
                ("args", ctypes.c_uint64 * 6)]


class _Answer(ctypes.Structure):  # struct seccomp_notif_resp
    _fields_ = [("id", ctypes.c_uint64), ("val", ctypes.c_int64), ("error", ctypes.c_int32),
                ("flags", ctypes.c_uint32)]


def budgeted() -> int:
    """Set the budget filter on this process and all it starts: its listener's descriptor
    (close-on-exec), for `Budget`. Nothing this process does after may take a budgeted call (it
    would wait for itself). OSError where the kernel cannot (before Linux 5.5, no way to let a
    call go on; no seccomp)."""
    release = tuple(int(x) for x in re.findall(r"\d+", platform.release())[:2])
    number = _SECCOMP_CALL.get(platform.machine())
    if _LIBC is None or number is None or release < (5, 5):
        raise OSError(errno.ENOSYS, "no seccomp listener here")
    libc = _LIBC
    fd = libc.syscall(number, _SECCOMP_SET_MODE_FILTER, _FLAG_NEW_LISTENER, ctypes.byref(_BUDGET_PROGRAM))
    if fd < 0 and ctypes.get_errno() == errno.EACCES and libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0:
        fd = libc.syscall(number, _SECCOMP_SET_MODE_FILTER, _FLAG_NEW_LISTENER, ctypes.byref(_BUDGET_PROGRAM))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp listener: {errno.errorcode.get(err, err)}")
    return int(fd)


class Budget:
    """A game's pipes and sockets, counted (the budget filter's listener, `budgeted`): the first
    `allowed` inode numbers are taken, every call after them is refused (EPERM)."""

    def __init__(self, listener: int, allowed: int = BUDGET):
        self.listener, self.allowed, self.used, self.refused = listener, allowed, 0, 0

    def answer(self) -> bool:
        """Answer the call waiting on the listener (poll it first: this waits for one): whether it
        was refused."""
        assert _LIBC is not None
        call = _Notif()
        if _LIBC.ioctl(self.listener, ctypes.c_ulong(_NOTIF_RECV), ctypes.byref(call)) != 0:
            return False  # (its caller was killed meanwhile)
        takes = BUDGETED.get(call.arch, {}).get(call.nr, 0)
        if call.arch in SOCKETCALL and call.nr == SOCKETCALL[call.arch]:
            takes = SOCKETCALL_TAKES.get(call.args[0], 0)
        answer = _Answer(id=call.id)
        if self.used + takes <= self.allowed:
            self.used += takes
            answer.flags = _NOTIF_CONTINUE  # the kernel makes the call as asked
        else:
            answer.error = -errno.EPERM
            self.refused += 1
        _LIBC.ioctl(self.listener, ctypes.c_ulong(_NOTIF_SEND), ctypes.byref(answer))  # (ENOENT: its caller is gone)
        return answer.error != 0


SCATTER = 512  # at most this many numbers taken before each such game, on each CPU (`scatter`)


def scatter() -> None:
    """Take a random count (below SCATTER) of the machine's pipe and socket numbers on each CPU
    this process may run on, before an exec: program's game makes its pipes (its standard input,
    output and error, then its own): those numbers are handed to each CPU in batches, and a game
    reads the count from its pipes. The game before moved it by at most its budget (BUDGET), which
    is lost in a count 32 times as wide. Measured: 4.6 µs a number, 1.2 ms a game on average."""
    cpus = os.sched_getaffinity(0)
    draws = os.urandom(2 * len(cpus))
    try:
        for i, cpu in enumerate(sorted(cpus)):
            if len(cpus) > 1:
                os.sched_setaffinity(0, {cpu})
            for _ in range(int.from_bytes(draws[2 * i:2 * i + 2], "little") % SCATTER):
                r, w = os.pipe()
                os.close(r)
                os.close(w)
    except OSError:
        pass  # (a CPU taken away meanwhile, or no descriptor left: the game is not held up for it)
    finally:
        if len(cpus) > 1:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, cpus)


def _install(fprog: _Program) -> None:
    if _LIBC is None:
        return
    libc = _LIBC
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0:
        return
    if ctypes.get_errno() == errno.EACCES:  # neither no_new_privs nor CAP_SYS_ADMIN: take the first
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 and \
                libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0:
            return
    err = ctypes.get_errno()
    raise OSError(err, f"seccomp filter: {errno.errorcode.get(err, err)}")
