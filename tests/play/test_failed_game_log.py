"""A failed game can be watched up to its failure: its log (run), the store's turn (tournament),
`replay` of the log and of the stored game, and their pages."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner
from helpers import ROOT

from treasure_cli.cli import cli
from treasure_cli.formats.game_record import parse_log
from treasure_cli.grading.store import Store
from treasure_cli.rules import events as ev

CRASHES = ("from treasure_cli.agents.greedy import GreedyAgent\n\n\nclass Crashes(GreedyAgent):\n"
           "    def act(self, obs):\n        if obs.turn == 3:\n            raise RuntimeError('crash on turn 3')\n"
           "        return super().act(obs)\n")


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_a_crash_at_turn_3_gives_a_log_of_3_turns_a_replay_and_a_page(tmp_path):
    (tmp_path / "crashes.py").write_text(CRASHES)
    spec = f"{tmp_path / 'crashes.py'}:Crashes"
    shutil.copy(ROOT / "input" / "MAP_03.txt", tmp_path / "MAP_03.txt")  # 64x64: no win before turn 3
    ran = invoke("run", str(tmp_path / "MAP_03.txt"), str(tmp_path / "out"), "--agent", spec,
                 "--agent-isolation", "none")
    assert ran.exit_code == 1, ran.output
    # the summary table gives the turn it failed on
    assert next(line.split() for line in ran.stdout.splitlines() if line.startswith("MAP_03.txt")) == [
        "MAP_03.txt", "64x64", "failed", "(agent-error)", "3", "-"]
    log = tmp_path / "out" / "LOG_03.txt"
    text = log.read_text()
    lines = text.splitlines()
    assert lines[1:3] == ["failed", "3"] and int(lines[0]) == len(lines) - 3
    events = parse_log(text)
    assert [e.turn for e in events if isinstance(e, ev.TurnStarted)] == [1, 2, 3]
    assert sum(isinstance(e, (ev.AgentMoved, ev.HintVerified, ev.Teleported)) or
               (isinstance(e, ev.AreaScanned) and e.size == 5) for e in events if e.turn == 2) >= 1
    end = events[-1]
    assert isinstance(end, ev.GameFailed) and (end.turn, end.kind) == (3, "agent-error")
    assert "crash on turn 3" in end.message
    assert lines[-1] == f"turn 3: game failed, agent-error: {json.dumps(end.message)}"
    # no action of turn 3 was taken: the agent failed on its first one
    assert not any(isinstance(e, (ev.AgentMoved, ev.AreaScanned, ev.HintVerified)) for e in events if e.turn == 3)

    # replay shows its turns, and its last frame the failure
    shown = invoke("replay", str(log), "--map", str(tmp_path / "MAP_03.txt"), "--turn", "2", "--no-color")
    assert shown.exit_code == 0, shown.output
    last = invoke("replay", str(log), "--map", str(tmp_path / "MAP_03.txt"), "--no-pause", "--no-color")
    assert last.exit_code == 0 and "game failed, agent-error" in last.output
    page = invoke("replay", str(log), "--map", str(tmp_path / "MAP_03.txt"), "--html", str(tmp_path / "g.html"))
    assert page.exit_code == 0
    html = (tmp_path / "g.html").read_text()
    data = json.loads(html.split('<script id="game-data" type="application/json">', 1)[1].split("</script>", 1)[0])
    assert max(data["steps"]["turn"]) == 3 and data["outcome"].startswith("turn 3: game failed, agent-error")

    # the store records the turn it failed on; replay --db shows those turns, and its log is the run's
    db = str(tmp_path / "r.sqlite")
    played = invoke("tournament", str(tmp_path / "crashes.py"), "--maps", str(tmp_path / "MAP_03.txt"), "--games",
                    "1", "--db", db, "--agent-isolation", "none", "--seed", "1")
    # a known seed: under the store's secret one, greedy now and then wins before turn 3
    assert played.exit_code == 1, played.output
    with Store(db) as store:
        [row] = store.rows()
    assert (row.outcome, row.turns) == ("failed", 3) and "turn 3" in row.error
    again = invoke("replay", "--db", db, row.game_id, "--maps", str(tmp_path), "--log", str(tmp_path / "again.txt"),
                   "--html", str(tmp_path / "again.html"), "--agent-isolation", "none")
    assert again.exit_code == 0, again.output
    kept = parse_log((tmp_path / "again.txt").read_text())
    assert isinstance(kept[-1], ev.GameFailed) and kept[-1].turn == 3
    assert "game failed, agent-error" in (tmp_path / "again.html").read_text()
    # and the leaderboard's page of that game says the turn it failed on, and links its turns' replay
    site = invoke("tournament", "--db", db, "--report", "--html", str(tmp_path / "site"), "--maps", str(tmp_path),
                  "--agent-isolation", "none")
    assert site.exit_code == 0, site.output
    page = (tmp_path / "site" / "teacher" / f"game-{row.game_id}.html").read_text()
    assert 'data-turns="3"' in page and f'href="game-{row.game_id}-turns.html"' in page
    turns = (tmp_path / "site" / "teacher" / f"game-{row.game_id}-turns.html").read_text()
    assert "game failed, agent-error" in turns and f'href="game-{row.game_id}.html"' in turns

