"""A damaged log gives replay one clear `Error: LOG:line: ...`, never a traceback, whatever the damage."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner
from helpers import GOLDEN, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treasure_cli.cli import cli

LOG = (GOLDEN / "LOG_02.txt").read_text()
LINES = LOG.splitlines()


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    root = tmp_path_factory.mktemp("damaged")
    (root / "input").mkdir()
    shutil.copy(ROOT / "input" / "MAP_02.txt", root / "input" / "MAP_02.txt")
    (root / "out").mkdir()
    return root


def replay(place, text: str | bytes):
    log = place / "out" / "LOG_x.txt"
    log.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))
    return CliRunner().invoke(cli, ["replay", str(log), "--no-pause", "--no-color"])


def clean(result, place) -> None:
    assert isinstance(result.exception, SystemExit) or result.exception is None, result.exception
    assert result.exit_code in (0, 1)
    if result.exit_code == 1:
        assert result.output.startswith(f"Error: {place / 'out' / 'LOG_x.txt'}:"), result.output
        assert "Traceback" not in result.output


def test_the_untouched_log_replays(place):
    assert replay(place, LOG).exit_code == 0


@pytest.mark.parametrize(("damage", "message"), [
    (lambda ls: ls[:-4], "header says"),
    (lambda ls: [ls[0], ls[1], "9" * 5000, *ls[3:]], ":3: expected the number of turns"),
    (lambda ls: ["9" * 5000, *ls[1:]], ":1: expected the number of log lines"),
    (lambda ls: [ls[0], ls[1], ls[2], ls[3].replace("seed ", "seed " + "9" * 5000), *ls[4:]], ":4: not a known log line"),
    (lambda ls: [*ls[:8], ls[8].rsplit(": ", 1)[0] + ": the treasure is in row " + "9" * 40, *ls[9:]],
     ":9: bad hint"),
    (lambda ls: [str(int(ls[0]) + 1), *ls[1:10], ls[-1], *ls[10:]], ":11: the game ends here, but the log goes on"),
    (lambda ls: [line.replace("5x5", "-5x-5") for line in ls], "a scan of side -5"),
    (lambda ls: [line.replace("5x5", "7x7") for line in ls], "a scan of side 7"),
    (lambda ls: [*ls[:3], "x" * 100_000, *ls[4:]], "no log line is longer than 65536"),
])
def test_known_damage_gets_its_own_message(place, damage, message):
    result = replay(place, "\n".join(damage(list(LINES))) + "\n")
    assert result.exit_code == 1
    assert message in result.output
    clean(result, place)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_damage_is_an_error_line_or_a_replay(place, data):
    kind = data.draw(st.sampled_from(["flip", "swap", "drop", "truncate", "digits", "bytes"]))
    lines = list(LINES)
    if kind == "flip":
        raw = bytearray(LOG.encode())
        for _ in range(data.draw(st.integers(1, 5))):
            raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
        text: str | bytes = bytes(raw)
    elif kind == "swap":
        i, j = data.draw(st.integers(0, len(lines) - 1)), data.draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
        text = "\n".join(lines) + "\n"
    elif kind == "drop":
        del lines[data.draw(st.integers(0, len(lines) - 1))]
        text = "\n".join(lines) + "\n"
    elif kind == "truncate":
        text = LOG[: data.draw(st.integers(0, len(LOG)))]
    elif kind == "digits":
        i = data.draw(st.integers(3, len(lines) - 1))
        lines[i] = "".join(c if not c.isdigit() else data.draw(st.sampled_from(["0", "9" * 30, "12"]))
                           for c in lines[i])
        text = "\n".join(lines) + "\n"
    else:
        text = data.draw(st.binary(max_size=300))
    clean(replay(place, text), place)
