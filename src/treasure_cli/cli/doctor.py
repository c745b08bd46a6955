"""`treasure doctor`: which of the sandbox's protections this machine gives an agent's games."""

from __future__ import annotations

import click

from treasure_cli.cli.options import byte_size


@click.command("doctor")
@click.option("--agent-memory", default="1G", show_default=True, metavar="SIZE", callback=byte_size,
              help="The --agent-memory you will play with: the worst case below is counted with it.")
def doctor(agent_memory: int) -> None:
    """Say which protections this machine gives an agent's games.

    Checks, on this machine and as this user: bubblewrap (the sandbox),
    the namespaces each game's jail makes inside it, a memory control
    group and a cpuset control group for each game, and the limits every
    agent process gets. Then the most memory one game can hold. Nothing
    is changed. docs/security.md says what each protection stops.

    \b
    Example:
      treasure doctor
      treasure doctor --agent-memory 512M
    """
    from treasure_cli.sandbox.doctor import diagnose

    for name, verdict, detail in diagnose(agent_memory):
        click.echo(f"{name + ':':<22}{verdict:<4} {detail}")
