"""Which classes of a submission's Python files may be its agent, found by parsing them in a child
process under a memory and a time limit (as the similarity check parses, grading/tokens.py; both
children are limited by sandbox/limited.py).

A file is parsed only once its size is under the cap (grading/intake.py), but a parse still
takes about 420 bytes of memory a byte of source, more for a file made to be costly: the
referee, which holds every group's results, does not take that risk itself. A child that runs
out of memory or time leaves out only the files it was given, each with its reason.

    python -I -S -c "...; from treasure_cli.sandbox.class_parse import child; child()"

reads a JSON list of [path, cap] on standard input and writes {path: [acting, lone] | why}.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from treasure_cli.agents.registry import buildable
from treasure_cli.sandbox.limited import run_limited

CHILD_MEMORY = 512 << 20  # address space of the parsing child
CHILD_SECONDS = 60.0


def classes_in(source: bytes, name: str) -> tuple[list[str], list[str]] | str:
    """A file's top-level classes that define `act` and its lone subclass (which may inherit it),
    those the referee can make with no argument; or why it does not parse, in one line."""
    try:
        parsed = ast.parse(source, filename=name)
    except SyntaxError as exc:
        return f"{name}:{exc.lineno}: {exc.msg}" if exc.lineno else f"{name}: {exc.msg}"  # (no line: a NUL byte, say)
    except MemoryError:
        return f"{name}: Python could not parse it within {CHILD_MEMORY >> 20} MiB of memory"
    except (RecursionError, ValueError) as exc:
        return f"{name}: Python cannot parse it ({type(exc).__name__})"
    classes = [node for node in parsed.body if isinstance(node, ast.ClassDef)]
    acting = [c.name for c in classes if buildable(c)
              and any(isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == "act" for f in c.body)]
    lone = [classes[0].name] if len(classes) == 1 and classes[0].bases and buildable(classes[0]) else []
    return acting, lone


def child() -> None:  # pragma: no cover  (the child's main; tested through classes_of)
    found: dict[str, object] = {}
    for path, cap in json.loads(sys.stdin.read()):
        with open(path, "rb") as f:
            source = f.read(cap + 1)
        found[path] = (f"{Path(path).name} is over the cap for a source file" if len(source) > cap
                       else classes_in(source, Path(path).name))
    sys.stdout.write(json.dumps(found))


def classes_of(paths: list[Path], cap: int) -> dict[Path, tuple[list[str], list[str]] | str]:
    """`classes_in` of each file (read up to `cap` bytes), parsed in one child process under
    CHILD_MEMORY and CHILD_SECONDS; a file the child could not do gets why."""
    if not paths:
        return {}
    try:
        import resource  # noqa: F401  (none on Windows: there the parse runs here, its size capped)
    except ImportError:
        out: dict[Path, tuple[list[str], list[str]] | str] = {}
        for p in paths:
            with open(p, "rb") as f:
                out[p] = classes_in(f.read(cap + 1), p.name)
        return out
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = f"import sys; sys.path.insert(0, {package!r}); from treasure_cli.sandbox.class_parse import child; child()"
    request = json.dumps([[str(p), cap] for p in paths])
    why = ""
    try:
        done = run_limited([sys.executable, "-I", "-S", "-c", code], request, CHILD_MEMORY, CHILD_SECONDS)
    except subprocess.TimeoutExpired:
        why = f"Python could not parse it within {CHILD_SECONDS:g} s"
    else:
        if done.returncode == 0:
            data = json.loads(done.stdout)
            return {p: (found if isinstance(found, str) else (found[0], found[1]))
                    for p in paths for found in [data[str(p)]]}
        why = (f"Python could not parse it within {CHILD_MEMORY >> 20} MiB of memory" if "MemoryError" in done.stderr
               else f"its parse failed (exit status {done.returncode})")
    if len(paths) > 1:  # one file spoilt the lot: each on its own, so only it is left out
        out = {}
        for p in paths:
            out.update(classes_of([p], cap))
        return out
    return {paths[0]: f"{paths[0].name}: {why}"}
