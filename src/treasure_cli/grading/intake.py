"""One group's hand-in, as it arrives, found: its agent anywhere in its folder, or why there is none.

A group is a folder (or an archive, unpacked by grading/archives.py first). In
its tree, after the caps (sandbox/tree.py) and without the litter of editors
and archivers:

1. a manifest, `agent.toml` (the shallowest one), names the entry:
   `entry = "src/agent.py"`, optionally `class = "MyAgent"` and
   `language = "python"` (or any other: the entry is then a program);
2. else the one Python file with an agent class (a class with `act`), or the
   one called `agent.py` among several;
3. else the one program (an executable file starting with `#!` or a binary);
4. else a Makefile or CMakeLists.txt (the shallowest): the group is built in
   the sandbox (sandbox/languages.py) and plays the one program it made;
5. else Java sources, or an `agent.js` (Node.js);
6. else the one Python script that reads its standard input under an
   `if __name__ == "__main__":` guard (the plain kit's shape), executable or not
   (an archive made on Windows keeps no execute bit): started as `python3 FILE`;
7. else the one archive in the group's tree (a zip handed in inside a zip, or
   inside a folder as a course site downloads it), unpacked as a group's archive
   is (grading/archives.py) and searched the same way, one level deep.

Two agent files or two programs are named, with how to choose (the manifest).
Nothing is run and no file is parsed above the source cap (sandbox/tree.py: caps).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import sys
from pathlib import Path

from treasure_cli.agents.registry import EXEC, GROUP_TOP
from treasure_cli.errors import AgentLoadError
from treasure_cli.grading import archives
from treasure_cli.sandbox import class_parse
from treasure_cli.sandbox import languages, tree

MANIFEST = "agent.toml"
BUILD_FILES = ("Makefile", "makefile", "GNUmakefile", "CMakeLists.txt", "Cargo.toml")
# A Python program that speaks the protocol itself (the plain kit): started by the system's Python in
# its folder, through the launcher script that Node.js groups get (sandbox/languages.py), so it needs
# neither `#!` nor the execute bit that an archive made on Windows does not keep.
SCRIPT = languages.Language("python-program", (), (), ("python3", "{main}"))
MAIN_GUARD = re.compile(rb"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.MULTILINE)
READS_INPUT = re.compile(rb"\bsys\.stdin\b|\binput\s*\(|\bfileinput\b")
REQUIREMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")  # a requirement line's distribution name
NESTED = 1  # archives unpacked inside a group's tree: a zip in a zip, not a zip in a zip in a zip


class BuildError(AgentLoadError):
    """A group's source that did not build into one program (its verdict: `build failed`)."""


@dataclasses.dataclass(frozen=True)
class Found:
    """A group's agent: how it plays and what it is made of."""

    spec: str
    language: str   # "python" or "program"
    entry: str      # the entry file, relative to the group's folder
    files: int      # files in the group's folder (as the sandbox gets them)
    size: int       # their bytes
    build_log: str = ""  # the build's log, for a group built from source
    missing: tuple[str, ...] = ()  # what its requirements.txt asks for that the referee's Python lacks


def read_manifest(path: Path) -> dict[str, str]:
    """`agent.toml`'s string keys (entry, class, language); AgentLoadError if it cannot be read."""
    if path.stat().st_size > 64 << 10:
        raise AgentLoadError(f"{MANIFEST} is over 64 kB")
    text = path.read_bytes().decode("utf-8", errors="replace")
    if sys.version_info >= (3, 11):
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise AgentLoadError(f"{MANIFEST}: {exc}") from None
        except RecursionError:  # tomllib recurses once a nesting: 60 kB of `[` stopped the whole class
            raise AgentLoadError(f"{MANIFEST}: nested too deep to read") from None
        return {str(k): v for k, v in data.items() if isinstance(v, str)}
    return _small_toml(text)


def _small_toml(text: str) -> dict[str, str]:
    """`key = "value"` lines (Python 3.10 has no tomllib): what a manifest needs."""
    found: dict[str, str] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#") or line.startswith("["):
            continue
        key, eq, value = line.partition("=")
        value = value.strip()
        if not eq or len(value) < 2 or value[0] not in "\"'" or value[-1] != value[0]:
            raise AgentLoadError(f"{MANIFEST}:{n}: expected key = \"value\"")
        found[key.strip()] = value[1:-1]
    return found


