"""Batch play: one game per map file, logs written atomically, results summarised.

Workers are pure: each plays one map and returns its record and log text;
the parent writes the files, so a crash never leaves half a log and the
output is the same whatever the number of processes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import os
import re
import stat
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from treasure_cli.errors import OutputBusyError, TreasureError
from treasure_cli.formats.atomic import TEMP_SUFFIX, ensure_folder, temp_prefix, write_text_atomic
from treasure_cli.formats.game_record import format_log
from treasure_cli.formats.map_file import looks_like_map, read_map
from treasure_cli.formats.text import one_line
from treasure_cli.play.executor import run_tasks, signals_held
from treasure_cli.play.games import failed, play_game
from treasure_cli.sandbox import tree
from treasure_cli.sandbox.levels import AgentLimits
from treasure_cli.play.records import FAILED, GameRecord
from treasure_cli.rules import seeds
from treasure_cli.rules.events import Event
from treasure_cli.rules.island import Island
from treasure_cli.rules.hint_draw import HintSet


@dataclasses.dataclass(frozen=True)
class RunOptions:
    agent: str = "logic"                 # an agent spec (see agents/registry.py)
    base_seed: int = 0
    truth_rate: float = 0.5
    max_turns: int | None = None
    game_timeout: float | None = None    # seconds; a game past it fails
    isolation: str = "auto"              # where an agent that is not built in plays (sandbox/levels.py)
    limits: AgentLimits = AgentLimits()  # what its process may use
    notes: bool = False                  # the agent's notes (its explain()) go into the logs
    agent_output: bool = False           # what the agent printed, a line an event, goes into the logs
    hints: HintSet | None = None         # the pirate's hint kinds (None: the 15 built-in kinds)
    game_seed: int | None = None         # this exact game seed (a bench or tournament game's), not derived


# MAP_<id> or MAP<digit...>, any case: `maple.txt` keeps its whole stem.
_MAP_ID = re.compile(r"MAP_(.+)|MAP(\d.*)", flags=re.IGNORECASE)


def log_name(map_path: Path, naming: str = "id") -> str:
    """The log's file name: with "id", LOG_<id>.txt for MAP_<id>.txt (and MAP<digits>...),
    LOG_<stem>.txt for any other name; with "stem", always LOG_<stem>.txt."""
    m = _MAP_ID.fullmatch(map_path.stem) if naming == "id" else None
    return f"LOG_{(m.group(1) or m.group(2)) if m else map_path.stem}.txt"


def plan_logs(maps: Sequence[Path], naming: str = "id") -> list[str]:
    """Every map's log name; TreasureError naming the maps if two would share one.

    Names are compared as a case-insensitive file system compares them
    (casefolded, Unicode-normalised), so a run never writes one log over another.
    """
    names = [log_name(m, naming) for m in maps]
    seen: dict[str, list[Path]] = {}
    for path, name in zip(maps, names):
        seen.setdefault(unicodedata.normalize("NFC", name).casefold(), []).append(path)
    clashes = [paths for paths in seen.values() if len(paths) > 1]
    if clashes:
        said = "; ".join(", ".join(str(p) for p in paths[:-1]) + f" and {paths[-1]} would "
                         + ("both" if len(paths) == 2 else "all") + f" write {log_name(paths[0], naming)}"
                         for paths in clashes)
        hint = " (try --log-name stem)" if naming == "id" else ""
        raise TreasureError(f"maps would write the same log, so nothing was played: {said}{hint}")
    return names


def map_label(map_path: Path) -> str:
    """The map path as it is recorded in a log: as given, with forward slashes."""
    return os.path.normpath(str(map_path)).replace(os.sep, "/")


def game_seed(island: Island, options: RunOptions) -> int:
    """A map's game seed: from the base seed and the map's content, not its name or folder
    (or the one given as it is)."""
    if options.game_seed is not None:
        return options.game_seed
    return seeds.map_seed(options.base_seed, island.digest)


def play_map(map_path: Path, options: RunOptions) -> tuple[GameRecord, str | None]:
    """Play one map; returns its record and its log text (None if the game could not be played; a game
    the agent failed has the log of its turns up to the failure, ending in the line that says what failed)."""
    label = map_label(map_path)
    warnings: list[str] = []
    try:
        island = read_map(map_path, warnings)
    except TreasureError as exc:
        return failed(options.agent, label, 0, "bad-map", str(exc)), None
    seed = game_seed(island, options)
    record, events = play_game(island, options.agent, seed, map_name=label, truth_rate=options.truth_rate,
                               max_turns=options.max_turns, game_timeout=options.game_timeout,
                               isolation=options.isolation, limits=options.limits, notes=options.notes,
                               output=options.agent_output,
                               warnings=tuple(warnings), hints=options.hints, failed_events=True)
    return record, (format_log(events) if events is not None else None)


def write_log(out_dir: Path, map_path: Path, events: Sequence[Event], naming: str = "id") -> Path:
    """Write the log of a finished game on `map_path` into `out_dir`, atomically."""
    target = out_dir / log_name(map_path, naming)
    nothing_in_the_way([map_path], out_dir, [target.name])
    _no_device_in_the_way(target)
    write_text_atomic(target, format_log(list(events)))
    return target


def existing_logs(maps: Sequence[Path], out_dir: Path, naming: str = "id") -> list[Path]:
    """The logs a run would replace; TreasureError if one of them is a map, not a log."""
    names = plan_logs(maps, naming)
    nothing_in_the_way(maps, out_dir, names)
    return [out_dir / name for name in names if (out_dir / name).exists()]


def nothing_in_the_way(maps: Sequence[Path], out_dir: Path, names: Sequence[str]) -> None:
    """TreasureError if a log would be written over a map (one of `maps`, or any file that starts
    as a map does): a map named LOG_02.txt beside MAP_02.txt, played with OUTPUT its own folder,
    was replaced by MAP_02.txt's log, and said to be "a log of an earlier run". Or into a pipe or
    a device (a FIFO left in OUTPUT blocked the run for ever, deaf to Ctrl-C)."""
    for map_path, name in zip(maps, names):
        target = out_dir / name
        if not target.exists():
            continue
        try:
            _no_device_in_the_way(target)
        except OSError:
            raise TreasureError(one_line(f"the log of {map_path} would be written into {target}, which is a "
                                         "pipe or a device, not a log: nothing was played")) from None
        if looks_like_map(target) or any(_same_file(target, other) for other in maps):
            raise TreasureError(one_line(f"the log of {map_path} would be written over {target}, which is a map, "
                                         "not a log: nothing was played (give another OUTPUT folder)"))


def _no_device_in_the_way(target: Path) -> None:
    """OSError if a log's place holds what is not a file (write_text_atomic writes through a pipe or a
    device, for /dev/stdout): in an OUTPUT folder that is a FIFO or a link to a device someone left."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):  # a folder: write_text_atomic says so
        raise OSError(errno.EINVAL, "is a pipe or a device, not a log file", str(target))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def run_maps(maps: list[Path], out_dir: Path, options: RunOptions, jobs: int = 1,
             on_result: Callable[[GameRecord], None] | None = None, *,
             naming: str = "id", start_method: str | None = None) -> list[GameRecord]:
    """Play every map, write a log for each game played, return records in input order.

    Refuses before playing anything if two maps would write the same log.
    """
    names = plan_logs(maps, naming)
    nothing_in_the_way(maps, out_dir, names)
    tree.protect(out_dir, *maps)  # out of every agent's copy, even one whose folder holds them
    records: dict[int, GameRecord] = {}
    with output_lock(out_dir):
        remove_stale_temp_files(out_dir)
        for i, (record, text) in run_tasks(play_map, [(p, options) for p in maps], jobs,
                                           start_method=start_method):
            # A Ctrl-C or SIGTERM between a log's write and its report would leave a log the
            # caller never counted ("stopped: 8 of 12 logs written" beside 9): it waits for both.
            with signals_held():
                if text is not None:
                    record = _keep(record, text, out_dir / names[i])
                if on_result is not None:
                    on_result(record)
                records[i] = record
    return [records[i] for i in range(len(maps))]


