"""The packed stored form: each append's events of one aggregate kept as a run in one row (`evo_ledger.store.runs`),
behind the library's recorder interface, on SQLite and PostgreSQL.

A row holds a run of consecutive versions and of consecutive notification ids: its last version, its last
notification id and how many events it holds (`events`) name the rest. An append holds the write lock as it reads
(on SQLite, one statement stores each run and reads the last notification id; on PostgreSQL, a stored function
takes the runs table's exclusive lock first), numbers its events after the last stored, and is refused (the
library's IntegrityError) where a version it brings is stored already (on SQLite by a trigger on the runs table, on
PostgreSQL by the function), so that two writers who read the same version cannot both append after it, and
notification ids follow the order of commits.

Rows of the one-row-an-event table (the keyed and compact forms, and every store made before this form) are read
beside the runs, in the same statement: a store part way through its migration (`evo_ledger.store.migration`) reads
whole at every moment, each event under the notification id it was stored with.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import Any
from uuid import UUID

from eventsourcing.persistence import (
    AggregateRecorder,
    ApplicationRecorder,
    IntegrityError,
    InterfaceError,
    Notification,
    OperationalError,
    StoredEvent,
)
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore
from eventsourcing.utils import retry
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from evo_ledger.game.codec import COMPACT_MARK, DEFLATED, MAX_INFLATED, CodecError
from evo_ledger.store.fast_paths import (
    BigintArray,
    ByteaArray,
    PreparedCall,
    TextArray,
    UuidArray,
    dashed,
    notification,
    stored_event,
)
from evo_ledger.store.recorders import (
    DurableSQLiteFactory,
    LedgerPostgresApplicationRecorder,
    LedgerPostgresFactory,
    LedgerSQLiteApplicationRecorder,
    runs_table_name,
)
from evo_ledger.store.runs import RUN_BYTES, RUN_EVENTS, damaged, pack_run, unpack_run

__all__ = [
    "PackedPostgresFactory",
    "PackedPostgresRecorder",
    "PackedSQLiteFactory",
    "PackedSQLiteRecorder",
    "Run",
    "runs_of",
]


# Once a store keeps runs, no row is added to its one-row-an-event table: a server of a form that appends such rows,
# started before the runs were, would number its events after that table's last alone, and never see a run's
# versions. A trigger refuses its append, saying why.
GUARD_MESSAGE = (
    "this store keeps its events in runs (the packed form): a server that stores one row an event cannot append to "
    "it; stop that server, and serve the store with a version that reads runs, EVO_LEDGER_STORED_FORM unset"
)


VERSIONS_ONCE_MESSAGE = "one of the versions of this run is stored already"


# A UUID's text, as SQLite's GLOB matches it.
UUID_TEXT_PATTERN = "-".join("[0-9a-fA-F]" * digits for digits in (8, 4, 4, 4, 12))


def versions_once_name(runs_table_name: str) -> str:
    """The trigger that refuses a run one of whose versions is stored already."""
    return f"{runs_table_name}_versions_once"


def guard_name(events_table_name: str) -> str:
    """The trigger that refuses a row added to the one-row-an-event table of a store that keeps runs."""
    return f"{events_table_name}_kept_in_runs"


class Run:
    """Consecutive events of one aggregate, appended together."""

    __slots__ = ("events", "originator_id", "size")

    def __init__(self, first: StoredEvent) -> None:
        self.originator_id: UUID | str = first.originator_id
        self.events = [first]
        self.size = 0

    def takes(self, event: StoredEvent) -> bool:
        """Whether the event follows on in this run: the next version of its aggregate, within the run's bounds."""
        last = self.events[-1]
        return (
            len(self.events) < RUN_EVENTS
            and self.size + plain_size(event.state) <= RUN_BYTES
            and event.originator_id == self.originator_id
            and event.originator_version == last.originator_version + 1
        )

    def add(self, event: StoredEvent) -> None:
        self.events.append(event)
        self.size += plain_size(event.state)

    @property
    def last_version(self) -> int:
        return int(self.events[-1].originator_version)

    def body(self, deflating: bool = False) -> bytes:
        return pack_run([(event.topic, event.state) for event in self.events], deflating)


def plain_size(state: bytes) -> int:
    """The most bytes a state takes in a run: a state deflated on its own inflates to MAX_INFLATED at most."""
    return MAX_INFLATED if state[:2] == COMPACT_MARK + DEFLATED else len(state)


