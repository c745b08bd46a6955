"""The Python agent host (`python -m treasure_cli.sandbox.agent_host SPEC`), driven over its pipes
with hand-written protocol messages (docs/agent-protocol.md)."""

from __future__ import annotations

import json
import subprocess
import textwrap

import numpy as np
import pytest

import treasure_cli
from treasure_cli.formats import wire
from treasure_cli.sandbox.levels import host_command
from treasure_cli.rules.game import Game

AGENTS = textwrap.dedent("""\
    import os
    import sys

    from treasure_cli import LargeScan


    class Scanner:
        def act(self, obs):
            return LargeScan()


    class Printer:
        def act(self, obs):
            print("printed in act", obs.turn)
            sys.stdout.write("written to sys.stdout\\n")
            sys.stdout.flush()
            os.write(1, b"written to fd 1\\n")
            return LargeScan()


    def helper(obs):
        raise ValueError("no candidate left")


    class Raiser:
        def act(self, obs):
            return helper(obs)


    class Seeded:
        def reset(self, seed):
            self.seed = seed

        def act(self, obs):
            print("seed", self.seed, file=sys.stderr)
            return LargeScan()
""")
HELPER_LINE = AGENTS.splitlines().index('    raise ValueError("no candidate left")') + 1
RAISER_LINE = AGENTS.splitlines().index("        return helper(obs)") + 1

HELLO = {"type": "hello", "protocol": 1, "program": "treasure-cli test"}


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    path = tmp_path_factory.mktemp("host") / "agents.py"
    path.write_text(AGENTS)
    return path


@pytest.fixture(scope="module")
def game_messages():
    """A `start` and the first `act` of a real game on a small island, as the referee sends them."""
    island = treasure_cli.generate_island(8, 8, rng=np.random.default_rng(4))
    game = Game(island, 11)
    game.start()
    obs = game.observe()
    start = {"type": "start", "seed": 1234, "island": wire.encode_island(obs.island),
             "options": {"truth_rate": obs.truth_rate, "max_turns": obs.max_turns, "hint_truths_shown": False}}
    act = {"type": "act", "turn": obs.turn, "actions_left": obs.actions_left, "position": list(obs.position),
           "teleport_used": obs.teleport_used, "news": [wire.encode_event(e, obs.island) for e in obs.news]}
    end = {"type": "end", "outcome": "LOSE", "reason": "timeout", "turn": 1, "news": []}
    return start, act, end


def talk(spec: str, *messages: dict, timeout: float = 30) -> tuple[list[dict], str, int]:
    """Send `messages` to a fresh host for `spec`, close its input; its answers (every line of
    its standard output must be a JSON object), its standard error, its exit status."""
    text = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run(host_command(spec), input=text, capture_output=True, text=True, timeout=timeout)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert all(isinstance(a, dict) for a in answers)
    return answers, done.stderr, done.returncode


def test_hello_is_answered_with_protocol_1_and_bye_ends_it(agents):
    spec = f"{agents}:Scanner"
    answers, err, code = talk(spec, HELLO, {"type": "bye"}, {"type": "hello", "protocol": 1})
    # It reads the hints' sentences itself: the referee need not send their tiles.
    assert answers == [{"type": "hello", "protocol": 1, "agent": spec, "tiles": False}]  # nothing after bye is read
    assert code == 0 and err == ""


def test_a_whole_game_then_another(agents, game_messages):
    start, act, end = game_messages
    answers, err, code = talk(f"{agents}:Scanner", HELLO, start, act, end, start, act, end, {"type": "bye"})
    scan = {"type": "action", "action": "scan"}
    assert answers[1:] == [scan, {"type": "ready"}, scan, {"type": "ready"}]
    assert code == 0 and err == ""


def test_eof_ends_it(agents, game_messages):
    start, act, _ = game_messages
    answers, _, code = talk(f"{agents}:Scanner", HELLO, start, act)
    assert [a["type"] for a in answers] == ["hello", "action"]
    assert code == 0


def test_the_reset_seed_is_the_start_message_s(agents, game_messages):
    start, act, end = game_messages
    answers, err, code = talk(f"{agents}:Seeded", HELLO, start, act, end)
    assert [a["type"] for a in answers] == ["hello", "action", "ready"]
    assert err == "seed 1234\n" and code == 0


