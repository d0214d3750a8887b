"""How fast the read tables catch up with the log, on SQLite and PostgreSQL, beside raw inserts on the same database.

    python -m bench.projection_speed [--games 500] [--postgres postgresql://postgres@127.0.0.1:5432/test]

For each database, in one run, for each ruleset in turn: `--games` self-played games at mixed tables (a sensible
bot among random ones; 20 different games, imported again and again as new games) are stored; the floor, raw
inserts through the same driver of as many rows as the games added events, in transactions of as many rows as the
runner's pages hold, rows/s; then the runner catches up with the games: every event read, decoded where a table
needs it, the ruleset's rows, the games' results, their orders of play and every ending's ratings written with
the position, events/s and the ratio to the floor (target 0.2x); then the statistics that weigh the players'
strengths, which add nothing to the catch-up, computed over the caught-up tables as a request computes them, in
seconds each. PostgreSQL runs in a database made for the run and dropped after it; without a server it is left out.
"""

from __future__ import annotations

import argparse
import time

from sqlalchemy import Column, Integer, LargeBinary, MetaData, String, Table, insert

from bench.ledger_speed import on_each_database
from bench.report import reporting, verdict
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import play_game
from evo_ledger.app.transfer import import_notations
from evo_ledger.settings import Settings
from projections import PAGE, strengths
from projections.runner import Projector
from projections.store import ReadStore

DISTINCT_GAMES = 20
ROW = b"x" * 40
TARGET = 0.2
PLAYERS = {"evo2": (2, 3, 4, 5), "evo1": (3, 4, 5), "traits": (2, 3, 4)}
BOTS = ("sensible", "random", "random", "random", "random")


def store_games(ledger: Ledger, ruleset: str, games: int) -> int:
    """Stores `games` games of the ruleset; the events they added to the log."""
    before = ledger.store.recorder.max_notification_id() or 0
    counts = PLAYERS[ruleset]
    texts = []
    for seed in range(DISTINCT_GAMES):
        players = counts[seed % len(counts)]
        texts.append(play_game(players, seed, "sensible", ruleset, None, list(BOTS[:players])).text())
    wanted = [texts[index % DISTINCT_GAMES] for index in range(games)]
    import_notations(ledger, wanted, workers=None, again=True)
    return (ledger.store.recorder.max_notification_id() or 0) - before


def insert_floor(store: ReadStore, rows: int) -> float:
    """Raw rows/s: `rows` small rows inserted in transactions of PAGE rows, through the runner's engine."""
    table = Table(
        "bench_floor",
        MetaData(),
        Column("id", Integer, primary_key=True),
        Column("game_id", String(36)),
        Column("data", LargeBinary),
    )
    table.create(store.writing)
    started = time.perf_counter()
    for first in range(0, rows, PAGE):
        with store.writing.begin() as connection:
            batch = [{"id": n, "game_id": "g", "data": ROW} for n in range(first, min(rows, first + PAGE))]
            connection.execute(insert(table), batch)
    rate = rows / (time.perf_counter() - started)
    table.drop(store.writing)
    return rate


def measure(label: str, database: str, games: int) -> None:
    settings = Settings(database)
    print(label)
    with Ledger(settings) as ledger:
        store = ReadStore(settings)
        try:
            projector = Projector(ledger, store)
            for ruleset in PLAYERS:
                events = store_games(ledger, ruleset, games)
                floor = insert_floor(store, events)
                started = time.perf_counter()
                read = projector.catch_up()
                seconds = time.perf_counter() - started
                rate = read / seconds
                print(f"  {ruleset}: {games} games, {events:,} events")
                print(f"    raw inserts (floor) {floor:10,.0f} rows/s")
                ratio = verdict(rate / floor, TARGET)
                print(f"    catch-up            {rate:10,.0f} events/s = {ratio} ({seconds:.1f} s)")
                print(f"    strength statistics {strength_statistics(store, ruleset)}")
        finally:
            store.close()


def strength_statistics(store: ReadStore, ruleset: str) -> str:
    """The seconds each statistic that weighs the players' strengths takes over the ruleset's finished games (the
    bots' own games for the skill benchmark played before the clock starts, as a server plays them once)."""
    gap = strengths.bot_gap(ruleset)
    started = time.perf_counter()
    with store.engine.connect() as connection:
        games = strengths.finished_games(connection, ruleset)
    timings = [("read", time.perf_counter() - started)]
    for name, statistic in (
        ("calibration", lambda: strengths.calibration(games)),
        ("seat advantage", lambda: strengths.seat_advantage(games)),
        ("batch ratings", lambda: strengths.batch_ratings(games)),
        ("skill", lambda: strengths.skill(games, gap)),
    ):
        started = time.perf_counter()
        statistic()
        timings.append((name, time.perf_counter() - started))
    return f"over {len(games)} games: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=500, help="games of each ruleset")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    reporting(
        "read-tables",
        "Read tables' catch-up",
        ".venv/bin/python -m bench.projection_speed",
        f"each ruleset's catch-up, the ratings and orders of play with it, at {TARGET}x the raw insert floor.",
        lambda: on_each_database(lambda label, db: measure(label, db, args.games), args.postgres, "read.sqlite"),
        args.report,
    )


if __name__ == "__main__":
    main()
