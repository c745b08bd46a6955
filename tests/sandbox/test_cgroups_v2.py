"""cgroup v2 groups (sandbox/cgroup2.py) on a fake cgroup2 tree in a temporary folder: which
groups the referee chooses (v1, v2 or the count), which files it writes and in what order,
the memory verdict read from memory.events, and what is left when a group cannot be removed.

The fake tree is files only; `FakeFiles` gives it the kernel's rules that matter here (a
controller handed on only if offered, no process in a group that hands controllers on, a
group with processes or children not removable). The real tree's mechanics (a process placed,
cgroup.kill, rmdir) are tested in test_cgroups_v2_tree.py."""

from __future__ import annotations

import errno
import functools
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from treasure_cli.sandbox import cgroup2, cgroups

REFEREE = 9_000_001  # past any pid_max: no real process is ever named by the fake tree
OTHER = 9_000_002
MIB = 1 << 20


class FakeFiles(cgroup2.Files):
    """A cgroup2 tree made of plain files, with a log of what was made, written and removed."""

    def __init__(self, root: Path, offered: str):
        self.root = root
        self.log: list[tuple[str, str, str]] = []
        self.stuck: set[str] = set()  # folders whose rmdir fails (EBUSY)
        self.refused: set[str] = set()  # controllers the kernel will not hand on (the write fails whole)
        self.then: dict[str, Callable[[], None]] = {}  # done once after a write to this path (relative)
        root.mkdir()
        (root / "cgroup.controllers").write_text(offered + "\n")
        (root / "cgroup.subtree_control").write_text("\n")
        (root / "cgroup.procs").write_text("")

    def rel(self, path: str) -> str:
        return os.path.relpath(path, self.root)

    def make(self, path: str, procs: tuple[int, ...] = ()) -> str:
        """A group made by someone else (systemd, say), holding `procs`."""
        self._group(path)
        Path(path, "cgroup.procs").write_text("".join(f"{p}\n" for p in procs))
        return path

    def _group(self, path: str) -> None:
        os.mkdir(path)
        given = (Path(path).parent / "cgroup.subtree_control").read_text().split()
        files = {"cgroup.procs": "", "cgroup.type": "domain\n", "cgroup.controllers": " ".join(given) + "\n",
                 "cgroup.subtree_control": "\n", "cgroup.kill": "", "cgroup.events": "populated 0\nfrozen 0\n"}
        if "memory" in given:
            files |= {"memory.max": "max\n", "memory.swap.max": "max\n", "memory.oom.group": "0\n",
                      "memory.current": "0\n", "memory.reclaim": "",
                      "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n"}
        if "cpuset" in given:
            files["cpuset.cpus"] = "\n"
        for name, text in files.items():
            Path(path, name).write_text(text)

    def read(self, path: str) -> str:
        folder, name = os.path.split(path)
        if name == "cgroup.controllers" and folder != str(self.root):  # what its parent hands on now
            return Path(os.path.dirname(folder), "cgroup.subtree_control").read_text()
        return super().read(path)

    def _procs(self, folder: str) -> list[str]:
        return Path(folder, "cgroup.procs").read_text().split()

    def mkdir(self, path: str) -> None:
        self.log.append(("mkdir", self.rel(path), ""))
        self._group(path)

    def rmdir(self, path: str) -> None:
        self.log.append(("rmdir", self.rel(path), ""))
        if not os.path.isdir(path):
            raise FileNotFoundError(errno.ENOENT, "gone", path)
        if path in self.stuck or self._procs(path) or any(p.is_dir() for p in Path(path).iterdir()):
            raise OSError(errno.EBUSY, "busy", path)
        shutil.rmtree(path)

    def write(self, path: str, value: str) -> None:
        self.log.append(("write", self.rel(path), value))
        folder, name = os.path.split(path)
        if not os.path.exists(path):
            raise FileNotFoundError(errno.ENOENT, "no such interface file", path)
        if name == "cgroup.subtree_control":
            enabled = set(Path(path).read_text().split())
            offered = Path(folder, "cgroup.controllers").read_text().split()
            for word in value.split():
                if word[1:] not in offered:
                    raise OSError(errno.ENOENT, "not offered", path)
                if word[1:] in self.refused:
                    raise OSError(errno.EINVAL, "refused", path)
                if os.path.exists(os.path.join(folder, "cgroup.type")) and self._procs(folder):
                    raise OSError(errno.EBUSY, "no internal processes", path)
                enabled = enabled | {word[1:]} if word[0] == "+" else enabled - {word[1:]}
            Path(path).write_text(" ".join(sorted(enabled)) + "\n")
        elif name == "cgroup.procs":
            if Path(folder, "cgroup.subtree_control").read_text().split():
                raise OSError(errno.EBUSY, "no internal processes", path)
            for other in self.root.rglob("cgroup.procs"):
                other.write_text("".join(f"{p}\n" for p in other.read_text().split() if p != value))
            Path(path).write_text(Path(path).read_text() + f"{value}\n")
            Path(folder, "cgroup.events").write_text("populated 1\nfrozen 0\n")
        elif name == "cgroup.kill":
            Path(folder, "cgroup.procs").write_text("")
            Path(folder, "cgroup.events").write_text("populated 0\nfrozen 0\n")
        else:
            Path(path).write_text(value)
        if self.rel(path) in self.then:
            self.then.pop(self.rel(path))()


