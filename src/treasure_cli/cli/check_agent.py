"""`treasure check-agent`: play an agent on a few games and say what it gets wrong."""

from __future__ import annotations

import sys
from typing import Any
from pathlib import Path

import click

from treasure_cli.errors import TreasureError
from treasure_cli.formats.text import one_line, printable
from treasure_cli.cli.options import (
    hint_options, intake_caps_options, isolation_options,
    isolation_settings, map_files, set_intake_caps, split_csv,
)


# ---------------------------------------------------------------- check-agent
@click.command("check-agent")
@click.argument("spec", metavar="SPEC")
@click.option("--games", default=6, show_default=True, type=click.IntRange(min=1), metavar="N",
              help="Seeded games on generated islands, over --sizes in turn (each played twice, to compare).")
@click.option("--sizes", metavar="N,N,...",
              help="Square island sizes of those games, e.g. your tournament's: 32,64 [default: 10,16,24].")
@click.option("--maps", "maps_path", type=click.Path(exists=True), metavar="DIR",
              help="Also play one game on each map file here (a folder or one file), e.g. the hidden maps.")
@click.option("--max-action-ms", type=click.FloatRange(min=0, min_open=True), metavar="MS",
              help="Fail if an action takes longer than MS milliseconds (a game stops at its first such "
                   "action; an agent in a process of its own is stopped there even if it never answers).")
@click.option("--seed", default=0, show_default=True, type=int, metavar="S", help="Seed of the games.")
@click.option("--game-timeout", default=30.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              metavar="SECONDS", help="A game still running after SECONDS fails the check.")
@click.option("--beliefs", is_flag=True,
              help="Ask for the agent's notes (its explain()) and fail a game at the first turn its "
                   "declared candidates leave out the treasure's tile. An agent that declares none fails it: "
                   "there is nothing to check.")
@click.option("--complete", is_flag=True,
              help="With --beliefs: also fail a game at the first turn its declared candidates keep tiles the "
                   "facts so far rule out (the referee's exact candidates), naming how many and which fact.")
@click.option("--keep-logs", "keep_dir", type=click.Path(file_okay=False), metavar="DIR",
              help="Write each game played to the end into DIR, its map beside its log (with the notes "
                   "under --beliefs), to look at it with treasure replay.")
@click.option("--agent-output", is_flag=True,
              help="With --keep-logs: what the agent printed (stdout and stderr) in the logs kept, with the turn "
                   "it came in, as `run --agent-output` writes it.")
@click.option("--class", "whole_class", is_flag=True,
              help="SPEC is a class's folder: check every group in it as the tournament finds them, one "
                   "line per group.")
