"""A tournament: many agents on many map files, every game recorded in a results store.

`treasure tournament SUBMISSIONS --maps DIR --db results.sqlite` plays here. Game i on a map
is the same game as in a plain `treasure bench --maps` (its seed comes from
the base seed, the map's content digest and i), so both give the same
results; the tournament also records each game in the store (grading/store.py)
as it finishes and skips every game the store already holds.

Each game is one pure task, an `Entry` carrying all it needs (the agent
spec, a file agent's source bytes, the map's text, the seed and settings),
so it can be played in this process, in a local pool or on a Dask worker
that has no copy of the files (play/executor.py decides where).

The leaderboard ranks the agents of a store by a score of two parts, wins
first, then turns to a win, and compares every two agents on the games both
played with an exact sign test on each part in turn (`compare`), so agents
whose difference could be luck share a rank. Every game has an id
(records.game_id); `rebuild_game` plays a stored game again, exactly.
"""

from __future__ import annotations

import collections
import dataclasses
import json
import math
import re
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from functools import cached_property, lru_cache
from pathlib import Path

from treasure_cli.errors import TreasureError
from treasure_cli.grading.early_wins import EarlyWins
from treasure_cli.grading.paces import SAMPLED, Paces
from treasure_cli.formats.hint_plugins import BUILTIN_KEY, describe_key, hint_set_of_key, hints_key
from treasure_cli.formats.text import one_line
from treasure_cli.formats.map_file import parse_map
from treasure_cli.play.bench import (
    BenchOptions, MapInfo, game_stats, playable_map, read_playable, summarize,
)
from treasure_cli.play import pulse, shipping
from treasure_cli.play.executor import WAIT, run_tasks, signals_held
from treasure_cli.play.games import play_game
from treasure_cli.play.records import WIN, GameRecord
from treasure_cli.sandbox import tree
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.grading.store import Row, Store, now
from treasure_cli.grading.tokens import SimilarPair
from treasure_cli.grading.verdicts import BASELINE, FAILED as ALL_FAILED, PLAYED, Verdict, public_reason
from treasure_cli.play.records import settings_key
from treasure_cli.rules.hint_draw import HintSet
from treasure_cli.rules import seeds
from treasure_cli.rules.island import Island
from treasure_cli.islands.style import map_style
from treasure_cli.sandbox.launch import agent_code

ALPHA = 0.05  # two agents whose paired sign test gives p < ALPHA are told apart


@dataclasses.dataclass(frozen=True)
class Entry:
    """One game of the tournament: everything a worker needs, in plain values."""

    agent: str
    agent_digest: str
    source: bytes | None  # a file agent's or a program's bytes (played from a copy); None: resolve the spec
    map_path: str         # the map's name: its path under --maps (`s48/MAP_01.txt`), as stored and shown
    map_digest: str
    map_data: bytes       # the map file's text, zlib-compressed (`pack_map`)
    tiles: int            # W x H, to start the biggest maps first
    index: int
    seed: int
    truth_rate: float = 0.5
    max_turns: int | None = None
    game_timeout: float | None = None
    isolation: str = "auto"
    limits: AgentLimits = AgentLimits()
    name: str = ""        # the student the agent stands for ("" for a spec given as it is)
    hints: HintSet | None = None  # the pirate's kinds (None: the built-ins); crosses to a worker as its files' bytes
    bundle: str | None = None  # on a cluster: the digest of the agent's files sent to the workers (play/shipping.py)

    @cached_property  # read for every game's key, several times a run: one JSON text per entry
    def settings(self) -> str:
        return settings_key(self.truth_rate, self.max_turns, self.game_timeout, hints_key(self.hints))

    @cached_property
    def key(self) -> tuple:
        return (self.agent, self.agent_digest, self.settings, self.map_digest, self.seed)


def pack_map(text: str) -> bytes:
    """A map's text as a task carries it: every game ships its map, and a map's text
    packs ~14x (a 256x256 map: 233 kB to 17 kB), which a Dask scheduler and worker
    then copy, frame and read for each task instead of the whole text."""
    return zlib.compress(text.encode("utf-8"), 1)


@lru_cache(maxsize=8)
def _island(data: bytes, path: str) -> Island:
    # A worker plays every agent on a map in a row: unpack, parse and warm it once.
    return parse_map(zlib.decompress(data).decode("utf-8"), path).precompute()


@lru_cache(maxsize=8)
def _style(data: bytes, path: str) -> str:
    return map_style(_island(data, path))


def play_entry(entry: Entry) -> Row:
    """Play one game; its row for the store. Pure: the same entry gives the same row (but seconds)."""
    from treasure_cli.version import __version__

    began = time.perf_counter()
    island = _island(entry.map_data, entry.map_path)
    spec, here = entry.agent, ""
    if entry.bundle is not None:  # a worker: the agent's folder as it was sent (its entry too), not this disk's
        spec, here = shipping.local_spec(entry.agent, entry.bundle)
    record, _ = play_game(island, spec, entry.seed, map_name=entry.map_path,
                          truth_rate=entry.truth_rate, max_turns=entry.max_turns,
                          game_timeout=entry.game_timeout, keep_events=False, isolation=entry.isolation,
                          limits=entry.limits, source=entry.source, index=entry.index, hints=entry.hints)
    if here:  # its paths said as the referee's machine knows them
        name = shipping.entry_path(entry.agent)
        assert name is not None
        there = str(Path(name).expanduser().parent)
        record = dataclasses.replace(record, error=record.error and record.error.replace(here, there),
                                     traceback=record.traceback and record.traceback.replace(here, there))
    return Row(entry.agent, entry.agent_digest, entry.settings, entry.map_path, entry.map_digest, entry.index,
               entry.seed, record.size, record.outcome, record.reason, record.error, record.turns,
               record.seconds, __version__, now(), record.output, record.traceback, record.isolation, entry.name,
               play_digest=record.play_digest, actions=record.actions, map_style=_style(entry.map_data, entry.map_path),
               busy=time.perf_counter() - began)


