"""Where a game's steps come from: a log file (checked against its map) or a game being played."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from treasure_cli.errors import TreasureError
from treasure_cli.formats.game_record import LogFormatError, event_line, read_log
from treasure_cli.formats.map_file import read_map
from treasure_cli.rules import events as ev
from treasure_cli.rules.actions import LARGE_SCAN_SIZE, SMALL_SCAN_SIZE, in_scan
from treasure_cli.rules.island import Island
from treasure_cli.view.steps import Replay

if TYPE_CHECKING:  # the game runner is imported by live_game only: a replay does not need it
    from treasure_cli.play.runner import RunOptions


def find_map(log_path: Path, recorded: str, given: str | None = None) -> Path:
    """The map of a log: `given` (--map), else the recorded path as it is, from the log's folder, or its parent's."""
    if given is not None:
        if not Path(given).is_file():
            raise TreasureError(f"{given}: no such map file")
        return Path(given)
    rec = Path(recorded)
    folder = log_path.parent
    up = folder / ".." if folder.name in ("", "..") else folder.parent  # Path("LOG.txt").parent.parent is "."
    options = [rec] if rec.is_absolute() else [rec, folder / rec, up / rec]
    tried: list[str] = []
    for option in options:
        if option.is_file():
            return option
        if str(option) not in tried:
            tried.append(str(option))
    raise TreasureError(f"{log_path}: cannot find the map {recorded} recorded in the log "
                        f"(tried {', '.join(tried)}); give it with --map")


def check_events(events: list[ev.Event], island: Island, path: str) -> None:
    """Cheap checks that a parsed log (GameStarted first) belongs to this map; the error names the line."""
    def fail(i: int, message: str) -> LogFormatError:
        return LogFormatError(path, event_line(i), message)

    start = events[0]
    assert isinstance(start, ev.GameStarted)  # read_log checked it
    if (start.width, start.height) != (island.width, island.height):
        raise fail(0, f"the log is for a {start.width}x{start.height} map, but the map given is "
                      f"{island.width}x{island.height}")
    if start.map_digest and start.map_digest != island.digest:
        raise fail(0, f"the map has changed since this game was played (its digest is now {island.digest}, "
                      f"the log says {start.map_digest}): give the map it was played on with --map")
    _check_story(events, island, fail)


def _check_story(events: list[ev.Event], island: Island, fail) -> None:
    """What a log claims, checked against the map and the rules a watcher can check:
    positions on the map, turns in order, moves that go where they say, scans of a
    real size that find the treasure exactly when they cover it, a WIN only right after
    such a scan, hints given and verified in order, one teleport, the game over once."""
    verified: set[int] = set()
    hints, turn, teleports = 0, 0, 0
    agent: tuple[int, int] | None = None
    treasure = island.treasure
    found: int | None = None  # the event index of the scan that found the treasure
    for i, e in enumerate(events):
        for field in dataclasses.fields(e):
            value = getattr(e, field.name)
            if isinstance(value, tuple) and len(value) == 2 and not island.inside(value):
                raise fail(i, f"{field.name} {value} is outside the {island.width}x{island.height} map")
        if i > 0 and isinstance(e, ev.GameStarted):
            raise fail(i, "a second start of the game")
        if isinstance(e, ev.TreasureHidden) and island.treasure is not None and e.treasure != island.treasure:
            raise fail(i, f"the log's treasure {e.treasure} is not the map's {island.treasure}: is it the right map?")
        if isinstance(e, ev.TreasureHidden):
            treasure = e.treasure
        if found is not None and not isinstance(e, (ev.AgentNoted, ev.AgentPrinted, ev.GameEnded, ev.GameFailed)):
            raise fail(i, f"the game goes on after the scan of line {event_line(found)} found the treasure")
        if isinstance(e, ev.GameEnded) and (found is not None) != (
                e.outcome is ev.Outcome.WIN and e.reason is ev.EndReason.FOUND):
            raise fail(i, f"a {e.outcome.value} ({e.reason.value}), but no scan found the treasure" if found is None
                       else f"a {e.outcome.value} ({e.reason.value}) after the scan of line {event_line(found)} "
                            "found the treasure")
        if isinstance(e, ev.AgentPlaced):
            agent = e.pos
        if isinstance(e, ev.TurnStarted):
            if e.turn != turn + 1:
                raise fail(i, f"turn {e.turn} starts after turn {turn}")
            turn = e.turn
        elif e.turn != turn:
            raise fail(i, f"an event of turn {e.turn} during turn {turn}")
        if isinstance(e, ev.HintGiven):
            hints += 1
            if e.number != hints:
                raise fail(i, f"expected hint {hints}, found hint {e.number}")
        if isinstance(e, ev.HintVerified):
            if not 1 <= e.number <= hints or e.number in verified:
                raise fail(i, f"hint {e.number} cannot be verified here (hints given: {hints}, "
                              f"verified: {sorted(verified)})")
            verified.add(e.number)
        if isinstance(e, ev.AreaScanned) and e.centre != agent:
            raise fail(i, f"a scan around {e.centre}, but the agent is at {agent}")
        if isinstance(e, ev.AreaScanned) and e.size not in (SMALL_SCAN_SIZE, LARGE_SCAN_SIZE):
            raise fail(i, f"a scan of side {e.size}; scans are {SMALL_SCAN_SIZE}x{SMALL_SCAN_SIZE} or "
                          f"{LARGE_SCAN_SIZE}x{LARGE_SCAN_SIZE}")
        if isinstance(e, ev.AreaScanned) and treasure is not None:
            if e.found != in_scan(e.centre, e.size, treasure):
                raise fail(i, f"the scan around {e.centre} says the treasure was {'' if e.found else 'not '}found, "
                              f"but the treasure at {treasure} is {'not ' if e.found else ''}in its square")
            if e.found:
                found = i
        if isinstance(e, ev.AgentMoved):
            dst = (e.src[0] + e.direction.dr * e.steps, e.src[1] + e.direction.dc * e.steps)
            if not 1 <= e.steps <= 4 or dst != e.dst or e.src != agent:
                raise fail(i, f"the agent at {agent} cannot move {e.direction.name} {e.steps} "
                              f"from {e.src} to {e.dst}")
            agent = e.dst
        if isinstance(e, ev.Teleported):
            teleports += 1
            if teleports > 1 or e.src != agent:
                raise fail(i, "a second teleport" if teleports > 1 else f"the agent is at {agent}, not {e.src}")
            agent = e.dst


def open_log(log_path: str | Path, map_path: str | None = None) -> Replay:
    """A log file ready to step through; TreasureError (naming file and line) when it cannot be."""
    from treasure_cli.formats.hint_plugins import beside

    log_path = Path(log_path)
    with beside(log_path.parent):  # a plugin hint kind may be found beside the log (its file, its digest checked)
        events = read_log(log_path)
    start = events[0]
    if not isinstance(start, ev.GameStarted):
        raise LogFormatError(str(log_path), event_line(0), "the first event must be the start of the game")
    island = read_map(find_map(log_path, start.map_name, map_path))
    check_events(events, island, str(log_path))
    return Replay(island, events, path=str(log_path))


def live_game(map_path: Path, options: RunOptions, warnings: list[str] | None = None) -> Replay:
    """A game played as it is watched, with the seeds and names of `treasure run` (same log).

    The agent plays where it would in `run`. A watcher may pause for as long as they like,
    so the game is untimed and only each action of an agent in a process of its own is
    timed (`--action-timeout`, else the default game timeout): see sandbox.seat.UNTIMED.
    An agent in this process (`--agent-isolation none`, trusted code) is not timed.
    """
    import contextlib

    from treasure_cli.sandbox.seat import UNTIMED, seat
    from treasure_cli.play.loop import play_agent
    from treasure_cli.play.runner import game_seed, map_label
    from treasure_cli.rules.game import Game

    island = read_map(map_path, warnings)
    with contextlib.ExitStack() as setting_up:  # the seat is taken now (a bad agent fails here)
        taken = setting_up.enter_context(seat(options.agent, options.isolation, options.limits, None, UNTIMED))
        taken.begin(island.public(), None, options.notes)  # a warm host's fresh process, before the first step is asked for
        held = setting_up.pop_all()  # and left when the game is
    game = Game(island, game_seed(island, options), agent_name=options.agent, map_name=map_label(map_path),
                truth_rate=options.truth_rate, max_turns=options.max_turns, hint_truths_public=taken.hint_truths,
                hints=options.hints)

    def events():
        with held:
            yield from play_agent(game, taken.agent, notes=options.notes, output=options.agent_output)
            taken.game_over(game)

    return Replay(island, events())
