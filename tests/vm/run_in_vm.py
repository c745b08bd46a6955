"""Boot a virtual machine whose cgroup v2 tree offers the memory controller, and run the cgroup
v2 tests in it against the real controller (docs/security.md, "cgroup v2").

`make test-vm` (the last step of `make test`) installs what is missing and runs

    .venv/bin/python tests/vm/run_in_vm.py --ci

which boots the newest kernel of 5.19 or later in /boot that has its modules, runs
tests/vm/test_cgroup_v2_memory.py alone in the VM, and fails (`Error: ...`, exit status 1)
unless the VM booted, its tree offered `memory`, every test passed and none was skipped, and no
group was left: the step it stopped at is named.

Needs, on the host: qemu (`qemu-system-x86`), a kernel of 5.19 or later with its modules
(`linux-image-amd64`: Debian 12's 6.1), a static busybox (`busybox-static`, for the VM's first
steps), mkfs.ext4 (`e2fsprogs`), and virtme-ng in a venv of its own (`make test-vm` makes
.venv-vm). `--missing` prints the Debian packages that are missing, in one line.

The VM shares the host's files read-only (this checkout, its .venv from `make install`); it
mounts cgroup2 alone on /sys/fs/cgroup, with no cgroup v1 hierarchy, so v2 offers `memory`;
and a scratch ext4 disk (mkfs.ext4) on /tmp/disk, where files have a page cache to reclaim.
Without --ci it runs a wider set of cgroup tests, or the pytest arguments given:

    .venv/bin/python tests/vm/run_in_vm.py [--kernel /boot/vmlinuz-...] [--kvm] [PYTEST ARGS...]

Without --kvm it runs under qemu's software emulation (slow: minutes; nested KVM may hang).
Prints what the VM's tree offers, `treasure doctor`, and the tests' output (`-s`: what each
game's group held, and how long it took).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ["tests/vm/test_cgroup_v2_memory.py", "tests/sandbox/test_cgroups_v2_tree.py",
         "tests/sandbox/test_cgroups_v2.py", "tests/security/test_game_groups.py",
         "tests/security/test_memory_watch.py"]
CI_TESTS = ["tests/vm/test_cgroup_v2_memory.py"]  # what needs the real controller, nothing more
REQUIRE = "TREASURE_VM_REQUIRE_V2_MEMORY"  # set in the VM with --ci: a skip there is a failure
MARK = "treasure-vm:"  # the lines the VM prints for this script to read
OLDEST = (5, 19)  # memory.reclaim (5.19); cgroup.kill is 5.14
STAGES = {  # each stage the VM reaches, and what it means if the VM stops after it
    "booted": "the VM booted but could not mount its scratch disk",
    "disk": "the VM could not read its cgroup v2 tree",
    "controllers": "`treasure doctor` failed in the VM",
    "doctor": "the VM stopped during the tests (no result from pytest)",
}


def kernel_version(image: str) -> tuple[int, ...] | None:
    """(6, 1, 0, 57) for vmlinuz-6.1.0-57-amd64 (every number of it, in order, so that -57 comes
    after -9); None for a name without a version."""
    if not re.match(r"vmlinuz-\d+\.\d+", image):
        return None
    return tuple(int(number) for number in re.findall(r"\d+", image))


def find_kernel(boot: Path = Path("/boot"), modules: Path = Path("/lib/modules")) -> Path | None:
    """The newest kernel image in `boot` of 5.19 or later whose modules are in `modules`."""
    found = []
    for image in boot.glob("vmlinuz-*"):
        version = kernel_version(image.name)
        release = image.name.removeprefix("vmlinuz-")
        if version and version[:2] >= OLDEST and (modules / release).is_dir() and os.access(image, os.R_OK):
            found.append((version, release, image))
    return max(found)[2] if found else None


def is_static(path: str) -> bool:
    """Whether an ELF executable has no program interpreter (a dynamic loader) to find."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2:  # 64-bit ELF only
                return False
            order = "<" if head[5] == 1 else ">"
            (phoff,) = struct.unpack_from(order + "Q", head, 32)
            phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return False
    return all(struct.unpack_from(order + "I", table, i * phentsize)[0] != 3 for i in range(phnum))  # PT_INTERP


