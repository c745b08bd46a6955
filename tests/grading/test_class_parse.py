"""A submission's Python files are parsed in a child process under a memory limit, not in the
referee: a file under the source cap can still cost a parse gigabytes (sandbox/class_parse.py)."""

from __future__ import annotations

import json
import subprocess
import sys

from treasure_cli.sandbox import class_parse

COSTLY = "x = [" + "a," * 950_000 + "]\n"  # 1.9 MB, under the 2 MB cap; ~1.3 GB to parse

PEAK = """
def peak_mb():  # this program's own peak (VmHWM); ru_maxrss would start at its parent's, a big test worker's
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
"""
MEASURE = PEAK + """
import json, sys
from treasure_cli.grading.submissions import find_submissions
found, left_out = find_submissions([sys.argv[1]])
print(json.dumps({"found": [s.name for s in found], "left_out": {x.name: x.reason for x in left_out},
                  "peak_mb": peak_mb()}))
"""


def test_a_costly_file_costs_the_referee_nothing_and_leaves_out_only_its_group(tmp_path):
    klass = tmp_path / "class"
    (klass / "costly").mkdir(parents=True)
    (klass / "costly" / "agent.py").write_text(COSTLY)
    (klass / "fine").mkdir()
    (klass / "fine" / "agent.py").write_text("class Agent:\n    def act(self, obs):\n        return None\n")
    done = subprocess.run([sys.executable, "-c", MEASURE, str(klass)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["found"] == ["fine"]
    assert "within 512 MiB of memory" in said["left_out"]["costly"], said
    assert said["peak_mb"] < 300, said  # the referee's own peak: the parse was the child's


def test_a_group_of_files_is_parsed_in_one_child_each_file_with_its_own_answer(tmp_path):
    good, broken = tmp_path / "a.py", tmp_path / "b.py"
    good.write_text("class A:\n    def act(self, obs):\n        pass\n\n\nclass Kit:\n    def __init__(self, island):\n"
                    "        pass\n\n    def act(self, obs):\n        pass\n")
    broken.write_text("def f(:\n")
    found = class_parse.classes_of([good, broken], 1 << 20)
    assert found[good] == (["A"], []) and found[broken] == "b.py:1: invalid syntax"


SHARED = PEAK + """
import json, sys
from pathlib import Path
from treasure_cli.sandbox import tree
shared = tree.shared(Path(sys.argv[1]), "ann.py")
print(json.dumps({"shared": shared, "peak_mb": peak_mb()}))
"""


def test_whether_a_folder_holds_other_submissions_is_told_without_parsing_them_here(tmp_path):
    # An agent's copy takes its folder unless the folder holds other groups' files: finding out
    # parses them, in the child too.
    (tmp_path / "ann.py").write_text("class Ann:\n    def act(self, obs):\n        return None\n")
    (tmp_path / "costly.py").write_text(COSTLY)
    (tmp_path / "bob.py").write_text("from x import Base\n\n\nclass Bob(Base):\n    pass\n")
    done = subprocess.run([sys.executable, "-c", SHARED, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said["shared"] is True and said["peak_mb"] < 300, said  # bob's lone subclass is another agent