def _proc(tmp: Path, own_v2: str, memory_v1: str | None = None, name: str = "proc") -> str:
    """A fake /proc/self: this process's mounts (the fake v2 tree is tmp/cg2) and groups."""
    proc = tmp / name
    proc.mkdir()
    lines = [f"41 31 0:38 / {tmp / 'cg2'} rw,relatime - cgroup2 cgroup2 rw\n"]
    groups = [f"0::{own_v2}\n"]
    if memory_v1 is not None:
        lines.append(f"35 31 0:32 / {memory_v1} rw,relatime - cgroup cgroup rw,memory\n")
        groups.insert(0, "4:memory:/\n")
    (proc / "mountinfo").write_text("".join(lines))
    (proc / "cgroup").write_text("".join(groups))
    return str(proc)


def _delegated(tmp: Path, offered: str = "cpuset cpu memory pids", procs: tuple[int, ...] = (REFEREE,)):
    """A v2 tree whose root offers `offered`, and the referee in a delegated group of its own
    (systemd-run --user --scope -p Delegate=yes), as systemd makes it: memory handed down to it."""
    files = FakeFiles(tmp / "cg2", offered)
    files.write(str(tmp / "cg2" / "cgroup.subtree_control"), " ".join("+" + c for c in offered.split()))
    scope = files.make(str(tmp / "cg2" / "run-1.scope"), procs)
    files.log.clear()
    return files, scope


def test_v2_is_chosen_where_v1_has_no_memory_and_the_referee_moves_into_a_leaf(tmp_path):
    files, scope = _delegated(tmp_path)
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    assert choice.kind == "v2", choice.why
    assert choice.v2 is not None and choice.v2.controllers == ("memory", "cpuset")
    leaf, base = f"run-1.scope/treasure-ref-{REFEREE}", f"run-1.scope/treasure-{REFEREE}"
    assert files.log == [
        ("mkdir", leaf, ""),
        ("write", f"{leaf}/cgroup.procs", str(REFEREE)),  # out of the scope first: no internal processes
        ("write", "run-1.scope/cgroup.subtree_control", "+memory +cpuset"),
        ("mkdir", base, ""),
        ("write", f"{base}/cgroup.subtree_control", "+memory +cpuset"),
    ]
    assert Path(scope, "cgroup.procs").read_text() == ""
    assert Path(files.root, leaf, "cgroup.procs").read_text().split() == [str(REFEREE)]


def test_a_game_group_is_made_filled_killed_and_removed_in_order(tmp_path, monkeypatch):
    files, _ = _delegated(tmp_path)
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    monkeypatch.setattr(cgroups, "_bases", functools.cache(lambda pid: choice))
    files.log.clear()
    group = cgroups.GameGroup(256 * MIB, {0, 1})
    game = os.path.join(choice.v2.folder, "game-" + group.folders["memory"].rpartition("-")[2])
    rel = files.rel(game)
    assert group.folders == {"memory": game, "cpuset": game}
    group.add(OTHER)
    Path(game, "memory.current").write_text("4096\n")  # pages its game left charged
    group.close()
    assert files.log == [
        ("mkdir", rel, ""),
        ("write", f"{rel}/memory.max", str(256 * MIB)),
        ("write", f"{rel}/memory.swap.max", "0"),
        ("write", f"{rel}/memory.oom.group", "1"),
        ("write", f"{rel}/cpuset.cpus", "0,1"),
        ("write", f"{rel}/cgroup.procs", str(OTHER)),
        ("write", f"{rel}/cgroup.kill", "1"),
        ("write", f"{rel}/memory.reclaim", "4096"),
        ("rmdir", rel, ""),
    ]
    assert not os.path.exists(game)