def play_entries(entries: tuple[Entry, ...], ticket: int = -1) -> list[Row]:
    """The task handed to the executor: play its games (one: see `_tasks`), their rows. `ticket`: the
    number its game goes by on the worker's board (play/pulse.py), -1 for none."""
    rows = []
    for e in entries:
        pulse.ticket(ticket)
        try:
            rows.append(play_entry(e))
        finally:
            pulse.ended()
    return rows


def _order(todo: list[Entry]) -> list[Entry]:
    """The games in the order they are offered: largest maps first (so no big one is left running
    alone at the end), then game 0 of every map of that size, game 1 of every map, ... (each map's
    games for every agent in a row, as in bench's order). The first games then sample every map,
    not the first one or two: maps of one size differ in what their games cost (measured: 2.6 s to
    4.4 s a tenth of a run of eight maps), and the ETA prices the rest from the first games."""
    return sorted(todo, key=lambda e: (-e.tiles, e.index))  # stable: bench's order (map, agent) within


class FairShare:
    """The tournament's tasks, one game each, offered as workers free up: no agent holds more than
    all the workers but one while another agent has games waiting, and no game starts on an island
    that a game of its agent in flight may have heard of.

    One game a task, so a game is recorded the moment it ends: Ctrl-C or SIGTERM keeps every
    game that finished. (A task used to be one seed on one map for every agent, to parse the map
    once: one agent taking 0.5 s an action then held every task open, and Ctrl-C after 40 s kept
    none of 450 games.) And one slow agent's games cannot take every worker while the others
    wait: its next game starts only when fewer than `workers - 1` of its games are in flight, or
    when no other agent has a game to start (a worker is never left idle for fairness alone).

    Games that run at the same time can talk (a lock on a shared file, the CPU, the caches while
    both run: docs/security.md, "Side channels"), so a game of an agent may learn the islands of
    the agent's games beside it, and they what it learnt, and so on along a chain of the agent's
    games, each beside the next, for as long as one of them runs: a game that finds the treasure
    could hand its tile to a later game of its agent on the same island. `known[agent]` is every
    island such a chain may carry: the islands of the agent's games since it last had none in
    flight (the games in flight all run beside each other, so each may know them all). A game on
    one of them waits; when the agent's last game in flight ends, the chain is broken (what a game
    leaves behind is emptied with it, sandbox/cgroups.py) and `known` starts again empty. An agent
    whose games are all that is left thus plays two at a time across the islands, then lets its
    games in flight end before it starts an island again.

    `apart` keeps every agent's games in one chain (`tournament --apart`): the chain of games side
    by side then runs across agents, so two groups that collude cannot pass a tile between their
    games either. All the games are then played in passes of one game an island, and between two
    passes every game in flight ends: cheap with many more islands than workers (a worker idles
    about half a game a pass). A pass lasts its slowest game, so one very slow agent would hold
    every other back (an agent taking 0.5 s an action: 29 of 120 games kept after 40 s, against 98
    side by side). With `apart`, an agent whose games take more than SLOW_PACE times the median
    agent's (grading/paces.py; the games' own seconds, told to `ended`) plays once the others have
    no game left to start: they play on in short passes, and the slow games come last.

    A worker still parses a map once for its games in a row (`_island`); handing one game to a
    process costs well under a millisecond beside a sandboxed game's tens (docs/tournament.md).
    """

    def __init__(self, todo: list[Entry], workers: int, on_start: Callable[[Entry], None] | None = None,
                 apart: bool = False):
        self.apart = apart
        self.cap = max(1, workers - 1)
        self.on_start = on_start
        self.workers = workers
        self.waiting: dict[str, collections.deque[tuple[int, Entry]]] = {}
        for k, e in enumerate(_order(todo)):
            self.waiting.setdefault(e.agent, collections.deque()).append((k, e))
        self.running: collections.Counter[str] = collections.Counter()
        # a chain (an agent, or "" for all with `apart`) -> the islands (map digests) its games in flight may know
        self.known: dict[str, set[str]] = collections.defaultdict(set)
        self.handed: dict[int, Entry] = {}  # each game handed over, by its ticket (its place in the order)
        self.paces = Paces()  # each agent's ended games' own seconds (grading/paces.py)

    def _head(self, agent: str) -> int | None:
        """The place in the agent's queue of its first game on an island none of the games in flight
        of its chain may know (None: every game it has left is on one)."""
        known = self.known.get(self._chain(agent))
        for i, (_, entry) in enumerate(self.waiting[agent]):
            if not known or entry.map_digest not in known:
                return i
        return None

    def __iter__(self) -> Iterator[tuple]:
        while self.waiting:
            heads = [(queue[i][0], agent, i) for agent, queue in self.waiting.items()
                     for i in [self._head(agent)] if i is not None]
            if self.apart and self.workers > 1:  # the slow agents' games wait while another agent has one to start
                slow = self.paces.slow(after=SAMPLED * self.workers)
                if slow and any(agent not in slow for agent in self.waiting):
                    heads = [h for h in heads if h[1] not in slow]
            fair = [h for h in heads if self.running[h[1]] < self.cap]
            if not heads or (not fair and sum(self.running.values()) >= self.workers):
                yield WAIT  # every worker is busy, or every game left waits for its island: asked again when one ends
                continue
            _, agent, i = min(fair or heads)
            queue = self.waiting[agent]
            k, entry = queue[i]
            del queue[i]
            if not queue:
                del self.waiting[agent]
            self.running[agent] += 1
            self.known[self._chain(agent)].add(entry.map_digest)
            self.handed[k] = entry
            if self.on_start is not None:
                self.on_start(entry)
            yield ((entry,), k)  # play_entries' arguments: a tuple of one game, its ticket

    def _chain(self, agent: str) -> str:
        return "" if self.apart else agent

    def ended(self, agent: str, seconds: float | None = None) -> None:
        """A game of `agent` has ended, after `seconds` of its own (None: not known)."""
        if seconds is not None:
            self.paces.ended(agent, seconds)
        self.running[agent] -= 1
        if not self.running[agent]:
            del self.running[agent]
        in_chain = self.running if self.apart else self.running[agent]  # the chain's games in flight
        if not in_chain:  # none: its chain of games side by side is broken
            self.known.pop(self._chain(agent), None)

    def workers_are(self, workers: int) -> None:
        """How many games can be played at once, once known (a Dask cluster's threads)."""
        self.workers, self.cap = workers, max(1, workers - 1)


