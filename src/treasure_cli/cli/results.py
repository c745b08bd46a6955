"""What `bench` and `tournament` print: a bench's tables, a tournament played into its store, its leaderboard."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import click

from treasure_cli.formats.text import counted, one_line, printable
from treasure_cli.cli.group import Terminated
from treasure_cli.cli.options import (
    isolation_settings, map_files, maps_searched,
)
from treasure_cli.cli.progress import ProgressLine, eta_trace


def show_bench(result, as_json: bool, no_timing: bool, html_path: str | None, footer: str,
               verdicts: tuple = (), hide_seed: bool = False) -> None:
    """Print a bench result (table or JSON, and the report page if asked); exit 1 if maps were left
    out or games failed (as `run` does). `verdicts`: a tournament's groups that were not played or
    failed every game, shown after the table (and in the JSON's "unranked"). `hide_seed`: the base
    seed is the store's secret, left out of the JSON and the page (null)."""
    from treasure_cli.play.bench import versus_pairs, with_maps
    from treasure_cli.play.results import bench_json, versus_json
    from treasure_cli.view.tables import bench_table, failure_lines, versus_lines

    for problem in result.skipped:
        click.echo(printable(f"Error: {problem} (left out of the bench)"), err=True)
    for line in failure_lines(result.records):
        click.echo(printable(line), err=True)
    versus = result.options.versus
    pairs = versus_pairs(result.records, versus) if versus is not None else []
    if pairs and pairs[0].mine.log is not None:
        pairs = with_maps(pairs, result.options, Path(pairs[0].mine.log).parent)
    data = bench_json(result, not no_timing) if html_path is not None or as_json else None
    if data is not None and versus is not None:
        data["versus"] = versus_json(pairs)
    if data is not None and hide_seed:
        data["options"]["seed"] = None
    if data is not None and verdicts:
        data["unranked"] = [{"agent": v.group, "verdict": v.status, "reason": v.reason} for v in verdicts]
    if html_path is not None:
        from treasure_cli.view.report import write_report, write_versus_pages

        if pairs:  # the head-to-head pages the report links to (and the commands below would write)
            written = write_versus_pages(pairs)
            click.echo(f"wrote {counted(written, 'head-to-head page')} beside the logs", err=True)
        write_report(data, html_path)  # type: ignore[arg-type]  # made when html_path is given
        click.echo(f"wrote {html_path}", err=True)
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        click.echo(printable(bench_table(result.stats, not no_timing)))
        if verdicts:
            from treasure_cli.view.tables import verdict_table

            click.echo("\n" + verdict_table(verdicts))
        if not no_timing:
            click.echo(footer)
        if versus is not None:
            click.echo("\n" + "\n".join(printable(line) for line in versus_lines(pairs, versus)))
    if result.skipped or any(r.failed for r in result.records):
        sys.exit(1)


def play_tournament(options, db_path: str | None, jobs: int, scheduler: str | None, as_json: bool,
                     no_timing: bool, html_path: str | None, names: dict[str, str] | None = None,
                     verdicts: list | None = None, include_secret_seed: bool = False,
                     map_names: dict[str, str] | None = None, apart: bool = True) -> None:
    """Play the games the store does not hold yet, then show every game of the command; with it, the
    groups left out (`verdicts`) and those whose every game failed. `apart`: False with `--side-by-side`."""
    from treasure_cli.agents.registry import is_builtin
    from treasure_cli.play.bench import BenchResult, summarize
    from treasure_cli.grading.tournament import as_record, run_tournament

    if db_path is None:
        raise click.UsageError("--scheduler plays a tournament into a results store: give --db RESULTS.sqlite")
    if not options.maps:
        raise click.UsageError("--db records games on map files: give --maps DIR")
    if options.seed is not None:
        click.echo(f"warning: --seed {options.seed} is known: a submitted agent that knows it can recompute each "
                   "game's hidden draws; leave it out to grade with the store's secret seed", err=True)
    if scheduler is not None and options.game_timeout is not None and options.isolation == "none" and not all(
            is_builtin(a) for a in options.agents):
        raise click.UsageError("--game-timeout needs agents in processes of their own with --scheduler (Dask "
                               "plays games in worker threads, where nothing can interrupt an agent in the "
                               "same process): drop --agent-isolation none")
    line: list[ProgressLine] = []
    counts = {"already": 0, "to play": 0, "played": 0}
    trace = eta_trace()

    def plan(todo, already: int) -> None:
        from treasure_cli.grading.progress import Estimate, Planned

        counts.update({"already": already, "to play": len(todo)})
        if already:
            click.echo(f"{already} game{'s' if already != 1 else ''} already in {db_path}; "
                       f"{len(todo)} to play", err=True)
        # the worker processes (run_tasks); a Dask cluster's threads are measured as the games end
        workers = None if scheduler is not None else max(1, min(jobs, len(todo)))
        # a unit: one map and seed, played by every agent (the same game's length for each, more or less)
        games = [Planned(label(e), e.tiles, e.key, (e.settings, e.map_digest, e.seed), e.map_digest) for e in todo]
        line.append(ProgressLine("playing", Estimate(games, workers=workers, apart=apart)))
        if trace is not None:  # what the estimate was given, to play it again (benchmarks/eta_accuracy.py)
            trace({"plan": [[g.agent, g.tiles, g.key, g.unit, g.island] for g in games], "workers": workers,
                   "apart": apart})

    def label(entry) -> str:
        return (names or {}).get(entry.agent) or entry.agent

    def start(entry) -> None:
        if line:
            line[0].estimate.started(label(entry), entry.tiles, entry.key)
            if trace is not None:
                trace({"start": label(entry), "tiles": entry.tiles, "key": entry.key})

    def flight(games) -> None:  # the games in flight that have begun: (key, seconds, actions) each
        if line:
            line[0].estimate.playing(games)
            if trace is not None:
                trace({"flight": games})

    def progress(rows) -> None:
        from treasure_cli.grading.progress import tiles_of

        counts["played"] += len(rows)
        for r in rows:
            line[0].estimate.finished(r.label, tiles_of(r.size), r.seconds, r.outcome == "failed", busy=r.busy,
                                     key=r.key, actions=r.actions)
            if trace is not None:
                trace({"end": r.label, "tiles": tiles_of(r.size), "seconds": r.seconds, "busy": r.busy,
                       "failed": r.outcome == "failed", "key": r.key, "actions": r.actions}, line[0].estimate)
        line[0].show()

    try:
        result = run_tournament(options, db_path, jobs=jobs, scheduler=scheduler, on_plan=plan,
                                on_progress=progress, names=names, map_names=map_names, on_start=start,
                                on_flight=flight, apart=apart)
    except (KeyboardInterrupt, Terminated):
        if line:  # the games played are in the store, each whole: say so, and how to go on
            line[0].close()
            click.echo(f"stopped: {counts['played']} of {counted(counts['to play'], 'game')} played and kept in "
                       f"{db_path} ({counts['already'] + counts['played']} in all); the same command plays the rest",
                       err=True)
        raise
    finally:
        if line:
            line[0].close()
        if trace is not None:
            trace.close()
    if options.seed is None and not result.secret_seed:
        click.echo(f"warning: {db_path} holds games of an earlier version, played from the known base seed 1; "
                   "start a new store to grade with a secret seed", err=True)
    records = tuple(as_record(r) for r in result.rows)
    labels = tuple(dict.fromkeys(r.agent for r in records))
    bench_result = BenchResult(result.options, tuple(summarize(records, labels)), records,
                               result.seconds, result.skipped)
    show_bench(bench_result, as_json, no_timing, html_path,
                f"{counted(result.played, 'game')} played in {result.seconds:.1f} s, {result.already} already in {db_path}",
                _not_ranked(records, verdicts or []), hide_seed=result.secret_seed and not include_secret_seed)


def _not_ranked(records, verdicts: list) -> tuple:
    """The tournament's groups with nothing to rank: left out (`verdicts`), and agents whose every game failed."""
    from treasure_cli.grading.verdicts import FAILED, NOT_PLAYED, Verdict

    failed: dict[str, list] = {}
    for r in records:
        failed.setdefault(r.agent, []).append(r)
    every = [Verdict(agent, FAILED, f"{'its one game' if len(rs) == 1 else f'all {len(rs)} games'} failed ({', '.join(sorted({r.reason for r in rs}))})"
                                    + (f"; the first: {rs[0].error}" if rs[0].error else ""))
             for agent, rs in failed.items() if all(r.failed for r in rs)]
    return tuple(every + [v for v in verdicts if v.status in NOT_PLAYED])


def leaderboard(db_path: str | None, all_versions: bool, truth_rate: float | None, max_turns: int | None,
                 game_timeout: float | None, as_json: bool, html_dir: str | None, csv_path: str | None,
                 maps: tuple[str | None, bool] = (None, False), agent_isolation: str = "auto",
                 agent_memory: int = 1 << 30, action_timeout: float | None = None, versus: str | None = None,
                 include_secret_seed: bool = False, public_maps: str | None = None) -> None:
    """`tournament --report`: rank the agents of a results store (table, JSON, pages, CSV), and
    with `versus` its head-to-head games. The JSON holds the secret seed only with
    `include_secret_seed`; the pages' public tree shows the games of the maps `public_maps` names."""
    from treasure_cli.play.records import settings_key
    from treasure_cli.view.tables import leaderboard_table
    from treasure_cli.grading.tournament import leaderboard_json, store_leaderboard

    if db_path is None:
        raise click.UsageError("--report ranks the games of a results store: give --db RESULTS.sqlite")
    if public_maps is not None and html_dir is None:
        raise click.UsageError("--public-maps says which games the pages of --html DIR may publish: give --html")
    given = truth_rate is not None or max_turns is not None or game_timeout is not None
    settings = settings_key(0.5 if truth_rate is None else truth_rate, max_turns, game_timeout) if given else None
    board = store_leaderboard(db_path, settings, all_versions)
    pairs = _stored_versus(board, versus, db_path, maps[0]) if versus is not None else None
    board, notes = _with_similarity_flags(board)
    for note in notes:
        click.echo(one_line(f"similarity: {note}"), err=True)
    if csv_path is not None:
        from treasure_cli.grading.tournament import write_gradebook

        click.echo(f"wrote {write_gradebook(board, csv_path)}", err=True)
    if html_dir is not None:
        from treasure_cli.view.leaderboard import write_leaderboard

        maps_path, recursive = maps
        map_paths = [str(p) for p in map_files([maps_path], recursive, only_maps=True)] if maps_path is not None else []
        searched = None
        if maps_path is None:
            click.echo("warning: without --maps the games have no replay page (give the tournament's maps)",
                       err=True)
        else:
            searched = maps_searched(maps_path, recursive, len(map_paths))
            if not map_paths:
                raise click.ClickException(f"--maps: no map file (*.txt) in {searched}, so no lost game could "
                                           "be played again for its page; nothing was written")
        level, limits = (isolation_settings(agent_isolation, agent_memory, action_timeout, [s.spec for s in board.standings])
                         if map_paths else ("auto", None))  # nothing is played again without the maps
        public: dict[str, str] = {}
        if public_maps is not None:
            from treasure_cli.grading.publish import public_maps as named_maps, record_published

            public = named_maps(public_maps)
            record_published(db_path, public)
        replays: list = []  # the progress line of the games played again, from the first one's end

        def replayed(done: int, total: int) -> None:
            import time

            from treasure_cli.grading.progress import Estimate, Planned

            if not replays:
                replays.append(ProgressLine("replaying the games", Estimate(
                    [Planned("", 1)] * total, noun=False)))
                replays.append(replays[0].estimate.start)
            now = time.monotonic()
            replays[0].estimate.finished("", 1, now - replays[1])
            replays[1] = now
            replays[0].show()

        try:
            index = write_leaderboard(board, db_path, Path(html_dir), map_paths, level, limits,
                                      on_replay=replayed, public=set(public), searched=searched)
        finally:
            if replays:
                replays[0].close()
        click.echo(f"wrote {index} (for you) and {index.parent.parent / 'public' / 'index.html'} (to publish: "
                   f"the games of {counted(len(public), 'public map')})", err=True)
    if as_json:
        data = leaderboard_json(board, include_secret_seed)
        if pairs is not None:
            from treasure_cli.play.results import versus_json

            data["versus"] = versus_json(pairs[0], pairs[1])
        click.echo(json.dumps(data, indent=2))
    else:
        from treasure_cli.view.tables import failure_lines
        from treasure_cli.grading.tournament import as_record

        click.echo(printable(leaderboard_table(board)))
        failures = failure_lines([as_record(r, board.labels.get(r.id or 0)) for r in board.rows
                                  if (r.id or 0) in board.labels])
        if failures:
            click.echo("\nfailed games:\n" + "\n".join(printable(line) for line in failures))
        if pairs is not None and versus is not None:
            from treasure_cli.view.tables import versus_lines

            click.echo("\n" + "\n".join(printable(line) for line in versus_lines(pairs[0], versus, pairs[1])))


def _stored_versus(board, versus: str, db_path: str, maps_path: str | None):
    """`tournament --report --versus`: the head-to-head pairs of a store's games, and how a pair is
    shown (`replay --db` of both ids; the maps named as given, else MAPS to fill in)."""
    import shlex

    from treasure_cli.play.bench import versus_pairs
    from treasure_cli.grading.tournament import as_record

    records = [as_record(r, board.labels.get(r.id or 0)) for r in board.rows if (r.id or 0) in board.labels]
    if versus not in {r.agent for r in records}:
        raise click.BadParameter(f"{versus!r} has no game in {db_path} (give a student's name or an agent as the "
                                 "report names it)", param_hint="--versus")
    maps = maps_path if maps_path is not None else "MAPS"

    def command(pair) -> str:
        ids = (pair.mine.game_id, pair.other.game_id)
        return " ".join(shlex.quote(w) for w in ("treasure", "replay", "--db", db_path, *ids, "--maps", maps,
                                                 "--html", f"{ids[0]}-vs-{ids[1]}.html"))

    return versus_pairs(records, versus), command


def _with_similarity_flags(board):
    """The leaderboard with its similarity flags (grading/similarity.py), one per pair of agents, which
    the table, --json, the CSV and the pages show, and its first-turn wins flags (grading/early_wins.py:
    the table, the CSV and the teacher's pages); and the notes on code that could not be compared."""
    import itertools

    from treasure_cli.grading import similarity
    from treasure_cli.grading.tournament import Flag

    from treasure_cli.grading.tokens import SimilarPair

    got = similarity.all_findings(board.rows, board.labels)
    pairs = tuple(Flag(a, b, similarity.KIND_WORDS[f.kind], f.evidence)
                  for f in got.flags for a, b in itertools.combinations(f.agents, 2))
    flagged = {frozenset(f.agents) for f in got.flags if f.kind == similarity.SAME_TOKENS}
    similar = tuple(SimilarPair(m.a, m.b, m.percent, str(got.sources[m.a]), str(got.sources[m.b]), got.files[m.a],
                                got.files[m.b], m.a_lines, m.b_lines)
                    for m in got.matches if frozenset((m.a, m.b)) in flagged)
    every = tuple((m.a, m.b, m.percent) for m in got.matches)
    from treasure_cli.grading.early_wins import early_wins

    early = early_wins(board.rows, board.labels)
    return dataclasses.replace(board, flags=pairs, similar=similar, similarity=every, early=early), got.notes
