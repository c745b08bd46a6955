"""What several commands share: their options, the checks of their values, and the refusal to start."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

import click

from treasure_cli.errors import TreasureError
from treasure_cli.formats.text import counted, one_line

if TYPE_CHECKING:  # (imported where used: `treasure --version` loads no more than it needs)
    from treasure_cli.sandbox.levels import AgentLimits


class Refusal(click.ClickException):
    """The command refuses to start: nothing was done (exit status 2, like a usage error)."""

    exit_code = 2


def map_files(inputs: tuple[str, ...] | list[str], recursive: bool = False, only_maps: bool = False) -> list[Path]:
    """Expand files, folders (every *.txt in name order; with `recursive`, in subfolders too) and
    glob patterns (`hidden/**/*.txt`, quoted so the program expands them) into map paths.

    `only_maps`: of the files a folder or a pattern finds, those that do not start as a map
    does (formats/map_file.py: looks_like_map; a game log, a README) are left out, said in one
    line on standard error. A file named by itself is always a map to read (and an error if it
    is not one); so is a file that starts as a map and is broken further on."""
    import glob

    paths: list[Path] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            found = p.rglob("*.txt") if recursive else p.iterdir()
            paths.extend(_maps_only(sorted(q for q in found if q.suffix == ".txt" and q.is_file()), p, only_maps))
        elif p.exists():
            paths.append(p)
        elif glob.has_magic(item):
            matched = _globbed(item)
            if not matched:
                raise click.ClickException(f"{item}: no file matches")
            paths.extend(_maps_only(matched, _glob_base(item), only_maps))
        else:
            raise click.ClickException(f"{item}: no such file or folder")
    return paths


NOT_MAPS_SHOWN = 5  # files named in the line that says which were not maps


def _maps_only(found: list[Path], base: Path, only_maps: bool) -> list[Path]:
    """`found` without the files that are not maps (when `only_maps`), and one line that says so."""
    if not only_maps:
        return found
    from treasure_cli.formats.map_file import looks_like_map

    kept: list[Path] = []
    others: list[Path] = []
    for path in found:
        (kept if looks_like_map(path) else others).append(path)
    if others:
        def shown(path: Path) -> str:
            try:
                return path.relative_to(base).as_posix()
            except ValueError:
                return str(path)
        names = ", ".join(shown(q) for q in others[:NOT_MAPS_SHOWN]) + (", ..." if len(others) > NOT_MAPS_SHOWN else "")
        where = base.as_posix().rstrip("/") + "/"
        click.echo(one_line(f"skipped {counted(len(others), 'file')} under {where} that "
                            f"{'is' if len(others) == 1 else 'are'} not {'a map' if len(others) == 1 else 'maps'}: "
                            f"{names}"), err=True)
    return kept


MAPS_HELP = "a folder (its *.txt), one map file, or a quoted glob such as 'hidden/**/*.txt'"
RECURSIVE = click.option("--recursive", is_flag=True, help="With a folder for --maps: its subfolders' maps too.")
# A tournament's maps (and a stored game's, for `replay --db`) are often one subfolder per size or style.
MAPS_RECURSIVE = click.option("--recursive/--no-recursive", default=True, show_default=False,
                              help="With a folder for --maps: its subfolders' maps too.")


def _globbed(pattern: str) -> list[Path]:
    """The files a pattern matches, in name order, as glob.glob(recursive=True) finds them but
    that `**` follows no link to a folder (as --recursive's walk does not): a folder handed in
    with two links to its parents (`a/up -> ..`, `a/up2 -> ../..`) made glob.glob walk an
    exponential number of paths (`treasure check 'sent/**/*.txt'` ran for ever)."""
    base = _glob_base(pattern)
    rest = Path(pattern).parts[len(base.parts):]  # Path(".").parts is ()
    if rest and rest[-1] == "**":  # glob.glob's `x/**` is every path under x; pathlib's, its folders only
        rest = (*rest, "*")
    hidden = any(part.startswith(".") for part in rest)  # glob.glob's `*` leaves out dot files
    found = base.glob(str(Path(*rest))) if rest else iter([base])
    return sorted(q for q in found if q.is_file()
                  and (hidden or not any(part.startswith(".") for part in q.relative_to(base).parts)))


def _glob_base(pattern: str) -> Path:
    """The folder a glob pattern searches from: its parts before the first with a wildcard."""
    import glob

    parts = []
    for part in Path(pattern).parts:
        if glob.has_magic(part):
            break
        parts.append(part)
    return Path(*parts) if parts else Path(".")


def map_names(given: str, paths: list[Path]) -> dict[str, str]:
    """Each map's name as a tournament records and shows it: its path under the --maps folder
    (`s48/MAP_01.txt`, forward slashes), under a glob's fixed folder, or a lone file's name."""
    import glob

    root = Path(given)
    base = root if root.is_dir() else _glob_base(given) if glob.has_magic(given) and not root.exists() else None
    names = {}
    for p in paths:
        try:
            names[str(p)] = p.relative_to(base).as_posix() if base is not None else p.name
        except ValueError:
            names[str(p)] = p.name
    return names


def maps_searched(given: str, recursive: bool, found: int) -> str:
    """Where --maps looked and what it found, for a message about a map that is not there;
    names --recursive when the folder's subfolders hold maps it did not search."""
    root = Path(given)
    if not root.is_dir():
        return f"{given} ({counted(found, 'map')})"
    if recursive:
        return f"{given} and its subfolders ({counted(found, 'map')})"
    below = sum(1 for q in root.rglob("*.txt") if q.is_file()) - found
    return (f"{given} ({counted(found, 'map')}; not its subfolders"
            + (f", which hold {counted(below, 'more map')}: give --recursive" if below > 0 else "") + ")")


def view_options(f):
    """The options of the step-through view, shared by `replay` and `run --step`."""
    for option in reversed([
        click.option("--no-pause", is_flag=True, help="Print every frame one after another, no keys."),
        click.option("--turn", type=click.IntRange(min=0), metavar="N",
                     help="Print only the frame of turn N's first step (0 = the setup)."),
        click.option("--window", metavar="ROWSxCOLS", callback=parse_window,
                     help="Show this many tiles of the map [default: what fits the terminal]."),
        click.option("--color/--no-color", default=None,
                     help="Colour the frames [default: only on a terminal, and not when NO_COLOR is set]."),
    ]):
        f = option(f)
    return f


def parse_window(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    m = re.fullmatch(r"\s*([0-9]{1,5})\s*[xX]\s*([0-9]{1,5})\s*", value)  # ASCII digits: not ² or ٣
    if m is None or not int(m[1]) > 0 < int(m[2]):
        raise click.BadParameter(f"expected ROWSxCOLS such as 30x60, not {value!r}")
    return int(m[1]), int(m[2])


def finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """FloatRange lets nan through (every comparison with nan is false)."""
    if value is not None and value != value:
        raise click.BadParameter("nan is not a number here")
    return value


def agent_spec(value: str, option: str = "--agent") -> str:
    """Check an agent spec once, so a bad one is a usage error before any game (without
    running any of a stranger's code: that happens in the agent's own process)."""
    from treasure_cli.agents.registry import check_spec
    from treasure_cli.errors import AgentLoadError

    try:
        return check_spec(value)
    except AgentLoadError as exc:
        raise click.BadParameter(str(exc), param_hint=option) from None


SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def byte_size(ctx: click.Context, param: click.Parameter, value: str) -> int:
    text = value.strip().upper().removesuffix("B").removesuffix("I")
    number, unit = (text[:-1], text[-1]) if text[-1:] in "KMG" else (text, "")
    try:
        size = int(float(number) * SIZE_UNITS[unit])
    except ValueError:
        raise click.BadParameter(f"expected a size such as 512M or 2G, got {value!r}") from None
    if size < 64 << 20:
        raise click.BadParameter(f"{value} is too little for an agent's process: give at least 64M")
    return size


def cap_size(ctx: click.Context, param: click.Parameter, value: str) -> int:
    """A size such as 2M, 500K or 100M (bytes; K, M, G: powers of 1024), at least 1 kB."""
    text = value.strip().upper().removesuffix("B").removesuffix("I")
    number, unit = (text[:-1], text[-1]) if text[-1:] in "KMG" else (text, "")
    try:
        size = int(float(number) * SIZE_UNITS[unit])
    except ValueError:
        raise click.BadParameter(f"expected a size such as 500K or 2M, got {value!r}") from None
    if size < 1024:
        raise click.BadParameter(f"{value} is too small for a cap: give at least 1K")
    return size


def intake_caps_options(command):
    """--max-source-size, --max-group-size, --max-group-files: the caps a group is held to before
    anything reads it (sandbox/tree.py: caps; docs/grading.md, "Caps")."""
    command = click.option(
        "--max-group-files", type=click.IntRange(min=1), default=2000, show_default=True, metavar="N",
        help="A group (a folder, or an archive once unpacked) with more files is left out.")(command)
    command = click.option(
        "--max-group-size", default="50M", show_default=True, metavar="SIZE", callback=cap_size,
        help="A group whose files add up to more (or an archive that unpacks to more) is left out.")(command)
    return click.option(
        "--max-source-size", default="2M", show_default=True, metavar="SIZE", callback=cap_size,
        help="A Python source file over SIZE is never parsed: the group it is the agent of is left out "
             "(parsing takes ~400 bytes of memory a byte of source).")(command)


def set_intake_caps(max_files: int, max_size: int, max_source: int) -> None:
    """The caps given on the command line, for this process and the workers it starts."""
    from treasure_cli.sandbox import tree

    tree.set_caps(None if max_files == tree.MAX_FILES else max_files, None if max_size == tree.MAX_BYTES else max_size,
                  None if max_source == tree.MAX_SOURCE_BYTES else max_source)


def isolation_options(command):
    """--agent-isolation, --agent-memory and --action-timeout: how agents that are not built in play."""
    from treasure_cli.sandbox.levels import LEVELS

    command = click.option(
        "--action-timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
        help="An agent in a process of its own that takes longer than SECONDS over one action fails "
             "its game.")(command)
    command = click.option(
        "--agent-memory", default="1G", show_default=True, metavar="SIZE", callback=byte_size,
        help="Memory (address space) an agent's process may use: 512M, 2G, ...")(command)
    return click.option(
        "--agent-isolation", type=click.Choice(LEVELS), default="auto", show_default=False,
        help="Where agents that are not built in play: sandbox (bubblewrap: no network, no files but "
             "their own), process (a process of their own, OS limits), none (this process, trusted "
             "code only); auto = sandbox where bubblewrap runs, else process. See docs/security.md.")(command)


def hint_options(command):
    """--hints FILE.py (repeatable) and --hint-weights SPEC, handed to the command as one
    `hints` argument: the pirate's kinds (a HintSet, loaded and checked; None for the 15
    built-in kinds at their own weights). Any command that plays games takes it this way."""

    @functools.wraps(command)
    def with_hints(*args, hint_files: tuple[str, ...] = (), hint_weights: str | None = None, **kwargs):
        hints = None
        if hint_files or hint_weights:
            from treasure_cli.formats.hint_plugins import hint_set

            hints = hint_set(hint_files, hint_weights)
        return command(*args, hints=hints, **kwargs)

    with_hints = click.option(
        "--hint-weights", metavar="NAME=W,...",
        help="Weights of the hint kinds: a kind's name (built-in, from --hints, or an installed "
             "treasure_cli.hints entry point), or `builtin` for the 15 built-in kinds together; "
             "0 leaves a kind out. E.g. builtin=0 (plugin kinds only), near-mountain=2.")(with_hints)
    return click.option(
        "--hints", "hint_files", multiple=True, type=click.Path(exists=True, dir_okay=False), metavar="FILE.py",
        help="Add the hint kinds this Python file defines (trusted code: see docs/hints.md).")(with_hints)


def load_hint_files(files: tuple[str, ...]) -> None:
    """`replay --hints`: make a log's plugin kinds known to the log reader."""
    if files:
        from treasure_cli.formats.hint_plugins import load_file

        for path in files:
            load_file(path)


def isolation_settings(asked: str, memory: int, action_timeout: float | None, specs) -> tuple[str, AgentLimits]:
    """The isolation level to use and the limits, said on stderr when an agent is not built in."""
    from treasure_cli.agents.registry import is_builtin, is_exec_spec
    from treasure_cli.sandbox.levels import AgentLimits, effective_level

    try:
        level, warning = effective_level(asked)
    except TreasureError as exc:
        raise Refusal(str(exc)) from None
    strangers = [s for s in specs if not is_builtin(s)]
    if strangers:
        if warning:
            click.echo(warning, err=True)
        where = {"sandbox": f"in a sandbox (bubblewrap; no network, {memory >> 20} MiB)",
                 "process": f"in processes of their own (no sandbox; {memory >> 20} MiB)",
                 "none": "in this process (--agent-isolation none: no protection)"}
        # With none, a program (exec:) still runs in a process of its own: it cannot run in ours.
        programs = [s for s in strangers if level == "none" and is_exec_spec(s)]
        others = [s for s in strangers if s not in programs]
        for group, at in ((others, level), (programs, "process")):
            if group:
                click.echo(one_line(f"agents: {', '.join(group)} {where[at]}"), err=True)
    return level, AgentLimits(memory=memory, action_timeout=action_timeout)


GAME_TIMEOUT = click.option(
    "--game-timeout", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
    help="A game still running after SECONDS fails (the agent is named); the other games go on.")


def split_csv(value: str, param: str, convert=str) -> tuple:
    """Split `a,b,c` (spaces allowed) into a tuple, converting each item."""
    items = [x.strip() for x in value.split(",") if x.strip()]
    try:
        out = tuple(convert(x) for x in items)
    except ValueError:
        out = ()
    if not out:
        raise click.BadParameter(f"expected a comma-separated list, got {value!r}", param_hint=param)
    return out


# Grades need games kept apart across groups (docs/security.md, "A class tournament, safely"):
# the default, whatever it costs on many workers with few maps; --side-by-side is for practice.
KEEP_APART = click.option(
    "--apart/--side-by-side", "keep_apart", default=True,
    help="--apart (the default): a game starts on a map only once every game that may have heard of that map "
         "has ended, whatever its group, so two groups that collude cannot pass a tile between games side by "
         "side (docs/security.md). --side-by-side keeps only each group's own games apart: quicker with many "
         "workers and few maps, for practice runs, not for grades.")


SCHEDULER = click.option(
    "--scheduler", metavar="ADDRESS",
    help="Play the games on this Dask cluster (tcp://host:8786) instead of local processes "
         "(needs: pip install 'treasure-cli[dask]').")