@dataclasses.dataclass(frozen=True)
class TournamentResult:
    options: BenchOptions
    rows: tuple[Row, ...]      # the row of every game of the command, in bench's order
    played: int                # games played by this run
    already: int               # games found in the store and not played again
    seconds: float
    skipped: tuple[str, ...] = ()  # maps left out, and why
    secret_seed: bool = False      # the games were drawn from the store's own secret base seed


def make_entries(options: BenchOptions, maps: dict[str, MapInfo], names: dict[str, str] | None = None,
                 map_names: dict[str, str] | None = None) -> list[Entry]:
    """Every game of the command, in bench's record order (map, game index, agent);
    `maps` as `read_playable(..., keep=pack_map)` gives them, `names` the student of an agent spec,
    `map_names` the name of a map path (its path under --maps; by default the path as given)."""
    names = names or {}
    map_names = map_names or {}
    base = options.seed
    assert base is not None  # the store's secret one when not given
    codes = {agent: agent_code(agent) for agent in options.agents}
    entries = []
    for path in options.maps:
        if path not in maps:
            continue
        info = maps[path]
        for i in range(options.games):
            seed = seeds.bench_map_game_seed(base, info.digest, i)
            for agent in options.agents:
                code = codes[agent]
                entries.append(Entry(agent, code.digest, code.source, map_names.get(path, path), info.digest,
                                     info.data,
                                     info.width * info.height, i, seed,
                                     options.truth_rate, options.max_turns, options.game_timeout,
                                     options.isolation, options.limits, names.get(agent, ""), options.hints))
    return entries


