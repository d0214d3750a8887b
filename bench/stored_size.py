"""Bytes an event takes on disk in each stored form, keyed (a msgpack map naming its fields, one row an event),
compact (`evo_ledger.game.codec.compact`, one row an event) and packed (`evo_ledger.store.packed`, the default: a
row for each run of a game's events appended together), on SQLite and PostgreSQL; and appends, replay and audit in
the packed and compact forms against the keyed one, in the same run.

    python -m bench.stored_size [--games 50] [--rounds 7] [--postgres URL] [--report]

- games: `--games` self-played games of each ruleset (evo2, evo1, evo1 with Autosaur seats, traits), seeded, the
  table sizes and the sensible and random bots in turn, played by two processes into game files in a temporary
  folder;
- bytes per event: each ruleset's games imported (the bulk import, two processes preparing them) into a fresh
  store of each form on each database, without a seal key; the ledger's log alone, its read tables never made.
  SQLite: the file after VACUUM, and its parts by `dbstat` (the table of the events' rows, the runs' or the
  events', its indexes, the snapshots table). PostgreSQL, after VACUUM FULL: the events table, the runs table and
  the snapshots table, indexes and TOAST included. Divided by the events stored; "in all" is every ruleset's bytes
  over every ruleset's events. Then, as tables record them, RECORDED games of evo2 (5 players, an action now and
  then undone and made again) recorded one action a save, each save in turn, into a fresh store of each form: a
  run of the packed form holds one save's events; the packed store again after `evo-ledger migrate`, and a packed
  store of the same games recorded one after the other, after `migrate` (which packs a game's runs again where
  their notification ids follow on);
- speed, on each database, for ROUNDS rounds, each measure taken in one form and at once in the other: appends,
  one action a save (APPEND_GAMES games recorded by hand, as bench.ledger_speed measures them, the forms taking
  turns game by game); a full fold of a game of 1,000
  events or more (no snapshot, no held log); the audit of that game (`Queries.audit`); a fold or an audit the best
  of TRIES a round. A rate is the best of the rounds; a ratio, a form's over the keyed form's, the median of the
  rounds'.
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
from itertools import zip_longest
from pathlib import Path
from typing import Protocol
from uuid import UUID

import psycopg

from bench.ledger_speed import NAMES, busy_game_lines, long_game, postgres_database, record_game
from bench.report import reporting, verdict
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import SelfPlayGame, play_game
from evo_ledger.app.transfer import import_files
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import COMPACT, KEYED, PACKED, Settings
from evo_ledger.store.migration import Migration, runs_table, stored_tables

FORMS = (KEYED, COMPACT, PACKED)
SMALLER = (COMPACT, PACKED)  # the forms measured against the keyed one
RECORDED = 3  # games recorded one action a save, for the sizes of a log recorded at the table
PROCESSES = 2
ROUNDS = 7
TRIES = 5  # timings of a fold or an audit in a round, the best kept
# Games recorded by hand in each form a round: one takes a tenth of a second or two, too short a sample against the
# swings of a shared machine.
APPEND_GAMES = 4
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


# The tables of the events' rows: one row an event (the keyed and compact forms), or a run a row (the packed form),
# each with the column of its stored bytes and the events a row holds.
SQLITE_ROWS = {"stored_events": ("state", "1"), "stored_runs": ("body", "events")}
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
            events = states = 0
            for table, (stored, held) in SQLITE_ROWS.items():
                if connection.execute("SELECT 1 FROM sqlite_schema WHERE name = ?", (table,)).fetchone():
                    found = connection.execute(f"SELECT SUM({held}), SUM(LENGTH({stored})) FROM {table}").fetchone()
                    events, states = events + (found[0] or 0), states + (found[1] or 0)
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
            sum(parts.get((table, "table"), 0) for table in SQLITE_ROWS),
            sum(parts.get((table, "index"), 0) for table in SQLITE_ROWS),
            parts.get(("stored_snapshots", "table"), 0),
            states,
        )


POSTGRES_ROWS = {"ledger_events": ("state", "1"), "ledger_runs": ("body", "events")}
POSTGRES_TABLE = """
SELECT (SELECT COALESCE(SUM({held}), 0) FROM {table}), (SELECT COALESCE(SUM(LENGTH({stored})), 0) FROM {table}),
       pg_total_relation_size('{table}') - pg_indexes_size('{table}'), pg_indexes_size('{table}')