def agent_classes(path: Path) -> tuple[list[str], list[str]]:
    """A Python file's top-level classes that define `act`, and its lone subclass (that may
    inherit `act`), by parsing it; AgentLoadError for a file over the cap or that does not parse."""
    found = agent_classes_of([path])[path]
    if isinstance(found, AgentLoadError):
        raise found
    return found


def agent_classes_of(paths: list[Path]) -> dict[Path, tuple[list[str], list[str]] | AgentLoadError]:
    """`agent_classes` of several files: those under the source cap parsed together, in one child
    process under a memory limit (sandbox/class_parse.py)."""
    cap = tree.caps().source
    out: dict[Path, tuple[list[str], list[str]] | AgentLoadError] = {}
    for path in paths:
        size = path.stat().st_size
        if size > cap:
            out[path] = AgentLoadError(f"{path.name} is {tree.size_text(size)}, over the "
                                       f"{tree.cap_text(cap)} cap for a source file")
    for path, found in class_parse.classes_of([p for p in paths if p not in out], cap).items():
        out[path] = AgentLoadError(found) if isinstance(found, str) else found
    return out



def _program(path: Path) -> bool:
    """An executable file that can start by itself: a script with `#!` or an ELF binary."""
    try:
        st = path.lstat()
        if not (st.st_mode & 0o111) or not os.access(path, os.X_OK):
            return False
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return head.startswith(b"#!") or head == b"\x7fELF"


def startable(path: Path, shown: str) -> None:
    """AgentLoadError when a `#!` script cannot start because its first line ends with a carriage
    return (saved with Windows line endings): the system would look for an interpreter whose name
    ends with that character, and say only "No such file or directory", at every game."""
    try:
        with open(path, "rb") as f:
            first = f.readline(512)
    except OSError:
        return
    if first.startswith(b"#!") and first.endswith(b"\r\n"):
        line = first[:-2].decode("utf-8", "replace")
        raise AgentLoadError(f"{shown}: its first line ({line}) ends with a carriage return: saved with Windows line "
                             "endings, it cannot start; save it with Unix (LF) line endings")


def find_agent(root: Path, max_files: int | None = None, max_bytes: int | None = None, depth: int = 0) -> Found:
    """The agent of the group whose folder is `root`; AgentLoadError with a one-line reason. The
    caps: those given, else those in force (sandbox/tree.py: caps). `depth`: how many archives deep
    `root` is inside the group's own tree (NESTED at most)."""
    found = _find_agent(root, max_files, max_bytes, depth)
    if found.language in ("python", SCRIPT.name) and not found.missing:
        found = dataclasses.replace(found, missing=missing_requirements(root))
    return found


def missing_requirements(root: Path) -> tuple[str, ...]:
    """The packages the group's `requirements.txt` (the shallowest) names that the referee's Python
    does not have: an agent that imports one fails every game, and the teacher is told before.
    Looked up by distribution name, never imported; a file over 64 kB is not read."""
    from importlib import metadata

    try:
        listed = sorted((p for p, n in tree.files(root) if p.name == "requirements.txt" and n <= 64 << 10),
                        key=lambda p: (len(p.parts), str(p)))
    except tree.TooBig:
        return ()
    if not listed:
        return ()
    missing = []
    for line in (root / listed[0]).read_bytes().decode("utf-8", "replace").splitlines():
        name = REQUIREMENT.match(line.split("#", 1)[0].strip())
        if name is None:
            continue
        try:
            metadata.distribution(name[0])
        except (metadata.PackageNotFoundError, ValueError):
            missing.append(name[0])
    return tuple(dict.fromkeys(missing))