def run_tournament(options: BenchOptions, db: str | Path, *, jobs: int = 1, scheduler: str | None = None,
                   on_progress: Callable[[list[Row]], None] | None = None,
                   on_plan: Callable[[list[Entry], int], None] | None = None,
                   names: dict[str, str] | None = None, map_names: dict[str, str] | None = None,
                   on_start: Callable[[Entry], None] | None = None,
                   on_flight: Callable[[list[tuple[tuple, float, int]]], None] | None = None,
                   apart: bool = True) -> TournamentResult:
    """Play every game of `options` (map files) that `db` does not hold yet, recording each as it finishes.

    `options.seed` None: the store's secret base seed (made when the store is, kept for resuming).

    `names` maps an agent spec to the student it stands for (shown instead of the spec), `map_names`
    a map's path to the name it is recorded under (`cli.options.map_names`: its path under --maps).
    `on_plan(to_play, already)` is called once before the first game (the entries to play, and the
    count of the command's games the store holds already),
    `on_progress(rows)` with the rows of each game recorded, once it is committed, and
    `on_start(entry)` when a game is handed to a worker, and `on_flight(games)` before each
    `on_progress`, with (key, seconds so far, actions so far) of each game in flight that has begun
    (play/pulse.py; only with worker processes: `jobs` > 1 and no `scheduler`). `apart` (the default): no
    game starts on an island that a game in flight, of any agent, may have heard of (FairShare); False
    (`--side-by-side`): only of its own agent.
    """
    if not options.maps:
        raise TreasureError("a tournament plays map files: give --maps")
    start = time.perf_counter()
    tree.protect(db, *options.maps)  # out of every agent's copy, even one whose folder holds them
    maps, skipped = read_playable(options.maps, keep=pack_map)
    secret = False
    with Store(db) as store:
        if options.seed is None:  # the store's own secret (grading/store.py): no agent can know it
            seed, secret = store.base_seed()
            # ... nor time it out of the referee's replies (sandbox/pacing.py)
            options = dataclasses.replace(options, seed=seed,
                                          limits=dataclasses.replace(options.limits, steady_replies=secret))
        wanted = hints_key(options.hints)
        stored = store.claim_hint_kinds(wanted or BUILTIN_KEY)
        if stored != (wanted or BUILTIN_KEY):  # its games and these would not be one tournament
            raise TreasureError(f"{db} holds games played with the hint kinds {describe_key(stored)}; this run "
                                f"gives {describe_key(wanted)}: give the store's --hints files and "
                                "--hint-weights, or start a new store")
        entries = make_entries(options, maps, names, map_names)
        settings = settings_key(options.truth_rate, options.max_turns, options.game_timeout, wanted)
        done = store.keys(settings)
        already = len({e.key for e in entries} & done)
        todo = [e for e in entries if e.key not in done]
        todo = list({e.key: e for e in todo}.values())  # a map given twice is one game
        shipped: dict[str, bytes] = {}
        if scheduler is not None:  # the workers may not see the agents' folders: their files go with the games
            todo, shipped = _with_bundles(todo)
        if on_plan is not None:
            on_plan(todo, already)
        played = 0
        # On a Dask cluster too: no more games in flight than its threads (the executor says how
        # many), so a slow agent's games cannot queue on every worker ahead of the others'.
        share = FairShare(todo, jobs, on_start, apart)
        board = (pulse.new_board(min(jobs, len(todo))) if on_flight is not None and scheduler is None
                 and min(jobs, len(todo)) > 1 else None)
        for _, rows in run_tasks(play_entries, share, jobs, count=len(todo), scheduler=scheduler,
                                 shipped=shipped, on_workers=share.workers_are, board=board):
            for r in rows:
                share.ended(r.agent, r.seconds)
            if board is not None and on_flight is not None:
                on_flight([(share.handed[k].key, seconds, actions) for k, seconds, actions in pulse.read(board)
                           if k in share.handed])
            # Committed at once: only the games in flight are ever at risk. A Ctrl-C or SIGTERM
            # waits for the commit and its count, so the games said kept are the games kept.
            with signals_held():
                store.add(*rows)
                played += len(rows)
                if on_progress is not None:
                    on_progress(rows)
        store.flush()
        by_key = {r.key: r for r in store.rows(settings)}
    ordered = tuple(by_key[e.key] for e in entries)
    return TournamentResult(options, ordered, played, already, time.perf_counter() - start, tuple(skipped), secret)


def _with_bundles(todo: list[Entry]) -> tuple[list[Entry], dict[str, bytes]]:
    """The entries, each file agent's and program's naming the bundle of its files (packed once
    per agent, play/shipping.py) in place of its entry's bytes (in the bundle: a program's bytes
    go once to each worker, not with every game), and the bundles by digest."""
    made: dict[tuple[str, bytes | None], str | None] = {}
    shipped: dict[str, bytes] = {}
    for e in todo:
        if e.source is not None and (e.agent, e.source) not in made:
            bundle = shipping.pack(e.agent, e.source)
            made[e.agent, e.source] = bundle.digest if bundle is not None else None
            if bundle is not None:
                shipped[bundle.digest] = bundle.data
    bundled = []
    for e in todo:
        digest = made.get((e.agent, e.source))
        bundled.append(dataclasses.replace(e, bundle=digest, source=None) if digest is not None else e)
    return bundled, shipped


def as_record(row: Row, label: str | None = None) -> GameRecord:
    """A stored game as the GameRecord that bench's tables and charts take."""
    return GameRecord(label or row.label, row.map_path, row.size, row.seed, row.outcome, row.reason,
                      row.turns, row.seconds, row.error_said, index=row.game_index, output=row.output,
                      traceback=row.traceback, isolation=row.isolation, game_id=row.game_id)


# -- the leaderboard ----------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Standing:
    rank: int            # 1 + the number of agents significantly better than this one
    agent: str           # the label: the spec, or spec@digest with all versions
    spec: str
    agent_digest: str
    games: int
    wins: int
    win_rate: float
    win_low: float       # 95 % Wilson interval
    win_high: float
    failed: int
    mean_turns_win: float | None
    median_ms_turn: float = 0.0  # the median of a game's time over its turns (a turn: one or two actions)
    above_wins: int = 0   # agents told better on wins (the score's first part)
    above_turns: int = 0  # agents as good on wins told better on turns to a win (its second part)


@dataclasses.dataclass(frozen=True)
class Pair:
    """Two agents on the games both played: how often exactly one of them won."""

    a: str
    b: str
    games: int           # games both played
    a_only: int          # games a won and b did not
    b_only: int
    p_value: float       # exact two-sided sign test of a_only against b_only
    distinguishable: bool  # told apart, on wins (p_value < ALPHA) or else on turns (turns_p_value < ALPHA)
    both_won: int = 0    # games both won
    a_faster: int = 0    # of those, games a won in fewer turns than b
    b_faster: int = 0
    turns_p_value: float = 1.0  # exact two-sided sign test of a_faster against b_faster
    decided_by: str = ""  # "wins", "turns", or "" (not told apart)

    @property
    def better(self) -> str | None:
        """The agent told to be the better one, None when the two are not told apart."""
        if self.decided_by == "wins":
            return self.a if self.a_only > self.b_only else self.b
        if self.decided_by == "turns":
            return self.a if self.a_faster > self.b_faster else self.b
        return None

    def flipped(self) -> Pair:
        return Pair(self.b, self.a, self.games, self.b_only, self.a_only, self.p_value, self.distinguishable,
                    self.both_won, self.b_faster, self.a_faster, self.turns_p_value, self.decided_by)


