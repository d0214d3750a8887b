"""How fast the ledger stores and rebuilds games, on SQLite and PostgreSQL, beside raw inserts on the same database.

    python -m bench.ledger_speed [--games 100] [--imports 5] [--postgres postgresql://postgres@127.0.0.1:5432/test]

For each database, in one run:
- floor: raw single-row transactions (one INSERT and COMMIT each, the store's durability settings), rows/s;
- appends: one action per save through `Ledger.record` (the action's event and the consequences the rules derive,
  1.5 events a save on average), saves/s and events/s, each against the floor; the floor and the appends take
  turns, five rounds of each, so that both meet the same moments of this shared machine;
- bulk import: self-play game files through `import_notations` in batches, prepared by one process per core,
  events/s (the games are imported several times over, each time as new games, so that there are thousands),
  against this process preparing the same games alone, storing nothing, measured just before (what one core
  does at this moment of the machine);
- full fold: a game of 1,000 events or more (a 5-player game with some actions undone and recorded again)
  rebuilt from its events alone (no snapshot, no cached game), events/s: best of 5, and the first fold of a
  fresh ledger (kit not yet parsed, notation not yet cached);
- game at event N: a random N, p50 and p99 in milliseconds, read from the store (the nearest snapshot and the events
  after it, by a ledger that holds no log) and from the held log of a ledger that has read the game through once.
PostgreSQL runs in a database made for the run and dropped after it; without a server it is left out.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

from bench.report import reporting
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import play_game, player_names
from evo_ledger.app.transfer import import_notations, notation_game
from evo_ledger.game.aggregate import SNAPSHOT_INTERVAL, Game
from evo_ledger.game.notation import parse_game
from evo_ledger.rules.contract import Bot
from evo_ledger.rules.evo2.actions import Pass
from evo_ledger.rules.evo2.ruleset import Evo2Ruleset
from evo_ledger.rules.evo2.selfplay import Evo2SelfPlay
from evo_ledger.rules.kits import load_kit, load_kit_document
from evo_ledger.settings import Settings

RULES = Evo2Ruleset()
NAMES = player_names(5)

ROW = b"x" * 200
FLOOR_ROWS = 200
ROUNDS = 5

InsertRows = Callable[[int], float]


@contextmanager
def sqlite_floor(path: str) -> Iterator[InsertRows]:
    """Raw single-row transactions on a SQLite file: the seconds `count` of them take."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("CREATE TABLE floor (id INTEGER PRIMARY KEY, data BLOB)")

    def insert_rows(count: int) -> float:
        started = time.perf_counter()
        for _ in range(count):
            connection.execute("BEGIN")
            connection.execute("INSERT INTO floor (data) VALUES (?)", (ROW,))
            connection.execute("COMMIT")
        return time.perf_counter() - started

    try:
        yield insert_rows
    finally:
        connection.close()