@pytest.mark.parametrize(("events", "verdict"), [
    ("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 0\n", True),
    ("low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\noom_group_kill 1\n", True),
    ("low 0\nhigh 0\nmax 12\noom 0\noom_kill 0\noom_group_kill 0\n", False),  # at its limit, reclaimed, not ended
])
def test_the_memory_verdict_is_read_from_memory_events(tmp_path, monkeypatch, events, verdict):
    files, _ = _delegated(tmp_path)
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    monkeypatch.setattr(cgroups, "_bases", functools.cache(lambda pid: choice))
    group = cgroups.GameGroup(64 * MIB, None)
    Path(group.folders["memory"], "memory.events").write_text(events)
    assert group.oom_killed() is verdict
    group.close()


def test_a_cpuset_the_kernel_refuses_leaves_memory_handed_on_alone(tmp_path):
    files, _ = _delegated(tmp_path)
    files.refused.add("cpuset")
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    assert choice.kind == "v2" and choice.v2 is not None and choice.v2.controllers == ("memory",), choice.why
    assert [entry[2] for entry in files.log if entry[1] == "run-1.scope/cgroup.subtree_control"] == [
        "+memory +cpuset", "+memory"]


def test_v1_is_kept_where_its_memory_hierarchy_is_writable_and_v2_is_left_alone(tmp_path):
    files, scope = _delegated(tmp_path)
    v1 = tmp_path / "v1-memory"
    v1.mkdir()
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope", str(v1)), files=files)
    assert choice.kind == "v1" and choice.v2 is None, choice.why
    assert choice.v1 == {"memory": str(v1 / f"treasure-{REFEREE}")}
    assert files.log == []  # nothing moved, made or written in the v2 tree
    assert Path(scope, "cgroup.procs").read_text().split() == [str(REFEREE)]


def test_v2_is_taken_where_the_v1_memory_hierarchy_is_not_writable(tmp_path):
    files, _ = _delegated(tmp_path)
    blocked = tmp_path / "a-file"
    blocked.write_text("")  # (root writes anywhere: a folder under a file cannot be made)
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope", str(blocked / "memory")), files=files)
    assert choice.kind == "v2", choice.why


def test_a_v2_tree_without_a_memory_controller_is_not_taken(tmp_path):
    """This machine's /sys/fs/cgroup/unified: memory is bound to v1, the tree offers hugetlb alone."""
    files = FakeFiles(tmp_path / "cg2", "hugetlb")
    files.write(str(tmp_path / "cg2" / "cgroup.procs"), str(REFEREE))
    files.log.clear()
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/"), files=files)
    assert choice.kind == "count" and choice.v2 is None and not choice.v1
    assert "no memory hierarchy is mounted" in choice.why
    assert "offers no memory controller" in choice.why and "hugetlb" in choice.why
    assert files.log == []


def test_a_v2_group_shared_with_other_processes_is_left_as_it_is(tmp_path):
    files, scope = _delegated(tmp_path, procs=(OTHER, REFEREE))  # (a login shell beside the referee)
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    assert choice.kind == "count", choice.why
    assert "holds 1 other processes" in choice.why and "Delegate=yes" in choice.why
    assert files.log == []
    assert Path(scope, "cgroup.procs").read_text().split() == [str(OTHER), str(REFEREE)]


def test_a_process_that_joins_the_referees_group_meanwhile_is_not_moved_and_all_is_put_back(tmp_path):
    files, scope = _delegated(tmp_path)
    leaf = f"run-1.scope/treasure-ref-{REFEREE}"
    files.then[f"{leaf}/cgroup.procs"] = lambda: Path(scope, "cgroup.procs").write_text(f"{OTHER}\n")
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    assert choice.kind == "count" and "cannot hand the memory controller on" in choice.why, choice.why
    assert not [entry for entry in files.log if entry[2] == str(OTHER)]  # never moved
    assert sorted(Path(scope, "cgroup.procs").read_text().split()) == sorted([str(OTHER), str(REFEREE)])
    assert not os.path.exists(os.path.join(files.root, leaf))


def test_the_tree_root_hands_memory_on_without_moving_the_referee(tmp_path):
    """The root group has no "no internal processes" rule (and no cgroup.type)."""
    files = FakeFiles(tmp_path / "cg2", "cpu memory pids")
    Path(files.root, "cgroup.procs").write_text(f"1\n{REFEREE}\n")
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/"), files=files)
    assert choice.kind == "v2" and choice.v2 is not None and choice.v2.controllers == ("memory",)
    assert files.log[0] == ("write", "cgroup.subtree_control", "+memory")
    assert not [entry for entry in files.log if entry[1].endswith("cgroup.procs")]


