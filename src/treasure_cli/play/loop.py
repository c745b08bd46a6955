"""The loop that asks an agent for actions: the game itself knows no agent (`rules.game`)."""

from __future__ import annotations

from collections.abc import Iterator

from treasure_cli.errors import AgentCrashError, TreasureError
from treasure_cli.rules import seeds
from treasure_cli.rules.events import Event
from treasure_cli.rules.game import Game
from treasure_cli.rules.observation import Agent


def play_agent(game: Game, agent: Agent) -> Iterator[Event]:
    """Play `game` (not yet started) to its end with `agent`, yielding every event.

    The agent's `reset(seed)`, if it has one, is called first with the seed derived from the
    game's. An exception from the agent's own code ends the game as AgentCrashError (chained to
    it); an illegal action raises the game's IllegalActionError.
    """
    reset = getattr(agent, "reset", None)
    if reset is not None:
        try:
            reset(seeds.agent_seed(game.seed))
        except TreasureError:
            raise
        except Exception as exc:
            raise _crash(game, exc) from exc
    yield from game.start()
    act, observe, step = agent.act, game.observe, game.step
    while game.result is None:
        obs = observe()  # outside the try: only the agent's own code is its failure
        try:
            action = act(obs)
        except TreasureError:
            raise
        except Exception as exc:
            raise _crash(game, exc) from exc
        yield from step(action)


def _crash(game: Game, exc: Exception) -> AgentCrashError:
    return AgentCrashError(game.turn, f"the agent raised {type(exc).__name__}: {exc}")
