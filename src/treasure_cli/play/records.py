"""The one record of a played (or failed) game, shared by `run`, `bench` and their tables."""

from __future__ import annotations

import dataclasses
import hashlib
import json

WIN, LOSE, FAILED = "WIN", "LOSE", "failed"


@dataclasses.dataclass(frozen=True)
class GameRecord:
    """One game of one agent. A game that failed is never a LOSE: `outcome` is "failed",
    `reason` says how (bad-map, agent-error, illegal-action, game-timeout) and `error` why."""

    agent: str             # the agent spec as given
    map: str               # the map file, or "bench-<W>x<H>-<index>" for a generated island
    size: str              # "WxH"; "" when the map could not be read
    seed: int              # the game seed
    outcome: str           # WIN, LOSE or failed
    reason: str            # found / pirate / timeout for a played game, the failure's kind otherwise
    turns: int = 0
    seconds: float = 0.0
    error: str | None = None
    index: int = 0                   # the game's number on its island size (bench)
    island_seed: int | None = None   # generated islands (bench)
    log: str | None = None           # the log file written (run)
    warnings: tuple[str, ...] = ()
    output: str = ""                 # what the agent printed (kept, cut, never mixed into ours)
    traceback: str | None = None     # the agent's own frames, when its code raised
    isolation: str = ""              # where it played: in-process, process or sandbox
    game_id: str = ""                # `game_id(...)`: the same in bench, the store, JSON and the report
    play_digest: str | None = None   # a digest of the agent's actions (a game played to its end)

    @property
    def won(self) -> bool:
        return self.outcome == WIN

    @property
    def failed(self) -> bool:
        return self.outcome == FAILED


def game_id(agent: str, agent_digest: str, settings: str, map_digest: str, index: int, seed: int) -> str:
    """A game's stable id: 12 hex digits of a hash of all that decides how it goes (the agent and
    its code, the truth rate and turn limit of `settings`, the map's content, the game's number and
    seed). The same game gets the same id in `bench`, a tournament's store, their JSON and the
    report, and on every resume. A time limit decides no move, so it is not part of the id."""
    rules = json.loads(settings) if settings else {}
    rules.pop("game_timeout", None)
    text = "\x1f".join((agent.strip(), agent_digest, json.dumps(rules, sort_keys=True), map_digest, str(index),
                        str(seed)))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