def runs_of(appended: Sequence[StoredEvent]) -> list[Run]:
    """The events in runs, in the order given (a version stored twice, within them or before them, the database
    refuses: the SQLite runs table's trigger, the PostgreSQL append function)."""
    runs: list[Run] = []
    for event in appended:
        if runs and runs[-1].takes(event):
            runs[-1].add(event)
        else:
            runs.append(Run(event))
    return runs


# A row read: its last notification id (None where not asked), its originator id, its last version, the events it
# holds (0: a row of the one-row-an-event table), its body (or state) and its topic (that table's rows only).
Row = tuple[Any, Any, int, int, bytes, str | None]


def unpacked(rows: Iterable[Row], identify: Callable[[Any], Any]) -> list[Any]:
    """Each event of the rows: a notification where the row's notification id was read, a stored event where it
    was not; its originator id `identify` made of the row's. A run that cannot be read gives each of its events
    a state that says so, which decoding refuses with the reason (an audit names the first it meets)."""
    found: list[Any] = []
    for last_id, row_originator, last_version, events, body, topic in rows:
        originator = identify(row_originator)
        if events == 0:
            found.append(made(last_id, originator, last_version, str(topic), bytes(body)))
            continue
        first_version = last_version - events + 1
        run = enumerate(run_events(bytes(body), events))
        if last_id is None:
            found.extend([stored_event(originator, first_version + place, *event) for place, event in run])
        else:
            first_id = last_id - events + 1
            found.extend(
                [notification(first_id + place, originator, first_version + place, *event) for place, event in run]
            )
    return found


def as_given(originator_id: Any) -> Any:
    return originator_id


def run_events(body: bytes, events: int) -> list[tuple[str, bytes]]:
    """A run's events, or as many events that each say why the run cannot be read."""
    try:
        run = unpack_run(body)
    except CodecError as error:
        return [("", damaged(str(error)))] * events
    if len(run) != events:
        return [("", damaged(f"its row says it holds {events} events and it holds {len(run)}"))] * events
    return run


def made(event_id: int | None, originator_id: Any, version: int, topic: str, state: bytes) -> Any:
    if event_id is None:
        return stored_event(originator_id, version, topic, state)
    return notification(event_id, originator_id, version, topic, state)


def within(
    events: list[StoredEvent], gt: int | None, lte: int | None, desc: bool, limit: int | None
) -> list[StoredEvent]:
    """The events of versions after `gt` and up to `lte`, in order of version (descending where `desc`), the
    first `limit` of them; `events` as the rows give them: in order of version, or in descending order of run."""
    if gt is not None or lte is not None:
        low, high = gt if gt is not None else -1, lte if lte is not None else float("inf")
        events = [event for event in events if low < event.originator_version <= high]
    if desc:
        events.sort(key=lambda event: event.originator_version, reverse=True)
    return events[:limit]


def log_page(
    rows_from: Callable[[int | None], list[Row]],
    start: int | None,
    stop: int | None,
    topics: Sequence[str],
    limit: int,
    identify: Callable[[Any], Any],
) -> list[Notification]:
    """Up to `limit` events of the log from `start` to `stop`, of `topics` if any are named, read a page of rows at
    a time from `rows_from` (the rows from a notification id on, `limit` at most), their originator ids `identify`
    made of the rows'."""
    found: list[Notification] = []
    while len(found) < limit:
        rows = rows_from(start)
        found.extend(page_of(unpacked(rows, identify), start, stop, topics, limit - len(found)))
        if len(rows) < limit:
            break
        start = int(rows[-1][0]) + 1
    return found


def page_of(
    events: list[Notification], start: int | None, stop: int | None, topics: Sequence[str], limit: int
) -> list[Notification]:
    wanted = set(topics)
    return [
        event
        for event in events
        if (start is None or event.id >= start)
        and (stop is None or event.id <= stop)
        and (not wanted or event.topic in wanted)
    ][:limit]


