"""Files every worker of a Dask cluster gets once (an agent's folder: play/shipping.py).

A Dask worker plugin: the scheduler keeps it and sets it up on each worker, those that join
or are restarted later included (a worker killed mid-game comes back with the files). Imported
only on a cluster (dask is an optional extra).

Not scattered data a task depends on: Dask then ties the task to a worker holding the data,
and its memory manager keeps one copy of scattered data only, so a task could run on one worker
alone, and lost that copy's worker, could not run at all.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from distributed import WorkerPlugin


class Files(WorkerPlugin):
    """Bundles by digest (play/shipping.py), received on each worker as it is set up."""

    def __init__(self, shipped: dict[str, bytes]):
        self.shipped = shipped
        # One run's own (two runs on one cluster each unregister only theirs at the end).
        self.name = f"treasure-cli-files-{hashlib.sha256(chr(0).join(sorted(shipped)).encode()).hexdigest()[:12]}-" \
                    + secrets.token_hex(4)

    def setup(self, worker: Any) -> None:
        from treasure_cli.play import shipping

        for digest, data in self.shipped.items():
            shipping.receive(digest, data)
