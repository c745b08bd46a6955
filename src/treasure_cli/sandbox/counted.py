"""An exec: program's game, its pipes and sockets counted (Linux).

The kernel numbers pipes' and sockets' inodes from one counter for the whole machine, and a
game reads where it stands from its own pipes (`fstat`): a game that took many numbers left a
message for the next one. A Python agent's game makes none (sandbox/seccomp.py, `seal`); an
exec: program's runtime may need a few (Node.js makes pipes as it starts, the JVM sockets). So
the program runs as the child of a process that holds the budget filter's listener
(sandbox/seccomp.py, `Budget`): the program's first BUDGET numbers are taken, then each call is
refused. `run` is the jail's process 1 in a warm host (sandbox/warm_host.py); where the warm
host cannot jail, `python -I -m treasure_cli.sandbox.counted PROGRAM [ARGS...]` is the game's
process in its sandbox (sandbox/levels.py, `unforked`), and ends as its program ended.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys

from treasure_cli.sandbox import seccomp

PR_SET_DUMPABLE = 4
REFUSED = (f"treasure: a pipe or socket was refused: an exec: program's game may take {seccomp.BUDGET} of the "
           "machine's pipe and socket numbers (docs/writing-an-agent.md)\n")


def run(program: list[str]) -> int | None:
    """Start `program` with its pipes and sockets counted (`_budget`), answer its calls until it
    ends, and reap whatever it leaves: how it ended (an exit code, minus a signal: 127 if it could
    not start), or None if it was not seen to end."""
    _undumpable()
    # posix_spawn (vfork and exec): a fork of this Python process cost ~1.5 ms a game more.
    # The signals Python ignores are the program's defaults again.
    defaults = [sig for sig in (getattr(signal, "SIGXFSZ", None), signal.SIGPIPE) if sig is not None]
    try:
        # In its own folder, beside its files (read-only: nothing written there by a relative
        # path can reach the next game), as outside the sandbox (a warm host's jail left it in /tmp).
        os.chdir(os.path.dirname(program[0]) or ".")
        budget = _budget()  # (nothing here takes a pipe or socket after it: they would wait for this process)
        program_pid = os.posix_spawn(program[0], program, os.environ, setsigdef=defaults)
    except OSError as exc:
        os.write(2, f"cannot start the agent ({program[0]}): {exc.strerror}\n".encode(errors="replace"))
        return 127
    # Its standard error, kept to say once why a call was refused (on the game's record, as a
    # Python agent's host explains its sealed game's refusals); closed as the program ends.
    errors = os.dup(2) if budget is not None else -1
    for fd in (0, 1, 2):  # the game's pipes are the program's alone: they close when it ends
        os.close(fd)
    waiting = select.poll()
    if budget is not None:
        waiting.register(budget.listener, select.POLLIN)
    try:
        while True:
            try:  # (with a budget, its calls are answered between looks at the children: at least every 50 ms)
                pid, status = os.waitpid(-1, 0 if budget is None else os.WNOHANG)
            except ChildProcessError:
                return None
            if pid == program_pid:
                return os.waitstatus_to_exitcode(status)
            if budget is not None and not pid and waiting.poll(50) and budget.answer() and budget.refused == 1:
                with contextlib.suppress(OSError):
                    os.write(errors, REFUSED.encode())
    finally:
        if errors >= 0:
            os.close(errors)


def _budget() -> seccomp.Budget | None:
    """An exec: program's pipes and sockets, counted by this process (sandbox/seccomp.py, BUDGETED):
    each takes a number from the machine's one counter, which the next game reads from its own pipes."""
    try:
        return seccomp.Budget(seccomp.budgeted())
    except OSError:
        return None  # a kernel without a seccomp listener: `treasure doctor` says so


def _undumpable() -> None:
    """Neither traced nor read by the program it counts: both are the same user, and a program
    attached to this process (`ptrace`, /proc/PID/mem) could rewrite its count (a jail's process 1
    was made dumpable to write its maps: sandbox/warm_host.py, `jail`). An exec resets the flag, so
    the program itself is as dumpable as it is outside (its core files, its debugger)."""
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0)")


def main(argv: list[str] | None = None) -> int:
    program = sys.argv[1:] if argv is None else argv
    if not program:
        print("usage: python -m treasure_cli.sandbox.counted PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    seccomp.scatter()  # on the game's CPUs (the referee drew on its own before it made the game's pipes)
    code = run(program)
    if code is not None and code < 0:  # end the same way, so that the referee can say how the program ended
        if -code not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return 0 if code is None else code & 0xFF


if __name__ == "__main__":
    sys.exit(main())
