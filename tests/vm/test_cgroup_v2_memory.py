"""Games held to --agent-memory by a REAL cgroup v2 memory controller (sandbox/cgroup2.py).

SKIPPED unless this process's cgroup v2 group offers the memory controller and no cgroup v1
memory hierarchy is mounted (a machine on cgroup v1, as the project's own, skips it at once):
it is meant for a virtual machine, or a teacher's machine on cgroup v2 alone. How to boot one and
run it: docs/security.md, "cgroup v2". Run it with `-s` to see what each game held.

Each game goes through the CLI (`treasure run`, a process of its own), at `process` and
`sandbox`: an agent that allocates past --agent-memory 256M in one process, one whose eight
children hold 64 MiB each; each must end at its game's memory limit, leave no process and no
group behind, and a normal game must play after it. A third asks for a memfd file (pages no
address space counts), which the seccomp filter refuses: its game fails with ENOSYS.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from treasure_cli.sandbox.cgroup2 import Files

TREASURE = str(Path(sys.executable).with_name("treasure"))
TOKEN = "v2vm_" + uuid.uuid4().hex[:10]


def _v2_memory_here() -> str:
    """Why this module cannot run here ("" where it can), without touching any group."""
    from treasure_cli.sandbox import cgroup2, cgroups

    if "memory" in cgroups._own_groups():
        return "cgroup v1 holds the memory controller here"
    own, why = cgroup2.own_folder()
    if own is None:
        return why
    try:
        offered = cgroup2.FILES.read(os.path.join(own, "cgroup.controllers")).split()
    except OSError as exc:
        return str(exc)
    return "" if "memory" in offered else f"the cgroup v2 group {own} offers no memory controller"


# Set by tests/vm/run_in_vm.py --ci (`make test-vm`) in its VM, which must offer the controller:
# there a machine without one fails every test here instead of skipping it.
REQUIRED = os.environ.get("TREASURE_VM_REQUIRE_V2_MEMORY") == "1"
WHY_NOT = _v2_memory_here()
pytestmark = pytest.mark.skipif(bool(WHY_NOT) and not REQUIRED, reason=f"no real cgroup v2 memory: {WHY_NOT}")


@pytest.fixture(autouse=True, scope="module")
def _memory_required() -> None:
    if WHY_NOT:  # (only where REQUIRED: the module is skipped otherwise)
        pytest.fail(f"{'TREASURE_VM_REQUIRE_V2_MEMORY=1 but ' if REQUIRED else ''}no real cgroup v2 memory: {WHY_NOT}")

AGENTS = textwrap.dedent('''\
    import mmap
    import os
    import time

    from treasure_cli import LargeScan

    MIB = 1 << 20


    def touch(size):
        m = mmap.mmap(-1, size)
        for at in range(0, size, 4096):
            m[at] = 1
        return m


    class OneProcess_TOKEN:
        def act(self, obs):
            self.kept = [touch(32 * MIB) for _ in range(12)]  # 384 MiB in one process
            return LargeScan()


    class Forks_TOKEN:
        def act(self, obs):
            for _ in range(8):  # eight children of 64 MiB: 512 MiB together
                if os.fork() == 0:
                    kept = touch(64 * MIB)
                    time.sleep(120)
                    os._exit(0)
            time.sleep(60)
            return LargeScan()


    class Memfds_TOKEN:
        def act(self, obs):
            self.kept = os.memfd_create("m")  # refused: memfd pages are no address space
            return LargeScan()


    class Modest_TOKEN:
        def act(self, obs):
            if not hasattr(self, "kept"):
                self.kept = touch(64 * MIB)
            return LargeScan()
''').replace("TOKEN", TOKEN)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from treasure_cli.sandbox import cgroups

    # In a delegated group of its own (systemd-run --scope -p Delegate=yes pytest ...), this
    # process moves into a leaf first, so that the referees it starts find their parent free.
    assert "memory" in cgroups.available(), cgroups.choice().why
    folder = tmp_path_factory.mktemp("v2vm")
    agents = folder / "hog.py"
    agents.write_text(AGENTS)
    subprocess.run([TREASURE, "generate", "--size", "16", "--seed", "3", "-o", str(folder / "MAP_1.txt")],
                   check=True, capture_output=True)
    return agents, folder / "MAP_1.txt"


def _own_v2() -> str:
    from treasure_cli.sandbox import cgroup2

    own, _ = cgroup2.own_folder()
    assert own is not None
    return own


def _ours() -> list[int]:
    """Processes whose command line carries this module's token (its agents')."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and entry != str(os.getpid()):
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if TOKEN.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


