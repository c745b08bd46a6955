"""An agent's folder as a bundle for a machine that cannot see it (play/shipping.py)."""

from __future__ import annotations

import hashlib
import json
import tempfile
import zlib
from pathlib import Path

import pytest

from treasure_cli.errors import TreasureError
from treasure_cli.play import shipping


@pytest.fixture
def group(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    g = tmp_path / "g"
    (g / "tools").mkdir(parents=True)
    (g / "agent.py").write_text("from tools.x import X\n\n\nclass Agent(X):\n    pass\n")
    (g / "tools" / "x.py").write_text("class X:\n    def act(self, obs):\n        return None\n")
    (g / "data.bin").write_bytes(bytes(range(256)))
    (g / "__pycache__").mkdir()
    (g / "__pycache__" / "x.pyc").write_bytes(b"litter")
    return g


def test_a_bundle_holds_the_folder_as_the_copy_would_and_plays_from_where_it_is_unpacked(group, tmp_path):
    spec = f"{group}/agent.py:Agent"
    source = (group / "agent.py").read_bytes()
    bundle = shipping.pack(spec, source)
    assert bundle is not None and bundle.digest == hashlib.sha256(bundle.data).hexdigest()
    assert shipping.pack(spec, source) == bundle  # the same folder, the same bundle
    folder = shipping.receive(bundle.digest, bundle.data)
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == [
        "agent.py", "data.bin", "tools/x.py"]  # no litter
    assert (folder / "data.bin").read_bytes() == bytes(range(256))
    here, unpacked = shipping.local_spec(spec, bundle.digest)
    assert here == f"{folder}/agent.py:Agent" and unpacked == str(folder)
    assert shipping.pack("greedy", b"") is None  # installed code: nothing to send


def test_a_bundle_that_is_not_what_its_digest_says_or_leaves_its_folder_is_refused(group):
    bundle = shipping.pack(f"{group}/agent.py:Agent", (group / "agent.py").read_bytes())
    assert bundle is not None
    with pytest.raises(TreasureError, match="not what was sent"):
        shipping.receive(bundle.digest, bundle.data[:-1] + bytes([bundle.data[-1] ^ 1]))
    escaping = zlib.compress(json.dumps([["agent.py", 1, False], ["../out.py", 1, False]]).encode() + b"\nab")
    with pytest.raises(TreasureError, match="out of its folder"):
        shipping.receive(hashlib.sha256(escaping).hexdigest(), escaping)
    assert not (Path(tempfile.gettempdir()).parent / "out.py").exists()


def test_files_a_worker_cannot_take_stop_the_run_with_an_error_not_a_traceback():
    import operator

    from treasure_cli.play.executor import run_tasks

    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=":0", worker_dashboard_address=None) as cluster:
        # Bytes that are not what their digest says: the worker refuses them as it is set up.
        with pytest.raises(TreasureError, match="could not take the agents' files: TreasureError: .*not what was sent"):
            list(run_tasks(operator.add, [(1, 2)], scheduler=cluster.scheduler_address, shipped={"0" * 64: b"x"}))
        assert list(run_tasks(operator.add, [(1, 2)], scheduler=cluster.scheduler_address)) == [(0, 3)]