@contextmanager
def postgres_floor(url: str) -> Iterator[InsertRows]:
    """Raw single-row transactions on a PostgreSQL database: the seconds `count` of them take."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE floor (id BIGSERIAL PRIMARY KEY, data BYTEA)")

        def insert_rows(count: int) -> float:
            started = time.perf_counter()
            for _ in range(count):
                with connection.transaction():
                    connection.execute("INSERT INTO floor (data) VALUES (%s)", (ROW,))
            return time.perf_counter() - started

        yield insert_rows


def timed(work: Callable[[], int]) -> tuple[int, float]:
    started = time.perf_counter()
    count = work()
    return count, time.perf_counter() - started


def record_game(ledger: Ledger, lines: list[str]) -> tuple[int, int, float]:
    """A new game recorded one action a save: saves, events and seconds (the game's creation not counted)."""
    receipt = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    start = receipt.version
    started = time.perf_counter()
    for line in lines:
        receipt = ledger.commands.record(receipt.game_id, line, expected_version=receipt.version)
    return len(lines), receipt.version - start, time.perf_counter() - started


def appends_beside_floor(ledger: Ledger, lines: list[str], insert_rows: InsertRows) -> tuple[float, float, float]:
    """Floor rows/s, saves/s and events/s, the floor and the appends taking turns for ROUNDS rounds, so that
    both see the same moments of a shared machine."""
    floor_seconds = append_seconds = 0.0
    saves = events = 0
    for _ in range(ROUNDS):
        floor_seconds += insert_rows(FLOOR_ROWS)
        game_saves, game_events, seconds = record_game(ledger, lines)
        saves, events, append_seconds = saves + game_saves, events + game_events, append_seconds + seconds
    return ROUNDS * FLOOR_ROWS / floor_seconds, saves / append_seconds, events / append_seconds


def bulk_import(ledger: Ledger, texts: list[str]) -> float:
    events, seconds = timed(lambda: sum(r.version for r in import_notations(ledger, texts, workers=None, again=True)))
    return events / seconds


def prepared_alone(ledger: Ledger, texts: list[str]) -> float:
    """Events/s of this process preparing the games as an import's workers do (the collector paused, as theirs
    is), storing nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        events, seconds = timed(lambda: sum(len(notation_game(ledger.store.mapper, text).events) for text in texts))
    finally:
        if collecting:
            gc.enable()
    return events / seconds


def busy_bot(state: Any, legal: Sequence[Any], rng: random.Random) -> Any:
    """Never passes while it can move, fight or give birth: long games."""
    busy = [action for action in legal if not isinstance(action, Pass)]
    return rng.choice(busy or legal)


class BusySelfPlay(Evo2SelfPlay):
    bots: Mapping[str, Bot[Any, Any]] = MappingProxyType({"busy": busy_bot})


def busy_game_lines(seed: int) -> list[str]:
    played = BusySelfPlay(RULES).play(load_kit("standin-e2-5p"), NAMES, seed, "busy")
    return [RULES.format_action(action) for action, _ in played]


def long_game(minimum: int = 1000) -> Game:
    """A 12-round, 5-player game recorded as tables record: now and then an action undone and recorded again,
    until the log holds at least `minimum` events. Not yet saved."""
    document, kit = load_kit_document("standin-e2-5p")
    lines = busy_game_lines(0)
    for every in (6, 4, 3, 2):
        game = Game.start(RULES, document, kit, [(name, None) for name in NAMES], {})
        for index, line in enumerate(lines):
            game.record(line)
            if index % every == 0:
                game.undo(1, "misrecorded")
                game.record(line)
        if game.version >= minimum:
            return game
    raise RuntimeError("the recorded game is too short")


Latency = tuple[float, float]


def fold_and_at(settings: Settings, game: Game, samples: int) -> tuple[float, float, int, Latency, Latency]:
    with Ledger(settings) as ledger:
        ledger.commands.save_games([game])
    from_store = replace(settings, log_cache_events=0)
    with Ledger(from_store, IS_SNAPSHOTTING_ENABLED="n") as plain:
        events, cold = timed(lambda: plain.queries.game(game.id, version=game.version).version)
        warm = min(timed(lambda: plain.queries.game(game.id, version=game.version).version)[1] for _ in range(5))
    with Ledger(from_store) as ledger:
        stored = game_at_random_events(ledger, game, samples)
    with Ledger(settings) as ledger:
        for version in [*range(SNAPSHOT_INTERVAL - 1, game.version, SNAPSHOT_INTERVAL), game.version]:
            ledger.queries.game(game.id, version=version)  # a viewer that has stepped through the game once
        held = game_at_random_events(ledger, game, samples)
    return events / cold, events / warm, events, stored, held


def game_at_random_events(ledger: Ledger, game: Game, samples: int) -> Latency:
    """p50 and p99 of the game at a random event, in milliseconds."""
    latencies = []
    rng = random.Random(1)
    for _ in range(samples):
        version = rng.randint(1, game.version)
        started = time.perf_counter()
        ledger.queries.game(game.id, version=version)
        latencies.append((time.perf_counter() - started) * 1000)
    latencies.sort()
    return statistics.median(latencies), latencies[max(0, int(len(latencies) * 0.99) - 1)]


@contextmanager
def postgres_database(admin_url: str) -> Iterator[str]:
    name = f"evo_bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(admin_url)
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def on_each_database(measure: Callable[[str, str], None], admin_url: str, sqlite_file: str) -> None:
    """`measure(label, database)` on a SQLite file in a temporary folder, then on a PostgreSQL database made for
    the run (left out, saying why, without a server)."""
    with tempfile.TemporaryDirectory() as folder:
        measure("SQLite", str(Path(folder) / sqlite_file))
    try:
        with postgres_database(admin_url) as url:
            measure("PostgreSQL", url)
    except Exception as error:
        print(f"PostgreSQL left out: {str(error).strip().splitlines()[0]}")


def run(label: str, database: str, insert_rows: InsertRows, lines: list[str], texts: list[str]) -> None:
    # The bulk import last: what a database does after 200,000 inserts (flushing, vacuuming) slows what follows.
    cold, warm, fold_events, stored, held = fold_and_at(Settings(database), long_game(), samples=400)
    with Ledger(Settings(database)) as ledger:
        floor, saves, events = appends_beside_floor(ledger, lines, insert_rows)
        alone = prepared_alone(ledger, list(dict.fromkeys(texts)))
        imported = bulk_import(ledger, texts)
    print(f"\n{label}")
    print(f"  raw single-row transactions {floor:10,.0f} rows/s")
    print(f"  appends, one action a save  {saves:10,.0f} saves/s = {saves / floor:.2f}x the floor")
    print(f"                              {events:10,.0f} events/s = {events / floor:.2f}x the floor's rows/s")
    print(f"  bulk import, {os.cpu_count()} processes     {imported:10,.0f} events/s ({len(texts)} games)")
    print(f"                              = {imported / alone:.2f}x one process preparing them alone ({alone:,.0f}/s)")
    print(f"  full fold, {fold_events} events    {warm:10,.0f} events/s (the first, cold: {cold:,.0f})")
    print(f"  game at a random event      p50 {stored[0]:.2f} ms, p99 {stored[1]:.2f} ms from the store")
    print(f"                              p50 {held[0]:.2f} ms, p99 {held[1]:.2f} ms from the held log")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="self-play games for the bulk import")
    parser.add_argument("--imports", type=int, default=5, help="how many times the bulk import takes each game")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    targets = (
        "appends, one action a save, at 0.5x the floor; bulk import 50k events/s (SQLite); a full fold 50k events/s; "
        "the game at a random event, p99 5 ms."
    )
    reporting(
        "ledger", "Ledger", ".venv/bin/python -m bench.ledger_speed", targets, lambda: measure_all(args), args.report
    )


def measure_all(args: argparse.Namespace) -> None:
    print("preparing games...", flush=True)
    lines = [line.text for line in parse_game(Path("replays/hand-3p-first-game.evo").read_text()).actions]
    texts = [play_game(2 + seed % 4, seed, "sensible", "evo2").text() for seed in range(args.games)] * args.imports
    with tempfile.TemporaryDirectory() as folder, sqlite_floor(str(Path(folder) / "floor.sqlite")) as insert_rows:
        run("SQLite (WAL, synchronous=FULL)", str(Path(folder) / "ledger.sqlite"), insert_rows, lines, texts)
    try:
        with postgres_database(args.postgres) as url, postgres_floor(url) as insert_rows:
            run("PostgreSQL", url, insert_rows, lines, texts)
    except psycopg.OperationalError as error:
        print(f"\nPostgreSQL left out: {str(error).strip().splitlines()[0]}")


if __name__ == "__main__":
    main()
