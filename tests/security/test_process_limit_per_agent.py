"""A game's 64 processes and threads are its own, however many agents its worker has played.

The process limit (RLIMIT_NPROC, 64) counts every process and thread of a user, and a referee run
as root gave every agent's sandbox in one worker the same user. Each agent keeps a warm host in
each worker for the whole run (sandbox/process.py), so each agent played before took one of the
64 from every later game in that worker, past the first ten or so: a probe that starts threads
until it cannot started 50 as the first agent of a class, 48 after 12 others, 36 after 24 and 20
after 40 (a JVM wants 14 to 19 threads). A group played late in a large class could fail for
what the others were, not for what it did. Now each agent's sandbox has a user of its
own (sandbox/levels.py, `sandbox_user`).

As a user other than root, every sandbox runs as that user, whose processes (every warm host
among them) are counted together: docs/security.md says so; this test runs as root only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from helpers import ROOT

from treasure_cli.grading.store import Store

PROBE = '''\
import sys, threading
from treasure_cli import LargeScan

COUNT = []


def threads():
    stop, started = threading.Event(), []
    for _ in range(80):
        t = threading.Thread(target=stop.wait)
        try:
            t.start()
        except RuntimeError:  # "can't start new thread": the process limit
            break
        started.append(t)
    stop.set()
    for t in started:
        t.join()
    return len(started)


class Agent:
    def act(self, obs):
        if not COUNT:
            COUNT.append(threads())
            print("THREADS", COUNT[0], file=sys.stderr, flush=True)
        return LargeScan()
'''

OTHERS = 24  # (a game's own 64 binds first: the first ten or so hosts beside it cost nothing)


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user every sandbox is that user (docs/security.md)")
def test_agents_played_before_in_a_worker_take_nothing_of_a_games_process_limit(tmp_path):
    klass, maps = tmp_path / "class", tmp_path / "maps"
    klass.mkdir()
    maps.mkdir()
    shutil.copy(ROOT / "input" / "MAP_01.txt", maps)
    (klass / "aa_first.py").write_text(PROBE)
    (klass / "zz_last.py").write_text(PROBE + "# the same probe, another group\n")
    for k in range(OTHERS):  # groups whose warm hosts stay in the worker (each its own file)
        (klass / f"other{k:02d}.py").write_text(f"# group {k}\nfrom treasure_cli import LargeScan\n\n\n"
                                                 "class Agent:\n    def act(self, obs):\n        return LargeScan()\n")
    db = tmp_path / "r.sqlite"
    played = subprocess.run([sys.executable, "-m", "treasure_cli", "tournament", str(klass), "--maps", str(maps),
                             "--db", str(db), "--games", "1", "--jobs", "1", "--seed", "3"],
                            capture_output=True, text=True, timeout=600)
    assert played.returncode == 0, played.stderr
    with Store(db) as store:
        rows = sorted(store.rows(), key=lambda r: r.finished_at)
    probes = {r.label: int(r.output.split()[1]) for r in rows if r.output.startswith("THREADS")}
    assert set(probes) == {"aa_first", "zz_last"}, [(r.label, r.output) for r in rows]
    order = [r.label for r in rows]
    assert order.index("aa_first") < min(order.index(f"other{k:02d}") for k in range(OTHERS)) < order.index("zz_last")
    assert probes["aa_first"] >= 40, probes  # (the limit is what stops it: 64, less its own host's)
    assert probes["zz_last"] >= probes["aa_first"] - 2, probes
