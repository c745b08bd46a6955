"""Records and statistics as text: fixed-width tables (their JSON-ready data is play/results.py's).

One aligner serves every table, so `run`, `bench` and `tournament` line up
their columns the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from treasure_cli.play.records import GameRecord
from treasure_cli.formats.text import counted, one_line
from treasure_cli.play.results import versus_command

if TYPE_CHECKING:
    from treasure_cli.grading.tournament import Leaderboard


def width(text: str) -> int:
    """The columns a terminal gives `text`: wide (East Asian) characters take two, combining marks none."""
    import unicodedata

    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def align(rows: Sequence[Sequence[str]], left: int, text_last: bool = False) -> str:
    """Columns padded to their widest cell (by display width); the first `left` columns left-aligned,
    the rest right (the last one left too with `text_last`: words, not numbers). Every cell is put on one line (`one_line`: a line break or an escape sequence in a
    name is shown as its backslash escape), so no cell can start a row of its own."""
    cells = [[one_line(cell) for cell in row] for row in rows]
    widths = [max(width(row[i]) for row in cells) for i in range(len(cells[0]))]
    left_of = set(range(left)) | ({len(widths) - 1} if text_last else set())
    return "\n".join("  ".join(cell + " " * (w - width(cell)) if i in left_of else " " * (w - width(cell)) + cell
                               for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
                     for row in cells)


def run_table(records: Sequence[GameRecord]) -> str:
    """Map, size, result, turns, seconds per game; then the totals line."""
    from treasure_cli.formats.game_record import quote_name  # run's table only: bench starts without the log format

    rows = [("map", "size", "result", "turns", "seconds")]
    for r in records:
        name = quote_name(Path(r.map).name)
        if r.failed:
            # the turn it failed on, once the game began (its actions were counted); "-" before that
            rows.append((name, r.size or "-", f"failed ({r.reason})", "-" if r.actions is None else str(r.turns),
                         "-"))
        else:
            result = r.outcome + (f" ({r.reason})" if r.reason != "found" else "")
            rows.append((name, r.size, result, str(r.turns), f"{r.seconds:.3f}"))
    return align(rows, 3) + "\n" + totals_line(records)


def totals_line(records: Sequence[GameRecord]) -> str:
    played = [r for r in records if not r.failed]
    wins = sum(r.won for r in played)
    return f"{len(played)} played, {wins} won, {len(played) - wins} lost, {len(records) - len(played)} failed"


def bench_table(stats, timing: bool = True) -> str:
    """One row per size and agent; '-' where no game was won."""
    return align(bench_rows(stats, timing), 2)


def bench_rows(stats, timing: bool = True) -> list[list[str]]:
    """`bench_table`'s cells, the header first (the report page makes its table of them)."""
    head = ["size", "agent", "games", "wins", "win %", "95% CI", "mean turns", "median turns"]
    any_failed = any(s.failed for s in stats)
    if any_failed:
        head.append("failed")
    if timing:
        head += ["ms/game", "ms/turn"]
    rows = [head]
    for s in stats:
        row = [s.size, s.agent, str(s.games), str(s.wins), f"{100 * s.win_rate:.1f}",
               f"{100 * s.win_low:.1f}-{100 * s.win_high:.1f}",
               "-" if s.mean_turns_win is None else f"{s.mean_turns_win:.1f}",
               "-" if s.median_turns_win is None else f"{s.median_turns_win:.1f}"]
        if any_failed:
            row.append(str(s.failed))
        if timing:
            row += [f"{s.median_ms_game:.2f}", f"{s.median_ms_turn:.3f}"]
        rows.append(row)
    return rows


def failure_lines(records: Sequence[GameRecord], shown: int = 2) -> list[str]:
    """Why agents failed games: per agent, how many and of which kinds, then the first messages
    (each names the map, the turn and the cause, with the agent's file:line when it raised)."""
    by_agent: dict[str, list[GameRecord]] = {}
    for r in records:
        if r.failed and r.reason != "bad-map":
            by_agent.setdefault(r.agent, []).append(r)
    lines = []
    for agent, failed in by_agent.items():
        kinds: dict[str, int] = {}
        for r in failed:
            kinds[r.reason] = kinds.get(r.reason, 0) + 1
        said = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
        lines.append(one_line(f"{agent}: {len(failed)} game{'s' if len(failed) > 1 else ''} failed ({said})"))
        lines += ["  " + one_line(f"{r.error}" + (f" (game {r.game_id})" if r.game_id else ""))
                  for r in failed[:shown]]
    return lines



def _result_words(r: GameRecord) -> str:
    if r.won:
        return f"won on turn {r.turns}"
    return f"lost to the pirate on turn {r.turns}" if r.reason == "pirate" else f"ran out of turns ({r.turns})"