"""


@dataclass(frozen=True)
class PostgresStores:
    admin_url: str
    label: str = "PostgreSQL"

    def fresh(self) -> AbstractContextManager[str]:
        return postgres_database(self.admin_url)

    def on_disk(self, database: str) -> Size:
        """The events and snapshots tables after VACUUM FULL, their indexes and TOAST included."""
        size = Size()
        with psycopg.connect(database, autocommit=True) as connection:
            for table, (stored, held) in POSTGRES_ROWS.items():
                if connection.execute("SELECT to_regclass(%s)", (table,)).fetchone() == (None,):
                    continue
                connection.execute(f"VACUUM FULL {table}")
                row = connection.execute(POSTGRES_TABLE.format(table=table, stored=stored, held=held)).fetchone()
                assert row is not None
                events, states, rows, indexes = (int(value) for value in row)
                size += Size(events, rows + indexes, rows, indexes, 0, states)
            connection.execute("VACUUM FULL ledger_snapshots")
            row = connection.execute("SELECT pg_total_relation_size('ledger_snapshots')").fetchone()
        assert row is not None
        snapshots = int(row[0])
        return replace(size, total=size.total + snapshots, snapshots=snapshots)


def import_games(database: str, form: str, paths: Sequence[Path]) -> float:
    """The seconds the games take to import into the store in that form."""
    with Ledger(Settings(database, stored_form=form)) as ledger:
        started = time.perf_counter()
        for _ in import_files(ledger, paths, workers=PROCESSES):
            pass
        return time.perf_counter() - started


def record_games(database: str, form: str, games: Sequence[list[str]], in_turn: bool) -> float:
    """The seconds the games take to record, one action a save, into the store in that form: each save in turn,
    as tables playing at once record them, or one game after the other."""
    with Ledger(Settings(database, stored_form=form)) as ledger:
        started = time.perf_counter()
        receipts = [ledger.commands.create_game("evo2", "standin-e2-5p", NAMES) for _ in games]
        moves = [(place, line) for step in zip_longest(*games) for place, line in enumerate(step) if line]
        if not in_turn:
            moves.sort(key=lambda move: move[0])
        for place, line in moves:
            receipt = receipts[place]
            receipts[place] = ledger.commands.record(receipt.game_id, line, expected_version=receipt.version)
        return time.perf_counter() - started


def migrated(database: str) -> None:
    """The store's runs packed again, as `evo-ledger migrate` packs them."""
    with Ledger(Settings(database)) as ledger:
        tables, runs = stored_tables(ledger.store), runs_table(ledger.store)
    with Migration(Settings(database), tables, runs=runs) as migration:
        migration.run()
        migration.repack()


Sizes = dict[str, dict[str, Size]]  # by ruleset (or the games recorded), then by form
RECORDED_LABEL = "evo2, recorded"
IN_TURN, MIGRATED, ONE_AFTER = "recorded in turn", "then migrate", "one after the other, then migrate"


def measure_sizes(stores: Stores, games: Mapping[str, Sequence[Path]], recorded: Sequence[list[str]]) -> Sizes:
    """Each ruleset's games imported into a fresh store of each form, and the recorded games recorded into one,
    and each store's bytes on disk."""
    sizes: Sizes = {}
    for ruleset, paths in games.items():
        sizes[ruleset] = {}
        for form in FORMS:
            with stores.fresh() as database:
                seconds = import_games(database, form, paths)
                sizes[ruleset][form] = replace(stores.on_disk(database), import_seconds=seconds)
    sizes[RECORDED_LABEL] = {}
    for form in FORMS:
        with stores.fresh() as database:
            seconds = record_games(database, form, recorded, in_turn=True)
            sizes[RECORDED_LABEL][form] = replace(stores.on_disk(database), import_seconds=seconds)
            if form == PACKED:
                migrated(database)
                sizes[RECORDED_LABEL][MIGRATED] = stores.on_disk(database)
    with stores.fresh() as database:
        record_games(database, PACKED, recorded, in_turn=False)
        migrated(database)
        sizes[RECORDED_LABEL][ONE_AFTER] = stores.on_disk(database)
    return sizes


