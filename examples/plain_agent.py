#!/usr/bin/env python3
"""A starter agent in plain Python: the agent protocol (docs/agent-protocol.md) and nothing else.

It imports only Python's standard library (no numpy, no treasure_cli), so it reads as a
template for an agent in any language: read a JSON line, answer a JSON line, flush. Run it
as a program:

    treasure run input/MAP_01.txt out/ --agent 'exec:examples/plain_agent.py'

What it does, each action: keep the set of tiles where the treasure can still be (the
candidates), scan when a 5x5 scan would cover one, verify a hint that splits the candidates,
teleport once next to the most candidates, else walk towards the nearest one. When the
referee records notes (`run --notes`, `check-agent --beliefs`), each action carries its
candidates as a note. It leaves the prison and the pirate's moves out of them:
`check-agent exec:examples/plain_agent.py --beliefs --complete` names the first turn they
would have ruled tiles out, a first thing to add.
"""

import json
import sys
from collections import deque

DIRECTIONS = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}


def say(message):
    """One JSON object, one line, flushed: the referee waits for it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def tiles_of(runs, width):
    """[start, length, start, length, ...] over the row-major tile index, as (row, col) pairs."""
    tiles = set()
    for i in range(0, len(runs), 2):
        for index in range(runs[i], runs[i] + runs[i + 1]):
            tiles.add(divmod(index, width))
    return tiles


class Agent:
    def __init__(self, island):
        self.width, self.height = island["width"], island["height"]
        regions = island["regions"]
        self.walkable = set()
        self.candidates = set()
        for r in range(self.height):
            for c in range(self.width):
                land = regions[r][c] != 0
                mountain = island["mountain"][r][c] == "1"
                prison = island["prison"][r][c] == "1"
                if land and not mountain:
                    self.walkable.add((r, c))
                    if not prison:  # the treasure is on plain land
                        self.candidates.add((r, c))
        self.hints = {}        # number -> its tiles
        self.verified = set()  # hint numbers whose truth is known
        self.position = (0, 0)
        self.teleport_used = False

    # -- what the referee tells --------------------------------------------------------
    def hear(self, event):
        kind = event["event"]
        if kind == "hint_given":
            tiles = tiles_of(event["hint"]["tiles"], self.width)
            self.hints[event["number"]] = tiles
            if event["truthful"] is True:  # hint 1: always true, and known to be
                self.learn(event["number"], True)
        elif kind == "hint_verified":
            self.learn(event["number"], event["truthful"])
        elif kind == "area_scanned" and not event["found"]:
            (r, c), half = event["centre"], event["size"] // 2
            self.candidates -= {(r + dr, c + dc) for dr in range(-half, half + 1) for dc in range(-half, half + 1)}

    def learn(self, number, truthful):
        self.verified.add(number)
        tiles = self.hints[number]
        self.candidates = self.candidates & tiles if truthful else self.candidates - tiles

    def note(self):
        """Its word on an action when the referee records notes (`run --notes`, `check-agent
        --beliefs`): its candidates, as [start, length, ...] runs over the row-major tile index."""
        runs = []
        for index in sorted(r * self.width + c for r, c in self.candidates):
            if runs and runs[-2] + runs[-1] == index:
                runs[-1] += 1
            else:
                runs += [index, 1]
        return {"text": f"{len(self.candidates)} candidates", "tiles": runs, "candidates": True}

    # -- what it does ------------------------------------------------------------------
    def act(self, message):
        self.position = tuple(message["position"])
        self.teleport_used = message["teleport_used"]
        for event in message["news"]:
            self.hear(event)
        # How many candidates a 5x5 scan from each tile would cover (tiles covering none are left out).
        self.cover = {}
        for r, c in self.candidates:
            for dr in range(-2, 3):
                for dc in range(-2, 3):
                    tile = (r + dr, c + dc)
                    self.cover[tile] = self.cover.get(tile, 0) + 1
        if self.covers(self.position):
            return {"action": "scan"}
        hint = self.splitting_hint()
        if hint is not None:
            return {"action": "verify", "hint": hint}
        if not self.teleport_used and self.cover:
            best = max(sorted(t for t in self.cover if t in self.walkable), key=self.cover.get, default=None)
            if best is not None:
                return {"action": "teleport", "to": list(best)}
        return self.walk() or {"action": "scan"}

    def covers(self, tile):
        """Whether a 5x5 scan from `tile` covers a candidate."""
        return tile in self.cover

    def splitting_hint(self):
        """An unverified hint that keeps between a fifth and four fifths of the candidates."""
        total = len(self.candidates)
        for number in sorted(self.hints):
            if number not in self.verified:
                inside = len(self.candidates & self.hints[number])
                if total and total / 5 <= inside <= total * 4 / 5:
                    return number
        return None

    def walk(self):
        """The first straight run of a shortest walk to a tile whose 5x5 scan covers a candidate."""
        start = self.position
        came = {start: None}
        queue = deque([start])
        goal = None
        while queue:
            tile = queue.popleft()
            if tile != start and self.covers(tile):
                goal = tile
                break
            for dr, dc in DIRECTIONS.values():
                step = (tile[0] + dr, tile[1] + dc)
                if step in self.walkable and step not in came:
                    came[step] = tile
                    queue.append(step)
        if goal is None:
            return None
        path = [goal]
        while came[path[-1]] != start:
            path.append(came[path[-1]])
        path.reverse()  # the tiles after the start, in order
        first = (path[0][0] - start[0], path[0][1] - start[1])
        steps = 1
        while steps < min(4, len(path)) and (path[steps][0] - path[steps - 1][0],
                                              path[steps][1] - path[steps - 1][1]) == first:
            steps += 1
        direction = next(name for name, delta in DIRECTIONS.items() if delta == first)
        return {"action": "move", "direction": direction, "steps": steps}


def main():
    agent, notes = None, False
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            say({"type": "hello", "protocol": 1, "agent": "plain-python"})
        elif kind == "start":
            agent = Agent(message["island"])
            notes = message["options"].get("notes", False)
        elif kind == "act":
            action = agent.act(message)
            if notes:
                action["note"] = agent.note()
            say({"type": "action", **action})
        elif kind == "end":
            say({"type": "ready"})
        elif kind == "bye":
            return


if __name__ == "__main__":
    main()
