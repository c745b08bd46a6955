"""The contest's table and its page: every group's game on one map, on boards that play in step.

The page (`treasure contest MAP CLASS/ --html DIR` writes DIR/index.html) is
made for a projector: a grid of small boards, one per agent, all at the same
turn, sized so that every board fits the window (at 1920x1080, 12 boards and
more), with play, pause, step, a turn slider, a speed control and a choice of
which of the N games to show. Each board names its group, counts its turns
and, once its game is over, says on which turn it won, lost or failed, and
stays on its last frame. When the last game is over a podium shows the
first three ranks.

Like the replay pages (view/page.py) it is one file: the map once, each game
as one frame per turn (the agent's and the pirate's tiles, the tiles ruled
out that turn as runs), inline CSS and JS, nothing fetched. A game's frames
come from playing it again from the store (`rebuild_game`), as the
leaderboard's pages do; its result is the store's.
"""

from __future__ import annotations

import html
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from treasure_cli.errors import TreasureError
from treasure_cli.formats.atomic import ensure_folder, write_text_atomic
from treasure_cli.grading.contest import Contest, Placing
from treasure_cli.grading.store import Row
from treasure_cli.play.records import FAILED, WIN
from treasure_cli.rules.island import Island
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.view.page import (
    BACKGROUND, FIXED_COLOURS, HUE_COLOURS, DIM_COLOURS, TERRAIN_LAND, TERRAIN_MOUNTAIN, TERRAIN_PRISON,
    TERRAIN_SEA, _fill, runs, script_json, value_runs,
)
from treasure_cli.view.palette import agent_colour
from treasure_cli.view.render import AGENT, MOUNTAIN, PIRATE, PRISON, SEA, TREASURE, region_hues
from treasure_cli.view.steps import Replay
from treasure_cli.view.tables import align
from treasure_cli.view.policy import with_policy


def contest_table(contest: Contest) -> str:
    """The ranking as text, baselines marked where their score puts them."""
    unit = contest.time_unit
    rows = [["rank", "group", "wins", "failed", "mean turns to win", f"ms/{unit}", "games"]]
    for p in contest.placings:
        rows.append([contest.rank_text(p), p.name + (" (baseline)" if p.baseline else ""),
                     f"{p.wins}/{len(p.games)}", str(p.failed),
                     "-" if p.mean_turns_win is None else f"{p.mean_turns_win:.1f}", p.ms_text,
                     " ".join(_short(r) for r in p.games)])
    return (align(rows, 2) + f"\n\n{Path(contest.map_path).name}: {len(contest.groups)} groups, "
            f"{contest.games} game{'s' if contest.games != 1 else ''} each (the same seeds for all); ranked by "
            f"wins, then mean turns to a win, then ms per {unit}; baselines are not ranked"
            + ("" if unit == "action" else " (the store holds games of an older treasure-cli, "
               "which did not count actions)")
            + "".join(f"\n{status}: {name}: {reason}" for name, status, reason in contest.left_out))


def _short(r: Row) -> str:
    return f"W{r.turns}" if r.outcome == WIN else f"F{r.turns}" if r.outcome == FAILED else f"L{r.turns}"


def _ending(r: Row) -> str:
    """How a board says its game ended."""
    if r.outcome == WIN:
        return f"won on turn {r.turns}"
    if r.outcome == FAILED:
        return f"failed on turn {r.turns} ({r.reason})"
    return f"lost on turn {r.turns} ({r.reason})"


def game_frames(island: Island, events: list | None) -> list[list[Any]]:
    """One frame per turn from turn 0: [agent tile, pirate tile (-1 unknown to the agent), treasure
    tile once found or the game over (-1 before), runs of the tiles ruled out during that turn]."""
    if not events:
        return []
    replay = Replay(island, events)
    w = island.width
    last_of: dict[int, Any] = {}
    for index in range(replay.last_step() + 1):
        state = replay.state(index)
        last_of[state.turn] = state
    frames: list[list[Any]] = []
    prev: np.ndarray | None = None
    for turn in range(max(last_of) + 1):
        st = last_of.get(turn)
        if st is None:  # a turn with no step of its own: the frame before it again
            frames.append([*frames[-1][:3], []])
            continue
        cand = st.candidates
        out = runs(cand) if prev is None else runs(prev & ~cand)  # turn 0: the candidates themselves
        prev = cand

        def flat(pos: Any) -> int:
            return -1 if pos is None else int(pos[0]) * w + int(pos[1])

        frames.append([flat(st.agent), flat(st.pirate) if st.pirate_known else -1,
                       flat(st.treasure) if st.outcome is not None else -1, out])
    return frames


