"""Boot a virtual machine whose cgroup v2 tree offers the memory controller, and run the cgroup
v2 tests in it against the real controller (docs/security.md, "cgroup v2").

Needs, on the host (as root): qemu (`apt-get install qemu-system-x86`), a kernel of 5.19 or
later with its modules (`apt-get install linux-image-amd64`: Debian 12's 6.1), and virtme-ng in
a venv of its own (`python3 -m venv /tmp/vng-venv && /tmp/vng-venv/bin/pip install virtme-ng`).
The VM shares the host's files read-only (this checkout, its .venv from `make install`); it
mounts cgroup2 alone on /sys/fs/cgroup, with no cgroup v1 hierarchy, so v2 offers `memory`;
and a scratch ext4 disk (mkfs.ext4) on /tmp/disk, where files have a page cache to reclaim.

    python3 tests/vm/run_in_vm.py --kernel /boot/vmlinuz-6.1.0-57-amd64 [--kvm] [PYTEST ARGS...]

Without --kvm it runs under qemu's software emulation (slow: minutes; nested KVM may hang).
Prints what the VM's tree offers, `treasure doctor`, and the tests' output (`-s`: what each
game's group held, and how long it took).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ["tests/vm/test_cgroup_v2_memory.py", "tests/sandbox/test_cgroups_v2_tree.py",
         "tests/sandbox/test_cgroups_v2.py", "tests/security/test_game_groups.py",
         "tests/security/test_memory_watch.py"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", required=True, help="the kernel image to boot (5.19 or later)")
    parser.add_argument("--vng", default=shutil.which("vng") or "/tmp/vng-venv/bin/vng")
    parser.add_argument("--kvm", action="store_true", help="use KVM (else software emulation)")
    parser.add_argument("--memory", default="2560M")
    parser.add_argument("--cpus", default="2")
    args, pytest_args = parser.parse_known_args()  # the rest: pytest's (default: the cgroup v2 tests, -s)
    venv = ROOT / ".venv" / "bin"
    tests = pytest_args or [*TESTS, "-s"]
    disk = Path(tempfile.mkdtemp(prefix="treasure-vm-")) / "scratch.img"  # an ext4 disk: a page cache
    with open(disk, "wb") as f:
        f.truncate(128 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(disk)], check=True)
    inside = " && ".join([
        "mkdir -p /tmp/disk && mount /dev/vda /tmp/disk && export TREASURE_VM_DISK=/tmp/disk",
        "echo 'cgroup v2 controllers:' $(cat /sys/fs/cgroup/cgroup.controllers)",
        "uname -r",
        f"{shlex.quote(str(venv / 'treasure'))} doctor",
        f"{shlex.quote(str(venv / 'python'))} -m pytest -q -p no:cacheprovider -rs "
        + " ".join(shlex.quote(t) for t in tests),
    ]) + "; status=$?; echo 'groups left:' $(find /sys/fs/cgroup -name 'treasure-*' -o -name 'game-*'); exit $status"
    command = [args.vng, "--run", args.kernel, "--cpus", args.cpus, "--memory", args.memory,
               "--cwd", str(ROOT), "--disk", str(disk), "--exec", inside]
    if not args.kvm:
        command.insert(1, "--disable-kvm")
    env = dict(os.environ, PATH=f"{Path(args.vng).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    print("$", shlex.join(command), flush=True)
    try:
        return subprocess.run(command, env=env).returncode
    finally:
        shutil.rmtree(disk.parent)


if __name__ == "__main__":
    sys.exit(main())
