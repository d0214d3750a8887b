"""A store's events moved into the packed stored form (`evo_ledger.store.packed`), and its snapshots rewritten into the
compact one (`evo_ledger.game.codec.compact`), in place.

Each table is read in the order of its key (originator id, version), a batch of rows a transaction. Into the
packed form, the events table's rows are moved into runs: rows of one aggregate whose versions and notification
ids both follow on from each other, within a run's bounds (`evo_ledger.store.runs`), each event under the
notification id it had, its state compact where `compact` knows its shape; the rows are deleted in the transaction
that stores their runs. A store that stays in a one-row-an-event form has its rows rewritten compact instead, and
so have the snapshots: a row whose state is not compact is rewritten as `compact` gives it, and one of a shape
`compact` does not know is left keyed, each keeping its key, its topic and its notification id (SQLite's rowid).
Every form is read, so a migration stopped part way leaves a store that reads as before, and one run again goes on
from there: a run or a compact row is never rewritten. On PostgreSQL an append waits for a batch's transaction
(which takes the lock an append takes); on SQLite it waits for the write lock. Space is reclaimed after with VACUUM
(on PostgreSQL, VACUUM FULL if asked, which locks the tables while it runs). `copy_sqlite` copies a SQLite store
into a new file to migrate there instead.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import psycopg
from eventsourcing.application import Application
from eventsourcing.persistence import AggregateRecorder
from eventsourcing.postgres import PostgresAggregateRecorder
from eventsourcing.sqlite import SQLiteAggregateRecorder
from psycopg.sql import SQL, Composed, Identifier

from evo_ledger.game.codec import COMPACT_MARK, CodecError, compact
from evo_ledger.settings import LOCK_TIMEOUT_SECONDS, Settings
from evo_ledger.store.fast_paths import stored_event
from evo_ledger.store.packed import PackedPostgresRecorder, PackedSQLiteRecorder, Run
from evo_ledger.store.recorders import DATABASE_ERRORS, StoreUnusable, connection_options, problem_of, reason_in
from evo_ledger.store.runs import RUN_PLAIN, plain_compact, unpack_run

__all__ = [
    "BATCH_ROWS",
    "Migration",
    "MigrationTarget",
    "Progress",
    "StoredTable",
    "copy_sqlite",
    "missing_sqlite_file",
    "runs_table",
    "sqlite_file_size",
    "stored_tables",
]

BATCH_ROWS = 500


@dataclass(frozen=True)
class StoredTable:
    """A table of stored events, by its name (and on PostgreSQL its schema)."""

    name: str
    schema: str | None = None


def stored_tables(application: Application[Any]) -> list[StoredTable]:
    """The tables the application's events and snapshots are stored in, as its recorders name them."""
    recorders: list[AggregateRecorder] = [application.recorder]
    if application.snapshots is not None:
        recorders.append(application.snapshots.recorder)
    return [table_of(recorder) for recorder in recorders]


def runs_table(application: Application[Any]) -> StoredTable | None:
    """The table of the application's runs, where it stores events in the packed form."""
    recorder = application.recorder
    if isinstance(recorder, PackedPostgresRecorder):
        return StoredTable(recorder.runs_table_name, recorder.datastore.schema)
    if isinstance(recorder, PackedSQLiteRecorder):
        return StoredTable(recorder.runs_table_name)
    return None


def table_of(recorder: AggregateRecorder) -> StoredTable:
    if isinstance(recorder, PostgresAggregateRecorder):
        return StoredTable(recorder.events_table_name, recorder.datastore.schema)
    if isinstance(recorder, SQLiteAggregateRecorder):
        return StoredTable(recorder.events_table_name)
    raise TypeError(f"not a recorder of a SQLite or PostgreSQL table: {type(recorder).__name__}")


