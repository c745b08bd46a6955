"""Similarity flags: pairs or groups of agents a teacher may want to look at. Flags, not verdicts.

Three kinds, each from evidence the program already has:

* `same-code`: the same code digest (the bytes of the file, folder or program
  that played, as the results store records it) under different submissions;
* `same-normalised-code`: Python sources that are equal once comments,
  docstrings, formatting, annotations and the names the submission itself
  defines are set aside (grading/normalise.py: parsed, never run). A program
  (`exec:`) or a file that is not Python is compared by its exact bytes only;
* `same-play`: the same actions on every game both agents played to the end,
  over at least `MIN_SHARED_GAMES` games (the store keeps a digest of each
  game's actions, `play_digest`).
* `similar-tokens`: a pair whose token fingerprints (grading/tokens.py:
  normalised tokens, winnowed k-grams, as MOSS finds copies) are shared at
  `tokens.THRESHOLD` or more; robust to renaming (even per function),
  reordering, comments, layout and dead code. Python and C/C++ sources; each
  pair's percentage is kept (`findings`' matches) for the side-by-side page.

The sources are parsed in a child process under a memory limit, each file
read only up to `tokens.MAX_SOURCE_BYTES` (tokens.parse_all).

Two versions of one agent, or two classes of one file, are one submission
and never flagged against each other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from treasure_cli.agents.registry import exec_command, group_top, is_exec_spec, is_file_spec
from treasure_cli.grading import tokens
from treasure_cli.grading.normalise import CodePrint, code_print
from treasure_cli.sandbox.languages import LAUNCHER
from treasure_cli.sandbox.launch import agent_code
from treasure_cli.play.records import ACTION_EVENTS as ACTION_EVENTS, play_digest as play_digest  # for their old name, treasure_cli.play.similarity, until 0.5.0

if TYPE_CHECKING:  # the store's module (sqlite3) is not for every game that records its play digest
    from treasure_cli.grading.store import Row

SAME_CODE, SAME_NORMALISED, SAME_PLAY = "same-code", "same-normalised-code", "same-play"
SAME_TOKENS = "similar-tokens"
MIN_SHARED_GAMES = 5  # fewer games both played to the end say too little about two agents' play



# -- identical play -----------------------------------------------------------


# -- the flags ------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Flag:
    """Agents whose code or play is the same by one measure: for the teacher to look at."""

    kind: str                 # SAME_CODE, SAME_NORMALISED or SAME_PLAY
    agents: tuple[str, ...]   # two or more agent labels, sorted
    evidence: str             # what was found, in words


def similarity_flags(rows: Sequence[Row], sources: Mapping[str, str | Path] | None = None,
                     labels: Mapping[int, str] | None = None,
                     min_games: int = MIN_SHARED_GAMES, prints: Mapping[str, CodePrint] | None = None,
                     token_matches: Sequence[tokens.Match] | None = None) -> list[Flag]:
    """The flags among the agents of `rows` (results-store rows).

    `labels` names the agent of each row id (the leaderboard's labels; rows without one are
    left out); by default each row's agent spec. `sources` maps a label to its submission
    (a file or a folder) for the comparison after normalisation; labels without one are
    compared by code digest and play only.
    """
    def label(r: Row) -> str | None:
        return r.agent if labels is None else labels.get(r.id or 0)

    spec: dict[str, str] = {}
    digest: dict[str, tuple[int, str]] = {}  # label -> its latest row's (id, code digest)
    plays: dict[str, dict[tuple[str, int], str]] = {}
    for r in rows:
        name = label(r)
        if name is None:
            continue
        spec[name] = r.agent
        if name not in digest or (r.id or 0) >= digest[name][0]:
            digest[name] = (r.id or 0, r.agent_digest)
        if r.play_digest:
            plays.setdefault(name, {})[(r.map_digest, r.seed)] = r.play_digest
    flags: list[Flag] = []
    together: set[frozenset[str]] = set()  # pairs a code flag already names: their play is no news

    code = {name: d for name, (_, d) in digest.items() if not d.startswith("package:")}  # built-ins: no code
    for d, group in _groups(code).items():
        if _submissions(group, spec) > 1:
            flags.append(Flag(SAME_CODE, group, f"the same code digest {d}"))
            together.update(frozenset(p) for p in combinations(group, 2))

    if prints is None:  # the sources' normalised code, unless the caller made it already
        prints = {name: code_print(path) for name, path in (sources or {}).items()}
    prints = {name: p for name, p in prints.items() if name in spec}
    for group in _groups({n: cp.digest for n, cp in prints.items() if cp.normalised}).values():
        if _submissions(group, spec) > 1 and len({code.get(n) for n in group}) > 1:  # else: same code
            flags.append(Flag(SAME_NORMALISED, group,
                              "the same syntax tree once comments, docstrings, formatting, annotations "
                              "and the names the code defines are set aside"))
            together.update(frozenset(q) for q in combinations(group, 2))

    for a, b in combinations(sorted(plays), 2):
        if _same_submission(a, b, spec) or frozenset((a, b)) in together:
            continue
        shared = plays[a].keys() & plays[b].keys()
        if len(shared) >= min_games and all(plays[a][g] == plays[b][g] for g in shared):
            maps = len({m for m, _ in shared})
            flags.append(Flag(SAME_PLAY, (a, b),
                              f"identical actions on all {len(shared)} games both played to the end "
                              f"({maps} map{'s' if maps != 1 else ''})"))
    for m in token_matches or ():
        if m.share >= tokens.THRESHOLD and m.a in spec and m.b in spec and not _same_submission(m.a, m.b, spec) \
                and frozenset((m.a, m.b)) not in together:
            flags.append(Flag(SAME_TOKENS, (m.a, m.b),
                              f"{m.percent:.0f}% of token fingerprints shared (winnowing, {tokens.K}-token k-grams)"))
    return flags


def _groups(values: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for name, value in values.items():
        out.setdefault(value, []).append(name)
    return {v: tuple(sorted(names)) for v, names in out.items() if len(names) > 1}


def _submission(spec: str) -> str:
    """The submission a spec plays from: its program, file or module (two classes of one
    file are one submission), or its name."""
    spec = spec.strip()
    if is_exec_spec(spec):
        return exec_command(spec)[0]
    where, colon, _ = spec.rpartition(":")
    return where if colon else spec


def _same_submission(a: str, b: str, spec: Mapping[str, str]) -> bool:
    return _submission(spec[a]) == _submission(spec[b])


def _submissions(group: tuple[str, ...], spec: Mapping[str, str]) -> int:
    return len({_submission(spec[n]) for n in group})


def submission_sources(rows: Sequence[Row], labels: Mapping[int, str] | None = None
                       ) -> tuple[dict[str, Path], list[str]]:
    """Each agent's submission on this machine, for `similarity_flags`: the file of a
    `file.py:Class` or `exec:PATH` agent, when its bytes are still those that played;
    and a note for each one left out (missing, or changed since its games)."""
    latest: dict[str, tuple[int, Row]] = {}
    for r in rows:
        name = r.agent if labels is None else labels.get(r.id or 0)
        if name is not None and (name not in latest or (r.id or 0) >= latest[name][0]):
            latest[name] = (r.id or 0, r)
    found: dict[str, Path] = {}
    notes: list[str] = []
    for name, (_, r) in latest.items():
        spec = r.agent
        if is_exec_spec(spec):
            where = exec_command(spec)[0]
        elif is_file_spec(spec):
            where = spec.strip().rpartition(":")[0]
        else:
            continue  # a built-in, a module or a plugin: installed code, not a submission
        path = Path(where).expanduser()
        # A group's folder, all its sources read: the top folder its path marks (a C++ group built from
        # source plays `BUILDS/<digest>/./build/agent` from its build's copy of the group; a package
        # `class/ann/./src/agent.py`), or a program's own folder named after the group. The code digest
        # covers the folder's files (sandbox/launch.agent_code), so an unchanged digest is the code that played.
        top = group_top(where)
        # (A launcher script, the plain kit's `python3 FILE`, starts its program in the build's copy of the
        # group: its folder's sources, not the launcher's few bytes.)
        folder = Path(top).expanduser() if top else path.parent if is_exec_spec(spec) and (
            path.parent.name == name or path.name == LAUNCHER) else None
        if folder is not None and _has_sources(folder) and agent_code(spec).digest == r.agent_digest:
            found[name] = folder
            continue
        if not path.is_file():
            notes.append(f"{name}: {path} is not here: its code is compared by digest only")
        elif agent_code(spec).digest != r.agent_digest:
            notes.append(f"{name}: {path} changed since its games: its code is compared by digest only")
        else:
            found[name] = path
    return found, notes


def _has_sources(folder: Path) -> bool:
    """Whether the folder holds a Python, C or C++ source, in it or below (what tokens.source_files reads)."""
    return folder.is_dir() and bool(tokens.source_files(folder))


KIND_WORDS = {SAME_CODE: "same code", SAME_NORMALISED: "same code once normalised", SAME_PLAY: "same play",
              SAME_TOKENS: "similar code"}


@dataclasses.dataclass(frozen=True)
class Findings:
    flags: list[Flag]
    notes: list[str]
    matches: list[tokens.Match]      # every pair of submissions compared by tokens, highest first
    sources: dict[str, Path]         # each compared agent's submission (a file or a folder)
    files: dict[str, tuple[str, ...]]  # its files read, relative to it


def all_findings(rows: Sequence[Row], labels: Mapping[int, str] | None = None,
                 min_games: int = MIN_SHARED_GAMES) -> Findings:
    """The flags among the agents of `rows` (their code digests, their submissions on this
    machine normalised and tokenised, their plays), every token match, and a note on each
    agent whose code could be compared by bytes or digest only."""
    sources, notes = submission_sources(rows, labels)
    parsed = tokens.parse_all(sources)
    prints = {name: p.code for name, p in parsed.items()}
    spec: dict[str, str] = {}
    for r in rows:
        name = r.agent if labels is None else labels.get(r.id or 0)
        if name is not None:
            spec[name] = r.agent
    same = [frozenset((a, b)) for a, b in combinations(sorted(parsed), 2) if _same_submission(a, b, spec)]
    found = tokens.matches({name: p.prints for name, p in parsed.items()}, same)
    flags = similarity_flags(rows, sources, labels, min_games, prints, found)
    notes = [*notes, *(f"{name}: {p.note}" for name, p in prints.items() if not p.normalised),
             *(f"{name}: not compared by tokens: {p.prints.note}" for name, p in parsed.items() if p.prints.note)]
    return Findings(flags, notes, found, sources, {name: p.prints.files for name, p in parsed.items()})


def findings(rows: Sequence[Row], labels: Mapping[int, str] | None = None,
             min_games: int = MIN_SHARED_GAMES) -> tuple[list[Flag], list[str]]:
    """`all_findings`' flags and notes."""
    got = all_findings(rows, labels, min_games)
    return got.flags, got.notes
