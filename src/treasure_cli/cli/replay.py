"""`treasure replay`: step through a log, a stored game, or two logs side by side."""

from __future__ import annotations

from pathlib import Path

import click

from treasure_cli.formats.text import one_line, printable
from treasure_cli.cli.options import (
    MAPS_HELP, MAPS_RECURSIVE, isolation_options, maps_searched,
    isolation_settings, load_hint_files, map_files, view_options,
)
from treasure_cli.cli.watch import show_game


# ---------------------------------------------------------------- replay
@click.command("replay")
@click.argument("log_paths", metavar="LOG|GAME_ID [LOG2]", nargs=-1, required=True)
@click.option("--map", "map_path", type=click.Path(dir_okay=False), metavar="MAP",
              help="The map file [default: the path recorded in the log, tried as it is, "
                   "from the log's folder and from its parent].")
@view_options
@click.option("--html", "html_path", type=click.Path(dir_okay=False), metavar="PAGE.html",
              help="Write the game as one self-contained web page instead of showing it.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False), metavar="FILE.svg",
              help="Write one frame (--turn N's first step; default the last step) as an SVG picture.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), metavar="RESULTS.sqlite",
              help="Play the game GAME_ID of this results store again, exactly (give --maps).")
@click.option("--maps", "maps_path", metavar="MAPS",
              help=f"With --db: where the game's map is found by its content: {MAPS_HELP}.")
@MAPS_RECURSIVE
@click.option("--log", "log_out", type=click.Path(dir_okay=False), metavar="LOG.txt",
              help="With --db: also write the game's log (the same text as `bench --keep-logs` writes).")
