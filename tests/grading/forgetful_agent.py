"""An agent for check-agent --complete's tests: it keeps its candidates as the referee does, but forgets what
its rectangle hints say (tests/grading/test_complete_beliefs.py, tests/browser/test_complete_browser.py)."""

from treasure_cli import Note
from treasure_cli.agents.knowledge import Knowledge
from treasure_cli.rules.actions import LargeScan, Verify


class Forgetful(Knowledge):
    """Knows what the referee knows, except what a hint of one kind says once its truth is known."""

    def _learn(self, number, truthful):
        if getattr(self.hints[number - 1].kind, "name", "") == "IN_RECTANGLE":
            self.verified[number] = truthful
            self._unverified.pop(number, None)
            return
        super()._learn(number, truthful)


class IgnoresRectangles:
    def __init__(self):
        self.know = None

    def act(self, obs):
        if self.know is None:
            self.know = Forgetful(obs.island)
        self.know.observe(obs)
        unverified = [n for n in range(1, len(obs.hints) + 1) if n not in obs.verified]
        return Verify(unverified[0]) if unverified else LargeScan()

    def explain(self):
        return Note("what I keep", self.know.candidates)
