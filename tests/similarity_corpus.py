"""The corpus the token similarity is measured on (tests/grading/test_tokens.py, and the table in docs/grading.md):
disguised copies of three agents, and distinct agents that must not be flagged.

Copies of examples/densest_scan.py, examples/raw_observation.py and
examples/cpp/agent.cpp, each disguised one way: names renamed differently
in each function (with comments and layout gone), functions reordered, dead
code added, a helper inlined, loops rewritten, and all of those at once.
The distinct agents: the three examples, the built-in greedy, random and
logic agents, and four agents written here from docs/writing-an-agent.md.
"""

from __future__ import annotations

import ast
import re

from helpers import ROOT

DENSEST = (ROOT / "examples" / "densest_scan.py").read_text()
RAW = (ROOT / "examples" / "raw_observation.py").read_text()
CPP = (ROOT / "examples" / "cpp" / "agent.cpp").read_text()


class _PerFunction(ast.NodeTransformer):
    """Every local name and argument renamed, differently in each function; functions and classes too."""

    def __init__(self) -> None:
        self.count = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.count += 1
        tag = "abcdefghij"[self.count % 10]
        names = {a.arg for a in node.args.args if a.arg != "self"}
        names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        mapping = {name: f"{tag}_{k}_{name[::-1]}" for k, name in enumerate(sorted(names))}
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and n.id in mapping:
                n.id = mapping[n.id]
            elif isinstance(n, ast.arg) and n.arg in mapping:
                n.arg = mapping[n.arg]
        node.body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))] or [
            ast.Pass()]
        self.generic_visit(node)
        return node


def renamed_per_function(source: str) -> str:
    tree = _PerFunction().visit(ast.parse(source))
    return ast.unparse(tree)


def reordered(source: str) -> str:
    """Top-level definitions and each class's methods in reverse order, imports first."""
    tree = ast.parse(source)
    imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
    rest = [s for s in tree.body if s not in imports and not (isinstance(s, ast.Expr)
                                                               and isinstance(s.value, ast.Constant))]
    for s in rest:
        if isinstance(s, ast.ClassDef):
            s.body.reverse()
    tree.body = imports + rest[::-1]
    return ast.unparse(tree)


DEAD = '''

def _unused_helper(grid, limit=3):
    total = 0
    for row in grid:
        for value in row:
            if value > limit:
                total += value
    return total


def _log(message):
    if False:
        print(message)
'''


def with_dead_code(source: str) -> str:
    body = source.replace("    def act(self, obs):\n",
                          "    def act(self, obs):\n        _spare = [i * i for i in range(4)]\n        if len(_spare) > 9:\n"
                          "            _log('never')\n", 1)
    return body + DEAD


DENSEST_INLINED = '''import numpy as np
from treasure_cli import Knowledge, LargeScan, Move, Teleport, Verify, legal_actions


class Searcher:
    def __init__(self):
        self.kb = None

    def act(self, o):
        if self.kb is None:
            self.kb = Knowledge(o.island)
        self.kb.observe(o)
        tiles = self.kb.candidates
        todo = self.kb.unverified()
        if todo and tiles.sum() > 25:
            return Verify(todo[0])
        y, x = o.position
        if tiles[max(y - 2, 0):y + 3, max(x - 2, 0):x + 3].any():
            return LargeScan()
        pad = np.pad(tiles.astype(np.int32), 2)
        acc = pad.cumsum(0).cumsum(1)
        acc = np.pad(acc, ((1, 0), (1, 0)))
        hh, ww = tiles.shape
        cov = acc[5:5 + hh, 5:5 + ww] - acc[:hh, 5:5 + ww] - acc[5:5 + hh, :ww] + acc[:hh, :ww]
        cov = np.where(o.island.walkable, cov, -1)
        ty, tx = np.unravel_index(int(np.argmax(cov)), cov.shape)
        goal = (int(ty), int(tx))
        far = abs(goal[0] - y) + abs(goal[1] - x)
        if not o.teleport_used and far > 8:
            return Teleport(goal)
        steps = [a for a in legal_actions(o, teleports=False) if isinstance(a, Move)]
        pick = min(steps, default=None, key=lambda m: abs(goal[0] - (y + m.direction.dr * m.steps))
                   + abs(goal[1] - (x + m.direction.dc * m.steps)))
        if pick is None:
            return LargeScan()
        return pick
'''

