"""Bytes an event takes on disk in each stored form, keyed (a msgpack map naming its fields) and compact
(`evo_ledger.game.codec.compact`), on SQLite and PostgreSQL; and appends, replay and audit in the compact form
against the keyed one, in the same run.

    python -m bench.stored_size [--games 50] [--rounds 7] [--postgres URL] [--report]

- games: `--games` self-played games of each ruleset (evo2, evo1, evo1 with Autosaur seats, traits), seeded, the
  table sizes and the sensible and random bots in turn, played by two processes into game files in a temporary
  folder;
- bytes per event: each ruleset's games imported (the bulk import, two processes preparing them) into a fresh
  store of each form on each database, without a seal key; the ledger's log alone, its read tables never made.
  SQLite: the file after VACUUM, and its parts by `dbstat` (the events table, its index, the snapshots table).
  PostgreSQL, after VACUUM FULL: the events table and the snapshots table, indexes and TOAST included. Divided by
  the events stored; "in all" is every ruleset's bytes over every ruleset's events;
- speed, on each database, for ROUNDS rounds, each measure taken in one form and at once in the other: appends,
  one action a save (a game recorded by hand, as bench.ledger_speed measures them); a full fold of a game of 1,000
  events or more (no snapshot, no held log); the audit of that game (`Queries.audit`); a fold or an audit the best
  of TRIES a round. A rate is the best of the rounds; a ratio, compact over keyed, the median of the rounds'.
PostgreSQL runs in databases made for the run and dropped after it; without a server it is left out.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import AbstractContextManager, ExitStack, closing, contextmanager
from dataclasses import dataclass, field, fields, replace
from functools import partial
from pathlib import Path
from typing import Protocol
from uuid import UUID

import psycopg

from bench.ledger_speed import long_game, postgres_database, record_game
from bench.report import reporting, verdict
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import SelfPlayGame, play_game
from evo_ledger.app.transfer import import_files
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import COMPACT, KEYED, Settings

FORMS = (KEYED, COMPACT)
PROCESSES = 2
ROUNDS = 7
TRIES = 5  # timings of a fold or an audit in a round, the best kept
SIZE_TARGET = 1 / 3
SPEED_TARGET = 0.9
HAND_GAME = Path(__file__).resolve().parent.parent / "replays" / "hand-3p-first-game.evo"


def bot_of(seed: int) -> str:
    return "random" if seed % 2 else "sensible"


def evo2_game(seed: int) -> SelfPlayGame:
    return play_game(2 + seed % 4, seed, bot_of(seed), "evo2")


def evo1_game(seed: int) -> SelfPlayGame:
    return play_game(3 + seed % 3, seed, bot_of(seed), "evo1")


def autosaur_game(seed: int) -> SelfPlayGame:
    players = 3 + seed % 3
    return play_game(players, seed, bot_of(seed), "evo1", marked={"autosaurs": 1 + seed % min(3, players)})


def traits_game(seed: int) -> SelfPlayGame:
    return play_game(2 + seed % 3, seed, bot_of(seed), "traits")


RULESETS: dict[str, Callable[[int], SelfPlayGame]] = {
    "evo2": evo2_game,
    "evo1": evo1_game,
    "evo1-autosaurs": autosaur_game,
    "traits": traits_game,
}


def write_game(folder: Path, ruleset: str, seed: int) -> Path:
    path = folder / f"{ruleset}-{seed}.evo"
    path.write_text(RULESETS[ruleset](seed).text(), encoding="utf-8")
    return path


def play_games(folder: Path, count: int, processes: int = PROCESSES) -> dict[str, list[Path]]:
    """`count` game files of each ruleset written into `folder`, by `processes` processes (1: by this one)."""
    if processes == 1:
        return {ruleset: [write_game(folder, ruleset, seed) for seed in range(count)] for ruleset in RULESETS}
    with ProcessPoolExecutor(processes) as pool:
        return {
            ruleset: list(pool.map(partial(write_game, folder, ruleset), range(count), chunksize=8))
            for ruleset in RULESETS
        }


@dataclass(frozen=True)
class Size:
    """A store's bytes on disk, in all and by part, beside the events it holds and their stored states' bytes
    (within the events table); `import_seconds`, the time its games took to import."""

    events: int = 0
    total: int = 0
    table: int = 0
    indexes: int = 0
    snapshots: int = 0
    states: int = 0
    import_seconds: float = 0.0

    def __add__(self, other: Size) -> Size:
        return Size(**{part.name: getattr(self, part.name) + getattr(other, part.name) for part in fields(Size)})

    def per_event(self, part: str = "total") -> float:
        value: float = getattr(self, part)
        return value / self.events


class Stores(Protocol):
    """A database on which fresh stores are made, and their bytes on disk measured."""

    @property
    def label(self) -> str: ...

    def fresh(self) -> AbstractContextManager[str]: ...

    def on_disk(self, database: str) -> Size: ...


SQLITE_PARTS = """
SELECT tables.tbl_name, tables.type, SUM(pages.pgsize) FROM dbstat AS pages
JOIN sqlite_schema AS tables ON tables.name = pages.name GROUP BY tables.tbl_name, tables.type
"""


@dataclass(frozen=True)
class SQLiteStores:
    folder: Path
    label: str = "SQLite"

    @contextmanager
    def fresh(self) -> Iterator[str]:
        path = self.folder / f"store-{uuid.uuid4().hex[:12]}.sqlite"
        try:
            yield str(path)
        finally:
            for made in self.folder.glob(f"{path.name}*"):
                made.unlink()

    def on_disk(self, database: str) -> Size:
        """The file after VACUUM (its write-ahead log emptied into it), and its parts where `dbstat` is built in."""
        with closing(sqlite3.connect(database, isolation_level=None)) as connection:
            connection.execute("VACUUM")
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            events, states = connection.execute("SELECT COUNT(*), SUM(LENGTH(state)) FROM stored_events").fetchone()
            try:
                parts = {(table, kind): size for table, kind, size in connection.execute(SQLITE_PARTS)}
            except sqlite3.OperationalError:  # a SQLite built without dbstat: the file's size alone
                parts = {}
        path = Path(database)
        log = path.with_name(f"{path.name}-wal")
        total = path.stat().st_size + (log.stat().st_size if log.exists() else 0)
        return Size(
            events,
            total,
            parts.get(("stored_events", "table"), 0),
            parts.get(("stored_events", "index"), 0),
            parts.get(("stored_snapshots", "table"), 0),
            states or 0,
        )


POSTGRES_PARTS = """
SELECT (SELECT COUNT(*) FROM ledger_events), (SELECT COALESCE(SUM(LENGTH(state)), 0) FROM ledger_events),
       pg_total_relation_size('ledger_events') - pg_indexes_size('ledger_events'), pg_indexes_size('ledger_events'),
       pg_total_relation_size('ledger_snapshots')
