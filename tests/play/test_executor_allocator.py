"""Dask workers get glibc's usual allocator thresholds back (play/executor.py)."""

from __future__ import annotations

import ctypes

import pytest

from treasure_cli.play import executor


class FakeLibc:
    def __init__(self):
        self.calls = []

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return 1


@pytest.fixture
def libc(monkeypatch):
    fake = FakeLibc()
    monkeypatch.setattr(ctypes, "CDLL", lambda *a, **k: fake)
    monkeypatch.setattr(executor.sys, "platform", "linux")
    monkeypatch.setattr(executor, "_allocator_checked", False)
    return fake


def test_a_task_on_a_worker_started_with_dask_s_trim_setting_restores_the_thresholds_once(libc, monkeypatch):
    monkeypatch.setenv("MALLOC_TRIM_THRESHOLD_", "65536")
    assert executor._on_dask_worker(divmod, 17, 5) == (3, 2)
    assert executor._on_dask_worker(divmod, 9, 2) == (4, 1)
    assert libc.calls == [(-3, 32 << 20), (-1, 64 << 20)]  # M_MMAP_THRESHOLD, M_TRIM_THRESHOLD


def test_without_that_setting_the_allocator_is_left_alone(libc, monkeypatch):
    monkeypatch.delenv("MALLOC_TRIM_THRESHOLD_", raising=False)
    assert executor._on_dask_worker(divmod, 17, 5) == (3, 2)
    assert libc.calls == []