class PackedSQLiteRecorder(LedgerSQLiteApplicationRecorder):
    """The packed form on SQLite: originator ids as 16 bytes (text where the store names aggregates by text)."""

    def __init__(self, datastore: SQLiteDatastore, events_table_name: str = "stored_events") -> None:
        self.runs_table_name = runs_table_name(events_table_name)
        super().__init__(datastore, events_table_name)

    def construct_create_table_statements(self) -> list[str]:
        id_type = "BLOB" if self.datastore.originator_id_type == "uuid" else "TEXT"
        return [
            *super().construct_create_table_statements(),
            f"CREATE TABLE IF NOT EXISTS {self.runs_table_name} (last_notification_id INTEGER PRIMARY KEY, "
            f"originator_id {id_type} NOT NULL, last_version INTEGER NOT NULL, events INTEGER NOT NULL, "
            "body BLOB NOT NULL)",
            f"CREATE UNIQUE INDEX IF NOT EXISTS {self.runs_table_name}_versions "
            f"ON {self.runs_table_name} (originator_id, last_version)",
            f"CREATE TRIGGER IF NOT EXISTS {guard_name(self.events_table_name)} BEFORE INSERT ON "
            f"{self.events_table_name} BEGIN SELECT RAISE(ABORT, '{GUARD_MESSAGE}'); END",
            self.versions_once_statement,
        ]

    @property
    def versions_once_statement(self) -> str:
        """The trigger that refuses a run one of whose versions is stored already, in a run or an event's row (a
        store part way through its migration): whoever writes it, every version is stored once. A trigger, not
        conditions of the append statement: an INSERT that selects from its own table copies its row through a
        temporary table first (pays for: bench.stored_size appends, the packed form)."""
        runs, events = self.runs_table_name, self.events_table_name
        if self.datastore.originator_id_type == "uuid":
            event_keys = "lower(hex(NEW.originator_id))"
        else:  # a UUID given as itself is kept as its 32 hex digits in the events table, its text in a run's row
            event_keys = (
                f"NEW.originator_id, CASE WHEN NEW.originator_id GLOB '{UUID_TEXT_PATTERN}' "
                "THEN lower(replace(NEW.originator_id, '-', '')) END"
            )
        return (
            f"CREATE TRIGGER IF NOT EXISTS {versions_once_name(runs)} BEFORE INSERT ON {runs} "
            f"WHEN EXISTS (SELECT 1 FROM {runs} WHERE originator_id = NEW.originator_id "
            "AND last_version > NEW.last_version - NEW.events AND last_version - events < NEW.last_version) "
            f"OR EXISTS (SELECT 1 FROM {events} WHERE originator_id IN ({event_keys}) "
            "AND originator_version > NEW.last_version - NEW.events AND originator_version <= NEW.last_version) "
            f"BEGIN SELECT RAISE(ABORT, '{VERSIONS_ONCE_MESSAGE}'); END"
        )

    def create_table(self) -> None:
        """The tables made as the library makes them, in a transaction that takes the write lock first: several
        processes opening the store at once each wait for it, where a transaction that read first is refused."""
        with self.datastore.get_connection(commit=True) as connection:
            cursor = connection.cursor()
            cursor.execute("BEGIN IMMEDIATE")
            try:
                for statement in self.create_table_statements:
                    cursor.execute(statement)
            except BaseException:
                connection.rollback()
                raise
            connection.commit()

    def run_key(self, originator_id: UUID | str) -> bytes | str:
        if self.datastore.originator_id_type == "uuid":
            return originator_id.bytes if isinstance(originator_id, UUID) else UUID(originator_id).bytes
        return str(originator_id)

    def event_key(self, originator_id: UUID | str) -> str:
        """An originator id as the one-row-an-event table keeps it: a UUID's 32 hex digits, other text as it is."""
        if isinstance(originator_id, UUID):
            return originator_id.hex
        return UUID(originator_id).hex if self.datastore.originator_id_type == "uuid" else originator_id

    def originator_of(self, key: bytes | str) -> UUID | str:
        """An originator id as a run keeps it (16 bytes) or an event row (32 hex digits), as the library gives it."""
        return UUID(bytes=key) if isinstance(key, bytes) else self.convert_originator_id(key)

    def originator_text(self, key: bytes | str) -> str:
        """An originator id as a run or an event row keeps it, as text in a UUID's usual form."""
        if isinstance(key, bytes):
            return str(UUID(bytes=key))
        return dashed(key) if self.datastore.originator_id_type == "uuid" else key

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        """Each run appended by one statement, numbered after the last notification id (the statement writes
        first, so it holds the write lock as it reads); the table's trigger refuses a run one of whose versions is
        stored already."""
        runs = runs_of(stored_events)
        ids: list[int] = []
        with self.datastore.transaction(commit=True) as cursor:
            for run in runs:
                appended = (len(run.events), self.run_key(run.originator_id), run.last_version, run.body())
                try:
                    cursor.execute(self.append_statement, appended)
                except sqlite3.IntegrityError as error:
                    first = run.last_version - len(run.events) + 1
                    stored = f"versions {first} to {run.last_version} of {run.originator_id}: {error}"
                    raise IntegrityError(stored) from error
                last_id = int(cursor.lastrowid)
                ids.extend(range(last_id - len(run.events) + 1, last_id + 1))
        return ids

    @cached_property
    def append_statement(self) -> str:
        runs, events = self.runs_table_name, self.events_table_name
        return (
            f"INSERT INTO {runs} (last_notification_id, originator_id, last_version, events, body) "
            f"VALUES (max(coalesce((SELECT max(last_notification_id) FROM {runs}), 0), "
            f"coalesce((SELECT max(rowid) FROM {events}), 0)) + ?1, ?2, ?3, ?1, ?4)"
        )

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        runs_where, events_where = "", ""
        params: list[Any] = [self.run_key(originator_id)]
        event_params: list[Any] = [self.event_key(originator_id)]
        if gt is not None:
            runs_where += " AND last_version > ?"
            events_where += " AND originator_version > ?"
            params.append(gt)
            event_params.append(gt)
        if lte is not None:  # a run's last version is within RUN_EVENTS of its first: an index bound
            runs_where += " AND last_version - events < ? AND last_version < ?"
            events_where += " AND originator_version <= ?"
            params.extend([lte, lte + RUN_EVENTS])
            event_params.append(lte)
        statement = (
            f"SELECT NULL, NULL, last_version, events, body, NULL FROM {self.runs_table_name} "
            f"WHERE originator_id = ?{runs_where} UNION ALL "
            f"SELECT NULL, NULL, originator_version, 0, state, topic FROM {self.events_table_name} "
            f"WHERE originator_id = ?{events_where} ORDER BY 3 {'DESC' if desc else 'ASC'}"
        )
        if limit is not None:
            statement += " LIMIT ?"
            event_params.append(limit)
        given = originator_id if isinstance(originator_id, UUID) else self.convert_originator_id(originator_id)
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement, [*params, *event_params])
            rows = cursor.fetchall()
        return within(unpacked(map(tuple, rows), lambda _: given), gt, lte, desc, limit)

    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        first = None if start is None else start if inclusive_of_start else start + 1
        return self.notifications_from(first, limit, stop, topics, self.originator_of)

    def select_notifications_after(self, position: int, limit: int) -> list[Notification]:
        """A page of the log after `position`, each originator id as text in a UUID's usual form, as the read
        tables want it."""
        return self.notifications_from(position + 1, limit, None, (), self.originator_text)

    def notifications_from(
        self, start: int | None, limit: int, stop: int | None, topics: Sequence[str], identify: Callable[[Any], Any]
    ) -> list[Notification]:
        """Up to `limit` events from `start` to `stop`, of `topics` if any are named, their originator ids
        `identify` made of the rows'."""
        return log_page(lambda first: self.rows_from(first, limit, stop, topics), start, stop, topics, limit, identify)

    def rows_from(self, start: int | None, limit: int, stop: int | None, topics: Sequence[str]) -> list[Row]:
        runs_where, events_where = ["1"], ["1"]
        runs_params: list[Any] = []
        events_params: list[Any] = []
        if start is not None:
            runs_where.append("last_notification_id >= ?")
            events_where.append("rowid >= ?")
            runs_params.append(start)
            events_params.append(start)
        if stop is not None:  # a run's last notification id is within RUN_EVENTS of its first: an index bound
            runs_where.append("last_notification_id - events < ? AND last_notification_id < ?")
            events_where.append("rowid <= ?")
            runs_params.extend([stop, stop + RUN_EVENTS])
            events_params.append(stop)
        if topics:
            events_where.append(f"topic IN ({','.join('?' * len(topics))})")
            events_params.extend(topics)
        statement = (
            f"SELECT last_notification_id, originator_id, last_version, events, body, NULL FROM {self.runs_table_name} "
            f"WHERE {' AND '.join(runs_where)} UNION ALL "
            f"SELECT rowid, originator_id, originator_version, 0, state, topic FROM {self.events_table_name} "
            f"WHERE {' AND '.join(events_where)} ORDER BY 1 LIMIT ?"
        )
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement, [*runs_params, *events_params, limit])
            return [tuple(row) for row in cursor.fetchall()]

    def max_notification_id(self) -> int:
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(
                f"SELECT max(coalesce((SELECT max(last_notification_id) FROM {self.runs_table_name}), 0), "
                f"coalesce((SELECT max(rowid) FROM {self.events_table_name}), 0))"
            )
            last = cursor.fetchone()[0]
        return int(last) or None  # type: ignore[return-value]  # the library's gives None for an empty log