@pytest.mark.parametrize(("spec", "cause"), [
    ("{dir}/missing.py:Scanner", "no such file"),
    ("{agents}:Nobody", "has no 'Nobody'"),
    ("{dir}/broken.py:Agent", "loading '{dir}/broken.py' raised ZeroDivisionError: division by zero"),
    ("no_such_module_xyz:Agent", "cannot import 'no_such_module_xyz'"),
])
def test_a_spec_that_fails_to_load_answers_hello_with_its_cause(agents, spec, cause):
    (agents.parent / "broken.py").write_text("x = 1 / 0\n")
    spec = spec.format(dir=agents.parent, agents=agents)
    answers, _, code = talk(spec, HELLO, {"type": "bye"})
    assert len(answers) == 1 and answers[0]["type"] == "error"
    assert cause.format(dir=agents.parent) in answers[0]["message"]
    assert code == 0


def test_what_an_agent_prints_goes_to_stderr_never_to_the_protocol(agents, game_messages):
    start, act, end = game_messages
    answers, err, code = talk(f"{agents}:Printer", HELLO, start, act, act, end)
    assert [a["type"] for a in answers] == ["hello", "action", "action", "ready"]
    assert err.splitlines() == ["printed in act 1", "written to sys.stdout", "written to fd 1"] * 2
    assert code == 0


def test_an_agent_that_raises_sends_an_error_with_its_own_frames_only(agents, game_messages):
    start, act, end = game_messages
    answers, _, code = talk(f"{agents}:Raiser", HELLO, start, act, act, end)
    # The second act is not answered: the agent gave up its game; `end` still is.
    assert [a["type"] for a in answers] == ["hello", "error", "ready"]
    error = answers[1]
    assert error["message"] == f"the agent raised ValueError: no candidate left (agents.py:{HELPER_LINE} in helper)"
    tb = error["traceback"]
    assert f'agents.py", line {RAISER_LINE}, in act' in tb
    assert f'agents.py", line {HELPER_LINE}, in helper' in tb
    assert tb.rstrip().endswith("ValueError: no candidate left")
    assert "treasure_cli" not in tb.replace(str(agents), "")
    assert code == 0


def test_an_agent_that_raises_in_act_is_named_in_act(tmp_path, game_messages):
    path = tmp_path / "bad.py"
    path.write_text("class Bad:\n    def act(self, obs):\n        return {}['nothing']\n")
    start, act, _ = game_messages
    answers, _, _ = talk(f"{path}:Bad", HELLO, start, act)
    assert answers[1]["message"] == "the agent raised KeyError: 'nothing' (bad.py:3 in act)"


def test_unreadable_input_is_an_error_and_ends_the_host(agents):
    done = subprocess.run(host_command(f"{agents}:Scanner"), input="{not json\n", capture_output=True,
                          text=True, timeout=30)
    assert [json.loads(line)["type"] for line in done.stdout.splitlines()] == ["error"]
    assert done.returncode == 1


def test_with_the_poll_option_a_whole_game_plays_the_same(agents, game_messages):
    # The referee's `poll` only changes how the host waits for its next question, never what it says.
    start, act, end = game_messages
    polled = {**start, "options": {**start["options"], "poll": 0.0005}}
    silly = {**start, "options": {**start["options"], "poll": "soon"}}  # not a number: ignored
    answers, err, code = talk(f"{agents}:Scanner", HELLO, polled, act, act, end, silly, act, end, {"type": "bye"})
    scan = {"type": "action", "action": "scan"}
    assert answers[1:] == [scan, scan, {"type": "ready"}, scan, {"type": "ready"}]
    assert code == 0 and err == ""


def test_the_host_reads_whole_lines_however_the_pipe_cuts_them():
    import os
    import threading
    import time

    from treasure_cli.sandbox.agent_host import _Lines

    read, write = os.pipe()
    lines = _Lines(read)
    lines.soon, lines.poll = True, 0.0005

    def writer():
        for piece in (b'{"a": 1}\n{"b"', b': 2}\n', b'{"c": 3}\n{"d": 4}'):
            time.sleep(0.01)  # past the poll: the host sleeps, then wakes for each piece
            os.write(write, piece)
        os.close(write)

    thread = threading.Thread(target=writer)
    thread.start()
    got = list(lines)
    thread.join()
    os.close(read)
    assert got == [b'{"a": 1}\n', b'{"b": 2}\n', b'{"c": 3}\n', b'{"d": 4}']