@isolation_options
@click.option("--hints", "hint_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              metavar="FILE.py", help="The file of hint kinds the game was played with (for a log naming them).")
def replay_command(log_paths: tuple[str, ...], map_path: str | None, no_pause: bool, turn: int | None,
                   window: tuple[int, int] | None, color: bool | None, html_path: str | None = None,
                   svg_path: str | None = None, db_path: str | None = None, maps_path: str | None = None,
                   recursive: bool = False, log_out: str | None = None, agent_isolation: str = "auto",
                   agent_memory: int = 1 << 30, action_timeout: float | None = None, hint_files: tuple[str, ...] = ()) -> None:
    """Step through a game log on the map, one step per Enter.

    Keys (each followed by Enter): nothing = next step, b = back one step,
    a number = go to that turn, n = hide or show the agent's tiles (a game
    logged with --notes), q = quit. The frame shows the island, the
    agent (A), the pirate (X, once the agent knows where he is), the treasure
    ($), the tiles the agent has ruled out (.), this step's scan (#) or hint
    (+), and the step's log lines. Big maps show a window that follows the
    agent.

    With --db, the argument is a game id from a tournament's report: the
    game is played again from the store (its map found by content under
    --maps, its seed, its agent), refused if the agent's code has changed
    since, and shown the same way.

    Two logs of one game (the same map and seed, two agents, as `bench
    --versus` keeps them), or with --db two game ids of one map and seed
    (as `tournament --report --versus` lists them), are compared on one
    page, side by side and stepping together: give --html.

    \b
    Examples:
      treasure replay output/LOG_01.txt
      treasure replay output/LOG_05.txt --window 30x60
      treasure replay LOG_01.txt --map input/MAP_01.txt --no-pause --no-color > frames.txt
      treasure replay output/LOG_02.txt --turn 2
      treasure replay output/LOG_01.txt --html game.html
      treasure replay output/LOG_02.txt --turn 2 --svg turn2.svg
      treasure replay output/LOG_01.txt --hints examples/hints/kinds.py
      treasure replay --db results.sqlite 3f9a0c2d71b4 --maps hidden/ --html game.html
      treasure replay logic/LOG_01.txt greedy/LOG_01.txt --html compare.html
      treasure replay --db results.sqlite 3f9a0c2d71b4 77b2e0c4a1d9 --maps hidden/ --html compare.html
    """
    load_hint_files(hint_files)
    if len(log_paths) > 2:
        raise click.UsageError("give one log (or game id), or two logs of the same game to compare")
    if len(log_paths) == 2:
        _compare(log_paths, map_path, html_path, svg_path, db_path, maps_path, recursive, log_out,
                 (agent_isolation, agent_memory, action_timeout))
        return
    log_path = log_paths[0]
    if db_path is not None:
        game = _stored_game(log_path, db_path, maps_path, recursive, log_out, agent_isolation, agent_memory,
                            action_timeout)
    else:
        if maps_path is not None or log_out is not None:
            raise click.UsageError("--maps and --log go with --db")
        from treasure_cli.view.sources import open_log

        game = open_log(log_path, map_path)
    if html_path is not None or svg_path is not None:
        _export(game, html_path, svg_path, turn)
        return
    show_game(game, no_pause, turn, window, color)


def _compare(log_paths: tuple[str, ...], map_path: str | None, html_path: str | None, svg_path: str | None,
             db_path: str | None, maps_path: str | None, recursive: bool, log_out: str | None,
             isolation: tuple[str, int, float | None]) -> None:
    """`replay A B --html PAGE`: two logs (or, with --db, two stored games) of one game on one page.
    The terminal shows one game at a time."""
    from treasure_cli.view.page import write_compare
    from treasure_cli.view.sources import open_log

    if html_path is None or svg_path is not None:
        raise click.UsageError("two games are compared on a page: give --html PAGE.html (the terminal and "
                               "--svg show one game; replay each on its own)")
    if log_out is not None:
        raise click.UsageError("--log writes the log of one stored game")
    if db_path is not None:
        games = [_stored_game(game, db_path, maps_path, recursive, None, *isolation) for game in log_paths]
    else:
        if maps_path is not None:
            raise click.UsageError("--maps goes with --db")
        games = [open_log(path, map_path) for path in log_paths]
    click.echo(f"wrote {write_compare(games[0], games[1], html_path)}")


def _stored_game(game_id: str, db_path: str, maps_path: str | None, recursive: bool, log_out: str | None,
                 agent_isolation: str, agent_memory: int, action_timeout: float | None):
    """`replay --db`: a stored game played again, as a Replay (its log written if asked)."""
    import shlex

    from treasure_cli.formats.atomic import write_text_atomic
    from treasure_cli.formats.game_record import format_log
    from treasure_cli.grading.tournament import find_game, maps_by_digest, rebuild_game, same_result
    from treasure_cli.view.steps import Replay

    if maps_path is None:
        raise click.UsageError("--db plays the game again on its map: give the tournament's maps with --maps")
    row = find_game(db_path, game_id)
    level, limits = isolation_settings(agent_isolation, agent_memory, action_timeout, [row.agent])
    paths = map_files([maps_path], recursive, only_maps=True)
    maps = maps_by_digest(paths)
    island, record, events = rebuild_game(row, maps, level, limits, maps_searched(maps_path, recursive, len(paths)))
    if events is None:
        raise click.ClickException(printable(f"game {row.game_id} failed again: {record.error}"))
    if not same_result(row, record):
        how = " by other actions" if (record.outcome, record.turns) == (row.outcome, row.turns) else ""
        # one_line: the store may be a student's file, its outcome any text
        click.echo(one_line(f"warning: game {row.game_id} is stored as {row.outcome} on turn {row.turns}, and "
                            f"ended as {record.outcome} on turn {record.turns}{how} when played again: the agent "
                            "does not play the same game from the same seed"), err=True)
    if log_out is not None:
        write_text_atomic(Path(log_out), format_log(events))
        # The log names its map by file name, as the tournament's kept logs do: say where it is.
        again = shlex.join(["treasure", "replay", log_out, "--map", maps[row.map_digest]])
        click.echo(printable(f"wrote {log_out} (replay it with: {again})"), err=True)
    return Replay(island, events)


def _export(game, html_path: str | None, svg_path: str | None, turn: int | None) -> None:
    """`replay --html/--svg`: write files from the step model instead of showing frames."""
    from treasure_cli.view.page import write_page, write_svg

    if html_path is not None:
        click.echo(f"wrote {write_page(game, html_path)}")
    if svg_path is not None:
        index = game.last_step() if turn is None else game.first_step_of(turn)
        click.echo(f"wrote {write_svg(game, index, svg_path)}")
