"""The package's layers: each imports only the layers before it (docs/architecture.md)."""

from __future__ import annotations

import ast

from helpers import ROOT

PACKAGE = ROOT / "src" / "treasure_cli"
ORDER = ["errors", "rules", "agents", "formats", "play", "view", "gym", "cli"]


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


def _module_level_imports(path) -> set[str]:
    """The modules `path` imports outside functions, those under `if TYPE_CHECKING:` included."""
    out = set()
    for statement in ast.parse(path.read_text()).body:
        nodes = [statement, *(statement.body if isinstance(statement, ast.If) else [])]
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module:
                out.add(node.module)
                out.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
    return out


def test_no_two_modules_import_each_other():
    """A loop, even one only a type checker follows, means neither module can be read alone."""
    def name(path):
        return ".".join(("treasure_cli", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")

    modules = {name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {m: (_module_level_imports(p) & modules.keys()) - {m} for m, p in modules.items()}
    loops = sorted(tuple(sorted((a, b))) for a in graph for b in graph[a] if a in graph[b])
    # Left for the hint-kind work: hints.py names hint_draw's HintContext in its annotations.
    assert set(loops) <= {("treasure_cli.rules.hint_draw", "treasure_cli.rules.hints")}
    assert ("treasure_cli.rules.actions", "treasure_cli.rules.observation") not in loops
