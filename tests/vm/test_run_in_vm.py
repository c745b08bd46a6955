"""The host side of the VM step (tests/vm/run_in_vm.py, `make test-vm`), without a VM: which
kernel it boots, what it asks to install, and how it judges what the VM printed. The VM itself
runs in `make test` (and `make test-vm`); these run in the normal suite."""

from __future__ import annotations

import importlib.util
import os
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

HERE = Path(__file__).resolve().parent


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("run_in_vm", HERE / "run_in_vm.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vm = _load()


def test_the_newest_kernel_of_5_19_or_later_with_its_modules_is_booted(tmp_path: Path) -> None:
    boot, modules = tmp_path / "boot", tmp_path / "modules"
    boot.mkdir()
    for release, has_modules in [("5.10.0-30-amd64", True), ("6.1.0-57-amd64", True), ("6.12.9-amd64", False),
                                 ("6.1.0-9-amd64", True), ("5.19.0-1-amd64", True), ("notakernel", True)]:
        (boot / f"vmlinuz-{release}").write_bytes(b"")
        if has_modules:
            (modules / release).mkdir(parents=True)
    (boot / "vmlinuz-6.1.0-57-amd64.old").write_bytes(b"")  # no modules of that name
    assert vm.find_kernel(boot, modules) == boot / "vmlinuz-6.1.0-57-amd64"
    for image in boot.glob("vmlinuz-6.*"):
        image.unlink()
    assert vm.find_kernel(boot, modules) == boot / "vmlinuz-5.19.0-1-amd64"
    (boot / "vmlinuz-5.19.0-1-amd64").unlink()
    assert vm.find_kernel(boot, modules) is None  # 5.10 alone: no memory.reclaim


def _elf(path: Path, types: list[int]) -> Path:
    """A 64-bit little-endian ELF header and program header table with these segment types."""
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", header, 32, 64)  # e_phoff
    struct.pack_into("<HH", header, 54, 56, len(types))  # e_phentsize, e_phnum
    table = b"".join(struct.pack("<I", kind) + bytes(52) for kind in types)
    path.write_bytes(bytes(header) + table)
    return path


def test_a_busybox_is_static_only_without_a_program_interpreter(tmp_path: Path) -> None:
    assert vm.is_static(str(_elf(tmp_path / "static", [1, 1, 4])))
    assert not vm.is_static(str(_elf(tmp_path / "dynamic", [6, 3, 1])))  # PT_PHDR, PT_INTERP, PT_LOAD
    assert not vm.is_static(sys.executable) or "static" in os.path.realpath(sys.executable)
    (tmp_path / "script").write_text("#!/bin/sh\n")
    assert not vm.is_static(str(tmp_path / "script"))


def test_a_missing_tool_asks_for_its_debian_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(vm, "find_kernel", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    missing = vm.missing_packages()
    assert {"qemu-system-x86", "busybox-static", "linux-image-amd64"} <= set(missing), missing
    _elf(tmp_path / "busybox", [3, 1]).chmod(0o755)  # a dynamic busybox, as Debian's `busybox` is
    assert "busybox-static" in vm.missing_packages()
    _elf(tmp_path / "busybox", [1]).chmod(0o755)
    assert "busybox-static" not in vm.missing_packages()


BOOTED = ["treasure-vm: booted 6.1.0-57-amd64\n", "treasure-vm: disk\n",
          "treasure-vm: controllers cpuset cpu io memory hugetlb pids rdma misc\n",
          "memory per game:      yes  cgroup v2, under /sys/fs/cgroup\n", "treasure-vm: doctor\n"]


def _run(tail: list[str]) -> list[str]:
    return BOOTED + tail


def test_a_run_counts_only_if_every_test_passed_in_a_vm_with_memory() -> None:
    passed = _run([".......\n", "7 passed in 612.30s (0:10:12)\n", "treasure-vm: left\n", "treasure-vm: tests 0\n"])
    assert vm.judge(passed, 0) == ""
    assert "did not boot" in vm.judge(["Error: could not find a kernel\n"], 1)
    assert "could not mount" in vm.judge(BOOTED[:1], 1)
    assert "`treasure doctor` failed" in vm.judge(BOOTED[:3], 1)
    assert "during the tests" in vm.judge(BOOTED + ["...\n"], 1)
    failed = _run(["F......\n", "1 failed, 6 passed in 600.01s\n", "treasure-vm: left\n", "treasure-vm: tests 1\n"])
    assert "failed (pytest exit status 1" in vm.judge(failed, 1)
    skipped = _run(["sssssss\n", "7 skipped in 1.00s\n", "treasure-vm: left\n", "treasure-vm: tests 0\n"])
    assert "did not all pass" in vm.judge(skipped, 0)
    some = _run(["s......\n", "6 passed, 1 skipped in 500.00s\n", "treasure-vm: left\n", "treasure-vm: tests 0\n"])
    assert "did not all pass" in vm.judge(some, 0)
    hugetlb = [line.replace(" memory", "") for line in passed]
    assert "offers no memory controller" in vm.judge(hugetlb, 0)
    left = [line.replace("left", "left /sys/fs/cgroup/treasure-12") for line in passed]
    assert "groups were left" in vm.judge(left, 0)
    assert "exit status 2 after" in vm.judge(passed, 2)


def test_pytests_count_line_is_read_with_or_without_its_frame() -> None:
    assert vm.summary(["x\n", "==== 3 passed, 2 skipped in 1.50s ====\n", "after\n"]) == {"passed": 3, "skipped": 2}
    assert vm.summary(["7 passed in 612.30s (0:10:12)\n"]) == {"passed": 7}
    assert vm.summary(["1 failed, 1 error in 2.00s\n", "7 passed in 1 minute\n"]) == {"failed": 1, "error": 1}
    assert vm.summary(["no count here\n"]) == {}


def test_the_vm_tests_fail_instead_of_skipping_where_memory_is_required() -> None:
    """Where this machine's cgroup v2 offers no memory (this project's machine), the VM's tests
    are skipped in the normal suite, and fail with the VM step's variable set."""
    test = f"{HERE / 'test_cgroup_v2_memory.py'}::test_a_closed_group_gives_back_the_file_pages_its_game_cached"
    env = {k: v for k, v in os.environ.items() if k != vm.REQUIRE}
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", test]
    plain = subprocess.run(command, env=env, capture_output=True, text=True, cwd=HERE.parents[1])
    if vm.summary(plain.stdout.splitlines()) != {"skipped": 1}:
        pytest.skip(f"this machine has a real cgroup v2 memory controller: {plain.stdout[-300:]}")
    assert plain.returncode == 0, plain.stdout
    required = subprocess.run(command, env={**env, vm.REQUIRE: "1"}, capture_output=True, text=True, cwd=HERE.parents[1])
    assert required.returncode == 1, required.stdout
    assert "TREASURE_VM_REQUIRE_V2_MEMORY=1 but no real cgroup v2 memory" in required.stdout, required.stdout
    assert vm.summary(required.stdout.splitlines()) == {"error": 1}, required.stdout


def test_make_test_ends_with_the_vm_step_with_virtme_ng_pinned_in_a_venv_of_its_own() -> None:
    makefile = (HERE.parents[1] / "Makefile").read_text()
    recipe = makefile.split("\ntest:", 1)[1].split("\n\n", 1)[0].strip().splitlines()
    assert recipe[-1].strip().endswith("test-vm"), recipe[-1]  # after the suite, so its failures show first
    step = makefile.split("\ntest-vm:", 1)[1].split("\n\n", 1)[0]
    assert "run_in_vm.py --missing" in step and "apt-get install" in step
    assert "run_in_vm.py --ci --vng $(VM_VENV)/bin/vng" in step
    venv = makefile.split("\n$(VM_VENV)/.installed:", 1)[1].split("\n\n", 1)[0]
    assert "'virtme-ng==$(VNG_VERSION)'" in venv and "$(VM_VENV)/bin/python -m pip install" in venv
    assert "\nVM_VENV     := .venv-vm\n" in makefile and ".venv-vm/" in (HERE.parents[1] / ".gitignore").read_text()