def in_all(sizes: Sizes, form: str) -> Size:
    """Every imported ruleset's size in that form, added up."""
    return sum((by_form[form] for ruleset, by_form in sizes.items() if ruleset != RECORDED_LABEL), Size())


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

    def ratio(self, measure: Measure, form: str) -> float:
        """The median, over the rounds, of the form's rate over the keyed form's in the same round."""
        by_form = self.rates[measure]
        return statistics.median(c / k for c, k in zip(by_form[form], by_form[KEYED], strict=True))


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


def append_rates(by_form: Mapping[str, FormStore], lines: list[str], order: Sequence[str]) -> dict[str, float]:
    """Saves/s of each form, APPEND_GAMES games recorded by hand in each, the forms taking turns game by game."""
    saves = dict.fromkeys(order, 0)
    seconds = dict.fromkeys(order, 0.0)
    for _ in range(APPEND_GAMES):
        for form in order:
            game_saves, _, game_seconds = record_game(by_form[form].ledger, lines)
            saves[form] += game_saves
            seconds[form] += game_seconds
    return {form: saves[form] / seconds[form] for form in order}


def fold_rate(store: FormStore) -> float:
    return store.events / best_seconds(lambda: store.plain.queries.game(store.game_id, version=store.events))


def audit_rate(store: FormStore) -> float:
    return store.events / best_seconds(lambda: store.ledger.queries.audit(store.game_id))


def measure_round(by_form: Mapping[str, FormStore], lines: list[str], order: Sequence[str], speeds: Speeds) -> None:
    """Each measure in each form in turn, so that the two forms of a measure meet the same moments of the machine."""
    for form, rate in append_rates(by_form, lines, order).items():
        speeds.add(APPENDS, form, rate)
    rates: dict[Measure, Callable[[FormStore], float]] = {FOLD: fold_rate, AUDIT: audit_rate}
    for measure, rate_of in rates.items():
        for form in order:
            speeds.add(measure, form, rate_of(by_form[form]))


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
    ("table", "events' rows (table)"),
    ("states", "  their stored bytes"),
    ("indexes", "their indexes"),
    ("snapshots", "snapshots table"),
)
COLUMNS = f"{'keyed':>8}{'compact':>9}{'packed':>8}   compact/keyed  packed/keyed"


def size_row(name: str, games: int, by_form: Mapping[str, Size]) -> str:
    per_event = "".join(
        f"{by_form[form].per_event():>{width}.0f}" for form, width in zip(FORMS, (8, 9, 8), strict=True)
    )
    ratios = [by_form[form].per_event() / by_form[KEYED].per_event() for form in SMALLER]
    return f"  {name:<16}{games:>6}{by_form[KEYED].events:>11,}{per_event}   {ratios[0]:>13.2f}  {ratios[1]:.2f}"


