"""The game itself: terrain, hints, the pirate, actions, events and the engine.
May import only the top modules (`errors`, `version`, `compiled`); never `islands/`, `agents/`, `formats/`,
`sandbox/`, `play/`, `grading/`, `view/`, `gym/` or `cli/`.

Pure and self-contained: no files, no colour, no agents. Every other layer
imports from here; nothing here imports from them.
"""
