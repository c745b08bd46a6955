"""How every command ends: errors as `Error: ...`, Ctrl-C, SIGTERM and a closed pipe as a shell would."""

from __future__ import annotations

import os
import signal
import sys

import click

from treasure_cli.errors import TreasureError
from treasure_cli.formats.text import printable


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


INTERRUPTED, TERMINATED, CLOSED_PIPE = 130, 143, 141  # the exit statuses a shell gives for these


class Terminated(BaseException):
    """SIGTERM arrived: unwind like Ctrl-C, so no temporary file or worker is left behind."""


_MAIN_PID = os.getpid()


def _on_signal(signum, frame):
    """SIGTERM and SIGINT in the main process unwind it; a worker forked a moment
    ago, before it could set its own handlers, just ends without a traceback."""
    if os.getpid() != _MAIN_PID:
        os._exit(128 + signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated()


class CommandGroup(click.Group):
    """One place for every way a command ends other than success.

    TreasureError and any OSError (a folder that is a file, a full disk, no
    permission) become `Error: ...` with status 1; Ctrl-C and SIGTERM exit
    130 and 143 after the command has cleaned up; a closed pipe (`| head`)
    is not an error and exits as the shell would, 141, without a message.
    """

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TreasureError as exc:
            raise click.ClickException(printable(str(exc))) from exc
        except BrokenPipeError:
            sys.stdout = open(os.devnull, "w")  # the interpreter's last flush must not fail again
            ctx.exit(CLOSED_PIPE)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(INTERRUPTED)
        except Terminated:
            click.echo("terminated", err=True)
            ctx.exit(TERMINATED)
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise click.ClickException(printable(where + (exc.strerror or str(exc)))) from exc


def install_signal_handlers() -> None:
    """SIGTERM and SIGINT unwind this process (the console entry point calls this once)."""
    global _MAIN_PID
    _MAIN_PID = os.getpid()
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