def versus_lines(pairs: Sequence, versus: str, command=None) -> list[str]:
    """`bench --versus`: the games where `versus` won and another agent lost, or the other way
    round, each with its game ids and the command that replays both (`command(pair)`, by
    default `versus_command`'s)."""
    command_of = command or versus_command
    if not pairs:
        return [one_line(f"head to head: no game where {versus} and another agent did not both win or both lose")]
    won = sum(p.mine.won for p in pairs)
    lines = [one_line(f"head to head: {len(pairs)} game{'s' if len(pairs) != 1 else ''} where {versus} and another "
                      f"agent did not both win or both lose ({versus} won {won}, lost {len(pairs) - won})")]
    for p in pairs:
        where = p.mine.map if p.mine.island_seed is None else f"{p.mine.size} island {p.mine.index}"
        lines.append("  " + one_line(f"{where}: {p.mine.agent} {_result_words(p.mine)}, {p.other.agent} "
                                     f"{_result_words(p.other)}; games {p.mine.game_id}, {p.other.game_id}"))
        shown = command_of(p)
        if shown is not None:
            lines.append("    " + one_line(shown))
    return lines


def leaderboard_table(board: Leaderboard) -> str:
    """`treasure tournament`'s text: the standings (every group, those with no game last, scoring zero,
    each with its verdict), the verdicts between neighbours, the flags."""
    from treasure_cli.grading.tournament import ALPHA, rank_text

    head = ["rank", "agent", "code", "games", "wins", "win %", "95% CI", "mean turns", "failed", "verdict"]
    rows = [head]
    for s in board.standings:
        rows.append([rank_text(board, s), s.agent, s.agent_digest, str(s.games),
                     str(s.wins), f"{100 * s.win_rate:.1f}", f"{100 * s.win_low:.1f}-{100 * s.win_high:.1f}",
                     "-" if s.mean_turns_win is None else f"{s.mean_turns_win:.1f}", str(s.failed),
                     board.verdict(s).text])
    for v in board.unranked:
        rows.append(["-", v.group, "-", "0", "0", "0.0", "-", "-", "0", v.text])
    lines = [align(rows, 3, text_last=True)]
    neighbours = [p for p in board.pairs
                  if [s.agent for s in board.standings].index(p.b) == [s.agent for s in board.standings].index(p.a) + 1]
    if neighbours:
        lines.append("")
        lines.append(f"next in the table, on the games both played (exact sign test, {ALPHA:.0%} level):")
        prow = [["agent", "vs", "common games", "only first won", "only second won", "p", "both won",
                 "first faster", "second faster", "p turns", "verdict"]]
        for p in neighbours:
            verdict = f"different ({p.decided_by})" if p.distinguishable else "not distinguishable"
            prow.append([p.a, p.b, str(p.games), str(p.a_only), str(p.b_only), _p(p.p_value), str(p.both_won),
                         str(p.a_faster), str(p.b_faster), _p(p.turns_p_value), verdict])
        lines.append(align(prow, 2))
    lines.append("")
    counts = board.counts()
    if counts["found"]:
        lines.append(f"{counted(counts['found'], 'group')} found: {counts['played']} played, "
                     f"{counts['left out']} left out, {counts['failed']} failed")
    lines.append(f"{counted(len(board.rows), 'game')}; rank = 1 + the agents significantly better (p < {ALPHA:g}) "
                 "on wins, or as good on wins and faster to win; equal ranks (=) are not told apart")
    if board.flags:
        lines.append("")
        lines.append("Similarity flags (for you to look at; a flag is not a verdict):")
        lines.append(align([["kind", "agents", "evidence"]] + [[f.kind, f"{f.a}, {f.b}", f.detail]
                                                                for f in board.flags], 3))
    if board.early:
        lines.append("")
        lines.append("First-turn wins (for you to look at: more once it had played the map than in its first "
                     "game there, as a game that learnt the treasure from an earlier one would; not a verdict):")
        lines.append(align([["agent", "evidence"]] + [[e.agent, e.text] for e in board.early], 3))
    if board.hint_kinds_text is not None:
        lines.append(f"hint kinds: {board.hint_kinds_text}")
    if board.secret_seed is not None:
        lines.append(f"the store's secret base seed: {board.secret_seed} (for you: never give it to an agent)")
    return "\n".join(lines)


def verdict_table(verdicts: Sequence) -> str:
    """The groups that were not ranked as they should (left out, build failed, every game failed): one
    row each with its verdict and reason; each scores zero."""
    rows = [["group", "verdict", "reason"]] + [[v.group, v.status, v.reason] for v in verdicts]
    return "not played, or every game failed (each scores 0):\n" + align(rows, 3)


def _p(p: float) -> str:
    return f"{p:.3g}" if p >= 0.001 else f"{p:.1e}"