def test_a_worker_started_in_the_referees_leaf_takes_its_parent(tmp_path):
    files, scope = _delegated(tmp_path)
    cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    worker = REFEREE + 10
    files.write(os.path.join(scope, f"treasure-ref-{REFEREE}", "cgroup.procs"), str(worker))
    files.log.clear()
    proc = _proc(tmp_path, f"/run-1.scope/treasure-ref-{REFEREE}", name="worker-proc")
    choice = cgroups.choose(worker, proc=proc, files=files)
    assert choice.kind == "v2" and choice.v2 is not None, choice.why
    assert choice.v2.folder == os.path.join(scope, f"treasure-{worker}")
    base = files.rel(choice.v2.folder)
    # Its folder of games, nothing moved. (Its sweep tried the referee's folders: this test's
    # pids are no live process's; the leaf holds processes, so it stays.)
    assert [entry for entry in files.log if entry[0] != "rmdir"] == [
        ("mkdir", base, ""), ("write", f"{base}/cgroup.subtree_control", "+memory +cpuset")]
    assert os.path.isdir(os.path.join(scope, f"treasure-ref-{REFEREE}"))


def test_a_group_that_cannot_be_removed_is_left_for_the_exit_and_the_next_referee(tmp_path, monkeypatch):
    files, scope = _delegated(tmp_path)
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    assert choice.v2 is not None
    monkeypatch.setattr(cgroups, "_bases", functools.cache(lambda pid: choice))
    group = cgroups.GameGroup(64 * MIB, None)
    game = group.folders["memory"]
    files.stuck.add(game)
    monkeypatch.setattr(cgroup2, "CLOSE_SECONDS", 0.05)
    group.close()  # no error: the group stays
    assert os.path.isdir(game) and files.log[-1] == ("rmdir", files.rel(game), "")
    assert group.folders == {}
    # At exit, its folder goes once the group can be removed.
    files.stuck.clear()
    cgroups.remove_bases()
    assert not os.path.exists(game) and not os.path.exists(choice.v2.folder)
    # A referee that ended without its exit hooks: the next one's sweep removes its folders.
    stale = os.path.join(scope, f"treasure-{REFEREE}")
    files.mkdir(stale)
    files.mkdir(os.path.join(stale, "game-3"))
    files.stuck.add(os.path.join(stale, "game-3"))
    cgroup2.sweep(scope, files)
    assert os.path.isdir(stale)  # (its game's group still could not be removed)
    files.stuck.clear()
    cgroup2.sweep(scope, files)
    assert not os.path.exists(stale)


def test_no_cgroups_variable_gives_the_count(monkeypatch):
    monkeypatch.setenv("TREASURE_NO_CGROUPS", "1")
    cgroups._bases.cache_clear()
    try:
        assert cgroups.choice().kind == "count" and cgroups.available() == {}
    finally:
        cgroups._bases.cache_clear()


def test_doctor_says_which_groups_and_why(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from treasure_cli.cli import cli

    files, scope = _delegated(tmp_path)
    choice = cgroups.choose(REFEREE, proc=_proc(tmp_path, "/run-1.scope"), files=files)
    monkeypatch.setattr(cgroups, "_bases", functools.cache(lambda pid: choice))
    result = CliRunner().invoke(cli, ["doctor", "--agent-memory", "512M"])
    assert result.exit_code == 0, result.output
    rows = {line.split(":", 1)[0]: line.split(":", 1)[1].split(None, 1) for line in result.output.splitlines()}
    assert rows["memory per game"] == ["yes", f"cgroup v2, under {scope}: a memory control group holds all of a "
                                       "game's processes to --agent-memory (512 MiB), then reclaims the file pages "
                                       "it cached"]
    assert rows["CPU set per game"][0] == "yes"
    assert " ".join(rows["worst case of a game"]) == "512 MiB of memory (1 x --agent-memory)"

    hugetlb = tmp_path / "machine-like-this-one"
    hugetlb.mkdir()
    FakeFiles(hugetlb / "cg2", "hugetlb")
    counted = cgroups.choose(REFEREE, proc=_proc(hugetlb, "/"), files=cgroup2.FILES)
    monkeypatch.setattr(cgroups, "_bases", functools.cache(lambda pid: counted))
    result = CliRunner().invoke(cli, ["doctor", "--agent-memory", "512M"])
    rows = {line.split(":", 1)[0]: line.split(":", 1)[1].split(None, 1) for line in result.output.splitlines()}
    assert rows["memory per game"][0] == "no"
    assert rows["memory per game"][1].startswith(
        "cgroup v1: no memory hierarchy is mounted; cgroup v2: the cgroup v2 tree offers no memory controller to "
        f"this process's group ({hugetlb / 'cg2'}: hugetlb: it is bound to cgroup v1, or not delegated): the referee "
        "counts what all a game's processes hold instead"), rows["memory per game"]