def _keep(record: GameRecord, text: str, target: Path) -> GameRecord:
    """Write one log; a write that fails (full disk, a folder in the way) fails that game only."""
    try:
        _no_device_in_the_way(target)
        write_text_atomic(target, text)
    except OSError as exc:
        cause = exc.strerror or str(exc)
        return dataclasses.replace(record, outcome=FAILED, reason="write-error",
                                   error=f"{target}: cannot write the log: {cause}")
    return dataclasses.replace(record, log=str(target))


LOCK_NAME = ".treasure-run.lock"


@contextlib.contextmanager
def output_lock(out_dir: Path) -> Iterator[None]:
    """Hold the output folder for one run at a time; a second run is refused, naming the first.

    An advisory lock (flock) on a hidden file: the system drops it when the
    holder ends, however it ends, so a crashed run never blocks the next. The
    file is removed at the end; a run that locked a file just removed (its
    inode no longer at the path) tries again, so two runs never both hold it.
    """
    ensure_folder(out_dir)
    path = out_dir / LOCK_NAME
    while True:
        # Never through a link: a folder a student handed in may hold `.treasure-run.lock` linked to
        # any file the user can write, which the lock's truncate and pid line would overwrite.
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            raise TreasureError(f"{path} is a link, not this program's lock: nothing was played (remove it if "
                                "it is not yours)") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            raise OutputBusyError(f"{out_dir} is in use by another treasure run ({holder}); "
                                  "wait for it to finish or choose another folder") from None
        try:
            same = os.lstat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}".encode(), 0)
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        os.close(fd)  # closing drops the lock


def remove_stale_temp_files(out_dir: Path) -> int:
    """Delete temp files an interrupted run of this program left (only its own `.LOG_*.tmp`)."""
    removed = 0
    for stale in out_dir.glob(temp_prefix("LOG_*") + "*" + TEMP_SUFFIX):
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
            removed += 1
    return removed