@dataclass
class Progress:
    """How far a migration has gone: the rows it set out to look at (every row of the events table to move into
    runs and every row not compact as it began; or, `repacking`, every run), those it has looked at, moved into
    runs (`packed`, in `runs`), runs packed again (`repacked`, into `repacked_into`), rewritten compact, and left
    keyed (a shape `compact` does not know); the state bytes of the rows it moved or rewrote, before and after."""

    to_do: int
    looked_at: int = 0
    rewritten: int = 0
    left_keyed: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    packed: int = 0
    runs: int = 0
    repacked: int = 0
    repacked_into: int = 0
    repacking: bool = False


Key = tuple[Any, int]  # a row's originator id, as the database gives it, and its version
Row = tuple[Any, int, bytes]
Rewrite = tuple[bytes, Any, int]  # a row's new state, then its key


@dataclass(frozen=True)
class Batch:
    """The rows one transaction looked at: the key of the last (None when none was left) and the length of each
    state it rewrote, before and after; or, of rows moved into runs, the runs made."""

    last: Key | None
    looked_at: int
    lengths: list[tuple[int, int]]
    runs: int = 0
    repacking: bool = False


# A row of the events table to be moved into a run: its notification id, originator id, version, topic, state.
EventRow = tuple[int, Any, int, str, bytes]
# A run's row: its last notification id, originator id, last version, events, body.
RunRow = tuple[int, Any, int, int, bytes]


def runs_from(rows: Sequence[EventRow], run_key: Callable[[Any], Any]) -> list[RunRow]:
    """The rows, in the order of their key, made runs as an append makes them, each of notification ids that follow
    on too, deflated wherever that makes them shorter; `run_key`, an originator id as the runs' table keeps it."""
    runs: list[tuple[int, Run]] = []  # each run with its last notification id
    for notification_id, originator_id, version, topic, state in rows:
        event = stored_event(originator_id, version, topic, plain_compact(state))
        if runs and runs[-1][0] == notification_id - 1 and runs[-1][1].takes(event):
            runs[-1][1].add(event)
            runs[-1] = (notification_id, runs[-1][1])
        else:
            runs.append((notification_id, Run(event)))
    return [
        (last, run_key(run.originator_id), run.last_version, len(run.events), run.body(deflating=True))
        for last, run in runs
    ]


# A run's row stored by a migration, as it was made: `table` and `values` (its placeholders) filled in.
INSERT_RUN = "INSERT INTO {table} (last_notification_id, originator_id, last_version, events, body) VALUES ({values})"

# A run's row as a repacking first reads it: its last notification id, originator id, last version, events, and
# its body's length and variant.
RunShape = tuple[int, Any, int, int, int, int]


def chains(rows: Sequence[RunShape]) -> list[list[RunShape]]:
    """The runs, in the order of their key, in chains: runs of one aggregate whose versions and notification ids both
    follow on from the run before."""
    found: list[list[RunShape]] = []
    for row in rows:
        last = found[-1][-1] if found else None
        if last is not None and row[1] == last[1] and (row[0] - row[3], row[2] - row[3]) == (last[0], last[2]):
            found[-1].append(row)
        else:
            found.append([row])
    return found


# A single run stored plain from this many bytes is deflated again: below, deflating seldom pays.
DEFLATED_FROM = 256


def worth_repacking(chain: Sequence[RunShape]) -> bool:
    """Whether the chain's runs may be fewer or shorter packed again: several runs, or one of some length stored
    plain."""
    return len(chain) > 1 or (chain[0][5] == RUN_PLAIN and chain[0][4] >= DEFLATED_FROM)


def repacked(chain: Sequence[RunShape], bodies: Mapping[int, bytes]) -> list[RunRow] | None:
    """The chain's events packed again into as few runs as a run's bounds allow, each deflated where that is
    shorter; None where that takes no fewer bytes, or a run of it cannot be read (it is left as it is)."""
    events: list[EventRow] = []
    for last_id, originator_id, last_version, held, _, _ in chain:
        try:
            run = unpack_run(bodies[last_id])
        except CodecError:
            return None
        if len(run) != held:
            return None
        first_id, first_version = last_id - held + 1, last_version - held + 1
        events.extend(
            (first_id + place, originator_id, first_version + place, topic, state)
            for place, (topic, state) in enumerate(run)
        )
    made = runs_from(events, lambda key: key)
    return made if sum(len(run[4]) for run in made) < sum(row[4] for row in chain) else None