def missing_packages() -> list[str]:
    """The Debian packages the VM step needs and this machine lacks."""
    missing = []
    if not shutil.which("qemu-system-x86_64"):
        missing.append("qemu-system-x86")
    if not shutil.which("mkfs.ext4", path=f"{os.environ.get('PATH', '')}:/sbin:/usr/sbin"):
        missing.append("e2fsprogs")
    # virtme-ng takes the first of these it finds for the VM's first steps, where no library is
    busybox = next(filter(None, map(shutil.which, ["busybox-static", "busybox.static", "busybox"])), None)
    if busybox is None or not is_static(busybox):
        missing.append("busybox-static")
    if find_kernel() is None:
        missing.append("linux-image-amd64")
    return missing


def fail(message: str) -> int:
    print(f"Error: the VM step: {message}", file=sys.stderr, flush=True)
    return 1


def summary(lines: Sequence[str]) -> dict[str, int]:
    """pytest's last count line ("7 passed, 1 skipped in 612.30s") as {"passed": 7, "skipped": 1}."""
    for line in reversed(lines):
        text = line.strip().strip("=").strip()
        if re.fullmatch(r"(\d+ \w+(, )?)+ in [\d.]+s( \([\d:]+\))?", text):
            return {word: int(count) for count, word in re.findall(r"(\d+) (\w+)", text.split(" in ")[0])}
    return {}