"""


@dataclass(frozen=True)
class PostgresStores:
    admin_url: str
    label: str = "PostgreSQL"

    def fresh(self) -> AbstractContextManager[str]:
        return postgres_database(self.admin_url)

    def on_disk(self, database: str) -> Size:
        """The events and snapshots tables after VACUUM FULL, their indexes and TOAST included."""
        with psycopg.connect(database, autocommit=True) as connection:
            connection.execute("VACUUM FULL ledger_events, ledger_snapshots")
            row = connection.execute(POSTGRES_PARTS).fetchone()
        assert row is not None
        events, states, table, indexes, snapshots = (int(value) for value in row)
        return Size(events, table + indexes + snapshots, table, indexes, snapshots, states)


def import_games(database: str, form: str, paths: Sequence[Path]) -> float:
    """The seconds the games take to import into the store in that form."""
    with Ledger(Settings(database, stored_form=form)) as ledger:
        started = time.perf_counter()
        for _ in import_files(ledger, paths, workers=PROCESSES):
            pass
        return time.perf_counter() - started


Sizes = dict[str, dict[str, Size]]  # by ruleset, then by form


def measure_sizes(stores: Stores, games: Mapping[str, Sequence[Path]]) -> Sizes:
    """Each ruleset's games imported into a fresh store of each form, and its bytes on disk."""
    sizes: Sizes = {}
    for ruleset, paths in games.items():
        sizes[ruleset] = {}
        for form in FORMS:
            with stores.fresh() as database:
                seconds = import_games(database, form, paths)
                sizes[ruleset][form] = replace(stores.on_disk(database), import_seconds=seconds)
    return sizes