def repack_batch_of(shapes: Sequence[RunShape], limit: int) -> tuple[list[RunShape], list[list[RunShape]], bool]:
    """Of runs read in the order of their key (at most `limit`), those a batch looks at: all of them, but for the
    last aggregate's where the read was cut off by the limit and another's came before (they start the next
    batch, so that a chain is not cut); the chains among them worth packing again; and whether the read was cut
    off within one aggregate's runs (its last chain may go on in the next batch)."""
    cut = len(shapes) == limit
    if cut and shapes[0][1] != shapes[-1][1]:
        shapes = [row for row in shapes if row[1] != shapes[-1][1]]
        cut = False
    return list(shapes), [chain for chain in chains(shapes) if worth_repacking(chain)], cut


def repacked_batch(
    shapes: Sequence[RunShape],
    replaced: Sequence[tuple[Sequence[RunShape], list[RunRow]]],
    cut: bool,
    after: Key | None,
) -> Batch:
    """What packing chains of runs again did, as a batch: the runs it looked at, and each replaced run's bytes
    before, with the new runs' bytes after (counted at each chain's first). The next batch goes on after the last
    run looked at; where the read was `cut` within a chain that was packed again, from before that chain, so that
    its new runs take the rest of it on."""
    lengths = []
    for chain, made in replaced:
        lengths.append((chain[0][4], sum(len(run[4]) for run in made)))
        lengths.extend((row[4], 0) for row in chain[1:])
    last = (shapes[-1][1], shapes[-1][2]) if shapes else None
    if cut and replaced and replaced[-1][0][-1] == shapes[-1]:
        first = shapes.index(replaced[-1][0][0])
        last = (shapes[first - 1][1], shapes[first - 1][2]) if first > 0 else after
    return Batch(last, len(shapes), lengths, sum(len(made) for _, made in replaced), repacking=True)


def packed_batch(rows: Sequence[EventRow], runs: Sequence[RunRow]) -> Batch:
    """What moving `rows` into `runs` did, as a batch: each run's bytes shared among its rows."""
    lengths = [(len(row[4]), 0) for row in rows]
    place = 0
    for run in runs:
        lengths[place] = (lengths[place][0], len(run[4]))
        place += run[3]
    last = (rows[-1][1], rows[-1][2]) if rows else None
    return Batch(last, len(rows), lengths, len(runs))


def rewrites(rows: Sequence[Row]) -> list[Rewrite]:
    """Each row `compact` changes, as its new state and its key."""
    found = ((compact(state), originator_id, version, state) for originator_id, version, state in rows)
    return [(new, originator_id, version) for new, originator_id, version, old in found if new != old]


def batch_of(rows: Sequence[Row], rewritten: Sequence[Rewrite]) -> Batch:
    before = {(originator_id, version): len(state) for originator_id, version, state in rows}
    lengths = [(before[(originator_id, version)], len(new)) for new, originator_id, version in rewritten]
    last = (rows[-1][0], rows[-1][1]) if rows else None
    return Batch(last, len(rows), lengths)


class MigrationTarget(Protocol):
    """What a migration asks of a database: its rows not yet compact, a batch of them rewritten, its size."""

    def not_compact(self, table: StoredTable) -> int: ...

    def state_bytes(self, table: StoredTable, column: str = "state") -> int: ...

    def rewrite_batch(self, table: StoredTable, after: Key | None, limit: int) -> Batch: ...

    def rows(self, table: StoredTable) -> int: ...

    def pack_batch(self, table: StoredTable, runs: StoredTable, limit: int) -> Batch: ...

    def repack_batch(self, runs: StoredTable, after: Key | None, limit: int) -> Batch: ...

    def reclaim(self, tables: Sequence[StoredTable], full: bool) -> None: ...

    def size_on_disk(self, tables: Sequence[StoredTable]) -> int: ...

    def close(self) -> None: ...