@dataclasses.dataclass(frozen=True)
class Leaderboard:
    settings: str
    standings: tuple[Standing, ...]
    pairs: tuple[Pair, ...]
    rows: tuple[Row, ...]
    labels: dict[int, str]  # row id -> agent label
    secret_seed: int | None = None  # the store's secret base seed: for the one who runs the report
    flags: tuple[Flag, ...] = ()    # similarity flags on pairs of agents (filled by the caller)
    hint_kinds: str | None = None   # the store's hint kinds (hint_plugins.hints_key; None: the built-ins)
    similar: tuple[SimilarPair, ...] = ()  # pairs flagged by tokens, for their side-by-side pages
    similarity: tuple[tuple[str, str, float], ...] = ()  # every pair compared by tokens: a, b, percent
    left_out: tuple[Verdict, ...] = ()  # groups that never reached a game (the store's verdicts), by name
    student_ids: dict[str, str] = dataclasses.field(default_factory=dict)  # group -> the roster's id
    early: tuple[EarlyWins, ...] = ()  # agents with more first-turn wins than play explains (the caller's)

    def verdict(self, standing: Standing, public: bool = False) -> Verdict:
        """A ranked agent's verdict: played, or failed when every game it played failed (with the
        first game's cause; `public`: the kinds of failure only, none of the agent's own words);
        baseline for an agent that is no group's (given with --with)."""
        rows = self.rows_of(standing.agent)
        if rows and not any(r.name for r in rows):  # (as `counts` tells the groups from the rest)
            return Verdict(standing.agent, BASELINE)
        later = next((v for v in self.left_out if v.group == standing.agent), None)
        note = "" if later is None or public else f"latest submission {later.text}; these are earlier games"
        if not rows or standing.failed < standing.games:
            return Verdict(standing.agent, PLAYED, note)
        kinds = sorted({r.reason for r in rows})
        reason = f"{'its one game' if standing.games == 1 else f'all {standing.games} games'} failed ({', '.join(kinds)})"
        if not public and rows[0].error:
            reason += f"; the first: {rows[0].error_said}"
        return Verdict(standing.agent, ALL_FAILED, reason + (f"; {note}" if note else ""))

    @property
    def unranked(self) -> tuple[Verdict, ...]:
        """The groups with no games to rank: left out, or their build failed (each scores zero)."""
        ranked = {s.agent for s in self.standings}
        return tuple(v for v in self.left_out if v.group not in ranked)

    def counts(self) -> dict[str, int]:
        """How many groups (students, not the built-in agents) were found, played, left out and failed."""
        groups = [s for s in self.standings if any(r.name for r in self.rows_of(s.agent))]
        failed = sum(self.verdict(s).status == ALL_FAILED for s in groups)
        not_played = self.unranked
        return {"found": len(groups) + len(not_played), "played": len(groups) - failed,
                "left out": sum(v.status != "build failed" for v in not_played),
                "failed": failed + sum(v.status == "build failed" for v in not_played)}

    @property
    def hint_kinds_text(self) -> str | None:
        """The hint kinds played, in words, when they are not the 15 built-in kinds."""
        return None if self.hint_kinds is None else describe_key(self.hint_kinds)

    def rows_of(self, agent: str) -> list[Row]:
        """The games counted for the agent labelled `agent`."""
        return [r for r in self.rows if self.labels.get(r.id or 0) == agent]


@dataclasses.dataclass(frozen=True)
class Flag:
    """A pair of agents that may share work (a copy, or identical play): for the teacher to look at."""

    a: str
    b: str
    kind: str      # e.g. "exact copy", "same syntax tree", "identical play"
    detail: str = ""


