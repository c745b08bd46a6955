"""Watching games: the step model, the terminal renderer and its key-driven driver."""