@isolation_options
@hint_options
@intake_caps_options
def check_agent_command(spec: str, games: int, sizes: str | None, maps_path: str | None,
                        max_action_ms: float | None, seed: int, game_timeout: float, beliefs: bool = False,
                        keep_dir: str | None = None, whole_class: bool = False, agent_isolation: str = "auto", agent_memory: int = 1 << 30,
                        action_timeout: float | None = None, hints=None, complete: bool = False,
                        agent_output: bool = False, max_group_files: int = 2000, max_group_size: int = 50 << 20,
                        max_source_size: int = 2 << 20) -> None:
    """Check that an agent keeps the contract, before running it on real maps.

    SPEC is what --agent takes: a built-in name, package.module:Class,
    path/to/file.py:Class, exec:PATH [ARGS], or an installed plugin's name;
    or a group's folder or archive, whose agent is found as the tournament
    finds it (with --class: a class's folder, every group checked).
    The agent plays as it would in `run` (in its own process, sandboxed
    where possible: see --agent-isolation). The check plays
    a few small seeded games, each twice, and reports whether the agent
    loads, takes only legal actions without raising, plays the same game
    from the same seed, and how long an action takes on each size. Before
    a tournament, check it on the sizes of the hidden maps (--sizes, or
    --maps) with a time budget per action (--max-action-ms). Exit status 1
    if a check fails.

    \b
    Examples:
      treasure check-agent examples/densest_scan.py:DensestScan
      treasure check-agent mypackage.agents:Clever --games 20
      treasure check-agent 'exec:examples/cpp/build/treasure-agent'
      treasure check-agent students/ann.py:Agent --sizes 32,64 --max-action-ms 200
      treasure check-agent students/ann.py:Agent --maps hidden/ --max-action-ms 200
      treasure check-agent my_agent.py:MyAgent --beliefs --keep-logs checked/
      treasure check-agent my_agent.py:MyAgent --beliefs --complete
      treasure check-agent examples/densest_scan.py:DensestScan --hints examples/hints/kinds.py
      treasure check-agent 'class/Groupe 01/' --sizes 32,64
      treasure check-agent --class class/ --games 2
    """
    from treasure_cli.islands.generator import MAX_SIDE, MIN_SIDE
    from treasure_cli.grading.conformance import SIZES, check_agent, read_maps

    set_intake_caps(max_group_files, max_group_size, max_source_size)
    size_list = SIZES if sizes is None else split_csv(sizes, "--sizes", int)
    if any(not MIN_SIDE <= s <= MAX_SIDE for s in size_list):
        raise click.BadParameter(f"sizes must be between {MIN_SIDE} and {MAX_SIDE}", param_hint="--sizes")
    maps = []
    if maps_path is not None:
        paths = [str(p) for p in map_files([maps_path], only_maps=True)]
        if not paths:
            raise click.ClickException(f"no map files (*.txt) found in {maps_path}")
        try:
            maps = read_maps(paths)
        except TreasureError as exc:
            raise click.ClickException(str(exc)) from None
    if agent_output and keep_dir is None:
        raise click.UsageError("--agent-output goes with --keep-logs DIR (the logs it keeps)")
    if whole_class:
        _check_class(spec, games=games, seed=seed, game_timeout=game_timeout, agent_isolation=agent_isolation,
                     agent_memory=agent_memory, action_timeout=action_timeout, sizes=size_list, maps=maps,
                     max_action_ms=max_action_ms, beliefs=beliefs, hints=hints)
        return
    spec = _group_spec(spec)
    level, limits = isolation_settings(agent_isolation, agent_memory, action_timeout, [spec.strip()])
    keep = None
    if keep_dir is not None:
        from treasure_cli.formats.atomic import ensure_folder

        keep = Path(keep_dir)
        ensure_folder(keep)
    total = games + len(maps)
    with click.progressbar(length=total, label="checking", file=sys.stderr, hidden=not sys.stderr.isatty(),
                           item_show_func=lambda where: where and one_line(where)) as bar:  # a map's file name
        def progress(done: int, total: int, where: str) -> None:
            bar.update(done - bar.pos, where)
            if done == 0:
                bar.render_progress()  # no step yet: show the first game's name all the same

        checks = check_agent(spec, games=games, seed=seed, game_timeout=game_timeout, isolation=level,
                             limits=limits, sizes=size_list, maps=maps, max_action_ms=max_action_ms,
                             beliefs=beliefs or complete, hints=hints, on_game=progress, keep=keep,
                             complete=complete, agent_output=agent_output)
        bar.update(total - bar.pos, "")
    for check in checks:
        # printable: a detail quotes the agent (its exception, what it printed), which must not
        # reach the terminal as control characters (a carriage return could overwrite the FAIL)
        click.echo(printable(f"{'ok  ' if check.ok else 'FAIL'}  {check.name}: {check.detail}"))
    if not all(check.ok for check in checks):
        sys.exit(1)


def _group_spec(spec: str) -> str:
    """A group's folder or archive as the tournament takes it: its agent's spec (said on stderr)."""
    from treasure_cli.grading.archives import is_archive
    from treasure_cli.grading.submissions import submission

    path = Path(spec)
    if not (path.is_dir() or is_archive(path)):
        return spec
    try:
        found = submission(path)
    except TreasureError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(printable(f"group {found.name}: {found.language} {found.entry} ({found.files} files)"), err=True)
    return found.spec


def _check_class(folder: str, *, agent_isolation: str, agent_memory: int, action_timeout: float | None,
                 **options: Any) -> None:
    """One line per group of a class's folder: ok, or its first failed check, or why it was left out."""
    from treasure_cli.grading.conformance import check_agent
    from treasure_cli.grading.submissions import find_submissions

    if not Path(folder).is_dir():
        raise click.BadParameter(f"{folder} is not a folder", param_hint="--class")
    found, left_out = find_submissions([folder])
    rows: list[tuple[str, bool, str]] = [(x.name, False, f"left out: {x.reason}") for x in left_out]
    specs = [s.spec for s in found]
    level, limits = isolation_settings(agent_isolation, agent_memory, action_timeout, specs) if specs else ("", None)
    for group in found:
        checks = check_agent(group.spec, isolation=level, limits=limits, **options)
        failed = [c for c in checks if not c.ok]
        rows.append((group.name, not failed, f"{failed[0].name}: {(failed[0].detail.splitlines() or [''])[0]}" if failed else
                     f"{group.language} {group.entry}: every check passed"))
    for name, ok, detail in sorted(rows, key=lambda r: r[0]):
        # a group's name is a student's file name: one line, whatever it holds
        click.echo(printable(f"{'ok  ' if ok else 'FAIL'}  {one_line(name)}: {detail}"))
    if not all(ok for _, ok, _ in rows):
        sys.exit(1)
