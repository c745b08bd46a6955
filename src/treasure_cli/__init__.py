"""treasure-cli: play, log and replay the Treasure Island logical-agent game."""

__version__ = "0.1.0"