def _find_agent(root: Path, max_files: int | None, max_bytes: int | None, depth: int) -> Found:
    try:
        listed = tree.files(root, max_files, max_bytes)
    except tree.TooBig as exc:
        raise AgentLoadError(f"over the cap: {exc}") from None
    files, size = len(listed), sum(n for _, n in listed)
    paths = [rel for rel, _ in listed]
    if not paths:
        raise AgentLoadError("empty (no file once hidden files and archivers' litter are left out)")
    manifests = sorted((p for p in paths if p.name == MANIFEST), key=lambda p: (len(p.parts), str(p)))
    if manifests:
        return _from_manifest(root, manifests[0], files, size)
    python = [p for p in paths if p.suffix == ".py"]
    cap = tree.caps().source
    big = [p for p, n in listed if p.suffix == ".py" and n > cap]
    if big:
        raise AgentLoadError(f"{big[0]} is {tree.size_text(dict(listed)[big[0]])}, over the "
                             f"{tree.cap_text(cap)} cap for a source file")
    acting: list[tuple[Path, str]] = []
    lone: list[tuple[Path, str]] = []
    broken: list[str] = []
    parsed = agent_classes_of([root / p for p in python])  # in one child, under a memory limit
    for p in python:
        result = parsed[root / p]
        if isinstance(result, AgentLoadError):
            broken.append(f"{p.parent / str(result)}" if p.parent != Path() else str(result))
            continue
        found, single = result
        acting += [(p, c) for c in found]
        lone += [(p, c) for c in single]
    candidates = acting or lone
    if len(candidates) > 1:
        named = [(p, c) for p, c in candidates if p.name == "agent.py"]
        candidates = named if len({p for p, _ in named}) == 1 and len(named) == 1 else candidates
    if len(candidates) == 1:
        p, cls = candidates[0]
        return Found(f"{marked(root, p)}:{cls}", "python", str(p), files, size)
    if candidates:
        listed_text = ", ".join(f"{p}:{c}" for p, c in candidates)
        raise AgentLoadError(f"{len(candidates)} agent classes ({listed_text}); choose one with "
                             f"{MANIFEST}: entry = \"FILE.py\" and class = \"NAME\"")
    # A Python file that is a program itself (`#!`, executable, no agent class: the plain kit) counts
    # only where no other program does, so a group's helper scripts do not hide its binary.
    programs = ([p for p in paths if p.suffix != ".py" and _program(root / p)]
                or [p for p in python if _program(root / p)])
    if len(programs) == 1:
        startable(root / programs[0], str(programs[0]))
        return Found(f"{EXEC}{shlex.quote(marked(root, programs[0]))}", "program", str(programs[0]), files, size)
    if programs:
        raise AgentLoadError(f"{len(programs)} programs ({', '.join(map(str, programs))}); choose one with "
                             f"{MANIFEST}: entry = \"PROGRAM\"")
    if broken:
        first = sorted(broken, key=lambda b: ("agent.py" not in b, b))[0]
        raise AgentLoadError(f"no agent class: {first}")
    builds = sorted((p for p in paths if p.name in BUILD_FILES), key=lambda p: (len(p.parts), str(p)))
    if builds:
        return _built(root, builds[0], files, size)
    java = sorted((p for p in paths if p.suffix == ".java"), key=lambda p: (len(p.parts), str(p)))
    if java:
        return _started(root, java_root(root, java[0]), languages.BY_NAME["java"], "", files, size)
    node = sorted((p for p in paths if p.name == "agent.js"), key=lambda p: (len(p.parts), str(p)))
    if node:
        return _started(root, node[0].parent, languages.BY_NAME["node"], "agent.js", files, size)
    scripts = [p for p, n in listed if p.suffix == ".py" and _script(root / p)]
    if len(scripts) == 1:
        return _started(root, scripts[0].parent, SCRIPT, scripts[0].name, files, size)
    if scripts:
        raise AgentLoadError(f"{len(scripts)} Python programs ({', '.join(map(str, scripts))}); choose one with "
                             f"{MANIFEST}: entry = \"FILE.py\"")
    return _inner_archive(root, paths, max_files, max_bytes, depth)


def _script(path: Path) -> bool:
    """Whether a Python file (under the source cap) is a program that reads its standard input under
    an `if __name__ == "__main__":` guard: the plain kit's shape. Read as bytes, never parsed."""
    with open(path, "rb") as f:
        text = f.read(tree.caps().source + 1)
    return len(text) <= tree.caps().source and bool(MAIN_GUARD.search(text)) and bool(READS_INPUT.search(text))


