"""How fast the read tables catch up with the log, on SQLite and PostgreSQL, beside raw inserts on the same database.

    python -m bench.projection_speed [--games 1000] [--postgres postgresql://postgres@127.0.0.1:5432/test]

For each database, in one run: `--games` self-play games (20 different games, imported again and again as new
games) are stored, then
- floor: raw inserts through the same driver, one row per event of the log, in transactions of as many rows as
  the runner's pages hold, rows/s;
- catch-up: the runner from position 0 to the end of the log (every event read, decoded where a table needs it,
  the rows written and the position with them), events/s, and its ratio to the floor.
PostgreSQL runs in a database made for the run and dropped after it; without a server it is left out.
"""

from __future__ import annotations

import argparse
import time

from sqlalchemy import Column, Integer, LargeBinary, MetaData, String, Table, insert

from bench.ledger_speed import on_each_database
from bench.report import reporting
from evo_ledger.ledger import Ledger
from evo_ledger.selfplay import play_game
from evo_ledger.settings import Settings
from evo_ledger.transfer import import_notations
from projections.runner import PAGE, Projector
from projections.store import ReadStore

DISTINCT_GAMES = 20
ROW = b"x" * 40


def store_games(ledger: Ledger, games: int) -> int:
    texts = [play_game(2 + seed % 4, seed).text() for seed in range(DISTINCT_GAMES)]
    wanted = [texts[index % DISTINCT_GAMES] for index in range(games)]
    import_notations(ledger, wanted, workers=None, again=True)
    return ledger.recorder.max_notification_id() or 0


def insert_floor(store: ReadStore, rows: int) -> float:
    """Raw rows/s: `rows` small rows inserted in transactions of PAGE rows, through the runner's engine."""
    table = Table(
        "bench_floor", MetaData(), Column("id", Integer, primary_key=True), Column("game_id", String(36)),
        Column("data", LargeBinary),
    )  # fmt: skip
    table.create(store.engine)
    started = time.perf_counter()
    for first in range(0, rows, PAGE):
        with store.engine.begin() as connection:
            batch = [{"id": n, "game_id": "g", "data": ROW} for n in range(first, min(rows, first + PAGE))]
            connection.execute(insert(table), batch)
    rate = rows / (time.perf_counter() - started)
    table.drop(store.engine)
    return rate


def measure(label: str, database: str, games: int) -> None:
    settings = Settings(database)
    with Ledger(settings) as ledger:
        events = store_games(ledger, games)
        store = ReadStore(settings)
        try:
            floor = insert_floor(store, events)
            started = time.perf_counter()
            read = Projector(ledger, store).catch_up()
            seconds = time.perf_counter() - started
        finally:
            store.close()
    rate = read / seconds
    print(f"{label}: {games} games, {events:,} events in the log")
    print(f"  raw inserts (floor)   {floor:10,.0f} rows/s")
    print(f"  catch-up              {rate:10,.0f} events/s  = {rate / floor:.2f}x the floor ({seconds:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    reporting(
        "read-tables", "Read tables' catch-up", ".venv/bin/python -m bench.projection_speed", "20k events/s.",
        lambda: on_each_database(lambda label, db: measure(label, db, args.games), args.postgres, "read.sqlite"),
        args.report,
    )  # fmt: skip


if __name__ == "__main__":
    main()
