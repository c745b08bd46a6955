"""What a long command shows while it works: the progress line on stderr, and the ETA trace
(TREASURE_CLI_ETA_TRACE) that benchmarks/eta_accuracy.py reads."""

from __future__ import annotations

import json
import sys

from treasure_cli.formats.text import printable


class ProgressLine:
    """One line on stderr, redrawn in place (at most 5 times a second): games done of total, the
    ETA and the failures per agent (grading/progress.py). Nothing at all when stderr is not a
    terminal (a log file or a pipe gets the results, not a stream of redraws)."""

    def __init__(self, label: str, estimate, stream=None) -> None:
        self.label, self.estimate = label, estimate
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()
        self.shown = 0.0
        self.width = 0
        self.show(force=True)

    def show(self, force: bool = False) -> None:
        import shutil
        import time

        if not self.live or (not force and time.monotonic() - self.shown < 0.2
                             and self.estimate.done < self.estimate.total):
            return
        self.shown = time.monotonic()
        columns = shutil.get_terminal_size((100, 20)).columns
        text = printable(f"{self.label} {self.estimate.line(columns - len(self.label) - 2)}")
        self.stream.write("\r" + text + " " * max(0, self.width - len(text)))
        self.stream.flush()
        self.width = len(text)

    def close(self) -> None:
        """End the line (once), leaving its last state on screen."""
        if self.live and self.width:
            self.show(force=True)
            self.stream.write("\n")
            self.stream.flush()
        self.live = False


ETA_TRACE = "TREASURE_CLI_ETA_TRACE"  # benchmarks/eta_accuracy.py: a file to log each estimate in


class EtaTrace:
    """With TREASURE_CLI_ETA_TRACE=FILE (benchmarks/eta_accuracy.py, not for users): one JSON line
    appended per event, each with its time (`t`, time.monotonic): the plan (`plan`: [agent, tiles,
    key, unit] of each game to play, and `workers`), a game handed over (`start`: agent, `tiles`, `key`), a game
    ended (`end`: agent, `tiles`, `seconds`, `busy`, `failed`, `key`, `actions`, then the games `done` of
    `total` and the `eta` the progress line would show then, in seconds), and before each end the
    games in flight as the workers' board said them (`flight`: [key, seconds, actions] of each,
    play/pulse.py). Enough to play the run again through an estimate (`eta_accuracy.py --replay`)."""

    def __init__(self, path: str) -> None:
        self.out = open(path, "a", encoding="utf-8")

    def __call__(self, event: dict, estimate=None) -> None:
        import time

        event["t"] = time.monotonic()
        if estimate is not None:
            event.update(done=estimate.done, total=estimate.total, eta=estimate.remaining())
        self.out.write(json.dumps(event) + "\n")
        self.out.flush()

    def close(self) -> None:
        self.out.close()


def eta_trace() -> EtaTrace | None:
    import os

    path = os.environ.get(ETA_TRACE)
    return EtaTrace(path) if path else None