def print_sizes(label: str, sizes: Sizes, games: int) -> None:
    how = "the file after VACUUM" if label == "SQLite" else "after VACUUM FULL, indexes and TOAST included"
    print(f"\n{label}: bytes per event on disk ({how}), games imported")
    print(f"  {'ruleset':<16}{'games':>6}{'events':>11}{COLUMNS}")
    for ruleset, by_form in sizes.items():
        if ruleset != RECORDED_LABEL:
            print(size_row(ruleset, games, by_form))
    every = {form: in_all(sizes, form) for form in FORMS}
    ratio = every[PACKED].per_event() / every[KEYED].per_event()
    print(f"{size_row('in all', games * (len(sizes) - 1), every)}; packed {size_verdict(ratio)}")
    print(f"  in all, by part (bytes per event){'':<6}{COLUMNS}")
    for part, name in PARTS:
        mine = [every[form].per_event(part) for form in FORMS]
        if mine[0]:
            shares = "  ".join(
                f"{value / mine[0]:>13.2f}" if n == 1 else f"{value / mine[0]:.2f}"
                for n, value in enumerate(mine[1:], start=1)
            )
            print(f"    {name:<36}{mine[0]:>8.0f}{mine[1]:>9.0f}{mine[2]:>8.0f}   {shares}")
    rates = {form: every[form].events / every[form].import_seconds for form in FORMS}
    print(
        f"  bulk import, {PROCESSES} processes, events/s: "
        + ", ".join(f"{form} {rates[form]:,.0f} ({rates[form] / rates[KEYED]:.2f}x)" for form in FORMS)
    )
    recorded = sizes[RECORDED_LABEL]
    print(f"\n{label}: bytes per event on disk, {RECORDED} games recorded one action a save, the saves in turn")
    print(f"  {'':<16}{'games':>6}{'events':>11}{COLUMNS}")
    print(size_row(RECORDED_LABEL, RECORDED, recorded))
    keyed = recorded[KEYED].per_event()
    for name, size in (("then `evo-ledger migrate`", recorded[MIGRATED]), (ONE_AFTER, recorded[ONE_AFTER])):
        print(f"  packed, {name}: {size.per_event():.0f} bytes per event, {size.per_event() / keyed:.2f} of keyed")
    print("  (a run of the packed form holds a save's events; `migrate` packs again the runs of a game that follow")
    print("   on from each other, which saves taking turns with another game's do not)")


def print_speeds(label: str, speeds: Speeds, rounds: int) -> None:
    print(f"\n{label}: speed against the keyed form ({rounds} rounds, the forms in turn)")
    print(f"  {'':<30}{'keyed':>17}{'compact':>17}{'packed':>17}   compact/keyed, packed/keyed")
    events = speeds.game_events
    names = {APPENDS: APPENDS.name, FOLD: f"full fold, {events} events", AUDIT: f"audit, {events} events"}
    for measure, name in names.items():
        rates = "".join(f"{f'{speeds.best(measure, form):,.0f} {measure.unit}':>17}" for form in FORMS)
        compact = f"{speeds.ratio(measure, COMPACT):.2f}x"
        print(f"  {name:<30}{rates}   {compact}, {verdict(speeds.ratio(measure, PACKED), SPEED_TARGET)}")


def measure_on(
    stores: Stores, games: Mapping[str, Sequence[Path]], recorded: Sequence[list[str]], count: int, rounds: int
) -> None:
    print_sizes(stores.label, measure_sizes(stores, games, recorded), count)
    print_speeds(stores.label, measure_speeds(stores, rounds), rounds)


def measure_all(count: int, postgres: str, rounds: int) -> None:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        games_folder = Path(folder) / "games"
        games_folder.mkdir()
        games = play_games(games_folder, count)
        played = time.perf_counter() - started
        recorded = [busy_game_lines(seed) for seed in range(RECORDED)]
        print(f"games: {count:,} of each ruleset, played by {PROCESSES} processes in {played:.0f} s")
        print("keyed: each event a msgpack map naming its fields, a row an event; compact: its fields as a list of a")
        print("known shape, hashes as bytes, long ones deflated, a row an event; packed (the default): the compact")
        print("fields of a game's events appended together in one row, deflated together, the hash of the event")
        print("before stored once. Stored without a seal key.")
        measure_on(SQLiteStores(Path(folder)), games, recorded, count, rounds)
        try:
            with psycopg.connect(postgres, connect_timeout=5):
                pass
        except psycopg.OperationalError as error:
            print(f"\nPostgreSQL left out: {str(error).strip().splitlines()[0]}")
        else:
            measure_on(PostgresStores(postgres), games, recorded, count, rounds)
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
        "the packed form at most a third of the keyed form's bytes per event on each database, games imported; "
        "its appends, full fold and audit at 0.9x the keyed form's or better."
    )
    reporting(
        "stored-size",
        "Stored bytes per event, packed and compact forms against keyed",
        f".venv/bin/python -m bench.stored_size --games {args.games}",
        targets,
        lambda: measure_all(args.games, args.postgres, args.rounds),
        args.report,
    )


if __name__ == "__main__":
    main()