class SQLiteTarget:
    """A SQLite file, through a connection of its own that commits to disk as the ledger's do."""

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        self.connection = sqlite3.connect(path, timeout=LOCK_TIMEOUT_SECONDS, isolation_level=None)
        self.connection.execute("PRAGMA synchronous=FULL")

    def not_compact(self, table: StoredTable) -> int:
        statement = f"SELECT count(*) FROM {quoted(table)} WHERE substr(state, 1, 1) <> ?"
        return int(self.connection.execute(statement, (COMPACT_MARK,)).fetchone()[0])

    def state_bytes(self, table: StoredTable, column: str = "state") -> int:
        statement = f"SELECT coalesce(sum(length({column})), 0) FROM {quoted(table)}"
        return int(self.connection.execute(statement).fetchone()[0])

    def rewrite_batch(self, table: StoredTable, after: Key | None, limit: int) -> Batch:
        name = quoted(table)
        beyond = "" if after is None else "(originator_id, originator_version) > (?, ?) AND "
        select = (
            f"SELECT originator_id, originator_version, state FROM {name} WHERE {beyond}substr(state, 1, 1) <> ? "
            "ORDER BY originator_id, originator_version LIMIT ?"
        )
        update = f"UPDATE {name} SET state = ? WHERE originator_id = ? AND originator_version = ?"
        with self.transaction():
            rows = self.connection.execute(select, (*(after or ()), COMPACT_MARK, limit)).fetchall()
            rewritten = rewrites(rows)
            self.connection.executemany(update, rewritten)
        return batch_of(rows, rewritten)

    def rows(self, table: StoredTable) -> int:
        return int(self.connection.execute(f"SELECT count(*) FROM {quoted(table)}").fetchone()[0])

    def pack_batch(self, table: StoredTable, runs: StoredTable, limit: int) -> Batch:
        """The first `limit` rows of the events table, in the order of their key, moved into runs."""
        select = (
            f"SELECT rowid, originator_id, originator_version, topic, state FROM {quoted(table)} "
            "ORDER BY originator_id, originator_version LIMIT ?"
        )
        with self.transaction():
            rows = self.connection.execute(select, (limit,)).fetchall()
            made = runs_from(rows, sqlite_run_key)
            self.connection.executemany(f"DELETE FROM {quoted(table)} WHERE rowid = ?", [(row[0],) for row in rows])
            self.connection.executemany(INSERT_RUN.format(table=quoted(runs), values="?, ?, ?, ?, ?"), made)
        return packed_batch(rows, made)

    def repack_batch(self, runs: StoredTable, after: Key | None, limit: int) -> Batch:
        """Runs after the key `after`, at most `limit`, whose chains are packed again into fewer or shorter runs."""
        name = quoted(runs)
        beyond = "" if after is None else "WHERE (originator_id, last_version) > (?, ?) "
        select = (
            f"SELECT last_notification_id, originator_id, last_version, events, length(body), unicode(body) "
            f"FROM {name} {beyond}ORDER BY originator_id, last_version LIMIT ?"
        )
        with self.transaction():
            found = self.connection.execute(select, (*(after or ()), limit)).fetchall()
            shapes, worth, cut = repack_batch_of(found, limit)
            wanted = [(row[0],) for chain in worth for row in chain]
            bodies = {
                last_id: body
                for (last_id,) in wanted
                for (body,) in self.connection.execute(
                    f"SELECT body FROM {name} WHERE last_notification_id = ?", (last_id,)
                )
            }
            replaced = [(chain, made) for chain in worth if (made := repacked(chain, bodies)) is not None]
            gone = [(row[0],) for chain, _ in replaced for row in chain]
            self.connection.executemany(f"DELETE FROM {name} WHERE last_notification_id = ?", gone)
            insert = INSERT_RUN.format(table=name, values="?, ?, ?, ?, ?")
            self.connection.executemany(insert, [run for _, made in replaced for run in made])
        return repacked_batch(shapes, replaced, cut, after)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def reclaim(self, tables: Sequence[StoredTable], full: bool) -> None:
        """VACUUM, then the write-ahead log emptied into the file; only where every table's rowids (the events'
        notification ids) run from 1 without a gap, which VACUUM, copying rows in rowid order, keeps as they are
        even where it numbers them again (SQLite says it may, for a table without an INTEGER PRIMARY KEY, as the
        library's events table is). The rows' places are compared before and after: a change is reported."""
        numbered = [table for table in tables if self.has_rowids(table)]
        if not all(self.without_gaps(table) for table in numbered):
            return
        before = [self.places(table) for table in numbered]
        self.connection.execute("VACUUM")
        self.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if [self.places(table) for table in numbered] != before:
            raise StoreUnusable(f"{self.path}: VACUUM changed the events' notification ids: restore it from a copy")

    def has_rowids(self, table: StoredTable) -> bool:
        found = self.connection.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table.name,)
        )
        row = found.fetchone()
        return row is not None and "WITHOUT ROWID" not in str(row[0]).upper()

    def without_gaps(self, table: StoredTable) -> bool:
        statement = f"SELECT count(*), coalesce(max(rowid), 0) FROM {quoted(table)}"
        count, last = self.connection.execute(statement).fetchone()
        return bool(count == last)

    def places(self, table: StoredTable) -> str:
        """A digest of each row's rowid with its key, in rowid order."""
        rows = self.connection.execute(
            f"SELECT rowid, originator_id, originator_version FROM {quoted(table)} ORDER BY rowid"
        )
        digest = hashlib.sha256()
        for rowid, originator_id, originator_version in rows:
            digest.update(f"{rowid} {originator_id} {originator_version}\n".encode())
        return digest.hexdigest()

    def size_on_disk(self, tables: Sequence[StoredTable]) -> int:
        return sqlite_file_size(self.path)

    def close(self) -> None:
        self.connection.close()


