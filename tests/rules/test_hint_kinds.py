"""The hint-kind API (docs/hints.md): built-ins and plugins drawn by one loop, plugin hints in the
log and the protocol, the check on load."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
from helpers import ROOT

from treasure_cli.formats import wire
from treasure_cli.formats.game_record import format_log, parse_log
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.hint_plugins import HintKindError, check_kind, hint_set, load_file
from treasure_cli.rules import hints as hints_mod
from treasure_cli.rules import plugin_kinds
from treasure_cli.rules.draws import Draws
from treasure_cli.rules.game import Game
from treasure_cli.rules.hint_draw import BUILTIN_HINTS, HintSet, _Drawer, _draw_from, draw_hint
from treasure_cli.rules.hint_kinds import HintContext
from treasure_cli.rules.hints import HINT_CLASSES
from treasure_cli.rules.plugin_kinds import PluginHint, TileSetHint, hint_text, parse_hint_text
from treasure_cli.rules.observation import Observer

KINDS = str(ROOT / "examples" / "hints" / "kinds.py")


def _plugins():
    return {cls.name: cls for cls in load_file(KINDS)}


def test_the_loop_over_any_set_gives_the_builtin_draw_for_the_builtin_set():
    # One way to be a kind: the 15 built-ins through the generic loop draw what the fast loop draws.
    for i in range(12):
        island = generate_island(20, 20, rng=np.random.default_rng(i))
        for turn in range(1, 25):
            ctx = HintContext(turn, island.reachable_prisons[0], (1 + turn % 5, 2), turn > 3)
            for truthful in (True, False):
                fast = draw_hint(island, island.treasure, ctx, truthful, Draws([i, turn, truthful]))
                drawer = _Drawer(island, ctx, Draws([i, turn, truthful]))
                assert _draw_from(BUILTIN_HINTS, drawer, island.treasure, truthful) == fast


def test_every_builtin_kind_passes_the_check_on_load():
    for cls in HINT_CLASSES.values():
        check_kind(cls, sizes=((12, 12), (16, 20)), draws=3)


def test_a_set_of_the_builtins_at_their_weights_is_the_default():
    assert hint_set([], "builtin=1") is None
    assert hint_set([], "builtin=1,not_tiles=1") is None
    only = hint_set([], "builtin=0,near_sea=1,in_regions=2")
    assert only.names == ("in_regions", "near_sea") and only.weights == (2.0, 1.0)


def test_plugin_hints_only_when_the_builtins_weigh_nothing():
    kinds = hint_set([KINDS], "builtin=0")
    assert kinds.names == ("near-mountain", "region-number")
    island = generate_island(24, 24, rng=np.random.default_rng(3))
    game = Game(island, 11, hints=kinds)
    events = game.start()
    while not game.over:
        from treasure_cli.rules.actions import legal_actions
        events += game.step(legal_actions(game.observe(), teleports=False)[0])
    given = [h for h in game.hints]
    assert {h.name for h in given} <= {"near-mountain", "region-number", "not_tiles"}
    assert any(isinstance(h, PluginHint) for h in given)
    for hint, truth in zip(game.hints, game.truths):  # each hint's set holds the treasure exactly when true
        assert bool(hint.mask(island.public())[island.treasure]) == truth
    text = format_log(events)
    assert "kind near-mountain@kinds.py#" in text or "kind region-number@kinds.py#" in text
    assert parse_log(text) == events  # the log reads its plugin hints back


def test_a_plugin_hint_line_round_trips_and_checks_its_statement():
    p = _plugins()
    hint = p["near-mountain"](3, True)
    text = hint_text(hint)
    assert text == f"kind near-mountain@{plugin_kinds.origin(type(hint))} [3,true]: the treasure is within 3 steps of a mountain"
    assert re.fullmatch(r"kinds\.py#[0-9a-f]{16}", plugin_kinds.origin(type(hint)))
    assert parse_hint_text(text) == hint
    with pytest.raises(ValueError, match="states 'the treasure is within 3 steps"):
        parse_hint_text("kind near-mountain [3,true]: the treasure is within 4 steps of a mountain")
    with pytest.raises(ValueError, match="cannot read its parameters"):
        parse_hint_text("kind near-mountain [3: the treasure is within 3 steps of a mountain")


def test_a_log_naming_a_kind_that_is_not_installed_is_refused(monkeypatch):
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {})
    with pytest.raises(ValueError, match="hint kind 'zig-zag' is not installed: give its file with --hints"):
        parse_hint_text("kind zig-zag [1]: the treasure is on a zig-zag")


def test_the_protocol_sends_a_plugin_hint_with_its_tiles_even_to_an_agent_that_reads_sentences():
    island = generate_island(16, 16, rng=np.random.default_rng(5)).public()
    hint = _plugins()["region-number"](2, 0)
    data = wire.encode_hint(hint, island, tiles=False)
    assert data["kind"] == "region-number" and data["text"] == "the treasure is in a region with an even number"
    back = wire._hint_back(data)  # what an agent host without the plugin makes of it
    assert isinstance(back, TileSetHint) and back.sentence() == hint.sentence()
    assert np.array_equal(back.mask(island), hint.mask(island))
    assert np.array_equal(back.mask(island, np.s_[2:5, 3:9]), hint.mask(island)[2:5, 3:9])
    builtin = wire.encode_hint(HINT_CLASSES[hints_mod.HintKind.NEAR_SEA](2), island, tiles=False)
    assert "tiles" not in builtin  # built-in kinds as before


def test_an_agent_gets_the_same_plugin_hints_from_the_game_and_from_the_wire():
    # The agent host's Observer, fed the protocol's events, makes the Observation the game makes
    # in process, field by field: a plugin hint is one TileSetHint value on both sides.
    import dataclasses as dc
    import json

    from treasure_cli.agents.logic import LogicAgent
    from treasure_cli.rules.observation import Observation

    kinds = hint_set([KINDS], "builtin=0")
    island = generate_island(16, 16, rng=np.random.default_rng(8))
    public = island.public()
    game = Game(island, 4, hints=kinds)
    game.start()
    observer = Observer(wire.decode_island(json.loads(json.dumps(wire.encode_island(public)))), 0.5, game.max_turns)
    agent, seen = LogicAgent(), 0
    while not game.over:
        want = game.observe()
        news = tuple(wire.decode_event(json.loads(json.dumps(wire.encode_event(e, public, False))))
                     for e in want.news)
        got = observer.observe(want.turn, want.actions_left, news)
        for f in dc.fields(Observation):
            if f.name not in ("scanned", "verified", "island"):  # (arrays and views: compared below)
                assert getattr(got, f.name) == getattr(want, f.name), f.name
        assert np.array_equal(got.scanned, want.scanned) and dict(got.verified) == dict(want.verified)
        seen += sum(isinstance(h, TileSetHint) for h in want.hints)
        game.step(agent.act(want))
    assert seen and all(type(h) is not TileSetHint for h in game.hints)  # the log keeps the kind's own
    for mine, theirs in zip(want.hints, game.hints):
        assert mine == TileSetHint.of(theirs, public) and mine.sentence() == theirs.sentence()


@dataclasses.dataclass(frozen=True)
class Cheat(PluginHint):
    """Looks at the treasure: its draw is right, its tile set on the public island is not."""

    name = "cheat"

    @classmethod
    def draw(cls, island, ctx, rng):
        return cls()

    def tile_set(self, island):
        m = np.zeros(island.shape, dtype=bool)
        if island.treasure is not None:
            m[island.treasure] = True
        return m

    def holds_for(self, island, pos):
        return True

    def statement(self):
        return "the treasure is where it is"


@dataclasses.dataclass(frozen=True)
class Inverted(PluginHint):
    """Its one-tile test says the opposite of its tile set."""

    k: int
    name = "inverted"

    @classmethod
    def draw(cls, island, ctx, rng):
        return cls(rng.below(3))

    def tile_set(self, island):
        return island.land & (island.sea_distance <= self.k)

    def holds_for(self, island, pos):
        return not bool(self.tile_set(island)[pos])

    def statement(self):
        return f"the treasure is within {self.k} of the sea"


@pytest.mark.parametrize("cls", [Cheat, Inverted])
def test_the_check_on_load_refuses_a_kind_whose_tiles_disagree_with_its_truth(cls, monkeypatch):
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {cls.name: cls})
    with pytest.raises(HintKindError, match=f"hint kind '{cls.name}' on a .* island, its (true|false) hint"):
        check_kind(cls)


@dataclasses.dataclass(frozen=True)
class IntTiles(PluginHint):
    """Its tile set is right but an int array (0 and 1), not bools."""

    name = "int-tiles"

    @classmethod
    def draw(cls, island, ctx, rng):
        return cls()

    def tile_set(self, island):
        return island.land.astype(np.int64)

    def statement(self):
        return "the treasure is on land"


@dataclasses.dataclass(frozen=True)
class ColumnTiles(IntTiles):
    """Its tile set is one column of bools, (H, 1), not (H, W)."""

    name = "column-tiles"

    def tile_set(self, island):
        return island.land[:, :1].copy()


@pytest.mark.parametrize(("cls", "got"), [(IntTiles, "an array of dtype int64, shape"),
                                          (ColumnTiles, r"an array of dtype bool, shape \(\d+, 1\)")])
def test_the_check_on_load_refuses_a_tile_set_that_is_not_an_h_by_w_bool_array(cls, got, monkeypatch):
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {cls.name: cls})
    with pytest.raises(HintKindError, match=rf"hint kind '{cls.name}'.*{cls.__name__}\.tile_set\(island\) "
                                            rf"returned {got}.*must be an \(H, W\) array of bools"):
        check_kind(cls)


def test_loading_says_what_is_wrong(tmp_path):
    empty = tmp_path / "none.py"
    empty.write_text("X = 1\n")
    with pytest.raises(HintKindError, match="defines no hint kind"):
        load_file(str(empty))
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('nope')\n")
    with pytest.raises(HintKindError, match="fails on import: RuntimeError: nope"):
        load_file(str(broken))
    with pytest.raises(HintKindError, match="no hint kind called 'nowhere'"):
        hint_set([], "nowhere=1")
    with pytest.raises(HintKindError, match="not NAME=WEIGHT"):
        hint_set([], "builtin=-1")
    with pytest.raises(HintKindError, match="leaves no hint kind"):
        hint_set([], "builtin=0")


def test_a_hint_set_crosses_to_another_process_by_its_recipe():
    import pickle

    kinds = hint_set([KINDS], "builtin=0.5,region-number=3")
    back = pickle.loads(pickle.dumps(kinds))
    assert back == kinds and isinstance(back, HintSet)


def test_an_entry_point_kind_is_found_by_its_name(tmp_path, monkeypatch):
    import importlib.metadata

    from treasure_cli.formats import hint_plugins

    (tmp_path / "my_edge_kinds.py").write_text((ROOT / "examples" / "hints" / "kinds.py").read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    ep = importlib.metadata.EntryPoint("region-number", "my_edge_kinds:RegionNumber", hint_plugins.ENTRY_POINT_GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group: [ep] if group == hint_plugins.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {})
    # a log naming it reads without any option
    hint = parse_hint_text("kind region-number [2,1]: the treasure is in a region with an odd number")
    assert type(hint).__module__ == "my_edge_kinds" and hint.rest == 1
    # and --hint-weights names it
    assert hint_set([], "builtin=0,region-number=1").names == ("region-number",)


def test_a_replay_names_the_kind_s_file_beside_its_log_and_runs_none(tmp_path, monkeypatch):
    """The log names the kind's file and its digest: the file beside the log is never run (anyone
    who sends a log can send a file that matches it); the very file is named with the option that
    loads it, another file of that name is not named."""
    from click.testing import CliRunner

    from treasure_cli.cli import cli

    kinds = tmp_path / "kinds.py"
    kinds.write_bytes((ROOT / "examples" / "hints" / "kinds.py").read_bytes())
    (tmp_path / "MAP_01.txt").write_text((ROOT / "input" / "MAP_01.txt").read_text())
    monkeypatch.chdir(tmp_path)
    run = CliRunner().invoke(cli, ["run", "MAP_01.txt", "out", "--hints", "kinds.py", "--hint-weights", "builtin=0"])
    assert run.exit_code == 0, run.output
    assert "@kinds.py#" in (tmp_path / "out" / "LOG_01.txt").read_text()
    monkeypatch.setattr(plugin_kinds, "_INSTALLED", {})  # as in a new process
    changed = tmp_path / "out" / "kinds.py"
    changed.write_bytes(kinds.read_bytes() + b"\nopen('ran.txt', 'w').write('ran')\n")
    refused = CliRunner().invoke(cli, ["replay", "out/LOG_01.txt", "--no-pause", "--no-color"])
    assert refused.exit_code == 1 and "it came from a file kinds.py (SHA-256 " in refused.output, refused.output
    assert not (tmp_path / "ran.txt").exists()
    assert "add --hints" not in refused.output, refused.output
    changed.write_bytes(kinds.read_bytes())
    named = CliRunner().invoke(cli, ["replay", "out/LOG_01.txt", "--no-pause", "--no-color"])
    assert named.exit_code == 1 and "add --hints out/kinds.py if you trust it" in named.output, named.output
    assert not plugin_kinds._INSTALLED
    shown = CliRunner().invoke(cli, ["replay", "out/LOG_01.txt", "--no-pause", "--no-color", "--hints", "out/kinds.py"])
    assert shown.exit_code == 0 and "game over" in shown.output, shown.output