DENSEST_LOOPS = '''import numpy as np

from treasure_cli import Knowledge, LargeScan, Move, Teleport, Verify, legal_actions


def densest_window(candidates, walkable):
    padded = np.pad(candidates.astype(np.int32), 2)
    sums = padded.cumsum(0).cumsum(1)
    sums = np.pad(sums, ((1, 0), (1, 0)))
    h, w = candidates.shape
    cover = sums[5:5 + h, 5:5 + w] - sums[:h, 5:5 + w] - sums[5:5 + h, :w] + sums[:h, :w]
    cover = np.where(walkable, cover, -1)
    r, c = np.unravel_index(int(np.argmax(cover)), cover.shape)
    return (int(r), int(c)), int(cover[r, c])


class DensestScan:
    def __init__(self):
        self.know = None

    def act(self, obs):
        if self.know is None:
            self.know = Knowledge(obs.island)
        self.know.observe(obs)
        cand = self.know.candidates
        unverified = self.know.unverified()
        if unverified and cand.sum() > 25:
            return Verify(unverified[0])
        r, c = obs.position
        if cand[max(r - 2, 0):r + 3, max(c - 2, 0):c + 3].any():
            return LargeScan()
        target, _ = densest_window(cand, obs.island.walkable)
        distance = abs(target[0] - r) + abs(target[1] - c)
        if not obs.teleport_used and distance > 8:
            return Teleport(target)
        moves = []
        options = legal_actions(obs, teleports=False)
        i = 0
        while i < len(options):
            if isinstance(options[i], Move):
                moves.append(options[i])
            i += 1
        best = None
        best_cost = None
        for m in moves:
            cost = abs(target[0] - (r + m.direction.dr * m.steps)) + abs(target[1] - (c + m.direction.dc * m.steps))
            if best_cost is None or cost < best_cost:
                best, best_cost = m, cost
        if best is None:
            return LargeScan()
        return best
'''


def cpp_renamed_reordered(source: str) -> str:
    """agent.cpp with comments gone, some names changed (differently in two halves) and two methods swapped."""
    text = re.sub(r"//[^\n]*", "", source)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    half = len(text) // 2
    first = text[:half]
    for old, new in (("msg", "message"), ("line", "row_text"), ("depth", "level")):
        first = re.sub(rf"\b{old}\b", new, first)
    second = text[half:]
    for old, new in (("msg", "m"), ("steps", "n_steps"), ("target", "goal_tile"), ("best", "top")):
        second = re.sub(rf"\b{old}\b", new, second)
    text = first + second
    verify = re.search(r"    std::string verify\(int k\) const \{.*?\n    \}\n", text, flags=re.S)
    bfs = re.search(r"    std::vector<int> bfs\(int src\) const \{.*?\n    \}\n", text, flags=re.S)
    assert verify and bfs
    a, b = verify.group(), bfs.group()
    text = text.replace(a, "\x00").replace(b, a).replace("\x00", b)
    return re.sub(r"\n\s*\n", "\n", text)


WALKER = '''from treasure_cli import Direction, LargeScan, Move, Verify


class Walker:
    """Sweeps the island in rows, scanning every few steps."""

    def reset(self, seed):
        self.heading = Direction.E
        self.since_scan = 0

    def act(self, obs):
        unchecked = [n for n in range(1, len(obs.hints) + 1) if n not in obs.verified]
        if unchecked and obs.actions_left == 2:
            return Verify(unchecked[-1])
        if self.since_scan >= 3:
            self.since_scan = 0
            return LargeScan()
        r, c = obs.position
        dr, dc = self.heading.dr, self.heading.dc
        nr, nc = r + dr * 2, c + dc * 2
        h, w = obs.island.walkable.shape
        if not (0 <= nr < h and 0 <= nc < w and obs.island.walkable[nr, nc]):
            self.heading = Direction.W if self.heading == Direction.E else Direction.E
            if r + 1 < h and obs.island.walkable[r + 1, c]:
                return Move(Direction.S, 1)
            return LargeScan()
        self.since_scan += 1
        return Move(self.heading, 2)
'''

HINT_FIRST = '''import numpy as np

from treasure_cli import LargeScan, Move, Teleport, Verify, legal_actions


class HintFirst:
    def reset(self, seed):
        self.jumped = False

    def possible(self, obs):
        isl = obs.island
        ok = isl.walkable & ~obs.scanned & ~isl.prison
        for k, truth in obs.verified.items():
            m = obs.hints[k - 1].mask(isl)
            ok = ok & (m if truth else ~m)
        return ok

    def act(self, obs):
        for k in range(len(obs.hints), 0, -1):
            if k not in obs.verified:
                return Verify(k)
        ok = self.possible(obs)
        ys, xs = np.nonzero(ok)
        if len(ys) == 0:
            return LargeScan()
        cy, cx = int(np.median(ys)), int(np.median(xs))
        if not self.jumped and not obs.teleport_used and ok[cy, cx]:
            self.jumped = True
            return Teleport((cy, cx))
        y, x = obs.position
        window = ok[max(0, y - 2):y + 3, max(0, x - 2):x + 3]
        if window.sum() * 3 >= ok.sum() or window.sum() > 6:
            return LargeScan()
        steps = [a for a in legal_actions(obs, teleports=False) if isinstance(a, Move)]
        return min(steps, key=lambda a: (y + a.direction.dr * a.steps - cy) ** 2
                   + (x + a.direction.dc * a.steps - cx) ** 2) if steps else LargeScan()
'''