def sqlite_run_key(originator_id: str) -> bytes | str:
    """An originator id as the packed form keeps it on SQLite: a UUID's 16 bytes (the events table keeps its 32 hex
    digits), other text as it is."""
    try:
        return bytes.fromhex(originator_id) if len(originator_id) == 32 else originator_id
    except ValueError:
        return originator_id


def sqlite_file_size(path: Path) -> int:
    """A SQLite file's bytes with its write-ahead log's."""
    wal = path.with_name(f"{path.name}-wal")
    return sum(found.stat().st_size for found in (path, wal) if found.exists())


def quoted(table: StoredTable) -> str:
    return '"' + table.name.replace('"', '""') + '"'


class PostgresTarget:
    """A PostgreSQL database, through a connection of its own."""

    def __init__(self, database: str) -> None:
        self.connection = psycopg.connect(**connection_options(database), autocommit=True)

    def not_compact(self, table: StoredTable) -> int:
        statement = SQL("SELECT count(*) FROM {0} WHERE substring(state FROM 1 FOR 1) <> %s").format(qualified(table))
        return int(self.scalar(statement, (COMPACT_MARK,)))

    def state_bytes(self, table: StoredTable, column: str = "state") -> int:
        statement = SQL("SELECT coalesce(sum(octet_length({0})), 0) FROM {1}").format(
            Identifier(column), qualified(table)
        )
        return int(self.scalar(statement))

    def scalar(self, statement: SQL | Composed, params: Sequence[Any] = ()) -> Any:
        row = self.connection.execute(statement, params).fetchone()
        assert row is not None  # an aggregate gives one row
        return row[0]

    def rewrite_batch(self, table: StoredTable, after: Key | None, limit: int) -> Batch:
        beyond = SQL("" if after is None else "(originator_id, originator_version) > (%s, %s) AND ")
        select = SQL(
            "SELECT originator_id, originator_version, state FROM {table} "
            "WHERE {beyond}substring(state FROM 1 FOR 1) <> %s "
            "ORDER BY originator_id, originator_version LIMIT %s FOR UPDATE"
        ).format(table=qualified(table), beyond=beyond)
        update = SQL("UPDATE {0} SET state = %s WHERE originator_id = %s AND originator_version = %s").format(
            qualified(table)
        )
        with self.connection.transaction(), self.connection.cursor() as cursor:
            cursor.execute(select, (*(after or ()), COMPACT_MARK, limit))
            rows = [(originator_id, version, bytes(state)) for originator_id, version, state in cursor.fetchall()]
            rewritten = rewrites(rows)
            cursor.executemany(update, rewritten)
        return batch_of(rows, rewritten)

    def rows(self, table: StoredTable) -> int:
        return int(self.scalar(SQL("SELECT count(*) FROM {0}").format(qualified(table))))

    def pack_batch(self, table: StoredTable, runs: StoredTable, limit: int) -> Batch:
        """The first `limit` rows of the events table, in the order of their key, moved into runs; the runs' table
        locked as an append locks it, so that appends wait for the batch."""
        select = SQL(
            "SELECT notification_id, originator_id, originator_version, topic, state FROM {0} "
            "ORDER BY originator_id, originator_version LIMIT %s FOR UPDATE"
        ).format(qualified(table))
        delete = SQL("DELETE FROM {0} WHERE notification_id = ANY(%s)").format(qualified(table))
        with self.runs_locked(runs) as cursor:
            cursor.execute(select, (limit,))
            rows = [(nid, key, version, topic, bytes(state)) for nid, key, version, topic, state in cursor.fetchall()]
            made = runs_from(rows, lambda key: key)
            cursor.executemany(postgres_insert_run(runs), made)
            cursor.execute(delete, ([row[0] for row in rows],))
        return packed_batch(rows, made)

    def repack_batch(self, runs: StoredTable, after: Key | None, limit: int) -> Batch:
        """Runs after the key `after`, at most `limit`, whose chains are packed again into fewer or shorter runs; the
        runs' table locked as an append locks it."""
        beyond = SQL("" if after is None else "WHERE (originator_id, last_version) > (%s, %s) ")
        select = SQL(
            "SELECT last_notification_id, originator_id, last_version, events, octet_length(body), "
            "get_byte(body, 0) FROM {table} {beyond}ORDER BY originator_id, last_version LIMIT %s"
        ).format(table=qualified(runs), beyond=beyond)
        bodies_of = SQL("SELECT last_notification_id, body FROM {0} WHERE last_notification_id = ANY(%s)").format(
            qualified(runs)
        )
        delete = SQL("DELETE FROM {0} WHERE last_notification_id = ANY(%s)").format(qualified(runs))
        with self.runs_locked(runs) as cursor:
            cursor.execute(select, (*(after or ()), limit))
            shapes, worth, cut = repack_batch_of(cursor.fetchall(), limit)
            cursor.execute(bodies_of, ([row[0] for chain in worth for row in chain],))
            bodies = {last_id: bytes(body) for last_id, body in cursor.fetchall()}
            replaced = [(chain, made) for chain in worth if (made := repacked(chain, bodies)) is not None]
            cursor.execute(delete, ([row[0] for chain, _ in replaced for row in chain],))
            cursor.executemany(postgres_insert_run(runs), [run for _, made in replaced for run in made])
        return repacked_batch(shapes, replaced, cut, after)

    @contextmanager
    def runs_locked(self, runs: StoredTable) -> Iterator[psycopg.Cursor[Any]]:
        """A cursor in a transaction that holds the runs' table locked as an append locks it, so that appends wait
        for the batch."""
        with self.connection.transaction(), self.connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", (f"{LOCK_TIMEOUT_SECONDS}s",))
            cursor.execute(SQL("LOCK TABLE {0} IN EXCLUSIVE MODE").format(qualified(runs)))
            yield cursor

    def reclaim(self, tables: Sequence[StoredTable], full: bool) -> None:
        names = SQL(", ").join(qualified(table) for table in tables)
        self.connection.execute(SQL("VACUUM (FULL) {0}" if full else "VACUUM {0}").format(names))

    def size_on_disk(self, tables: Sequence[StoredTable]) -> int:
        """The tables' bytes on disk, their indexes and TOAST included."""
        statement = SQL("SELECT coalesce(pg_total_relation_size(to_regclass(%s)), 0)")
        names = [qualified(table).as_string(self.connection) for table in tables]
        return sum(int(self.scalar(statement, (name,))) for name in names)

    def close(self) -> None:
        self.connection.close()