def sign_test(a_only: int, b_only: int) -> float:
    """Exact two-sided binomial (sign) test p-value of a_only successes in a_only + b_only fair trials."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))


def compare(a: str, b: str, a_games: dict[tuple, int | None], b_games: dict[tuple, int | None]) -> Pair:
    """Two agents on the games both played (each game: the turns to its win, None when not won).

    The score has two parts, compared in turn by the paired sign test: wins
    first (the games exactly one of the two won); when those do not tell the
    two apart, turns to a win (of the games both won, those one of them won in
    fewer turns; games won in as many turns count for neither). Both tests
    at p < ALPHA; two agents told apart by neither share a rank.
    """
    common = a_games.keys() & b_games.keys()
    a_only = sum(a_games[g] is not None and b_games[g] is None for g in common)
    b_only = sum(b_games[g] is not None and a_games[g] is None for g in common)
    both = [(a_games[g], b_games[g]) for g in common if a_games[g] is not None and b_games[g] is not None]
    a_faster = sum(x < y for x, y in both)  # type: ignore[operator]
    b_faster = sum(y < x for x, y in both)  # type: ignore[operator]
    p_wins = sign_test(a_only, b_only)
    p_turns = sign_test(a_faster, b_faster)
    decided = "wins" if p_wins < ALPHA else "turns" if p_turns < ALPHA else ""
    return Pair(a, b, len(common), a_only, b_only, p_wins, bool(decided), len(both), a_faster, b_faster,
                p_turns, decided)


def leaderboard(rows: Sequence[Row], all_versions: bool = False, settings: str = "") -> Leaderboard:
    """Rank the agents of `rows` (one settings): one row per agent, its latest code unless `all_versions`."""
    # In the order of the games (map, number, agent), not of the store, which is the order they finished
    # in: the failures listed and the examples shown are then the same on every run.
    rows = sorted(rows, key=lambda r: (r.map_path, r.game_index, r.agent, r.id or 0))
    latest: dict[str, tuple[int, str]] = {}
    for r in rows:
        if r.agent not in latest or (r.id or 0) > latest[r.agent][0]:
            latest[r.agent] = (r.id or 0, r.agent_digest)
    if all_versions:
        versions = {(r.agent, r.agent_digest) for r in rows}
        several = {a for a, _ in versions if sum(1 for b, _ in versions if b == a) > 1}

        def label(r: Row) -> str | None:
            return f"{r.label}@{r.agent_digest.partition(':')[2][:8]}" if r.agent in several else r.label
    else:
        def label(r: Row) -> str | None:
            return r.label if latest[r.agent][1] == r.agent_digest else None
    groups: dict[str, list[Row]] = {}
    labels: dict[int, str] = {}
    for r in rows:
        name = label(r)
        if name is not None:
            groups.setdefault(name, []).append(r)
            labels[r.id or 0] = name
    # each game: the turns it took to win, None when not won
    won = {name: {(r.map_digest, r.seed): (r.turns if r.outcome == WIN else None) for r in rs}
           for name, rs in groups.items()}
    names = list(groups)
    pairs = []
    above_wins: dict[str, int] = {name: 0 for name in names}
    above_turns: dict[str, int] = {name: 0 for name in names}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            pair = compare(a, b, won[a], won[b])
            pairs.append(pair)
            if pair.better is not None:
                worse = b if pair.better == a else a
                (above_wins if pair.decided_by == "wins" else above_turns)[worse] += 1
    standings = []
    for name, rs in groups.items():
        st = game_stats(name, "all", [as_record(r) for r in rs])  # bench's statistics, counted once
        standings.append(Standing(1 + above_wins[name] + above_turns[name], name, rs[0].agent,
                                  rs[-1].agent_digest, st.games, st.wins, st.win_rate, st.win_low, st.win_high,
                                  st.failed, st.mean_turns_win, st.median_ms_turn,
                                  above_wins=above_wins[name], above_turns=above_turns[name]))
    standings.sort(key=lambda s: (s.rank, -s.win_rate, math.inf if s.mean_turns_win is None else s.mean_turns_win,
                                  s.agent))
    order = {s.agent: k for k, s in enumerate(standings)}
    pairs = [p if order[p.a] < order[p.b] else p.flipped() for p in pairs]
    pairs.sort(key=lambda p: (order[p.a], order[p.b]))
    return Leaderboard(settings, tuple(standings), tuple(pairs), tuple(rows), labels)


def store_leaderboard(db: str | Path, settings: str | None = None, all_versions: bool = False) -> Leaderboard:
    """The leaderboard of the games of `db` played with `settings` (None: the one set of settings
    the store holds; TreasureError listing them, as options, when it holds several)."""
    with Store(db, create=False) as store:
        kinds = store.hint_kinds()
        kinds = None if kinds == BUILTIN_KEY else kinds
        if settings is not None and kinds is not None:  # the options' settings, with the store's kinds
            settings = json.dumps({**json.loads(settings), "hints": kinds}, sort_keys=True)
        seen = store.settings_seen()
        if settings is None:
            if len(seen) > 1:
                raise TreasureError(f"{db} holds games played with {len(seen)} sets of options; say which with "
                                    + " or with ".join(f"`{settings_options(s)}`" for s in seen))
            settings = seen[0] if seen else settings_key(0.5, None, None)
        rows = store.rows(settings)
        secret = store.secret_seed()
        left_out = tuple(Verdict(*v) for v in store.verdicts())
        ids = store.student_ids()
        if not rows:
            if seen:
                raise TreasureError(f"{db} holds no game played with {settings_options(settings)}; it holds "
                                    "games played with " + " and with ".join(settings_options(s) for s in seen))
            if not left_out:  # (a class whose every group was left out has its verdicts to report)
                raise TreasureError(f"{db} holds no game yet")
    return dataclasses.replace(leaderboard(rows, all_versions, settings), secret_seed=secret, hint_kinds=kinds,
                               left_out=left_out, student_ids=ids)


def settings_options(settings: str) -> str:
    """A stored settings key said as the command-line options that give it."""
    import json

    values = json.loads(settings)
    words = [] if values.get("truth_rate") is None else [f"--truth-rate {values['truth_rate']:g}"]
    if values.get("max_turns") is not None:
        words.append(f"--max-turns {values['max_turns']}")
    if values.get("game_timeout") is not None:
        words.append(f"--game-timeout {values['game_timeout']:g}")
    return " ".join(words)


def leaderboard_json(board: Leaderboard, secret_seed: bool = False) -> dict:
    """The ranking as JSON: every ranked agent with its verdict, then the groups with no game (scoring
    zero). The store's secret base seed only when asked (`secret_seed`): this is made to be published."""
    standings = []
    for s in board.standings:
        verdict = board.verdict(s, public=True)  # as the public pages say it: no agent's own words
        standings.append({**dataclasses.asdict(s), "spec": public_reason(s.spec),  # no folder of this machine
                          "tied": tied(board, s), "verdict": verdict.status, "reason": verdict.reason})
    unranked = [{"agent": v.group, "rank": None, "games": 0, "wins": 0, "win_rate": 0.0, "verdict": v.status,
                 "reason": public_reason(v.reason)} for v in board.unranked]
    data = {"settings": board.settings, "games": len(board.rows), "groups": board.counts(),
            "standings": standings, "unranked": unranked,
            "pairs": [dataclasses.asdict(p) for p in board.pairs],
            "flags": [dataclasses.asdict(f) for f in board.flags], "hint_kinds": board.hint_kinds,
            "similarity": [{"a": a, "b": b, "percent": round(pc, 1)} for a, b, pc in board.similarity]}
    if secret_seed:
        data["secret_seed"] = board.secret_seed
    return data


