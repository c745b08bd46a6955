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

__version__ = "0.3.0"

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
    "HintContext": "treasure_cli.rules.hint_draw",
    "HintDraws": "treasure_cli.rules.draws",
    "Knowledge": "treasure_cli.agents.knowledge",
    "AgentSpec": "treasure_cli.agents.registry",
    "load_agent": "treasure_cli.agents.registry",
    "read_map": "treasure_cli.formats.map_file",
    "parse_map": "treasure_cli.formats.map_file",
    "write_map": "treasure_cli.formats.map_file",
    "generate_island": "treasure_cli.formats.generator",
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

__all__ = ["__version__", *_EXPORTS, *_MODULES]


def __getattr__(name: str):
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