def postgres_insert_run(runs: StoredTable) -> Composed:
    return SQL(INSERT_RUN).format(table=qualified(runs), values=SQL("%s, %s, %s, %s, %s"))


def qualified(table: StoredTable) -> Identifier:
    return Identifier(table.schema, table.name) if table.schema else Identifier(table.name)


def opened_target(settings: Settings) -> MigrationTarget:
    if settings.is_postgres:
        return PostgresTarget(settings.database)
    return SQLiteTarget(settings.database)


@contextmanager
def used(settings: Settings, doing: str) -> Iterator[None]:
    """A database error raised as StoreUnusable, naming the store and what was being done."""
    try:
        yield
    except DATABASE_ERRORS as error:
        raise StoreUnusable(f"{settings.described}: cannot {doing}: {reason_in(error)}") from error


class Migration:
    """The rows of a store's `tables` not yet compact, rewritten compact a batch of `batch_rows` a transaction; where
    the store keeps `runs`, the first table's rows (the events') moved into them instead. `progress`, how far the
    last run went."""

    def __init__(
        self,
        settings: Settings,
        tables: Sequence[StoredTable],
        batch_rows: int = BATCH_ROWS,
        runs: StoredTable | None = None,
    ) -> None:
        if batch_rows < 1:
            raise ValueError(f"a batch holds at least one row, not {batch_rows}")
        self.settings, self.tables, self.batch_rows, self.runs = settings, list(tables), batch_rows, runs
        self.progress = Progress(0)
        with used(settings, "be opened"):
            self.target = opened_target(settings)

    def __enter__(self) -> Migration:
        return self

    def __exit__(self, *raised: object) -> None:
        self.target.close()

    def not_compact(self) -> int:
        """The rows a run looks at: every row of the events table where they move into runs, and every other row
        whose state is not compact."""
        with used(self.settings, "be read"):
            return sum(self.to_look_at(table) for table in self.tables)

    def to_look_at(self, table: StoredTable) -> int:
        return self.target.rows(table) if self.packs(table) else self.target.not_compact(table)

    def packs(self, table: StoredTable) -> bool:
        """Whether the table's rows are moved into runs (the events table, of a store in the packed form)."""
        return self.runs is not None and table == self.tables[0]

    def state_bytes(self) -> int:
        """The bytes of every row's state, and of every run's body."""
        with used(self.settings, "be read"):
            runs = [] if self.runs is None else [self.target.state_bytes(self.runs, "body")]
            return sum(self.target.state_bytes(table) for table in self.tables) + sum(runs)

    def size_on_disk(self) -> int:
        """The SQLite file's bytes (with its write-ahead log's), or the PostgreSQL tables' (the runs' among them)."""
        with used(self.settings, "be read"):
            return self.target.size_on_disk([*self.tables, *([self.runs] if self.runs else [])])

    def run(self, after_batch: Callable[[Progress], None] = lambda _: None, to_do: int | None = None) -> Progress:
        """Every row of the events table moved into runs, where the store keeps them, and every other row not
        compact rewritten compact (or left keyed, of a shape `compact` does not know), table by table in the order
        of its key; `after_batch` is told the progress after each batch is committed. `to_do`: the rows to look at
        (`not_compact`), if they were just counted."""
        self.progress = Progress(self.not_compact() if to_do is None else to_do)
        with used(self.settings, "be rewritten"):
            for table in self.tables:
                self.run_table(table, self.progress, after_batch)
        return self.progress

    def runs_stored(self) -> int:
        """The runs a repacking looks at (none where the store keeps no runs)."""
        with used(self.settings, "be read"):
            return 0 if self.runs is None else self.target.rows(self.runs)

    def repack(self, after_batch: Callable[[Progress], None] = lambda _: None, to_do: int | None = None) -> Progress:
        """Every chain of runs packed again where that takes fewer bytes, a batch of `batch_rows` runs a
        transaction in the order of their key: the runs of a game recorded a save a run, whose saves no other
        game's came between, become runs as long as an import's. `to_do`: the runs, if they were just counted."""
        self.progress = progress = Progress(self.runs_stored() if to_do is None else to_do, repacking=True)
        if self.runs is None:
            return progress
        after: Key | None = None
        with used(self.settings, "be packed again"):
            while True:
                batch = self.target.repack_batch(self.runs, after, self.batch_rows)
                if batch.looked_at == 0:
                    return progress
                counted(progress, batch)
                after_batch(progress)
                after = batch.last

    def run_table(self, table: StoredTable, progress: Progress, after_batch: Callable[[Progress], None]) -> None:
        after: Key | None = None
        while True:
            if self.runs is not None and self.packs(table):
                batch = self.target.pack_batch(table, self.runs, self.batch_rows)
            else:
                batch = self.target.rewrite_batch(table, after, self.batch_rows)
            if batch.last is None:
                return
            counted(progress, batch)
            after_batch(progress)
            after = batch.last

    def reclaim(self, full: bool = False) -> None:
        """The space the rewritten rows left, given back with VACUUM (VACUUM FULL on PostgreSQL if `full`)."""
        with used(self.settings, "be vacuumed"):
            self.target.reclaim(self.tables, full)