def in_all(sizes: Sizes, form: str) -> Size:
    return sum((by_form[form] for by_form in sizes.values()), Size())


@dataclass(frozen=True)
class Measure:
    name: str
    unit: str


APPENDS = Measure("appends, one action a save", "saves/s")
FOLD = Measure("full fold", "events/s")
AUDIT = Measure("audit", "events/s")


@dataclass
class Speeds:
    """Each measure's rate in each form, round by round, and the events of the folded and audited game."""

    game_events: int = 0
    rates: dict[Measure, dict[str, list[float]]] = field(default_factory=dict)

    def add(self, measure: Measure, form: str, rate: float) -> None:
        self.rates.setdefault(measure, {}).setdefault(form, []).append(rate)

    def best(self, measure: Measure, form: str) -> float:
        return max(self.rates[measure][form])

    def ratio(self, measure: Measure) -> float:
        """The median, over the rounds, of the compact form's rate over the keyed form's in the same round."""
        by_form = self.rates[measure]
        return statistics.median(c / k for c, k in zip(by_form[COMPACT], by_form[KEYED], strict=True))


@dataclass(frozen=True)
class FormStore:
    """A store in one form holding a long game: a ledger that appends and audits, and one that folds from the
    events alone (no snapshot, no held log)."""

    ledger: Ledger
    plain: Ledger
    game_id: UUID
    events: int


def form_store(stack: ExitStack, stores: Stores, form: str) -> FormStore:
    database = stack.enter_context(stores.fresh())
    settings = Settings(database, stored_form=form)
    game = long_game()
    ledger = stack.enter_context(Ledger(settings))
    ledger.commands.save_games([game])
    plain = stack.enter_context(Ledger(replace(settings, log_cache_events=0), IS_SNAPSHOTTING_ENABLED="n"))
    return FormStore(ledger, plain, game.id, game.version)


def best_seconds(work: Callable[[], object], tries: int = TRIES) -> float:
    timings = []
    for _ in range(tries):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return min(timings)


def append_rate(store: FormStore, lines: list[str]) -> float:
    saves, _, seconds = record_game(store.ledger, lines)
    return saves / seconds


def fold_rate(store: FormStore) -> float:
    return store.events / best_seconds(lambda: store.plain.queries.game(store.game_id, version=store.events))


def audit_rate(store: FormStore) -> float:
    return store.events / best_seconds(lambda: store.ledger.queries.audit(store.game_id))


def measure_round(by_form: Mapping[str, FormStore], lines: list[str], order: Sequence[str], speeds: Speeds) -> None:
    """Each measure in each form in turn, so that the two forms of a measure meet the same moments of the machine."""
    rates: dict[Measure, Callable[[FormStore], float]] = {
        APPENDS: partial(append_rate, lines=lines),
        FOLD: fold_rate,
        AUDIT: audit_rate,
    }
    for measure, rate in rates.items():
        for form in order:
            speeds.add(measure, form, rate(by_form[form]))


def measure_speeds(stores: Stores, rounds: int = ROUNDS) -> Speeds:
    """Appends, fold and audit in each form, the forms taking turns (in alternate orders) for `rounds` rounds."""
    lines = [line.text for line in parse_game(HAND_GAME.read_text(encoding="utf-8")).actions]
    with ExitStack() as stack:
        by_form = {form: form_store(stack, stores, form) for form in FORMS}
        for form, store in by_form.items():
            verdict_of = store.ledger.queries.audit(store.game_id).verdict
            if verdict_of != "clean":
                raise SystemExit(f"the long game's audit in the {form} form: {verdict_of}")
        speeds = Speeds(by_form[KEYED].events)
        for number in range(rounds):
            measure_round(by_form, lines, FORMS if number % 2 == 0 else FORMS[::-1], speeds)
    return speeds


def size_verdict(ratio: float) -> str:
    return f"{ratio:.2f}, target at most {SIZE_TARGET:.2f}: " + ("met" if ratio <= SIZE_TARGET else "not met")


PARTS = (
    ("table", "events table"),
    ("states", "  its events' states"),
    ("indexes", "its indexes"),
    ("snapshots", "snapshots table"),
)


def size_row(name: str, games: int, keyed: Size, compact: Size) -> str:
    return f"  {name:<16}{games:>6}{keyed.events:>11,}{keyed.per_event():>8.0f}{compact.per_event():>9.0f}"


