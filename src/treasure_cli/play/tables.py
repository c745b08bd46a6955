"""Records and statistics as text: fixed-width tables and JSON-ready dicts.

One aligner serves every table, so `run` and `bench` line up their columns
the same way.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from pathlib import Path

from treasure_cli.agents.registry import is_builtin
from treasure_cli.play.records import GameRecord


def align(rows: Sequence[Sequence[str]], left: int) -> str:
    """Columns padded to their widest cell; the first `left` columns left-aligned, the rest right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) if i < left else cell.rjust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
                     for row in rows)


def run_table(records: Sequence[GameRecord]) -> str:
    """Map, size, result, turns, seconds per game; then the totals line."""
    from treasure_cli.formats.game_record import quote_name  # run's table only: bench starts without the log format

    rows = [("map", "size", "result", "turns", "seconds")]
    for r in records:
        name = quote_name(Path(r.map).name)
        if r.failed:
            rows.append((name, r.size or "-", f"failed ({r.reason})", "-", "-"))
        else:
            result = r.outcome + (f" ({r.reason})" if r.reason != "found" else "")
            rows.append((name, r.size, result, str(r.turns), f"{r.seconds:.3f}"))
    return align(rows, 3) + "\n" + totals_line(records)


def totals_line(records: Sequence[GameRecord]) -> str:
    played = [r for r in records if not r.failed]
    wins = sum(r.won for r in played)
    return f"{len(played)} played, {wins} won, {len(played) - wins} lost, {len(records) - len(played)} failed"


def bench_table(stats, timing: bool = True) -> str:
    """One row per size and agent; '-' where no game was won."""
    return align(bench_rows(stats, timing), 2)


def bench_rows(stats, timing: bool = True) -> list[list[str]]:
    """`bench_table`'s cells, the header first (the report page makes its table of them)."""
    head = ["size", "agent", "games", "wins", "win %", "95% CI", "mean turns", "median turns"]
    any_failed = any(s.failed for s in stats)
    if any_failed:
        head.append("failed")
    if timing:
        head += ["ms/game", "ms/turn"]
    rows = [head]
    for s in stats:
        row = [s.size, s.agent, str(s.games), str(s.wins), f"{100 * s.win_rate:.1f}",
               f"{100 * s.win_low:.1f}-{100 * s.win_high:.1f}",
               "-" if s.mean_turns_win is None else f"{s.mean_turns_win:.1f}",
               "-" if s.median_turns_win is None else f"{s.median_turns_win:.1f}"]
        if any_failed:
            row.append(str(s.failed))
        if timing:
            row += [f"{s.median_ms_game:.2f}", f"{s.median_ms_turn:.3f}"]
        rows.append(row)
    return rows


_UNTIMED = {"seconds", "median_ms_game", "median_ms_turn"}
# Fields about an agent's own process, left out while empty: most games have nothing to say there.
_WHEN_SET = ("output", "traceback", "isolation")
_PLAIN = frozenset((str, int, float, bool, type(None)))
_STORE_ONLY = ("play_digest",)  # kept in the results store, for the similarity flags (play/similarity.py)


def as_dict(obj, timing: bool = True) -> dict:
    """A dataclass as a JSON-ready dict; without `timing`, the fields that vary run to run are left out.

    Records and statistics hold plain values (and tuples of them), which
    dataclasses.asdict would only copy: read as they are, a bench of 5000
    games is 0.07 s -> 0.01 s. Anything else still goes through asdict.
    """
    names = _field_names(type(obj))  # type: ignore[arg-type]  # a class is hashable
    d = {name: getattr(obj, name) for name in names}
    for v in d.values():
        if type(v) not in _PLAIN and not (type(v) is tuple and all(type(x) in _PLAIN for x in v)):
            d = dataclasses.asdict(obj)
            break
    for name in _WHEN_SET:
        if name in d and not d[name]:
            del d[name]
    for name in _STORE_ONLY:
        d.pop(name, None)
    return d if timing else {k: v for k, v in d.items() if k not in _UNTIMED}


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def bench_json(result, timing: bool = True) -> dict:
    """Options, per size/agent statistics and every game."""
    # JSON's own types (lists, not tuples): the same data as a saved run read back with --from-json.
    hints = result.options.hints
    options = {k: list(v) if isinstance(v, tuple) else v
               for k, v in dataclasses.asdict(dataclasses.replace(result.options, hints=None)).items()}
    if hints is None:
        del options["hints"]  # the built-in kinds: the JSON of a bench without plugins is unchanged
    else:
        options["hints"] = dict(zip(hints.names, hints.weights))
    if all(is_builtin(a) for a in result.options.agents):
        del options["isolation"], options["limits"]  # they apply to agents that are not built in only
    if options.get("style") == "island":
        del options["style"]  # the default islands: the JSON of a run as it was before styles existed
    for key, unset in (("versus", None), ("notes", False)):
        if options.get(key) == unset:
            del options[key]  # asked for seldom: a run without them has the JSON it had before
    out = {"options": options,
           "stats": [as_dict(s, timing) for s in result.stats],
           "games": [as_dict(r, timing) for r in result.records]}
    if timing:
        out["seconds"] = result.seconds
    return out