APPEND_RUNS_STATEMENT = b"evo_ledger_append_runs"


class PackedPostgresRecorder(LedgerPostgresApplicationRecorder):
    """The packed form on PostgreSQL: a batch of runs appended by one call of a stored function that takes the
    runs' table lock, checks no version is stored already, notifies and inserts."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        self.runs_table_name = runs_table_name(self.events_table_name)
        schema = Identifier(datastore.schema)
        names = {
            "schema": schema,
            "runs": Identifier(self.runs_table_name),
            "events": Identifier(self.events_table_name),
            "versions": Identifier(f"{self.runs_table_name}_versions"),
            "function": Identifier(f"{self.channel_name}_append_runs"),
            "guard": Identifier(guard_name(self.events_table_name)),
            "message": SQL(GUARD_MESSAGE.replace("'", "''")),
            "id_type": SQL(datastore.originator_id_type),
            "channel": Identifier(self.channel_name),
        }
        self.sql_create_statements.extend(statement.format(**names) for statement in POSTGRES_CREATE)
        self.runs_call = PreparedCall(
            APPEND_RUNS_STATEMENT,
            SQL("SELECT {schema}.{function}($1, $2, $3, $4, $5)").format(**names).as_bytes(None),
            [
                (TextArray if datastore.originator_id_type == "text" else UuidArray).array_oid,
                BigintArray.array_oid,
                BigintArray.array_oid,
                ByteaArray.array_oid,
                25,
            ],
        )
        self.names = names
        self.statements: dict[str | tuple[Any, ...], bytes] = {
            name: statement.format(**names).as_bytes(None) for name, statement in POSTGRES_READS.items()
        }

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        runs = runs_of(stored_events)
        columns = [
            self._ids([run.originator_id for run in runs]).data,
            BigintArray([run.last_version for run in runs]).data,
            BigintArray([len(run.events) for run in runs]).data,
            ByteaArray([run.body() for run in runs]).data,
            f"{self.datastore.lock_timeout}s".encode(),
        ]
        with self.datastore.get_connection() as connection:
            [first] = self.runs_call.run(connection, columns)
        return list(range(first, first + len(stored_events)))

    def key_of(self, originator_id: UUID | str) -> UUID | str:
        if isinstance(originator_id, str) and self.datastore.originator_id_type == "uuid":
            return UUID(originator_id)
        return originator_id

    def rows(self, statement: str | tuple[Any, ...], params: dict[str, Any]) -> list[Row]:
        """The rows a statement gives: one of POSTGRES_READS by name, or one made for a shape of query (rendered once
        for each shape, so that each is planned for the conditions it has)."""
        query = self.statements.get(statement)
        if query is None:
            shape = statement if isinstance(statement, tuple) else (statement,)
            query = self.statements[statement] = read_query(shape).format(**self.names).as_bytes(None)
        with self.datastore.get_connection() as connection, connection.cursor(row_factory=tuple_row) as cursor:
            cursor.execute(query, params, prepare=True, binary=True)
            return cursor.fetchall()

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        key = self.key_of(originator_id)
        shape = ("events", gt is not None, lte is not None, desc, limit is not None)
        rows = self.rows(shape, {"id": key, "gt": gt, "lte": lte, "limit": limit, "runs": RUN_EVENTS})
        return within(unpacked(rows, lambda _: key), gt, lte, desc, limit)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_notifications(
        self,
        start: int | None,
        limit: int,
        stop: int | None = None,
        topics: Sequence[str] = (),
        *,
        inclusive_of_start: bool = True,
    ) -> Sequence[Notification]:
        first = None if start is None else start if inclusive_of_start else start + 1

        def rows_from(start: int | None) -> list[Row]:
            shape = ("log", start is not None, stop is not None, bool(topics))
            params = {"start": start, "stop": stop, "topics": list(topics), "limit": limit, "runs": RUN_EVENTS}
            return self.rows(shape, params)

        return log_page(rows_from, first, stop, topics, limit, as_given)

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def max_notification_id(self) -> int | None:
        [(last, *_)] = self.rows("last", {})
        return int(last) or None

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def select_changed_since(self, position: int | None, topics: Sequence[str]) -> tuple[int, set[UUID]]:
        """As `evo_ledger.store.recorders.changed_since` answers, from one statement."""
        rows = self.rows("changed", {"position": position, "topics": list(topics)})
        last = int(rows[-1][0])
        if position is None or position >= last:
            return last, set()
        run_rows: list[Any] = [row[1:] for row in rows[:-1]]
        changed = page_of(unpacked(run_rows, as_given), position + 1, last, topics, len(rows) * RUN_EVENTS)
        return last, {UUID(str(event.originator_id)) for event in changed}


# The advisory lock under which one server at a time makes the store's tables (a number of its own, chosen once).
CREATING_TABLES = 0x65766F6C  # "evol"

POSTGRES_CREATE: tuple[SQL, ...] = (
    SQL(
        "CREATE OR REPLACE FUNCTION {schema}.{guard}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "RAISE EXCEPTION '{message}' USING ERRCODE = 'object_not_in_prerequisite_state'; END $$"
    ),
    SQL(
        "CREATE OR REPLACE TRIGGER {guard} BEFORE INSERT ON {schema}.{events} "
        "FOR EACH STATEMENT EXECUTE FUNCTION {schema}.{guard}()"
    ),
    SQL(
        "CREATE TABLE IF NOT EXISTS {schema}.{runs} (last_notification_id bigint PRIMARY KEY, "
        "last_version bigint NOT NULL, originator_id {id_type} NOT NULL, events bigint NOT NULL, "
        "body bytea NOT NULL)"
    ),
    SQL("CREATE UNIQUE INDEX IF NOT EXISTS {versions} ON {schema}.{runs} (originator_id, last_version)"),
    SQL(
        "CREATE OR REPLACE FUNCTION {schema}.{function}("
        "ids {id_type}[], last_versions bigint[], counts bigint[], bodies bytea[], lock_timeout text) "
        "RETURNS bigint LANGUAGE plpgsql AS $$ DECLARE first bigint; last bigint; BEGIN "
        "PERFORM set_config('lock_timeout', lock_timeout, true); "
        "LOCK TABLE {schema}.{runs} IN EXCLUSIVE MODE; "
        "FOR place IN 1 .. cardinality(ids) LOOP "
        "INSERT INTO {schema}.{runs} (last_notification_id, last_version, originator_id, events, body) "
        "SELECT greatest(coalesce((SELECT max(last_notification_id) FROM {schema}.{runs}), 0), "
        "coalesce((SELECT max(notification_id) FROM {schema}.{events}), 0)) + counts[place], "
        "last_versions[place], ids[place], counts[place], bodies[place] "
        "WHERE NOT EXISTS (SELECT 1 FROM {schema}.{runs} AS run WHERE run.originator_id = ids[place] "
        "AND run.last_version > last_versions[place] - counts[place] "
        "AND run.last_version - run.events < last_versions[place]) "
        "AND NOT EXISTS (SELECT 1 FROM {schema}.{events} AS event WHERE event.originator_id = ids[place] "
        "AND event.originator_version > last_versions[place] - counts[place] "
        "AND event.originator_version <= last_versions[place]) "
        "RETURNING last_notification_id INTO last; "
        "IF last IS NULL THEN "
        "RAISE unique_violation USING MESSAGE = 'an appended version is stored already'; END IF; "
        "first := coalesce(first, last - counts[place] + 1); "
        "END LOOP; "
        "NOTIFY {channel}; "
        "RETURN first; END $$"
    ),
)


def read_query(shape: tuple[Any, ...]) -> SQL:
    """The query for a shape of read: ("events", gt given, lte given, descending, limit given) for a game's events,
    ("log", start given, stop given, topics named) for a page of the log. Each branch of the union is ordered and
    limited on its own, so that each reads its table's index from where it starts; a run's last notification id is
    within RUN_EVENTS of its first, which bounds the runs that reach back to a page's stop."""
    if shape[0] == "events":
        _, gt, lte, desc, limit = shape
        runs, events = ["originator_id = %(id)s"], ["originator_id = %(id)s"]
        if gt:
            runs.append("last_version > %(gt)s")
            events.append("originator_version > %(gt)s")
        if lte:
            runs.append("last_version - events < %(lte)s AND last_version < %(lte)s + %(runs)s")
            events.append("originator_version <= %(lte)s")
        order = " ORDER BY {0} " + ("DESC" if desc else "ASC") + (" LIMIT %(limit)s" if limit else "")
        return SQL(
            "(SELECT NULL::bigint, NULL::{id_type}, last_version, events, body, NULL::text FROM {schema}.{runs} "
            "WHERE " + " AND ".join(runs) + order.format("last_version") + ") UNION ALL "
            "(SELECT NULL, NULL, originator_version, 0, state, topic FROM {schema}.{events} "
            "WHERE " + " AND ".join(events) + order.format("originator_version") + ")" + order.format(3)
        )
    _, start, stop, topics = shape
    runs, events = ["true"], ["true"]
    if start:
        runs.append("last_notification_id >= %(start)s")
        events.append("notification_id >= %(start)s")
    if stop:
        runs.append("last_notification_id - events < %(stop)s AND last_notification_id < %(stop)s + %(runs)s")
        events.append("notification_id <= %(stop)s")
    if topics:
        events.append("topic = ANY(%(topics)s)")
    return SQL(
        "(SELECT last_notification_id, originator_id, last_version, events, body, NULL::text FROM {schema}.{runs} "
        "WHERE " + " AND ".join(runs) + " ORDER BY last_notification_id LIMIT %(limit)s) UNION ALL "
        "(SELECT notification_id, originator_id, originator_version, 0, state, topic FROM {schema}.{events} "
        "WHERE " + " AND ".join(events) + " ORDER BY notification_id LIMIT %(limit)s) ORDER BY 1 LIMIT %(limit)s"
    )