def tied(board: Leaderboard, standing: Standing) -> bool:
    """Whether another agent shares this agent's rank (the sign test does not tell them apart)."""
    return sum(t.rank == standing.rank for t in board.standings) > 1


def rank_text(board: Leaderboard, standing: Standing) -> str:
    """A rank as the table prints it: `=2` when another agent shares it."""
    return f"={standing.rank}" if tied(board, standing) else str(standing.rank)


GRADEBOOK = ("student", "student_id", "rank", "tied", "win_percent", "win_low", "win_high", "games", "wins", "failures",
             "mean_turns_to_win", "ms_per_turn", "verdict", "reason", "agent", "code", "flags",
             "above_on_wins", "above_on_turns")  # the score's parts: rank = 1 + above_on_wins + above_on_turns


def gradebook(board: Leaderboard) -> list[dict[str, str]]:
    """One row per agent for a spreadsheet (`--report --csv`), in rank order, then one per group with no
    game (no rank, scoring zero); cells as text. The rank is a number, a shared one said by `tied`; the
    student id is the roster's (`--roster`), where one named the group."""
    flagged: dict[str, list[str]] = {}
    for f in board.flags:
        flagged.setdefault(f.a, []).append(f"{f.kind} with {f.b}")
        flagged.setdefault(f.b, []).append(f"{f.kind} with {f.a}")
    for e in board.early:
        flagged.setdefault(e.agent, []).append(e.flag)
    rows = []
    for s in board.standings:
        verdict = board.verdict(s)
        rows.append({"student": s.agent, "student_id": board.student_ids.get(s.agent, ""), "rank": str(s.rank), "tied": "yes" if tied(board, s) else "no",
                     "win_percent": f"{100 * s.win_rate:.1f}", "win_low": f"{100 * s.win_low:.1f}",
                     "win_high": f"{100 * s.win_high:.1f}", "games": str(s.games), "wins": str(s.wins),
                     "failures": str(s.failed),
                     "mean_turns_to_win": "" if s.mean_turns_win is None else f"{s.mean_turns_win:.1f}",
                     "ms_per_turn": f"{s.median_ms_turn:.2f}", "verdict": verdict.status, "reason": verdict.reason,
                     "agent": s.spec, "code": s.agent_digest, "flags": "; ".join(flagged.get(s.agent, [])),
                     "above_on_wins": str(s.above_wins), "above_on_turns": str(s.above_turns)})
    for v in board.unranked:
        rows.append({"student": v.group, "student_id": board.student_ids.get(v.group, ""), "rank": "", "tied": "", "win_percent": "0.0", "win_low": "", "win_high": "",
                     "games": "0", "wins": "0", "failures": "0", "mean_turns_to_win": "", "ms_per_turn": "",
                     "verdict": v.status, "reason": v.reason, "agent": "", "code": "", "flags": "",
                     "above_on_wins": "", "above_on_turns": ""})
    return rows


def report_data(board: Leaderboard, db: str) -> dict:
    """What view/report.py charts (the shape of `bench --json`), agents in leaderboard order."""
    from treasure_cli.play.results import as_dict

    records = [as_record(r, board.labels[r.id or 0]) for r in board.rows if (r.id or 0) in board.labels]
    agents = [s.agent for s in board.standings]
    return {"options": {"db": str(db), "settings": board.settings},
            "stats": [as_dict(s) for s in summarize(records, agents)],
            "games": [as_dict(r) for r in records]}


# -- back to one game -----------------------------------------------------------
def find_game(db: str | Path, game: str) -> Row:
    """The stored game with this id (or the start of it)."""
    with Store(db, create=False) as store:
        return store.find(game)


def maps_by_digest(paths: Sequence[str | Path]) -> dict[str, str]:
    """Each readable map file's content digest -> its path (the first one of equal maps)."""
    found: dict[str, str] = {}
    for path in paths:
        got = playable_map(str(path))
        if not isinstance(got, str):
            found.setdefault(got[1].digest, str(path))
    return found


