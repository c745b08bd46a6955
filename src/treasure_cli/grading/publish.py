"""Public and private maps: which games of a tournament may be published, and which maps were.

A tournament's maps are private: their games are graded and ranked, but no
published page shows them (their island, treasure and seeds would let a
resubmission look its island up). `--report --html DIR --public-maps GLOB`
marks the maps the glob names as public: their games' pages go into the
public tree, and the store remembers that they were published, so that a
later tournament on one of them is warned.
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path

from treasure_cli.errors import TreasureError
from treasure_cli.grading.store import Store


def public_maps(pattern: str) -> dict[str, str]:
    """The maps a `--public-maps` glob names (a folder: its *.txt, at any depth): digest -> path."""
    from treasure_cli.grading.tournament import maps_by_digest

    path = Path(pattern)
    files = sorted(str(p) for p in path.rglob("*.txt")) if path.is_dir() else sorted(
        p for p in glob.glob(pattern, recursive=True) if Path(p).is_file())
    if not files:
        raise TreasureError(f"--public-maps {pattern}: no map file there")
    return maps_by_digest(files)


def record_published(db: str | Path, maps: dict[str, str]) -> None:
    """Remember in the store that the games of these maps (digest -> path) were published."""
    with Store(db, create=False) as store:
        store.publish_maps(sorted(maps.items()))


def published_warnings(db: str | Path, map_paths: Sequence[str]) -> list[str]:
    """A warning for each map of a tournament whose games were published from the store `db`."""
    if not Path(db).is_file():
        return []
    from treasure_cli.grading.tournament import maps_by_digest

    with Store(db) as store:
        published = store.published_maps()
    if not published:
        return []
    return [f"warning: {path}: its games were published (as {published[digest][0]}, "
            f"{published[digest][1][:10]}): a submission may know this island; grade on private maps"
            for digest, path in maps_by_digest(map_paths).items() if digest in published]
