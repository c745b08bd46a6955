"""Code compared once normalised: a submission's Python sources as syntax trees, with
comments, docstrings, formatting, annotations and the names the code itself defines set aside.

The sources are parsed with `ast`, never run. Each name the submission
defines (variables, arguments, functions, classes, attributes) is renamed by
its first appearance, so a consistent renaming gives the same tree. A
program, or a file that does not parse, is compared by its exact bytes (the
`CodePrint` says so). Used by the similarity flags (grading/similarity.py).
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from collections.abc import Iterable, Sequence
from pathlib import Path

from treasure_cli.agents.registry import MAX_SOURCE_BYTES


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
        if any(len(s) > MAX_SOURCE_BYTES for s in sources):
            return CodePrint(_bytes_digest(sources), "a file over the 2 MB source cap: exact bytes only")
        try:
            return CodePrint("ast:" + normalised_digest([ast.parse(s, filename=str(p))
                                                         for s, p in zip(sources, python)]))
        except _UNPARSED as exc:
            return CodePrint(_bytes_digest(sources), f"not Python that parses ({exc}): exact bytes only")
    data = path.read_bytes()
    if path.suffix != ".py":
        return CodePrint(_bytes_digest([data]), "a program, not Python source: exact bytes only")
    if len(data) > MAX_SOURCE_BYTES:  # never parsed: ~400 bytes of memory a byte of source
        return CodePrint(_bytes_digest([data]), "over the 2 MB source cap: exact bytes only")
    try:
        return CodePrint("ast:" + normalised_digest([ast.parse(data, filename=str(path))]))
    except _UNPARSED as exc:
        return CodePrint(_bytes_digest([data]), f"not Python that parses ({exc}): exact bytes only")


# What parsing or walking a stranger's file can raise: besides bad syntax and NUL bytes, an
# expression nested too deep for the parser or for our visitor (1 + 1 + ... a few thousand times).
_UNPARSED = (SyntaxError, ValueError, RecursionError, MemoryError)


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
