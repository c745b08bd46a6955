"""The teacher's index says how many games it ranks, from which store, with which options: in words,
not as the source's unformatted placeholders."""

from __future__ import annotations

import html
import re

from treasure_cli.grading.store import Row
from treasure_cli.grading.tournament import leaderboard
from treasure_cli.play.records import settings_key
from treasure_cli.view.leaderboard import index_html, page_names


def row(agent: str, seed: int, outcome: str, id_: int) -> Row:
    return Row(agent, f"file:{agent}", "{}", "M.txt", "d", seed, seed, "32x32", outcome,
               "found" if outcome == "WIN" else "pirate", None, 7, 0.01, "0", "", id_, name=agent)


def test_the_index_counts_its_games_and_names_its_store():
    rows = [row(agent, seed, "WIN" if (seed + k) % 3 else "LOSE", 1 + 10 * k + seed)
            for k, agent in enumerate(["ann", "bob"]) for seed in range(7)]
    board = leaderboard(rows, settings=settings_key(0.5, None, None))
    page = index_html(board, "class/results.sqlite", set(), page_names([s.agent for s in board.standings]))
    text = html.unescape(re.sub(r"<[^>]+>", "", page.split("<body", 1)[1].split("<script", 1)[0]))
    assert "14 games in results.sqlite, played with --truth-rate 0.5." in text
    assert "{" not in text and "counted(" not in text


def test_the_public_index_says_the_rank_rule_as_the_teacher_s_does_and_marks_baselines():
    from treasure_cli.view.leaderboard import public_index_html

    rows = [row(agent, seed, "WIN" if (seed + k) % 3 else "LOSE", 1 + 10 * k + seed)
            for k, agent in enumerate(["ann", "bob"]) for seed in range(7)]
    rows += [Row("greedy", "package:x", "{}", "M.txt", "d", seed, seed, "32x32", "WIN", "found", None, 7, 0.01, "0",
                 "", 100 + seed) for seed in range(7)]
    board = leaderboard(rows, settings=settings_key(0.5, None, None))
    names = page_names([s.agent for s in board.standings])
    teacher = index_html(board, "results.sqlite", set(), names)
    public = public_index_html(board, names)
    rule = "on wins, or as good on wins and faster to win"
    assert rule in teacher and rule in public
    greedy = re.search(r'<tr data-agent="greedy">.*?</tr>', public, re.S)
    ann = re.search(r'<tr data-agent="ann">.*?</tr>', public, re.S)
    assert greedy and "baseline" in greedy.group(0) and ann and "baseline" not in ann.group(0)


def test_a_group_whose_one_game_failed_is_said_so_in_words():
    failed = Row("ann", "file:ann", "{}", "M.txt", "d", 0, 0, "32x32", "failed", "agent-error", "M.txt: boom", 3,
                 0.01, "0", "", name="ann", id=1)
    won = Row("bob", "file:bob", "{}", "M.txt", "d", 0, 0, "32x32", "WIN", "found", None, 3, 0.01, "0", "",
              name="bob", id=2)
    board = leaderboard([failed, won], settings=settings_key(0.5, None, None))
    ann = next(s for s in board.standings if s.agent == "ann")
    assert board.verdict(ann).reason.startswith("its one game failed (agent-error); the first: M.txt: boom")