def judge(lines: Sequence[str], returncode: int) -> str:
    """Why the VM's run does not count ("" if it does): the step it stopped at, a test that
    failed or was skipped, the VM's tree without `memory`, a group left."""
    marks = {}
    for line in lines:
        if line.startswith(MARK):
            stage, _, rest = line[len(MARK):].strip().partition(" ")
            marks[stage] = rest.strip()
    if "booted" not in marks:
        return f"the VM did not boot or could not start its command (virtme-ng exit status {returncode}; its output is above)"
    if "tests" not in marks:
        last = [stage for stage in STAGES if stage in marks][-1]
        return STAGES[last]
    if "memory" not in marks.get("controllers", "").split():
        return f"the VM's cgroup v2 tree offers no memory controller ({marks.get('controllers')!r})"
    counts = summary(lines)
    status = marks["tests"]
    if status != "0":
        return f"the tests in the VM failed (pytest exit status {status}: {counts or 'no count'})"
    if not counts.get("passed") or set(counts) != {"passed"}:
        return f"the tests in the VM did not all pass: {counts or 'no count line'} (a skip means no real memory controller)"
    if marks.get("left"):
        return f"groups were left in the VM's tree: {marks['left']}"
    if returncode != 0:
        return f"virtme-ng ended with exit status {returncode} after the tests passed"
    return ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", help="the kernel image to boot (default: the newest in /boot of 5.19 or "
                        "later whose modules are in /lib/modules)")
    parser.add_argument("--vng", default=None, help="virtme-ng's vng (default: .venv-vm's, else vng on PATH)")
    parser.add_argument("--kvm", action="store_true", help="use KVM (else software emulation)")
    parser.add_argument("--memory", default="2560M")
    parser.add_argument("--cpus", default="2")
    parser.add_argument("--ci", action="store_true", help="run only what needs the real controller, and "
                        "fail on a skip, a group left or a VM that did not get that far")
    parser.add_argument("--timeout", type=float, default=2700, help="seconds before the VM is killed "
                        "(default: 2700)")
    parser.add_argument("--missing", action="store_true", help="print the Debian packages missing, and exit")
    args, pytest_args = parser.parse_known_args()  # the rest: pytest's
    if args.missing:
        print(" ".join(missing_packages()))
        return 0
    if args.ci and pytest_args:
        return fail(f"--ci runs {' '.join(CI_TESTS)}, with no other arguments: {' '.join(pytest_args)}")
    kernel = args.kernel or find_kernel()
    if kernel is None:
        return fail("no kernel of 5.19 or later with its modules (/boot/vmlinuz-*, /lib/modules/*): "
                    "apt-get install linux-image-amd64")
    vng = args.vng or next((str(p) for p in [ROOT / ".venv-vm" / "bin" / "vng"] if p.exists()), None) or shutil.which("vng")
    if vng is None or not os.access(vng, os.X_OK):
        return fail(f"no virtme-ng ({vng or 'vng'}): `make test-vm` installs it in .venv-vm")
    venv = ROOT / ".venv" / "bin"
    if not (venv / "treasure").exists():
        return fail(f"no {venv / 'treasure'}: run `make install` first")
    if args.ci:
        tests = [*CI_TESTS, "-s"]
        require = f"export {REQUIRE}=1 && "
    else:
        tests = pytest_args or [*TESTS, "-s"]
        require = ""
    scratch = Path(tempfile.mkdtemp(prefix="treasure-vm-"))
    try:
        disk = scratch / "scratch.img"  # an ext4 disk: a page cache
        with open(disk, "wb") as f:
            f.truncate(128 << 20)
        made = subprocess.run(["mkfs.ext4", "-q", "-F", str(disk)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if made.returncode != 0:
            return fail(f"mkfs.ext4 failed on the scratch disk: {made.stdout.strip()}")
        inside = require + " && ".join([
            f"echo {MARK} booted $(uname -r)",
            "mkdir -p /tmp/disk && mount /dev/vda /tmp/disk && export TREASURE_VM_DISK=/tmp/disk",
            f"echo {MARK} disk",
            f"echo {MARK} controllers $(cat /sys/fs/cgroup/cgroup.controllers)",
            f"{shlex.quote(str(venv / 'treasure'))} doctor",
            f"echo {MARK} doctor",
            f"{{ {shlex.quote(str(venv / 'python'))} -m pytest -p no:cacheprovider -rs "
            + " ".join(shlex.quote(t) for t in tests) + "; status=$?; }",
            f"echo {MARK} left $(find /sys/fs/cgroup -name 'treasure-*' -o -name 'game-*')",
            f"echo {MARK} tests $status",
            "exit $status",
        ])
        command = [vng, "--run", str(kernel), "--cpus", args.cpus, "--memory", args.memory,
                   "--cwd", str(ROOT), "--disk", str(disk), "--exec", inside]
        if not args.kvm:
            command.insert(1, "--disable-kvm")
        return boot(command, vng, args.timeout, args.ci)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def boot(command: list[str], vng: str, timeout: float, ci: bool) -> int:
    """Run the VM, its output passed on line by line; with `ci`, judge it."""
    env = dict(os.environ, PATH=f"{Path(vng).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    print("$", shlex.join(command), flush=True)
    start = time.monotonic()
    vm = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        with_group(vm.pid, signal.SIGKILL)

    timer = threading.Timer(timeout, kill)
    timer.start()
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `finally` ends the VM
    lines = []
    try:
        assert vm.stdout is not None
        for line in vm.stdout:
            line = line.replace("\r", "")
            print(line, end="", flush=True)
            lines.append(line)
        returncode = vm.wait()
    finally:
        timer.cancel()
        signal.signal(signal.SIGTERM, previous)
        with_group(vm.pid, signal.SIGKILL)  # qemu and anything else of the VM's, whatever happened
        vm.wait()
    seconds = time.monotonic() - start
    if timed_out.is_set():
        return fail(f"no result after {timeout:.0f} s (the VM was killed; its last stage: "
                    f"{[ln.split()[1] for ln in lines if ln.startswith(MARK)][-1:] or 'none, not booted'})")
    if not ci:
        return returncode
    why = judge(lines, returncode)
    if why:
        return fail(why)
    print(f"the VM step: every test passed against a real cgroup v2 memory controller ({seconds:.0f} s)", flush=True)
    return 0


def with_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


if __name__ == "__main__":
    sys.exit(main())
