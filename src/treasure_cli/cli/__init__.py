"""The `treasure` command line: parse options, call the library, print.
May import every layer below it: the top modules (`errors`, `version`, `compiled`), `rules/`, `islands/`,
`agents/`, `formats/`, `sandbox/`, `play/`, `grading/`, `view/`, `gym/`; nothing imports it.

One module per command (`cli/run.py` is `treasure run`, ...); what several share is in
`cli/options.py`, and how every command ends (errors, Ctrl-C, SIGTERM) in `cli/group.py`.
This module only assembles the group. Each command's docstring is its help text. Expected
failures are TreasureError and come out as `Error: ...` with a non-zero exit status. The
library is imported inside each command, so `--version` and `--help` load neither numpy nor
the engine.
"""

from __future__ import annotations

import os

import click

# Before numpy is imported (by any command, and by the workers a pool spawns, which inherit this):
# the game uses no linear algebra, and OpenBLAS starting a thread per core cost 70 ms of every
# command's start and 180 ms of CPU on a 2-core machine. A value the user set is kept.
for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

from treasure_cli.version import __version__  # noqa: E402
from treasure_cli.cli import bench, check, check_agent, contest, doctor, generate, play, replay, run, tournament  # noqa: E402
from treasure_cli.cli.group import CONTEXT, CommandGroup, install_signal_handlers  # noqa: E402


@click.group(cls=CommandGroup, context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="treasure")
def cli() -> None:
    """Play, log and replay the Treasure Island logical-agent game.

    \b
    Example:
      treasure generate --size 32 --seed 7 -o MAP_x.txt
      treasure check MAP_x.txt
      treasure run input/ output/
    """


for _command in (check.check, run.run, generate.generate, bench.bench, tournament.tournament,
                 check_agent.check_agent_command, replay.replay_command, doctor.doctor, play.play,
                 contest.contest):
    cli.add_command(_command)


def main() -> None:
    """Console entry point."""
    install_signal_handlers()
    cli(prog_name="treasure")
