"""The public API: every name in treasure_cli.__all__ resolves, and legal_actions is the game's rule."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import treasure_cli
from treasure_cli import Game, IllegalActionError, LargeScan, Move, Teleport, legal_actions, play_agent
from treasure_cli.islands.generator import generate_island


def test_every_public_name_resolves():
    for name in treasure_cli.__all__:
        assert getattr(treasure_cli, name) is not None, name
    assert treasure_cli.read_game_log.__name__ == "read_log"
    assert treasure_cli.actions.Verify is treasure_cli.Verify
    from treasure_cli.play.loop import play_agent as loop

    assert treasure_cli.play_agent is loop and "play_agent" in treasure_cli.__all__


def test_importing_the_package_and_asking_the_version_load_no_numpy():
    code = ("import sys, treasure_cli; from treasure_cli.cli import main; sys.argv = ['treasure', '--version']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\nprint('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"treasure, version {treasure_cli.__version__}", "False"]


class Uniform:
    """Picks any action legal_actions offers, teleports included, and checks the game agrees."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.offered = 0

    def act(self, obs):
        options = legal_actions(obs)
        assert (not obs.teleport_used) == any(isinstance(a, Teleport) for a in options)
        assert LargeScan() in options
        self.offered += len(options)
        return options[int(self.rng.integers(len(options)))]


@settings(max_examples=25, deadline=None)
@given(size=st.integers(8, 20), seed=st.integers(0, 10**6))
def test_the_game_accepts_every_action_legal_actions_offers(size, seed):
    island = generate_island(size, size, rng=np.random.default_rng(seed))
    agent = Uniform(seed)
    list(play_agent(Game(island, seed), agent))  # would raise IllegalActionError on any refused action
    assert agent.offered > 0


def test_a_move_legal_actions_leaves_out_is_refused():
    island = generate_island(12, 12, rng=np.random.default_rng(3))

    class Probe:
        def act(self, obs):
            missing = [Move(d, n) for d in treasure_cli.Direction for n in range(1, 5)
                       if Move(d, n) not in legal_actions(obs)]
            assert missing, "some move is always blocked at the start on a 12x12 island with sea around it"
            return missing[0]

    try:
        list(play_agent(Game(island, 1), Probe()))
    except IllegalActionError as exc:
        assert exc.turn == 1
    else:
        raise AssertionError("the game accepted a move legal_actions left out")


def test_the_names_type_checkers_see_are_the_names_that_load():
    """__all__ is spelled out and the TYPE_CHECKING block imports each name from where
    __getattr__ loads it: what an editor completes is what the program runs."""
    import ast
    from pathlib import Path

    assert set(treasure_cli.__all__) == {"__version__", *treasure_cli._EXPORTS, *treasure_cli._MODULES}
    tree = ast.parse(Path(treasure_cli.__file__).read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    seen = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        for alias in node.names:
            assert alias.asname is not None  # `x as x`: re-exported for a strict checker
            seen[alias.asname] = (f"{node.module}.{alias.name}" if alias.name in treasure_cli._MODULES
                                  else node.module, alias.name)
    want = {name: (module, treasure_cli._ALIASES.get(name, name)) for name, module in treasure_cli._EXPORTS.items()}
    want.update({name: (module, name) for name, module in treasure_cli._MODULES.items()})
    assert seen == want


def test_the_old_module_names_under_play_still_import_for_one_release_with_a_warning():
    """play/ held the sandbox and the grading until 0.3.0: their old names are the new modules."""
    import importlib
    import warnings

    from treasure_cli.play import MOVED

    for old, new in MOVED.items():
        sys.modules.pop(f"treasure_cli.play.{old}", None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(f"treasure_cli.play.{old}")
        assert module is importlib.import_module(new)
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message) for w in caught), old
    code = "import warnings; warnings.simplefilter('error'); from treasure_cli.play import records"
    subprocess.run([sys.executable, "-c", code], check=True)  # what did not move warns of nothing
    done = subprocess.run([sys.executable, "-W", "always::DeprecationWarning", "-m", "treasure_cli.play.agent_host"], capture_output=True, text=True)
    assert "usage: python -m treasure_cli.sandbox.agent_host SPEC" in done.stderr  # runs as the new module
    assert "DeprecationWarning" in done.stderr


def test_the_names_that_left_a_moved_module_still_import_from_its_old_name():
    """Three names moved into play/records.py when play/ was split (settings_key from play/store,
    play_digest and ACTION_EVENTS from play/similarity): through the old module names they are
    the same objects still, for one release, as every other name of those modules is."""
    import importlib
    import warnings

    from treasure_cli.play import records

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        store = importlib.import_module("treasure_cli.play.store")
        similarity = importlib.import_module("treasure_cli.play.similarity")
    assert getattr(store, "settings_key", None) is records.settings_key
    assert getattr(similarity, "play_digest", None) is records.play_digest
    assert getattr(similarity, "ACTION_EVENTS", None) is records.ACTION_EVENTS