def failure_lines(records: Sequence[GameRecord], shown: int = 2) -> list[str]:
    """Why agents failed games: per agent, how many and of which kinds, then the first messages
    (each names the map, the turn and the cause, with the agent's file:line when it raised)."""
    by_agent: dict[str, list[GameRecord]] = {}
    for r in records:
        if r.failed and r.reason != "bad-map":
            by_agent.setdefault(r.agent, []).append(r)
    lines = []
    for agent, failed in by_agent.items():
        kinds: dict[str, int] = {}
        for r in failed:
            kinds[r.reason] = kinds.get(r.reason, 0) + 1
        said = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
        lines.append(f"{agent}: {len(failed)} game{'s' if len(failed) > 1 else ''} failed ({said})")
        lines += [f"  {r.error}" + (f" (game {r.game_id})" if r.game_id else "") for r in failed[:shown]]
    return lines



def _result_words(r: GameRecord) -> str:
    if r.won:
        return f"won on turn {r.turns}"
    return f"lost to the pirate on turn {r.turns}" if r.reason == "pirate" else f"ran out of turns ({r.turns})"


def versus_command(pair) -> str | None:
    """The command that shows both games of a head-to-head pair side by side (None without both logs)."""
    import shlex

    if pair.mine.log is None or pair.other.log is None:
        return None
    page = Path(pair.mine.log).with_name(f"{pair.mine.game_id}-vs-{pair.other.game_id}.html")
    words = ["treasure", "replay", pair.mine.log, pair.other.log]
    if pair.map_file is not None:
        words += ["--map", pair.map_file]
    return " ".join(shlex.quote(str(w)) for w in words + ["--html", str(page)])


def versus_lines(pairs: Sequence, versus: str, command=None) -> list[str]:
    """`bench --versus`: the games where `versus` won and another agent lost, or the other way
    round, each with its game ids and the command that replays both (`command(pair)`, by
    default `versus_command`'s)."""
    command_of = command or versus_command
    if not pairs:
        return [f"head to head: no game where {versus} and another agent did not both win or both lose"]
    won = sum(p.mine.won for p in pairs)
    lines = [f"head to head: {len(pairs)} game{'s' if len(pairs) != 1 else ''} where {versus} and another agent "
             f"did not both win or both lose ({versus} won {won}, lost {len(pairs) - won})"]
    for p in pairs:
        where = p.mine.map if p.mine.island_seed is None else f"{p.mine.size} island {p.mine.index}"
        lines.append(f"  {where}: {p.mine.agent} {_result_words(p.mine)}, {p.other.agent} {_result_words(p.other)}; "
                     f"games {p.mine.game_id}, {p.other.game_id}")
        shown = command_of(p)
        if shown is not None:
            lines.append(f"    {shown}")
    return lines


def versus_json(pairs: Sequence, command=None) -> list[dict]:
    """`bench --versus --json`: each pair as the ids and logs of its two games, and the command."""
    command_of = command or versus_command
    return [{"agent": p.mine.agent, "other": p.other.agent, "won": p.mine.agent if p.mine.won else p.other.agent,
             "map": p.mine.map, "size": p.mine.size, "index": p.mine.index, "seed": p.mine.seed,
             "game_ids": [p.mine.game_id, p.other.game_id], "logs": [p.mine.log, p.other.log],
             "command": command_of(p)} for p in pairs]
