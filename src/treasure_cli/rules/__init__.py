"""The game itself: terrain, hints, the pirate, actions, events and the engine.

Pure and self-contained: no files, no colour, no agents. Every other layer
imports from here; nothing here imports from them.
"""
