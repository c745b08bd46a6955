"""A log whose notes' tiles inflate without end (ninth round).

A note's tiles are written as a zlib stream in base64 (`turn 3: the agent notes "...", candidates
eAEB...`): one bit a tile of the map. A log someone sent can hold a stream that inflates far past
that: 58 kB of base64 in one line inflated to 45 MB, and 40 such lines (a 2.3 MB log, on a
16x16 map) took `treasure replay` to 1.8 GB. The tiles are inflated no further than the log's
map needs now, and more is a damaged line."""

from __future__ import annotations

import base64
import resource
import subprocess
import sys
import zlib

from helpers import invoke, shipped_maps


def test_a_note_that_inflates_past_its_map_is_refused_without_inflating_it(tmp_path):
    maps = shipped_maps(tmp_path / "maps", "MAP_01.txt")
    played = invoke("run", str(maps), str(tmp_path / "out"), "--notes")
    assert played.exit_code == 0, played.output
    lines = (tmp_path / "out" / "LOG_01.txt").read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if ", candidates " in line)
    bomb = base64.b64encode(zlib.compress(b"\0" * 45_000_000, 9)).decode()
    assert len(bomb) < 60_000
    noted = lines[first].rpartition(", candidates ")[0] + ", candidates " + bomb
    events = lines[3:first] + [noted] * 40 + lines[first + 1:]
    log = tmp_path / "out" / "bomb.txt"
    log.write_text("\n".join([str(len(events)), *lines[1:3], *events]) + "\n")
    # In a process of its own, capped at 1 GiB of address space: before, it needed 1.8 GB
    cap = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
    done = subprocess.run([sys.executable, "-c", cap + "from treasure_cli.cli import main; main()", "replay", str(log),
                           "--map", str(maps / "MAP_01.txt"), "--turn", "0", "--no-color"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])
    assert done.stderr == f"Error: {log}:{first + 1}: the note's tiles are more than the map's 32 bytes (one bit a tile)\n"
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 1_000_000  # KiB: under 1 GB
