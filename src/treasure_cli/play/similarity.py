"""Similarity flags: pairs or groups of agents a teacher may want to look at. Flags, not verdicts.

Three kinds, each from evidence the program already has:

* `same-code`: the same code digest (the bytes of the file, folder or program
  that played, as the results store records it) under different submissions;
* `same-normalised-code`: Python sources that are equal once comments,
  docstrings, formatting, annotations and the names the submission itself
  defines are set aside. The sources are parsed with `ast`, never run; each
  defined name (variables, arguments, functions, classes, attributes) is
  renamed by its first appearance, so a consistent renaming gives the same
  tree. A program (`exec:`) or a file that is not Python is compared by its
  exact bytes only;
* `same-play`: the same actions on every game both agents played to the end,
  over at least `MIN_SHARED_GAMES` games (the store keeps a digest of each
  game's actions, `play_digest`).

Two versions of one agent, or two classes of one file, are one submission
and never flagged against each other.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING

from treasure_cli.agents.registry import agent_code, exec_command, is_exec_spec, is_file_spec
from treasure_cli.rules.events import AgentMoved, AreaScanned, Event, HintVerified, Teleported

if TYPE_CHECKING:  # the store's module (sqlite3) is not for every game that records its play digest
    from treasure_cli.play.store import Row

SAME_CODE, SAME_NORMALISED, SAME_PLAY = "same-code", "same-normalised-code", "same-play"
MIN_SHARED_GAMES = 5  # fewer games both played to the end say too little about two agents' play

# The events an agent's actions make, one per action (a small move's 3x3 scan follows from it).
ACTION_EVENTS = frozenset((AgentMoved, AreaScanned, HintVerified, Teleported))


# -- identical play -----------------------------------------------------------
def play_digest(events: Iterable[Event]) -> str:
    """A digest of the actions of one game, read off its events (16 hex digits).

    Two agents on the same map and seed make the same events exactly when
    they take the same actions, so only the actions are hashed, in a form of
    their own that does not change with the events' classes."""
    words = []
    for e in events:
        kind = type(e)
        if kind is AgentMoved:
            words.append(f"M{e.direction.name}{e.steps}")
        elif kind is AreaScanned:
            if e.size == 5:  # a large scan; a small move's scan is the move's
                words.append("S")
        elif kind is HintVerified:
            words.append(f"V{e.number}")
        elif kind is Teleported:
            words.append(f"T{e.dst[0]},{e.dst[1]}")
    return hashlib.sha256(" ".join(words).encode()).hexdigest()[:16]


# -- code once normalised -------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class CodePrint:
    """What a submission's code is compared by."""

    digest: str        # "ast:<hex>" (Python, normalised) or "bytes:<hex>" (exact bytes)
    note: str = ""     # why it is compared by its exact bytes only

    @property
    def normalised(self) -> bool:
        return self.digest.startswith("ast:")


