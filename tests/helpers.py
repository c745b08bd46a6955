"""Small builders shared by the tests (imported as a plain module: pytest puts tests/ on the path)."""

from __future__ import annotations

from pathlib import Path

from treasure_cli.rules.actions import Action
from treasure_cli.formats.map_file import parse_map


ROOT = Path(__file__).resolve().parent.parent  # the repository
GOLDEN = ROOT / "tests" / "golden"


def island_from_grid(rows: list[str], treasure: tuple[int, int], r: int = 2, f: int = 4):
    """Build an Island from rows of space-separated cells in map-file syntax (e.g. '0 1 1M 1P')."""
    cells = [row.split() for row in rows]
    width = len(cells[0])
    header = f"{width} {len(cells)}\n{r}\n{f}\n9\n{treasure[0]} {treasure[1]}\n"
    return parse_map(header + "\n".join(";".join(row) for row in cells) + "\n", "test-map")


class ScriptedAgent:
    """Plays a fixed list of actions, then large scans; records what it observed."""

    def __init__(self, actions: list[Action]):
        self.actions = list(actions)
        self.observations = []

    def act(self, obs):
        from treasure_cli.rules.actions import LargeScan

        self.observations.append(obs)
        return self.actions.pop(0) if self.actions else LargeScan()


# A small valid map in canonical form: 6 columns x 5 rows; the treasure (1, 2)
# is plain land of region 1 and both prisons reach it. Lines: header 1-5, rows 6-10.
SMALL_MAP = """\
6 5
2
5
3
1 2
0; 0; 0; 0; 0; 0
0; 1; 1; 2M; 2; 0
0; 1P; 1; 2; 2P; 0
0; 1; 1; 2; 2; 0
0; 0; 0; 0; 0; 0
"""
