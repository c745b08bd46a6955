"""treasure-cli: play, log and replay the Treasure Island logical-agent game.

The public API, for writing and running agents (docs/writing-an-agent.md):

    from treasure_cli import Agent, Observation, Note, Knowledge, legal_actions
    from treasure_cli import Verify, Move, LargeScan, Teleport, Direction
    from treasure_cli import read_map, play_game, read_game_log
    from treasure_cli import Game, play_agent

Every name in `__all__` keeps its meaning until the next major version.
Names load on first use, so `import treasure_cli` (and `treasure --version`)
costs nothing.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from treasure_cli.version import __version__ as __version__

# name -> module that defines it
_EXPORTS = {
    "Agent": "treasure_cli.rules.observation",
    "Observation": "treasure_cli.rules.observation",
    "Note": "treasure_cli.rules.observation",
    "Action": "treasure_cli.rules.actions",
    "Verify": "treasure_cli.rules.actions",
    "Move": "treasure_cli.rules.actions",
    "LargeScan": "treasure_cli.rules.actions",
    "Teleport": "treasure_cli.rules.actions",
    "legal_actions": "treasure_cli.rules.actions",
    "Direction": "treasure_cli.rules.grid",
    "Pos": "treasure_cli.rules.grid",
    "Island": "treasure_cli.rules.island",
    "Game": "treasure_cli.rules.game",
    "Hint": "treasure_cli.rules.hints",
    "HintKind": "treasure_cli.rules.hints",
    "PluginHint": "treasure_cli.rules.plugin_kinds",
    "TileSetHint": "treasure_cli.rules.plugin_kinds",
    "HintContext": "treasure_cli.rules.hint_kinds",
    "HintDraws": "treasure_cli.rules.draws",
    "Knowledge": "treasure_cli.agents.knowledge",
    "AgentSpec": "treasure_cli.agents.registry",
    "load_agent": "treasure_cli.agents.registry",
    "read_map": "treasure_cli.formats.map_file",
    "parse_map": "treasure_cli.formats.map_file",
    "write_map": "treasure_cli.formats.map_file",
    "generate_island": "treasure_cli.islands.generator",
    "read_game_log": "treasure_cli.formats.game_record",
    "parse_game_log": "treasure_cli.formats.game_record",
    "format_game_log": "treasure_cli.formats.game_record",
    "play_game": "treasure_cli.play.games",
    "build_game": "treasure_cli.play.games",
    "play_agent": "treasure_cli.play.loop",
    "GameRecord": "treasure_cli.play.records",
    "TreasureError": "treasure_cli.errors",
    "MapFormatError": "treasure_cli.errors",
    "AgentError": "treasure_cli.errors",
    "IllegalActionError": "treasure_cli.errors",
}
# names whose attribute in the module is spelled differently
_ALIASES = {"load_agent": "resolve", "read_game_log": "read_log", "parse_game_log": "parse_log",
            "format_game_log": "format_log"}
_MODULES = {"actions": "treasure_cli.rules.actions", "events": "treasure_cli.rules.events",
            "hints": "treasure_cli.rules.hints"}

# Spelled out (not built from _EXPORTS) so that type checkers read it; tests/test_public_api.py compares.
__all__ = [
    "__version__", "Agent", "Observation", "Note", "Action", "Verify", "Move", "LargeScan", "Teleport",
    "legal_actions", "Direction", "Pos", "Island", "Game", "Hint", "HintKind", "PluginHint", "TileSetHint",
    "HintContext", "HintDraws", "Knowledge", "AgentSpec", "load_agent", "read_map", "parse_map",
    "write_map", "generate_island", "read_game_log", "parse_game_log", "format_game_log", "play_game",
    "build_game", "play_agent", "GameRecord", "TreasureError", "MapFormatError", "AgentError",
    "IllegalActionError", "actions", "events", "hints"
]

if TYPE_CHECKING:  # what type checkers and editors see; at run time each name loads on first use
    from treasure_cli.rules import actions as actions, events as events, hints as hints
    from treasure_cli.rules.observation import Agent as Agent, Observation as Observation, Note as Note
    from treasure_cli.rules.actions import (
        Action as Action,
        Verify as Verify,
        Move as Move,
        LargeScan as LargeScan,
        Teleport as Teleport,
        legal_actions as legal_actions,
    )
    from treasure_cli.rules.grid import Direction as Direction, Pos as Pos
    from treasure_cli.rules.island import Island as Island
    from treasure_cli.rules.game import Game as Game
    from treasure_cli.rules.hints import Hint as Hint, HintKind as HintKind
    from treasure_cli.rules.plugin_kinds import PluginHint as PluginHint, TileSetHint as TileSetHint
    from treasure_cli.rules.hint_kinds import HintContext as HintContext
    from treasure_cli.rules.draws import HintDraws as HintDraws
    from treasure_cli.agents.knowledge import Knowledge as Knowledge
    from treasure_cli.agents.registry import AgentSpec as AgentSpec, resolve as load_agent
    from treasure_cli.formats.map_file import (
        read_map as read_map,
        parse_map as parse_map,
        write_map as write_map,
    )
    from treasure_cli.islands.generator import generate_island as generate_island
    from treasure_cli.formats.game_record import (
        read_log as read_game_log,
        parse_log as parse_game_log,
        format_log as format_game_log,
    )
    from treasure_cli.play.games import play_game as play_game, build_game as build_game
    from treasure_cli.play.loop import play_agent as play_agent
    from treasure_cli.play.records import GameRecord as GameRecord
    from treasure_cli.errors import (
        TreasureError as TreasureError,
        MapFormatError as MapFormatError,
        AgentError as AgentError,
        IllegalActionError as IllegalActionError,
    )


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'treasure_cli' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _ALIASES.get(name, name))
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