def contest_data(contest: Contest, island: Island, games: dict[str, tuple[list[list[Any]], str | None]]) -> dict:
    """The page's data: the map once, and per agent its games (`games`: game id -> frames and why
    it could not be shown, None when it could)."""
    terrain = np.full(island.shape, TERRAIN_LAND, dtype=np.int8)
    terrain[island.sea] = TERRAIN_SEA
    terrain[island.mountain] = TERRAIN_MOUNTAIN
    terrain[island.prison] = TERRAIN_PRISON
    boards = []
    for k, p in enumerate(contest.placings):
        boards.append({
            "name": p.name, "baseline": p.baseline, "rank": contest.rank_text(p), "colour": agent_colour(k),
            "score": (f"{p.wins}/{len(p.games)} won, "
                      + ("no win" if p.mean_turns_win is None else f"{p.mean_turns_win:.1f} turns to win")
                      + (f", {p.ms_text} ms/{contest.time_unit}" if p.timed else ", no game played to its end")),
            "games": [{"id": r.game_id, "turns": r.turns, "outcome": r.outcome, "ending": _ending(r),
                       "frames": games.get(r.game_id, ([], None))[0],
                       "why": games.get(r.game_id, ([], "not played again"))[1]} for r in p.games]})
    # A podium of the groups that won: a group that won no game is not shown on it, whatever its rank.
    podium = [{"rank": contest.rank_text(p), "name": p.name, "score": b["score"]}
              for p, b in zip(contest.placings, boards) if p.rank is not None and p.rank <= 3 and p.wins]
    return {"title": f"Contest on {Path(contest.map_path).name}", "map": Path(contest.map_path).name,
            "width": island.width, "height": island.height, "games": contest.games,
            "terrain": value_runs(terrain), "regions": value_runs(island.regions),
            "hues": {str(region): hue for region, hue in region_hues(island).items()},
            "boards": boards, "podium": podium,
            "left_out": [{"name": name, "verdict": status, "reason": reason}
                         for name, status, reason in contest.left_out],
            "colours": {"hues": list(HUE_COLOURS), "dim": list(DIM_COLOURS), "background": BACKGROUND,
                        "sea": FIXED_COLOURS[SEA], "mountain": FIXED_COLOURS[MOUNTAIN],
                        "prison": FIXED_COLOURS[PRISON], "treasure": FIXED_COLOURS[TREASURE],
                        "pirate": FIXED_COLOURS[PIRATE], "agent": FIXED_COLOURS[AGENT]}}


def contest_html(data: dict) -> str:
    template = resources.files("treasure_cli.view").joinpath("contest_template.html").read_text(encoding="utf-8")
    return with_policy(_fill(template, TITLE=html.escape(data["title"]), LEGEND="", FRAMES="", DATA=script_json(data)))


def write_contest_page(contest: Contest, folder: str | Path, map_path: str, isolation: str = "auto",
                       limits: AgentLimits | None = None) -> Path:
    """Play every game of the contest again for its frames and write FOLDER/index.html."""
    from treasure_cli.grading.tournament import maps_by_digest, rebuild_game, same_result

    folder = Path(folder)
    ensure_folder(folder)
    maps = maps_by_digest([map_path])
    island: Island | None = None
    games: dict[str, tuple[list[list[Any]], str | None]] = {}
    for p in contest.placings:
        for row in p.games:
            try:
                island, record, events = rebuild_game(row, maps, isolation, limits)
            except TreasureError as exc:
                games[row.game_id] = ([], str(exc))
                continue
            frames = game_frames(island, events)
            why = None
            if not same_result(row, record):
                why = f"played again, it ended as {record.outcome} on turn {record.turns}"
            elif not frames:
                why = record.error or "no turn to show"
            games[row.game_id] = (frames, why)
    if island is None:
        from treasure_cli.play.bench import playable_map

        found = playable_map(map_path)
        if isinstance(found, str):
            raise TreasureError(found)
        island = found[1]
    index = folder / "index.html"
    write_text_atomic(index, contest_html(contest_data(contest, island, games)))
    return index


__all__ = ["Placing", "contest_table", "write_contest_page", "contest_data", "game_frames"]
