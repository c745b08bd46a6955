"""The game as a Gymnasium environment, driving the engine of `treasure run` one action at a time.

`rules.game.Game` is a state machine with a public step API: `reset` calls its
`start()` and `step` its `step(action)`, so no rule is re-implemented here and
no thread is used. One `step` is one agent action (two per turn, plus the free
teleport while it is unused).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from treasure_cli.errors import IllegalActionError
from treasure_cli.formats.atomic import write_text_atomic
from treasure_cli.formats.game_record import format_log
from treasure_cli.islands.generator import generate_island
from treasure_cli.formats.hint_plugins import hint_set
from treasure_cli.formats.map_file import format_map, read_map
from treasure_cli.gym.encoding import (
    DEFAULT_MAX_HINTS, DEFAULT_TELEPORT_GRID, HINT_FALSE, ActionCodec, Encoder, HintSets,
)
from treasure_cli.rules import seeds
from treasure_cli.rules.events import EndReason, Event, Outcome, public_view
from treasure_cli.rules.game import Game, check_truth_rate, default_turn_limit
from treasure_cli.rules.hint_draw import HintSet
from treasure_cli.rules.island import Island
from treasure_cli.rules.observation import Observation


class TreasureIslandEnv(gymnasium.Env):
    """Treasure Island for one agent; see docs/gymnasium.md.

    `map`: None (a new island of `size` generated at every reset), a map file
    path, or an `Island`. `size`: an int (square) or (width, height).
    `truth_rate`: the chance a hint after the first is true. `free_turn`: the
    turn the pirate is freed (None: the map's, or the generator's default).
    `max_turns`: the turn limit (None: 4·(W+H), as `treasure run`).
    `max_hints`: hints shown in the observation and verifiable by an action.
    `teleport_grid`: the teleport cells per side (maps no larger than it get
    one teleport action per tile). `shaping`: weight of an optional reward
    for ruling tiles out (0: off). `illegal_action`: "raise" (default) makes
    `step` raise IllegalActionError and leave the episode as it was; "lose"
    ends the episode instead, reward -1, `info["illegal_action"]` set.
    `raw_observation`: put the engine's `Observation` in `info["observation"]`
    (slower; for driving the env with an agent of this project).
    `hints`: the pirate's hint kinds: a HintSet, or a `--hints` file (or a list
    of them), with `hint_weights` as `--hint-weights` (docs/hints.md); their
    tile sets reach the observation's hint masks like the built-ins'.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, map: str | Path | Island | None = None, *, size: int | tuple[int, int] = 32,
                 truth_rate: float = 0.5, free_turn: int | None = None, max_turns: int | None = None,
                 render_mode: str | None = None, max_hints: int = DEFAULT_MAX_HINTS,
                 teleport_grid: int = DEFAULT_TELEPORT_GRID, shaping: float = 0.0,
                 illegal_action: str = "raise", raw_observation: bool = False,
                 agent_name: str = "gym", map_name: str | None = None,
                 hints: HintSet | str | Sequence[str] | None = None, hint_weights: str | None = None):
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        if illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}")
        check_truth_rate(truth_rate)
        if not isinstance(hints, HintSet) and (hints is not None or hint_weights is not None):
            files = [hints] if isinstance(hints, str) else list(hints or ())
            hints = hint_set(files, hint_weights)  # loaded and checked (docs/hints.md)
        self.hint_kinds: HintSet | None = hints
        self.render_mode = render_mode
        self.truth_rate = truth_rate
        self.free_turn = free_turn
        self.max_hints = max_hints
        self.teleport_grid = teleport_grid
        self.shaping = shaping
        self.illegal_action = illegal_action
        self.raw_observation = raw_observation
        self.agent_name = agent_name
        self._fixed: Island | None = None
        if map is None:
            width, height = (size, size) if isinstance(size, int) else size
            self.map_name = map_name
        else:
            island = map if isinstance(map, Island) else read_map(map)
            if free_turn is not None:
                island = dataclasses.replace(island, free_turn=free_turn)
            self._fixed = island
            height, width = island.shape
            self.map_name = map_name or (str(map) if not isinstance(map, Island) else "map")
        self.width, self.height = width, height
        self.max_turns = max_turns if max_turns is not None else default_turn_limit(width, height)
        h, w = height, width
        n_hints = self.max_hints
        plane = spaces.MultiBinary([h, w])
        corner = np.array([h - 1, w - 1], dtype=np.int64)
        region_high = max(h * w, int(self._fixed.regions.max()) if self._fixed is not None else 0)
        self.observation_space = spaces.Dict({
            "candidates": plane, "scanned": plane, "walkable": plane, "mountain": plane, "prison": plane,
            "hints": spaces.MultiBinary([n_hints, h, w]),
            "hint_state": spaces.MultiDiscrete(np.full(n_hints, HINT_FALSE + 1, dtype=np.int64)),
            "regions": spaces.Box(0, region_high, (h, w), dtype=np.int32),
            "position": spaces.Box(np.zeros(2, dtype=np.int64), corner, dtype=np.int64),
            "prison_pos": spaces.Box(np.full(2, -1, dtype=np.int64), corner, dtype=np.int64),
            "pirate": spaces.Box(np.full(2, -1, dtype=np.int64), corner, dtype=np.int64),
            "turn": spaces.Discrete(self.max_turns + 1),
            "actions_left": spaces.Discrete(3),
            "teleport_available": spaces.Discrete(2),
        })
        # The action count depends only on the shape: every island of this size has the same space.
        self.action_space = spaces.Discrete(
            n_hints + 17 + min(h, teleport_grid) * min(w, teleport_grid))
        self.island: Island | None = None
        self.public: Island | None = None
        self.game_seed: int | None = None
        self.codec: ActionCodec | None = None
        self.game: Game | None = None
        self.events: list[Event] = []
        self._obs: Observation | None = None  # the engine's observation, for raw_observation
        self.episode_seed: int | None = None
        self.island_seed: int | None = None
        self._renderer = None

    # ------------------------------------------------------------ episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a game. `seed` fixes the island (when generated), the game and so every hint and
        the pirate; without it the next seed comes from the env's generator. `options`:
        `{"game_seed": n}` plays the game of seed n (e.g. `treasure run`'s for a map)."""
        super().reset(seed=seed)
        options = options or {}
        key = seed if seed is not None else int(self.np_random.integers(2**63))
        self.episode_seed = key
        if self._fixed is not None:
            island, self.island_seed = self._fixed, None
        else:
            self.island_seed = seeds.gym_island_seed(key, self.width, self.height)
            island = generate_island(self.width, self.height, free_turn=self.free_turn,
                                     rng=np.random.default_rng(self.island_seed))
        game_seed = int(options.get("game_seed", seeds.gym_game_seed(key)))
        map_name = self.map_name or f"MAP_gym_{self.width}x{self.height}_{self.island_seed}.txt"
        if island is not self.island:
            self.island = island
            self.public = island.public()
            self.codec = ActionCodec(self.public.walkable, self.max_hints, self.teleport_grid)
            self._hint_sets = HintSets(self.public)  # kept while the island stays the same
            self._renderer = None
        # The news feed only `observe`, read for raw observations; the env makes its own public views.
        game = Game(island, game_seed, agent_name=self.agent_name, map_name=map_name,
                    truth_rate=self.truth_rate, max_turns=self.max_turns, keep_news=self.raw_observation,
                    hints=self.hint_kinds)
        self.game = game
        self.game_seed = game_seed
        self.events = []
        self.encoder = Encoder(self.public, game.max_turns, self.codec, self._hint_sets)  # type: ignore[arg-type]
        self._over = False
        self._advance(game.start())
        self._walkable_tiles = int(self.island.walkable.sum())  # the shaping's scale, once a game
        self._potential = self._phi()
        return self._observation(), self._info()

    def step(self, action):
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if self._over:
            raise RuntimeError("the episode is over; call reset() to start another")
        index = int(action)
        mask = self._mask
        if not (0 <= index < mask.size and mask[index]):
            return self._illegal(index)
        self._advance(self.game.step(self.codec.decode(index)))
        reward = 0.0
        terminated = truncated = False
        end = self.game.result
        if end is not None:
            self._over = True
            reward = 1.0 if end.outcome is Outcome.WIN else -1.0
            truncated = end.reason is EndReason.TIMEOUT
            terminated = not truncated
        if self.shaping:
            phi = self._phi()
            reward += self.shaping * (phi - self._potential)
            self._potential = phi
        return self._observation(), reward, terminated, truncated, self._info()

    def _illegal(self, index: int):
        try:
            what = repr(self.codec.decode(index))  # type: ignore[union-attr]
        except ValueError as exc:
            what = str(exc)
        err = IllegalActionError(self.game.turn, f"illegal action {index} ({what}) at {self.game.position}: "  # type: ignore[union-attr]
                                 "info['action_mask'] marks the legal actions")
        if self.illegal_action == "raise":
            raise err
        self._over = True
        info = self._info()
        info["action_mask"] = self._mask.copy()  # the mask of the last step, as a new array again
        info["illegal_action"] = str(err)
        return self._observation(), -1.0, True, False, info

    def _advance(self, new: list[Event]) -> None:
        """Fold in the events of the game's last start() or step(), up to its next request or its end."""
        self.events += new
        update = self.encoder.update
        for item in new:
            seen = public_view(item)
            if seen is not None:
                update(seen)
        game = self.game
        self._obs = None
        if game.result is None:  # type: ignore[union-attr]
            self.encoder.ready()
            if self.raw_observation:
                self._obs = game.observe()  # type: ignore[union-attr]
        self._mask = self.encoder.action_mask()

    def _phi(self) -> float:
        return -self.encoder.knowledge.count / self._walkable_tiles if self.shaping else 0.0

    def _observation(self) -> dict[str, object]:
        return self.encoder.observation(self.game.actions_left)  # type: ignore[union-attr]

    def _info(self) -> dict[str, object]:
        # The mask is a new array at each step, made for this info (action_masks() copies it).
        info: dict[str, object] = {"action_mask": self._mask, "turn": self.game.turn}  # type: ignore[union-attr]
        if self._obs is not None:
            info["observation"] = self._obs
        if self.game.result is not None:  # type: ignore[union-attr]
            info["outcome"] = self.game.result.outcome.value  # type: ignore[union-attr]
            info["reason"] = self.game.result.reason.value  # type: ignore[union-attr]
        return info

    def action_masks(self) -> np.ndarray:
        """The legal actions now (the name sb3-contrib's MaskablePPO looks for)."""
        return self._mask.copy()

    def decode(self, index: int):
        """The Action of an index (Verify, Move, LargeScan or Teleport)."""
        return self.codec.decode(index)  # type: ignore[union-attr]

    def encode(self, action) -> int | None:
        """The index of an Action; None if the space cannot express it."""
        return self.codec.encode(action)  # type: ignore[union-attr]

    # ------------------------------------------------------------ output
    def render(self):
        if self.render_mode != "ansi" or self.game is None:
            return None
        from treasure_cli.view.render import Renderer
        from treasure_cli.view.steps import Replay

        replay = Replay(self.island, list(self.events))
        if self._renderer is None:
            self._renderer = Renderer(self.island, color=False)
        return self._renderer.frame(replay.state(replay.last_step()))

    def write_log(self, path: str | Path) -> Path:
        """Write the finished episode as a game log (`treasure replay` reads it). A generated
        island is written beside it under the map name the log records."""
        if self.game is None or self.game.result is None:
            raise ValueError("a log is written for a finished game only")
        path = Path(path)
        write_text_atomic(path, format_log(self.events))
        if self._fixed is None:
            write_text_atomic(path.parent / self.game.map_name, format_map(self.island))  # type: ignore[arg-type]
        return path
