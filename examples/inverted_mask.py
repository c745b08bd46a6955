"""A student's agent with a planted reasoning bug, to find with `--notes` and the replay.

It plays as the built-in `logic` agent does, and explains each action with a Note of
its candidate tiles. On turn 3 the mask it declares is inverted: the tiles it has
ruled out, which cannot hold the treasure while the game goes on. The replay marks
that step ("turn 3: your agent ruled out the treasure's tile"), and so does
`treasure check-agent examples/inverted_mask.py:Inverted --beliefs`.
"""

from treasure_cli import Note
from treasure_cli.agents.logic import LogicAgent


class Inverted(LogicAgent):
    def act(self, obs):
        self.turn = obs.turn
        return super().act(obs)

    def explain(self):
        candidates = self.know.candidates
        if self.turn == 3:  # the bug: ~ where the candidates were meant
            return Note("turn 3: candidates updated", ~candidates & self.know.island.walkable)
        return Note(f"{int(candidates.sum())} candidates", candidates)
