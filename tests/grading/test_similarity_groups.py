"""A group's whole folder is compared by tokens when its agent's path marks the group's top folder:
a C++ group handed in as source plays its build's copy (`BUILDS/<digest>/./build/agent`), a Python
group its `class/ann/./src/agent.py`. Before, the first was not compared at all (its program's folder
is `build/`) and the second by its entry file alone, so a copied C++ agent or a copied helper went unseen."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from helpers import ROOT

from treasure_cli.agents.registry import GROUP_TOP
from treasure_cli.grading.similarity import SAME_TOKENS, all_findings
from treasure_cli.grading.store import Row
from treasure_cli.sandbox.launch import agent_code

CPP = ROOT / "examples" / "cpp" / "agent.cpp"


def rows_of(specs: list[str]) -> list[Row]:
    return [Row(spec, agent_code(spec).digest, "{}", "M.txt", "abcd", seed, seed, "16x16", "LOSE", "pirate", None,
                9, 0.1, "0.3.0", play_digest=f"{k}-{seed}", id=1 + 10 * k + seed)
            for k, spec in enumerate(specs) for seed in range(6)]


def build_copy(builds: Path, digest: str, source: str) -> str:
    """A C++ group as the intake leaves it: its files copied into a build folder, its program in build/."""
    folder = builds / digest
    (folder / "build").mkdir(parents=True)
    (folder / "agent.cpp").write_text(source)
    shutil.copy(CPP.parent / "Makefile", folder / "Makefile")
    program = folder / "build" / "treasure-agent"
    program.write_bytes(b"\x7fELF a program built from agent.cpp")
    program.chmod(0o755)
    return f"exec:{folder}{GROUP_TOP}build/treasure-agent"


def test_two_cpp_groups_built_from_source_are_compared_by_their_sources(tmp_path):
    original = CPP.read_text()
    disguised = re.sub(r"^\s*//.*$", "", original, flags=re.M)  # comments gone, names changed
    for old, new in [("bfs", "walk_from"), ("W_", "wid_"), ("H_", "hei_"), ("fail", "die")]:
        disguised = re.sub(rf"\b{old}\b", new, disguised)
    assert disguised != original
    eve = build_copy(tmp_path / "builds", "4ebf9b860aef6ef1", original)
    fay = build_copy(tmp_path / "builds", "90b1e2dd64c38e9c", disguised)
    rows = rows_of([eve, fay])
    found = all_findings(rows)
    assert found.sources == {eve: tmp_path / "builds" / "4ebf9b860aef6ef1",
                             fay: tmp_path / "builds" / "90b1e2dd64c38e9c"}
    [match] = found.matches
    assert match.percent >= 90
    assert [f.agents for f in found.flags if f.kind == SAME_TOKENS] == [tuple(sorted((eve, fay)))]
    assert found.files[eve] == ("agent.cpp",)
    shutil.rmtree(tmp_path / "builds" / "90b1e2dd64c38e9c")  # the build's copy cleared since: said, not compared
    gone = all_findings(rows)
    assert list(gone.sources) == [eve] and not gone.matches
    assert any(note.startswith(f"{fay}: ") and "compared by digest only" in note for note in gone.notes)


def test_a_python_group_with_a_src_folder_is_compared_over_its_helpers_too(tmp_path):
    densest = (ROOT / "examples" / "densest_scan.py").read_text()
    specs = []
    for group, helper in (("ann", densest), ("bob", densest.replace("densest_window", "best_window"))):
        (tmp_path / group / "src").mkdir(parents=True)
        (tmp_path / group / "strategy.py").write_text(helper)  # the copied code, beside src/
        (tmp_path / group / "src" / "agent.py").write_text(
            f"from strategy import DensestScan\n\n\nclass {group.title()}(DensestScan):\n    pass\n")
        specs.append(f"{tmp_path / group}{GROUP_TOP}src/agent.py:{group.title()}")
    found = all_findings(rows_of(specs))
    assert found.sources == {specs[0]: tmp_path / "ann", specs[1]: tmp_path / "bob"}
    [match] = found.matches  # the entries alone are too small to compare: the helpers match
    assert match.percent >= 90 and found.files[specs[0]] == ("src/agent.py", "strategy.py")