def rebuild_game(row: Row, maps: dict[str, str], isolation: str = "auto", limits: AgentLimits | None = None,
                 searched: str | None = None) -> tuple[Island, GameRecord, list | None]:
    """Play a stored game again, exactly: its map (found by content digest among `maps`), its seed,
    its settings and its agent, whose code must still be the code that played it.

    `searched` says where `maps` were found (`cli.options.maps_searched`), for the error when the
    game's map is not among them. Returns the island, the new record and its events (for a game
    that failed again, its events up to the failure and the GameFailed event; None if it failed
    before its first event).
    """
    import json

    path = maps.get(row.map_digest)
    if path is None:
        where = f"the maps found in {searched}" if searched else f"the {len(set(maps.values()))} maps given"
        raise TreasureError(f"game {row.game_id} was played on {one_line(row.map_path)} (content digest {row.map_digest}); "
                            f"no map with that content is among {where}: give the folder of the "
                            "tournament's maps with --maps")
    try:
        now_code = agent_code(row.agent)
    except OSError as exc:  # its code is gone: say how to bring it back, not only that a file is missing
        raise TreasureError(code_gone(row, exc)) from exc
    if now_code.digest != row.agent_digest:
        raise TreasureError(f"game {row.game_id} was played by {one_line(row.agent)} with code {row.agent_digest}; that "
                            f"agent's code is now {now_code.digest}, so the game cannot be played again as it was "
                            "(put back the submitted version)")
    settings = json.loads(row.settings)
    if settings.get("truth_rate") is None:  # an old or edited store's row: "{}"
        raise TreasureError(f"game {row.game_id}'s stored settings ({one_line(row.settings)}) are damaged: they do "
                            "not say its truth rate, so it cannot be played again")
    hints = hint_set_of_key(settings.get("hints"), f"game {row.game_id}")
    found = playable_map(path)
    if isinstance(found, str):
        raise TreasureError(found)
    island = found[1]
    record, events = play_game(island, row.agent, row.seed, map_name=row.map_path,
                               truth_rate=settings["truth_rate"], max_turns=settings["max_turns"],
                               game_timeout=settings["game_timeout"], isolation=isolation,
                               limits=replay_limits(row, limits or AgentLimits()), source=now_code.source,
                               index=row.game_index,
                               game_id=row.game_id, hints=hints, failed_events=True)
    return island, record, events


def code_gone(row: Row, exc: OSError) -> str:
    """Why a stored game cannot be played again when its agent's code is no longer where it played
    from, and what brings it back. A group handed in as an archive, or built from source, plays from
    a temporary folder (grading/archives.py, sandbox/languages.py), which a restart may empty."""
    where = exc.filename or row.agent
    # one_line: a store may be a file handed over, its names any text
    said = (f"game {row.game_id} was played by {one_line(row.label)} from {one_line(str(where))}, which is not there "
            f"now ({exc.strerror or exc})")
    from treasure_cli.grading.archives import UNPACKED
    from treasure_cli.sandbox.languages import BUILDS

    if any(part.startswith((UNPACKED, BUILDS)) for part in Path(str(where)).parts):
        return (said + ": a group handed in as an archive or built from source plays from a temporary folder, "
                "emptied since; run the tournament's command again (treasure tournament CLASS --maps MAPS --db "
                "STORE): it unpacks and builds the group again, as it was, and plays no game twice; then the report")
    return said + ": put the submitted version back where it was"


ACTION_LIMIT = re.compile(r"ran past its ([0-9][0-9.e+-]*) s action limit")  # (sandbox/process.py's words)


def replay_limits(row: Row, limits: AgentLimits) -> AgentLimits:
    """The limits to play `row` again under: those given, and for a game stopped at its run's action
    limit (`--action-timeout`, which the store does not key games by) that limit when none is given.
    Without it, an agent that loops would run to the game's limit (60 s by default) each time a
    report draws the page of one of its games, and end otherwise (game-timeout) than it is stored."""
    if row.reason != "action-timeout" or limits.action_timeout is not None:
        return limits
    said = ACTION_LIMIT.search(row.error or "")
    return dataclasses.replace(limits, action_timeout=float(said[1])) if said else limits


def same_result(row: Row, record: GameRecord) -> bool:
    """Whether a game played again is the game stored (an agent that is not deterministic may not be):
    its end, and its actions where the store has their digest (the same end by other actions is
    another game: a replay page would show what was not graded)."""
    # a failed game stored before its turn was (0): its turn is not compared
    turns = row.turns if record.failed and row.turns == 0 else record.turns
    acted = row.play_digest is None or record.play_digest is None or row.play_digest == record.play_digest
    return acted and (record.outcome, record.reason, turns) == (row.outcome, row.reason, row.turns)


def write_gradebook(board: Leaderboard, path: str | Path) -> Path:
    """The gradebook as a CSV file (the columns of GRADEBOOK, every cell inert for a spreadsheet),
    written atomically."""
    from treasure_cli.formats.atomic import write_text_atomic
    from treasure_cli.formats.spreadsheet import csv_text

    path = Path(path)
    write_text_atomic(path, csv_text(GRADEBOOK, gradebook(board)))
    return path