_LAST = (
    "SELECT greatest(coalesce((SELECT max(last_notification_id) FROM {schema}.{runs}), 0), "
    "coalesce((SELECT max(notification_id) FROM {schema}.{events}), 0))"
)
POSTGRES_READS: dict[str, SQL] = {
    "last": SQL(_LAST),
    "changed": SQL(
        "WITH log AS (" + _LAST + " AS last) "
        "SELECT log.last, run.last_notification_id, run.originator_id, run.last_version, run.events, run.body, "
        "NULL::text FROM log, {schema}.{runs} AS run WHERE run.last_notification_id > %(position)s "
        "AND run.last_notification_id - run.events < log.last UNION ALL "
        "SELECT log.last, event.notification_id, event.originator_id, event.originator_version, 0, event.state, "
        "event.topic FROM log, {schema}.{events} AS event WHERE event.notification_id > %(position)s "
        "AND event.notification_id <= log.last AND event.topic = ANY(%(topics)s) UNION ALL "
        "SELECT log.last, NULL, NULL, NULL, NULL, NULL, NULL FROM log ORDER BY 2 NULLS LAST"
    ),
}


class PackedSQLiteFactory(DurableSQLiteFactory):
    application_recorder_class = PackedSQLiteRecorder


@contextmanager
def one_server_at_a_time(datastore: PostgresDatastore) -> Iterator[None]:
    """Tables, types and functions made by one server at a time: servers opening a new store at once would each
    make the library's types, and take locks on the events table and on the functions in their own order, which
    two at once can deadlock on. A session's advisory lock has them take turns."""
    with datastore.get_connection() as connection:
        connection.execute(SQL("SELECT pg_advisory_lock({0})").format(CREATING_TABLES))
        try:
            yield
        finally:
            connection.execute(SQL("SELECT pg_advisory_unlock({0})").format(CREATING_TABLES))


class PackedPostgresFactory(LedgerPostgresFactory):
    application_recorder_class = PackedPostgresRecorder

    def aggregate_recorder(self, purpose: str = "events") -> AggregateRecorder:
        with one_server_at_a_time(self.datastore):
            return super().aggregate_recorder(purpose)

    def application_recorder(self) -> ApplicationRecorder:
        with one_server_at_a_time(self.datastore):
            return super().application_recorder()