def counted(progress: Progress, batch: Batch) -> None:
    progress.looked_at += batch.looked_at
    if batch.repacking:
        progress.repacked += len(batch.lengths)
        progress.repacked_into += batch.runs
    elif batch.runs:
        progress.packed += batch.looked_at
        progress.runs += batch.runs
    else:
        progress.rewritten += len(batch.lengths)
        progress.left_keyed += batch.looked_at - len(batch.lengths)
    progress.bytes_before += sum(before for before, _ in batch.lengths)
    progress.bytes_after += sum(after for _, after in batch.lengths)


def missing_sqlite_file(settings: Settings) -> str | None:
    """Why the SQLite file `settings` names cannot be rewritten as it is not there, if it is not."""
    path = Path(settings.database)
    if path.is_file():
        return None
    if path.is_dir():
        return "it is a folder"
    if not path.parent.is_dir():
        return f"there is no folder {path.parent}"
    return "there is no such file"


def copy_sqlite(settings: Settings, into: Path) -> Settings:
    """The SQLite store `settings` names copied into the new file `into` (page by page, every rowid kept),
    the original only read; the settings of the copy. An existing `into` is refused."""
    if settings.is_postgres:
        raise StoreUnusable(f"--into {into}: a SQLite file is copied into a new one, not a {settings.described}")
    if (missing := missing_sqlite_file(settings)) is not None:
        raise StoreUnusable(f"{settings.described}: cannot be copied: {missing}")
    if into.exists():
        raise StoreUnusable(f"--into {into}: exists already: the rewritten copy goes into a new file")
    if not into.parent.is_dir():
        raise StoreUnusable(f"--into {into}: cannot write there: there is no folder {into.parent}")
    source = sqlite3.connect(read_only_uri(Path(settings.database)), uri=True, timeout=LOCK_TIMEOUT_SECONDS)
    try:
        with closing(source), closing(sqlite3.connect(into)) as copy:
            source.backup(copy)  # page by page: every rowid (notification id) as it is
    except sqlite3.Error as error:
        into.unlink(missing_ok=True)
        raise StoreUnusable(f"{settings.described}: cannot be copied: {problem_of(settings, error)}") from None
    return replace(settings, database=str(into))


def read_only_uri(path: Path) -> str:
    return f"{path.resolve().as_uri()}?mode=ro"