def print_sizes(label: str, sizes: Sizes, games: int) -> None:
    how = "the file after VACUUM" if label == "SQLite" else "after VACUUM FULL, indexes and TOAST included"
    print(f"\n{label}: bytes per event on disk ({how})")
    print(f"  {'ruleset':<16}{'games':>6}{'events':>11}{'keyed':>8}{'compact':>9}   compact/keyed")
    for ruleset, by_form in sizes.items():
        keyed, compact = by_form[KEYED], by_form[COMPACT]
        print(f"{size_row(ruleset, games, keyed, compact)}   {compact.per_event() / keyed.per_event():.2f}")
    keyed, compact = in_all(sizes, KEYED), in_all(sizes, COMPACT)
    ratio = compact.per_event() / keyed.per_event()
    print(f"{size_row('in all', games * len(sizes), keyed, compact)}   {size_verdict(ratio)}")
    print("  in all, by part              keyed  compact   compact/keyed (bytes per event)")
    for part, name in PARTS:
        if getattr(keyed, part):
            mine, theirs = compact.per_event(part), keyed.per_event(part)
            print(f"    {name:<26}{theirs:>7.0f}{mine:>9.0f}   {mine / theirs:.2f}")
    rates = {form: in_all(sizes, form).events / in_all(sizes, form).import_seconds for form in FORMS}
    print(
        f"  bulk import, {PROCESSES} processes: keyed {rates[KEYED]:,.0f} events/s, compact {rates[COMPACT]:,.0f} "
        f"events/s ({rates[COMPACT] / rates[KEYED]:.2f}x, one import of each)"
    )


def print_speeds(label: str, speeds: Speeds, rounds: int) -> None:
    print(f"\n{label}: speed, compact against keyed ({rounds} rounds, the forms in turn)")
    print(f"  {'':<30}{'keyed':>17}{'compact':>17}   compact/keyed")
    events = speeds.game_events
    names = {APPENDS: APPENDS.name, FOLD: f"full fold, {events} events", AUDIT: f"audit, {events} events"}
    for measure, name in names.items():
        keyed, compact = speeds.best(measure, KEYED), speeds.best(measure, COMPACT)
        rates = f"{f'{keyed:,.0f} {measure.unit}':>17}{f'{compact:,.0f} {measure.unit}':>17}"
        print(f"  {name:<30}{rates}   {verdict(speeds.ratio(measure), SPEED_TARGET)}")


def measure_on(stores: Stores, games: Mapping[str, Sequence[Path]], count: int, rounds: int) -> None:
    print_sizes(stores.label, measure_sizes(stores, games), count)
    print_speeds(stores.label, measure_speeds(stores, rounds), rounds)


def measure_all(count: int, postgres: str, rounds: int) -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        games_folder = Path(folder) / "games"
        games_folder.mkdir()
        games = play_games(games_folder, count)
        played = time.perf_counter() - started
        print(f"games: {count:,} of each ruleset, played by {PROCESSES} processes in {played:.0f} s")
        print("keyed: each event a msgpack map naming its fields; compact (the default): its fields as a list of a")
        print("known shape, hashes as bytes, long ones deflated. Stored without a seal key.")
        measure_on(SQLiteStores(Path(folder)), games, count, rounds)
        try:
            with psycopg.connect(postgres, connect_timeout=5):
                pass
        except psycopg.OperationalError as error:
            print(f"\nPostgreSQL left out: {str(error).strip().splitlines()[0]}")
        else:
            measure_on(PostgresStores(postgres), games, count, rounds)
    print(f"\ntime: {time.perf_counter() - started:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50, help="self-played games of each ruleset")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="rounds of the speed measures")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("EVO_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"),
        help="a PostgreSQL server's URL, where the run makes its databases (default: EVO_TEST_POSTGRES, or local)",
    )
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    targets = (
        "the compact form at most a third of the keyed form's bytes per event on each database; its appends, "
        "full fold and audit at 0.9x the keyed form's or better."
    )
    reporting(
        "stored-size",
        "Stored bytes per event, compact form against keyed",
        f".venv/bin/python -m bench.stored_size --games {args.games}",
        targets,
        lambda: measure_all(args.games, args.postgres, args.rounds),
        args.report,
    )


if __name__ == "__main__":
    main()
