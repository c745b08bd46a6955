"""The package's layers: each imports only the layers before it (docs/architecture.md)."""

from __future__ import annotations

import ast
import re

from helpers import ROOT

PACKAGE = ROOT / "src" / "treasure_cli"


def documented_order() -> list[str]:
    """The layers, lowest first, as the rows of docs/architecture.md's table under "## Layers"."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in table.splitlines():
        m = re.match(r"\| `([a-z_]+)(?:/|\.py)` \|", line)
        if m:
            names.append(m[1])
    return names


ORDER = documented_order()


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


def root_imports(path) -> list[str]:
    """What a module takes from the package root itself (`from treasure_cli import X` where X is no
    module of the package, or `import treasure_cli`): the root is the public API, above every layer."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "treasure_cli" and node.level == 0:
            found += [a.name for a in node.names
                      if not ((PACKAGE / a.name).is_dir() or (PACKAGE / f"{a.name}.py").is_file())]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name == "treasure_cli"]
    return found


def test_the_documented_order_names_every_folder_and_top_module_of_the_package():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert folders | modules == set(ORDER), "docs/architecture.md's layer table and src/ disagree"
    assert ORDER.index("sandbox") < ORDER.index("play") < ORDER.index("grading") < ORDER.index("cli")


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


def test_no_module_imports_the_package_root():
    """`from treasure_cli import __version__` in agents/ made a type check of agents/ follow the
    root's imports of every layer; the version is `treasure_cli.version`'s."""
    wrong = [f"{p.relative_to(PACKAGE)} imports {name} from the package root"
             for p in PACKAGE.rglob("*.py") if p.name != "__init__.py" or p.parent != PACKAGE
             for name in root_imports(p)]
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


def test_every_folder_says_what_it_holds_then_what_it_may_import():
    """Each folder's `__init__` docstring is read first: its first line says what the folder holds, and
    its "May import ...; never ..." sentence names, as `folder/`, exactly the folders before it in the
    documented order and the folders after it (the top one, which nothing imports, has no "never")."""
    folders = [name for name in ORDER if (PACKAGE / name / "__init__.py").is_file()]
    wrong = []
    for i, folder in enumerate(folders):
        doc = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text())) or ""
        said = re.search(r"May import (.*?)(?:; never (.*?))?\.(?:\s|$)", " ".join(doc.split()))
        if not doc or doc.startswith("May import") or said is None:
            wrong.append(f"{folder}/: no line on what it holds followed by 'May import ...'")
            continue
        may = set(re.findall(r"`([a-z_]+)/`", said[1]))
        never = set(re.findall(r"`([a-z_]+)/`", said[2] or ""))
        if may != set(folders[:i]) or never != set(folders[i + 1:]):
            wrong.append(f"{folder}/ says it may import {sorted(may)} and never {sorted(never)}")
    assert wrong == []


def test_the_layer_table_names_every_module_of_each_folder():
    """docs/architecture.md draws the layout as it is: a folder's row names (as `module`) each of
    its modules, so a module added to a folder is described where a reader looks for it."""
    table = (ROOT / "docs" / "architecture.md").read_text().split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = {m[1]: m[2] for line in table.splitlines() if (m := re.match(r"\| `([a-z_]+)/` \|(.*)", line))}
    missing = [f"{folder}/{p.stem}" for folder in rows for p in sorted((PACKAGE / folder).glob("*.py"))
               if p.stem != "__init__" and f"`{p.stem}`" not in rows[folder]]
    assert missing == []


def test_only_the_sandbox_limits_a_process():
    """A limit on a child process (`resource.setrlimit`, a `preexec_fn`) is set in `sandbox/` only:
    grading and the rest ask it for a limited child and never set a limit themselves."""
    wrong = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).parts[0] == "sandbox":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import) and any(a.name == "resource" for a in node.names):
                wrong.append(f"{path.relative_to(PACKAGE)} imports resource")
            elif isinstance(node, ast.keyword) and node.arg == "preexec_fn":
                wrong.append(f"{path.relative_to(PACKAGE)} passes preexec_fn")
    assert wrong == []


def test_no_module_of_the_command_line_grows_past_about_300_lines():
    """cli/ is one module per command plus a few shared ones, each short enough to read whole
    (CONTRIBUTING.md: "about 300 lines"); one that grows well past it is split, as pip splits
    its commands' shared pieces into helper modules."""
    long = {p.name: n for p in sorted((PACKAGE / "cli").glob("*.py"))
            if (n := len(p.read_text().splitlines())) > 350}
    assert long == {}