NEAREST = '''from collections import deque

from treasure_cli import Knowledge, LargeScan, Move, Direction


class Nearest:
    """Walks to the nearest candidate tile by breadth-first search and scans there."""

    def __init__(self):
        self.k = None

    def path_to(self, start, goal_mask, walkable):
        seen = {start: None}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if goal_mask[here]:
                while seen[here] is not None and seen[here] != start:
                    here = seen[here]
                return here
            for d in Direction:
                nxt = (here[0] + d.dr, here[1] + d.dc)
                if nxt not in seen and 0 <= nxt[0] < walkable.shape[0] and 0 <= nxt[1] < walkable.shape[1]:
                    if walkable[nxt]:
                        seen[nxt] = here
                        queue.append(nxt)
        return None

    def act(self, obs):
        if self.k is None:
            self.k = Knowledge(obs.island)
        self.k.observe(obs)
        here = tuple(obs.position)
        near = self.k.candidates[max(0, here[0] - 2):here[0] + 3, max(0, here[1] - 2):here[1] + 3]
        if near.any():
            return LargeScan()
        step = self.path_to(here, self.k.candidates, obs.island.walkable)
        if step is None or step == here:
            return LargeScan()
        for d in Direction:
            if (here[0] + d.dr, here[1] + d.dc) == step:
                return Move(d, 1)
        return LargeScan()
'''

COUNTER = '''import random

from treasure_cli import LargeScan, Move, Teleport, Verify, legal_actions


class Counter:
    """Counts how often each region is named by a true hint and heads for the favourite."""

    def reset(self, seed):
        self.rng = random.Random(seed)
        self.votes = {}

    def act(self, obs):
        regions = obs.island.regions
        for number, truth in obs.verified.items():
            if truth:
                mask = obs.hints[number - 1].mask(obs.island)
                for region in set(regions[mask].tolist()):
                    self.votes[region] = self.votes.get(region, 0) + 1
        pending = [n for n in range(1, len(obs.hints) + 1) if n not in obs.verified]
        if pending and self.rng.random() < 0.7:
            return Verify(pending[0])
        if self.votes:
            favourite = max(self.votes, key=self.votes.get)
            if regions[obs.position] == favourite:
                return LargeScan()
            spots = list(zip(*((regions == favourite) & obs.island.walkable).nonzero()))
            if spots and not obs.teleport_used:
                return Teleport(tuple(int(v) for v in self.rng.choice(spots)))
        actions = legal_actions(obs, teleports=False)
        moves = [a for a in actions if isinstance(a, Move)]
        return self.rng.choice(moves) if moves and self.rng.random() < 0.8 else LargeScan()
'''


def copies() -> dict[str, tuple[str, str, str]]:
    """name -> (original's name, file suffix, text) of each disguised copy."""
    out: dict[str, tuple[str, str, str]] = {}
    for base, text in (("densest_scan", DENSEST), ("raw_observation", RAW)):
        out[f"{base}-renamed-per-function"] = (base, ".py", renamed_per_function(text))
        out[f"{base}-reordered"] = (base, ".py", reordered(text))
        out[f"{base}-dead-code"] = (base, ".py", with_dead_code(text))
        out[f"{base}-all-three"] = (base, ".py", renamed_per_function(reordered(with_dead_code(text))))
    out["densest_scan-helper-inlined"] = ("densest_scan", ".py", DENSEST_INLINED)
    out["densest_scan-loops-rewritten"] = ("densest_scan", ".py", DENSEST_LOOPS)
    out["agent_cpp-renamed-reordered"] = ("agent_cpp", ".cpp", cpp_renamed_reordered(CPP))
    return out


def distinct() -> dict[str, tuple[str, str]]:
    """name -> (file suffix, text) of agents written apart."""
    agents = ROOT / "src" / "treasure_cli" / "agents"
    return {
        "densest_scan": (".py", DENSEST), "raw_observation": (".py", RAW),
        "inverted_mask": (".py", (ROOT / "examples" / "inverted_mask.py").read_text()),
        "agent_cpp": (".cpp", CPP),
        "greedy": (".py", (agents / "greedy.py").read_text()),
        "random": (".py", (agents / "random_agent.py").read_text()),
        "logic": (".py", (agents / "logic.py").read_text()),
        "walker": (".py", WALKER), "hint_first": (".py", HINT_FIRST), "nearest": (".py", NEAREST),
        "counter": (".py", COUNTER),
    }