def _inner_archive(root: Path, paths: list[Path], max_files: int | None, max_bytes: int | None,
                   depth: int) -> Found:
    """The agent inside the one archive of a group's tree that has no agent of its own (a zip handed
    in inside a zip); AgentLoadError naming what was found instead."""
    inner = [p for p in paths if archives.is_archive(root / p)]
    foreign = [p for p in paths if archives.foreign_archive(root / p)]
    nothing = "no agent found (a Python file with a class that has act(obs), or one executable program)"
    if len(inner) == 1 and depth < NESTED:
        try:
            return find_agent(archives.unpack(root / inner[0], max_files, max_bytes), max_files, max_bytes,
                              depth + 1)
        except BuildError as exc:
            raise BuildError(f"{inner[0]}: {exc}") from None
        except AgentLoadError as exc:
            raise AgentLoadError(f"{inner[0]}: {exc}") from None
    if inner:
        what = (f"{len(inner)} archives ({', '.join(map(str, inner))})" if len(inner) > 1
                else f"an archive in an archive in an archive ({inner[0]})")
        raise AgentLoadError(f"{nothing}; it holds {what}: unpack the one to grade into a folder of its own")
    if foreign:
        raise AgentLoadError(f"{nothing}; it holds {foreign[0]}, an archive of a kind that is not unpacked "
                             "(only .zip and .tar are): unpack it into a folder of its own and grade that")
    notebooks = [p for p in paths if p.suffix.lower() == ".ipynb"]
    if notebooks:  # not run: a notebook's cells are not a program, and which of them is the agent is a guess
        raise AgentLoadError(f"{nothing}; it holds a Jupyter notebook ({notebooks[0]}"
                             + (f" and {len(notebooks) - 1} more" if len(notebooks) > 1 else "")
                             + "), which is not played: export the agent's code as a .py file (jupyter nbconvert "
                             "--to script) and grade that")
    raise AgentLoadError(nothing)


def marked(root: Path, rel: Path) -> str:
    """The path of the group's file `rel`, its group's top folder marked when the file is below it
    (`class/ann/./src/agent.py`, agents/registry.py: GROUP_TOP): the sandbox shows the agent the
    group's whole tree. A file at the top needs no mark: its folder is the group's."""
    return f"{root}{GROUP_TOP}{rel.as_posix()}" if len(rel.parts) > 1 else str(root / rel)


def _from_manifest(root: Path, manifest: Path, files: int, size: int) -> Found:
    fields = read_manifest(root / manifest)
    entry_text = fields.get("entry")
    if not entry_text:
        raise AgentLoadError(f"{manifest} has no entry = \"FILE\"")
    home = (root / manifest).parent
    entry = home / entry_text
    try:
        inside = entry.resolve().is_relative_to(root.resolve())
    except OSError:
        inside = False
    if not inside or entry.is_symlink() or not entry.is_file():
        raise AgentLoadError(f"{manifest}: entry {entry_text!r} is no file of the group")
    rel = str(entry.relative_to(root))
    language = fields.get("language", "python" if entry.suffix == ".py" else "program").lower()
    if language in ("java", "node"):  # started by a command in the entry's folder (sandbox/languages.py)
        main = fields.get("class", "") if language == "java" else entry.name
        folder = java_root(root, Path(rel)) if language == "java" else entry.parent.relative_to(root)
        return _started(root, folder, languages.BY_NAME[language], main, files, size)
    if language == "python":
        acting, lone = agent_classes(entry)
        cls = fields.get("class") or (acting[0] if len(acting) == 1 else lone[0] if not acting and lone else "")
        if not cls and not acting and _script(entry):  # the plain kit, named by the manifest
            return _started(root, Path(rel).parent, SCRIPT, entry.name, files, size)
        if not cls:
            raise AgentLoadError(f"{manifest}: {rel} has {len(acting)} agent classes; say which: class = \"NAME\"")
        if not cls.isidentifier():
            raise AgentLoadError(f"{manifest}: class {cls!r} is not a Python name")
        return Found(f"{marked(root, Path(rel))}:{cls}", "python", rel, files, size)
    if not _program(entry):
        named = ("" if language == "program" else
                 f"language {language!r} is none this program builds or starts (python, java, node: an entry "
                 "in any other language is a program to run); ")
        raise AgentLoadError(f"{manifest}: {named}entry {rel} is not an executable program (#! script or binary)")
    startable(entry, rel)
    return Found(f"{EXEC}{shlex.quote(marked(root, Path(rel)))}", language, rel, files, size)


