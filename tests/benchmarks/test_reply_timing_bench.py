"""The reply-timing benchmark runs and prints its tables (no timing is asserted)."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT

SCRIPT = ROOT / "benchmarks" / "reply_timing.py"


def _tables(out: str) -> list[list[list[str]]]:
    """The markdown tables of `out`, each a list of rows of stripped cells, header row left out."""
    tables: list[list[list[str]]] = []
    for block in out.split("\n\n"):
        rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in block.splitlines()
                if line.startswith("| ") and "---" not in line]
        if rows:
            tables.append(rows[1:])
    return tables


def test_quick_run_prints_both_settings_with_every_turn_timed_and_its_parts():
    out = subprocess.run([sys.executable, str(SCRIPT), "--size", "12", "--tiles", "3", "--games", "3", "--turns", "6",
                          "--parts", "--pad", "2048", "--leak", "5"],
                         check=True, capture_output=True, text=True, timeout=300).stdout
    table, parts = _tables(out)
    assert [r[0] for r in table] == ["as they come", "steady (tournament)", "steady (tournament), on time only",
                                     "late turns per tile"]
    for row in table[:3]:
        if row[2] == "-":  # the on-time turns only, too few to compare on a busy machine
            assert row is table[2] and set(row[2:9]) == {"-"}
            continue
        assert 0 <= float(row[7]) <= 1 and 0 < float(row[8]) <= 1  # the two p-values
        assert float(row[5]) >= 0 and float(row[2]) > 0
    # Each of the 3 x 3 games times its turns 2..6 unless a scan finds the treasure first.
    timed, late = int(table[1][1]), int(table[1][4])
    assert 0 < timed <= 45 and 0 <= late <= timed
    assert int(table[2][1]) == timed - late
    assert sum(map(int, table[3][1].split())) == late and 0 < float(table[3][8]) <= 1
    assert len(parts) == 6 and all(float(row[1]) >= 0 and 0 < float(row[4]) <= 1 for row in parts)