def _play(agents: Path, island: Path, name: str, level: str, out: Path) -> tuple[dict[str, object], int, float]:
    """One game through the CLI: its record, the most memory its game's group was seen to hold
    (memory.current every 5 ms), and its wall time."""
    own = _own_v2()
    start = time.monotonic()
    cli = subprocess.Popen([TREASURE, "run", str(island), str(out), "--agent", f"{agents}:{name}_{TOKEN}",
                            "--agent-memory", "256M", "--agent-isolation", level, "--seed", "1", "--json",
                            "--game-timeout", "240"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]
    parents = [own, os.path.dirname(own)]

    def watch() -> None:
        while cli.poll() is None:
            for parent in parents:
                base = os.path.join(parent, f"treasure-{cli.pid}")
                try:
                    games = [e for e in os.listdir(base) if e.startswith("game-")]
                except OSError:
                    continue
                for game in games:
                    try:
                        with open(os.path.join(base, game, "memory.current")) as f:
                            peak[0] = max(peak[0], int(f.read()))
                    except (OSError, ValueError):
                        pass
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    stdout, stderr = cli.communicate(timeout=300)
    watcher.join()
    seconds = time.monotonic() - start
    (record,) = json.loads(stdout)
    # Nothing of the game is left: no process of its agent, no folder of that referee's.
    time.sleep(0.2)
    assert _ours() == [], _ours()
    for parent in parents:
        assert not os.path.exists(os.path.join(parent, f"treasure-{cli.pid}")), (parent, cli.pid)
    return record, peak[0], seconds


@pytest.mark.parametrize("level", ["process", "sandbox"])
@pytest.mark.parametrize("name", ["OneProcess", "Forks", "Memfds"])
def test_a_game_past_its_memory_is_ended_at_the_limit(setup: tuple[Path, Path], tmp_path: Path,
                                                       name: str, level: str) -> None:
    agents, island = setup
    record, peak, seconds = _play(agents, island, name, level, tmp_path / "hungry")
    print(f"\n{name} at {level}: {record['outcome']} {record['reason']}, group held at most {peak >> 20} MiB, "
          f"{seconds:.1f} s: {record.get('error')}")
    assert record["outcome"] == "failed", record
    if name == "OneProcess":
        # One process meets its own address-space limit (--agent-memory too) before the group's.
        assert "Cannot allocate memory" in str(record["error"]) or "memory limit" in str(record["error"]), record
    elif name == "Memfds":
        assert record["reason"] == "agent-error" and "Function not implemented" in str(record["error"]), record
    else:
        assert record["reason"] == "agent-died" and "memory limit" in str(record["error"]), record
        assert peak <= 256 << 20, peak
    fine, peak, seconds = _play(agents, island, "Modest", level, tmp_path / "fine")
    print(f"Modest at {level}: {fine['outcome']}, group held at most {peak >> 20} MiB, {seconds:.1f} s")
    assert fine["outcome"] != "failed", fine


class _Seen(Files):
    """The real tree, noting each group's memory.current just before it is removed."""

    def __init__(self) -> None:
        self.at_removal: dict[str, int] = {}

    def rmdir(self, path: str) -> None:
        try:
            self.at_removal[path] = int(self.read(os.path.join(path, "memory.current")))
        except (OSError, ValueError):
            pass
        super().rmdir(path)


def _cached_file(tmp_path: Path) -> Path:
    """32 MiB on a file system with a page cache: TREASURE_VM_DISK (tests/vm/run_in_vm.py mounts an
    ext4 disk there; the VM's shared root, 9p, and its tmpfs would not do), else `tmp_path`."""
    folder = Path(os.environ.get("TREASURE_VM_DISK") or tmp_path)
    path = folder / f"cached-{uuid.uuid4().hex[:8]}"
    with open(path, "wb") as f:
        for _ in range(32):
            f.write(os.urandom(1 << 20))
        os.fsync(f.fileno())
    return path


def test_a_closed_group_gives_back_the_file_pages_its_game_cached(tmp_path: Path) -> None:
    """The file pages a game brought into the page cache stay charged to its group once all its
    processes are gone; memory.reclaim must empty it before it is removed."""
    from treasure_cli.sandbox import cgroup2

    library = _cached_file(tmp_path)
    size = library.stat().st_size
    files = _Seen()
    parent, why = cgroup2.delegated_parent(_own_v2(), os.getpid(), files)
    assert parent is not None, why
    base = cgroup2.make_base(parent, os.getpid(), files)
    group = cgroup2.Group(base, 1, 256 << 20, None)
    reader = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""\
        import mmap, sys
        sys.stdin.readline()  # (placed in its group first)
        with open({str(library)!r}, "rb") as f, mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ) as m:
            total = sum(m[at] for at in range(0, len(m), 4096))
        print("read", flush=True)
        sys.stdin.readline()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        group.add(reader.pid)
        assert reader.stdin is not None and reader.stdout is not None
        with contextlib.suppress(OSError), open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("1")  # (as root: the file is not cached yet, so its pages are charged to this group)
        reader.stdin.write("go\n")
        reader.stdin.flush()
        assert reader.stdout.readline().strip() == "read"
        with open(os.path.join(group.folder, "memory.current")) as f:
            held = int(f.read())
        if held < size * 3 // 4:
            (pytest.fail if REQUIRED else pytest.skip)(f"{library.parent} caches no file pages in the group ({held >> 20} MiB): set TREASURE_VM_DISK")
        assert group.close()
    finally:
        reader.kill()
        reader.wait()
        cgroup2.remove_base(base)
        library.unlink()
    left = files.at_removal[group.folder]
    print(f"\n{library.name}: {size >> 20} MiB cached; the group held {held >> 20} MiB, "
          f"{left >> 10} KiB at its removal")
    assert left < 2 << 20, left
