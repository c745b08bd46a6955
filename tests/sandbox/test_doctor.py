"""`treasure doctor` says what this machine gives, as the sandbox finds it."""

from __future__ import annotations

from click.testing import CliRunner

from treasure_cli.cli import cli
from treasure_cli.sandbox import cgroups, doctor
from treasure_cli.sandbox.doctor import _size
from treasure_cli.sandbox.levels import bwrap_works, pipe_max_size, socket_buffer


def _rows(output: str) -> dict[str, str]:
    return {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in output.splitlines()}


def test_doctor_says_what_the_machine_gives():
    result = CliRunner().invoke(cli, ["doctor", "--agent-memory", "512M"])
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)
    assert rows["bubblewrap sandbox"].startswith("yes" if bwrap_works() else "no")
    has_memory = "memory" in cgroups.available()
    assert rows["memory per game"].startswith("yes" if has_memory else "no")
    if has_memory:
        assert rows["worst case of a game"] == "512 MiB of memory (1 x --agent-memory)"
    assert "32 open files" in rows["limits per process"] and "address space 512 MiB" in rows["limits per process"]
    cgroups.remove_bases()


def test_doctor_without_control_groups_gives_the_multiple(monkeypatch):
    monkeypatch.setenv("TREASURE_NO_CGROUPS", "1")
    cgroups._bases.cache_clear()
    try:
        result = CliRunner().invoke(cli, ["doctor", "--agent-memory", "1G"])
    finally:
        cgroups._bases.cache_clear()
    assert result.exit_code == 0, result.output
    rows = _rows(result.output)
    assert rows["memory per game"].startswith("no ") and rows["CPU set per game"].startswith("no ")
    # 1 GiB counted over all its processes + 33 descriptors in flight at 16 MiB (the file size, or a
    # pipe's most where larger) + 2 x 64 MiB + 64 x 32 sockets' buffers
    flight = max(16 << 20, pipe_max_size())
    worst = (1024 + 2 * 64) * (1 << 20) + 33 * flight + 64 * 32 * socket_buffer()
    assert rows["worst case of a game"] == (f"{_size(worst)} of memory ({worst / (1 << 30):.3g} x --agent-memory): "
                                            "1 GiB over all its processes (their resident pages, counted every 20 ms) "
                                            f"+ 33 descriptors in flight at {_size(flight)} each (an upper bound) "
                                            "+ its /tmp and /dev/shm + what 64 x 32 sockets queue, and what it takes "
                                            "between two counts")
    assert rows["system calls refused"].split()[:3] == ["yes", "System", "V"]
    assert "memfd_create" in rows["system calls refused"]


def test_doctor_says_an_exec_programs_pipes_are_counted():
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 0, result.output
    assert _rows(result.output)["pipes counted"] == (
        "yes  an exec: program's game takes at most 16 of the machine's pipe and socket numbers in the sandbox, "
        "and a random count is taken before it")


def test_doctor_says_why_pipes_are_not_counted(monkeypatch):
    monkeypatch.setattr(doctor, "_budget_works", lambda: "no seccomp listener here")
    result = CliRunner().invoke(cli, ["doctor"])
    assert _rows(result.output)["pipes counted"] == (
        "no   no seccomp listener here: an exec: program's game may leave a count for the next")
