"""What each of the store's fast paths buys: its benchmark line with the fast path and with the library's own way, in
the same run, taking turns round by round so that both meet the same moments of this shared machine.

    python -m bench.fast_paths [--postgres postgresql://postgres@127.0.0.1:5432/test] [--report]

A ratio is the library's way's time over the fast path's, by the clock: 1.30x means the line takes 30% longer
without it. A fast path is kept only at `KEPT_ABOVE` or more.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
import types
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from eventsourcing.postgres import PostgresApplicationRecorder

from bench.ledger_speed import postgres_database, record_game
from bench.projection_speed import store_games
from bench.report import reporting
from evo_ledger.app.ledger import Ledger
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import COMPACT, Settings
from evo_ledger.store.fast_paths import FAST_PATHS, KEPT_ABOVE, OneStatementSQLiteConnectionPool, make_durable
from projections.runner import rebuild
from projections.store import ReadStore

ROUNDS = 16
GAME_LINES = [line.text for line in parse_game(Path("replays/hand-3p-first-game.evo").read_text()).actions]
Switch = Callable[[bool], None]  # True: the library's own way; False: the fast path


def instance_switch(recorder: Any, name: str, library_way: Any) -> Switch:
    """Puts the library's way on this recorder under `name`, in place of its class's, or takes it off again."""

    def switch(plain: bool) -> None:
        if plain:
            setattr(recorder, name, library_way)
        else:
            vars(recorder).pop(name, None)

    return switch


def library_method(recorder: Any, method: str) -> Switch:
    """The library's own recorder method in place of the fast path's."""
    return instance_switch(recorder, method, types.MethodType(getattr(PostgresApplicationRecorder, method), recorder))


@contextmanager
def no_collection() -> Iterator[None]:
    """Every generation collected before a timed round, so that no round pays for another's garbage (within the
    round the collector runs as it always does)."""
    gc.collect()
    yield


def wall(work: Callable[[], Any]) -> float:
    with no_collection():
        started = time.perf_counter()
        work()
        return time.perf_counter() - started


def ratio(switch: Switch, timed: Callable[[], float]) -> float:
    """The library's way's time over the fast path's, in alternating rounds (each round in the other order)."""
    fast = plain = 0.0
    switch(True)
    timed()
    switch(False)
    timed()
    for round_number in range(ROUNDS):
        for use_plain in (False, True) if round_number % 2 else (True, False):
            switch(use_plain)
            seconds = timed()
            fast, plain = (fast, plain + seconds) if use_plain else (fast + seconds, plain)
    switch(False)
    return plain / fast


# The fast paths of the recorders of one row an event are measured in a store of the compact form, the one of them
# stores are kept in by default before the packed form.
ROW_AN_EVENT = COMPACT


def appends(database: str) -> float:
    with Ledger(Settings(database, stored_form=ROW_AN_EVENT)) as ledger:
        switch = library_method(ledger.store.recorder, "insert_events")

        def timed() -> float:
            with no_collection():
                return record_game(ledger, GAME_LINES)[2]

        return ratio(switch, timed)


def catch_up(database: str) -> float:
    """The read tables made again from the log of 60 trait-card games (of the three rulesets' read tables, those
    where reading the log is the largest share)."""
    settings = Settings(database, stored_form=ROW_AN_EVENT)
    with Ledger(settings) as ledger:
        store_games(ledger, "traits", 60)
        store = ReadStore(settings)
        try:
            switch = instance_switch(ledger.store.recorder, "select_notifications_after", None)
            return ratio(switch, lambda: wall(lambda: rebuild(ledger, store)))
        finally:
            store.close()


def statements_kept(folder: str) -> float:
    """Appends of the packed form, one action a save, through connections that keep their prepared statements
    and through the library's own, each in a store of its own."""
    with (
        Ledger(Settings(str(Path(folder) / "kept.sqlite"))) as kept,
        Ledger(Settings(str(Path(folder) / "one.sqlite"))) as one,
    ):
        make_durable(one.store.recorder.datastore, OneStatementSQLiteConnectionPool)  # type: ignore[attr-defined]
        chosen = {"ledger": kept}

        def switch(plain: bool) -> None:
            chosen["ledger"] = one if plain else kept

        def timed() -> float:
            with no_collection():
                return record_game(chosen["ledger"], GAME_LINES)[2]

        return ratio(switch, timed)


@contextmanager
def sqlite_folder() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder:
        yield folder


@contextmanager
def sqlite_file() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder:
        yield str(Path(folder) / "fast.sqlite")


def measurements(postgres: str) -> dict[str, Callable[[], float]]:
    """Each fast path's line, measured on a database made for it."""

    def on(database: Callable[[], AbstractContextManager[str]], measure: Callable[[str], float]) -> Callable[[], float]:
        def run() -> float:
            with database() as made:
                return measure(made)

        return run

    on_postgres = partial(on, partial(postgres_database, postgres))
    return {
        "sqlite_statements_kept": on(sqlite_folder, statements_kept),
        "sqlite_notifications_as_text": on(sqlite_file, catch_up),
        "postgres_one_statement_append": on_postgres(appends),
    }


def run(postgres: str, repeats: int) -> None:
    measure = measurements(postgres)
    for fast_path in FAST_PATHS:
        ratios = [measure[fast_path.name]() for _ in range(repeats)]
        middle = statistics.median(ratios)
        print(f"{fast_path.name}: {fast_path.pays_for}")
        print(f"  stands in for {fast_path.replaces}")
        runs = ", ".join(f"{r:.2f}" for r in ratios)
        kept = "kept" if middle >= KEPT_ABOVE else "not kept"
        print(f"  the library's way takes {middle:.2f}x as long: {kept} at {KEPT_ABOVE:.2f}x (runs: {runs})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each line; the median is reported")
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    reporting(
        "fast-paths",
        "The store's fast paths",
        ".venv/bin/python -m bench.fast_paths",
        f"each fast path makes its line {KEPT_ABOVE:.2f}x faster than the library's own way, or it goes.",
        lambda: run(args.postgres, args.repeats),
        args.report,
    )


if __name__ == "__main__":
    main()
