"""The package's layers: each imports only the layers before it (docs/architecture.md)."""

from __future__ import annotations

import ast

from helpers import ROOT

PACKAGE = ROOT / "src" / "treasure_cli"
ORDER = ["errors", "rules", "islands", "agents", "formats", "sandbox", "play", "grading", "view", "gym", "cli"]


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "treasure_cli" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ORDER else None


def imports(path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_every_module_imports_only_earlier_layers():
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        own = layer_of("treasure_cli." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts))
        if own is None:
            continue
        for module in imports(path):
            other = layer_of(module)
            if other is not None and ORDER.index(other) > ORDER.index(own):
                wrong.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert wrong == []


def test_colour_lives_only_in_the_terminal_renderer():
    users = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if "termcolor" in imports(p)]
    assert users == ["view/render.py"]


def test_no_modules_import_each_other_in_a_circle():
    """A circle of imports, even through an import inside a function or one only a type checker
    follows, means none of its modules can be read (or moved) alone. The package's own
    `__init__` (the public API's lazy table) is left out: it names every module on purpose."""
    def name(path):
        return ".".join(("treasure_cli", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")

    modules = {name(p): p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py"}
    graph = {m: sorted((imports(p) & modules.keys()) - {m}) for m, p in modules.items()}

    def reaches(start: str) -> set[str]:
        seen, todo = set(), list(graph[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
        return seen

    reach = {m: reaches(m) for m in graph}
    circles = sorted({tuple(sorted(o for o in reach[m] if m in reach[o])) for m in graph if m in reach[m]})
    assert circles == []
