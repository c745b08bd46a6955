"""Records and statistics as JSON-ready data: `bench --json`, `run --json`, the tournament's
report data and the results store's rows all take their dicts from here (their text tables
are in tables.py)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from pathlib import Path

from treasure_cli.agents.registry import is_builtin


_UNTIMED = {"seconds", "median_ms_game", "median_ms_turn"}
# Fields about an agent's own process, left out while empty: most games have nothing to say there.
_WHEN_SET = ("output", "traceback", "isolation")
_PLAIN = frozenset((str, int, float, bool, type(None)))
# Kept in the results store: for the similarity flags (grading/similarity.py) and the contest's
# time per action (grading/contest.py).
_STORE_ONLY = ("play_digest", "actions")


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
    for key, unset in (("versus", None), ("notes", False), ("agent_output", False)):
        if options.get(key) == unset:
            del options[key]  # asked for seldom: a run without them has the JSON it had before
    out = {"options": options,
           "stats": [as_dict(s, timing) for s in result.stats],
           "games": [as_dict(r, timing) for r in result.records]}
    if timing:
        out["seconds"] = result.seconds
    return out


def versus_command(pair) -> str | None:
    """The command that shows both games of a head-to-head pair side by side (None without both logs)."""
    import shlex

    page = versus_page(pair)
    if page is None:
        return None
    words = ["treasure", "replay", pair.mine.log, pair.other.log]
    if pair.map_file is not None:
        words += ["--map", pair.map_file]
    return " ".join(shlex.quote(str(w)) for w in words + ["--html", str(page)])


def versus_page(pair) -> Path | None:
    """Where the page showing both games of a head-to-head pair goes: beside the logs (None without both)."""
    if pair.mine.log is None or pair.other.log is None:
        return None
    return Path(pair.mine.log).with_name(f"{pair.mine.game_id}-vs-{pair.other.game_id}.html")


def versus_json(pairs: Sequence, command=None) -> list[dict]:
    """`bench --versus --json`: each pair as the ids and logs of its two games, and the command."""
    command_of = command or versus_command
    return [{"agent": p.mine.agent, "other": p.other.agent, "won": p.mine.agent if p.mine.won else p.other.agent,
             "map": p.mine.map, "size": p.mine.size, "index": p.mine.index, "seed": p.mine.seed,
             "game_ids": [p.mine.game_id, p.other.game_id], "logs": [p.mine.log, p.other.log],
             "command": command_of(p), **({"page": str(versus_page(p))} if command is None and versus_page(p) else {})}
            for p in pairs]