JAVA_MAIN = re.compile(rb"\bstatic\s+(?:final\s+)?void\s+main\s*\(")
JAVA_PACKAGE = re.compile(rb"^\s*package\s+([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*;", re.MULTILINE)


def java_main(folder: Path) -> str:
    """The class with `main` among the Java sources under `folder` (its package included)."""
    found = []
    for rel, size in tree.files(folder):
        if rel.suffix != ".java":
            continue
        if size > tree.caps().source:
            raise AgentLoadError(f"{rel} is {tree.size_text(size)}, over the "
                                 f"{tree.cap_text(tree.caps().source)} cap for a source file")
        text = (folder / rel).read_bytes()
        if JAVA_MAIN.search(text):
            package = JAVA_PACKAGE.search(text)
            found.append((package.group(1).decode() + "." if package else "") + rel.stem)
    if len(found) != 1:
        what = "no class with main" if not found else f"{len(found)} classes with main ({', '.join(sorted(found))})"
        raise AgentLoadError(f"{what}; name the class to start with {MANIFEST}: language = \"java\", "
                             f"entry = \"Main.java\", class = \"Main\"")
    return found[0]


def java_root(root: Path, source: Path) -> Path:
    """The folder `source` (a `.java` file of the group) is compiled from: its own, or the one its
    package's folders are in (`src/` for `src/bot/Main.java` in `package bot;`)."""
    with open(root / source, "rb") as f:
        package = JAVA_PACKAGE.search(f.read(tree.caps().source))
    folder = source.parent
    if package:
        parts = tuple(package.group(1).decode().split("."))
        if folder.parts[len(folder.parts) - len(parts):] == parts:
            return Path(*folder.parts[:len(folder.parts) - len(parts)])
    return folder


def _started(root: Path, folder: Path, language: languages.Language, main: str, files: int, size: int) -> Found:
    """A group in a language started by a command (Java, Node.js): built in the sandbox where it
    needs a build, and played through the launcher script the build writes beside its files."""
    if language.name == "java":
        main = main or java_main(root / folder)
        if not all(part.isidentifier() for part in main.split(".")):
            raise AgentLoadError(f"{MANIFEST}: class {main!r} is not a Java class name")
    built = languages.build(root, language, main=main, inside=folder)
    if built.program is None:
        raise BuildError(f"{built.verdict} (build log: {built.log})")
    entry = (str(folder / main) if language.name != "java"  # a file; a Java class, in the folder built
             else main if folder == Path() else f"{main} (in {folder})")
    return Found(f"{EXEC}{shlex.quote(_played(built))}", language.name, entry, files, size, str(built.log))


def _built(root: Path, marker: Path, files: int, size: int) -> Found:
    """A group handed in as source with a build file: built in the sandbox; its program."""
    folder = root / marker.parent
    language = languages.detect(folder)
    if language is None:  # (a marker's name is one of a language's)
        raise AgentLoadError(f"needs a build ({marker}) of no known kind")
    built = languages.build(root, language, inside=marker.parent)  # the whole tree, built where its build file is
    if built.program is None:
        raise BuildError(f"{built.verdict} (build log: {built.log})")
    entry = f"{built.program.relative_to(built.log.with_suffix(''))} (built with {language.name})"
    return Found(f"{EXEC}{shlex.quote(_played(built))}", language.name, entry, files, size, str(built.log))


def _played(built: languages.Built) -> str:
    """A built program's path, the build's copy of the group's tree marked as its top (GROUP_TOP)."""
    assert built.program is not None
    work = built.log.with_suffix("")
    return marked(work, built.program.relative_to(work))