def code_print(path: str | Path) -> CodePrint:
    """The print of a submission: a Python file, a folder (all its .py files, whatever
    their names), or anything else (a program: its exact bytes)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file())
        python = [p for p in files if p.suffix == ".py"]
        if not python:
            return CodePrint(_bytes_digest(p.read_bytes() for p in files), "no Python file: exact bytes only")
        sources = [p.read_bytes() for p in python]
        try:
            trees = [ast.parse(s, filename=str(p)) for s, p in zip(sources, python)]
        except (SyntaxError, ValueError) as exc:
            return CodePrint(_bytes_digest(sources), f"not Python that parses ({exc}): exact bytes only")
        return CodePrint("ast:" + normalised_digest(trees))
    data = path.read_bytes()
    if path.suffix != ".py":
        return CodePrint(_bytes_digest([data]), "a program, not Python source: exact bytes only")
    try:
        tree = ast.parse(data, filename=str(path))
    except (SyntaxError, ValueError) as exc:
        return CodePrint(_bytes_digest([data]), f"not Python that parses ({exc}): exact bytes only")
    return CodePrint("ast:" + normalised_digest([tree]))


def _bytes_digest(parts: Iterable[bytes]) -> str:
    # Sorted: a folder's files compare whatever their names.
    return "bytes:" + hashlib.sha256(b"".join(sorted(hashlib.sha256(p).digest() for p in parts))).hexdigest()[:16]


def normalised_digest(trees: Sequence[ast.Module]) -> str:
    """A digest of the modules' trees once normalised (`normalise`); the order of the
    modules does not matter (a folder's files may be renamed)."""
    names, attributes = defined_names(trees)
    dumps = sorted(ast.dump(normalise(t, names, attributes)) for t in trees)
    return hashlib.sha256("\n".join(dumps).encode()).hexdigest()[:16]


def defined_names(trees: Iterable[ast.AST]) -> tuple[set[str], set[str]]:
    """The names the code itself defines (variables, arguments, functions, classes, import
    aliases) and the attributes it defines (assigned, or methods and class variables).
    Everything else (the game's API, libraries, built-ins) keeps its name."""
    names: set[str] = set()
    attributes: set[str] = set()
    for tree in trees:
        members = _members(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                (attributes if id(node) in members else names).add(node.name)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                (attributes if id(node) in members else names).add(node.id)
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
                attributes.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
            elif isinstance(node, ast.alias) and node.asname:
                names.add(node.asname)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                names.update(node.names)
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                names.add(node.name)
    return names, attributes


def _members(tree: ast.AST) -> set[int]:
    """The nodes (by id) that name a class's members: its methods, nested classes and the
    targets of its class variables, which the code reaches as attributes."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    out.add(id(item))
                elif isinstance(item, ast.Assign):
                    out.update(id(t) for t in item.targets if isinstance(t, ast.Name))
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    out.add(id(item.target))
    return out


class _Canonical(ast.NodeTransformer):
    """Renames defined names and attributes to n0, n1, ... and a0, a1, ... by first
    appearance (two maps: a renamed local and an attribute of the same name stay apart),
    and drops docstrings and annotations."""

    def __init__(self, tree: ast.AST, names: set[str], attributes: set[str]):
        self.names, self.attributes = names, attributes
        self.members = _members(tree)
        self.name_map: dict[str, str] = {}
        self.attr_map: dict[str, str] = {}

    def _name(self, name: str) -> str:
        if name not in self.names:
            return name
        return self.name_map.setdefault(name, f"n{len(self.name_map)}")

    def _attr(self, name: str) -> str:
        if name not in self.attributes:
            return name
        return self.attr_map.setdefault(name, f"a{len(self.attr_map)}")

    def _own(self, node: ast.AST, name: str) -> str:
        return self._attr(name) if id(node) in self.members else self._name(name)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
        return super().generic_visit(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.name = self._own(node, node.name)
        node.returns = None
        return self.generic_visit(node)

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self._own(node, node.name)
        return self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._own(node, node.id)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        node.attr = self._attr(node.attr)
        return self.generic_visit(node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._name(node.arg)
        node.annotation = None
        return node

    def visit_keyword(self, node: ast.keyword) -> ast.AST:
        if node.arg is not None:
            node.arg = self._name(node.arg)  # a parameter of the submission's own function
        return self.generic_visit(node)

    def visit_alias(self, node: ast.alias) -> ast.AST:
        if node.asname:
            node.asname = self._name(node.asname)
        else:  # `from .helpers import mine`: defined in another file of the submission
            node.name = self._name(node.name)
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        if node.level:  # a file of the same submission, whatever its name
            node.module = None
        return self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        node.annotation = ast.Constant(None)
        return self.generic_visit(node)

    def _names_list(self, node: ast.Global | ast.Nonlocal) -> ast.AST:
        node.names = [self._name(n) for n in node.names]
        return node

    visit_Global = _names_list
    visit_Nonlocal = _names_list

    def _named(self, node: ast.ExceptHandler | ast.MatchAs | ast.MatchStar) -> ast.AST:
        if node.name:
            node.name = self._name(node.name)
        return self.generic_visit(node)

    visit_ExceptHandler = _named
    visit_MatchAs = _named
    visit_MatchStar = _named


def normalise(tree: ast.Module, names: set[str], attributes: set[str]) -> ast.Module:
    """`tree` with no docstrings or annotations and its defined names made canonical
    (comments and formatting are not in a syntax tree). Changes `tree`."""
    return _Canonical(tree, names, attributes).visit(tree)


# -- the flags ------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Flag:
    """Agents whose code or play is the same by one measure: for the teacher to look at."""

    kind: str                 # SAME_CODE, SAME_NORMALISED or SAME_PLAY
    agents: tuple[str, ...]   # two or more agent labels, sorted
    evidence: str             # what was found, in words


def similarity_flags(rows: Sequence[Row], sources: Mapping[str, str | Path] | None = None,
                     labels: Mapping[int, str] | None = None,
                     min_games: int = MIN_SHARED_GAMES) -> list[Flag]:
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

    prints = {name: code_print(path) for name, path in (sources or {}).items() if name in spec}
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
            path = Path(exec_command(spec)[0]).expanduser()
        elif is_file_spec(spec):
            path = Path(spec.strip().rpartition(":")[0]).expanduser()
        else:
            continue  # a built-in, a module or a plugin: installed code, not a submission
        if not path.is_file():
            notes.append(f"{name}: {path} is not here: its code is compared by digest only")
        elif agent_code(spec).digest != r.agent_digest:
            notes.append(f"{name}: {path} changed since its games: its code is compared by digest only")
        else:
            found[name] = path
    return found, notes


def flags_section(flags: Sequence[Flag], notes: Sequence[str] = ()) -> str:
    """The report's "Similarity flags" section ("" when there is no flag)."""
    if not flags:
        return ""
    from treasure_cli.play.tables import align

    words = {SAME_CODE: "same code", SAME_NORMALISED: "same code once normalised", SAME_PLAY: "same play"}
    lines = ["Similarity flags (for you to look at; a flag is not a verdict):"]
    rows = [["kind", "agents", "evidence"]] + [[words[f.kind], ", ".join(f.agents), f.evidence] for f in flags]
    lines.append(align(rows, 3))
    lines += list(notes)
    return "\n".join(lines)


def similarity_report(rows: Sequence[Row], labels: Mapping[int, str] | None = None,
                      min_games: int = MIN_SHARED_GAMES) -> str:
    """The report's section for the agents of `rows` ("" when nothing is flagged): their code
    digests, their submissions on this machine (normalised) and their plays compared."""
    sources, notes = submission_sources(rows, labels)
    flags = similarity_flags(rows, sources, labels, min_games)
    prints = {name: code_print(path) for name, path in sources.items()}
    bytes_only = [f"{name}: {p.note}" for name, p in prints.items() if not p.normalised]
    return flags_section(flags, [*notes, *bytes_only])
