"""Every place the ledger departs from eventsourcing's public API, each named with the benchmark line it pays for.

`python -m bench.fast_paths` measures each against the library's own way in the same run and writes the ratios into
docs/benchmarks.md; a fast path that buys less than `KEPT_ABOVE` on its line is not kept. Only this module may
use the library's private names (a test reads every other module for them).
"""

from __future__ import annotations

import sqlite3
import struct
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar
from uuid import UUID

import psycopg
from eventsourcing.persistence import InterfaceError, Notification, OperationalError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from eventsourcing.sqlite import (
    SQLITE3_DEFAULT_LOCK_TIMEOUT,
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteDatastore,
)
from eventsourcing.utils import retry
from psycopg.pq import ExecStatus, Format
from psycopg.pq.abc import PGconn, PGresult
from psycopg.sql import SQL, Identifier

# A fast path stays only while it makes its line this much faster than the library's own way, in the same run.
KEPT_ABOVE = 1.15


@dataclass(frozen=True)
class FastPath:
    """A departure from the library's public API: what it stands in for, and the benchmark line it pays for."""

    name: str
    replaces: str
    pays_for: str


FAST_PATHS = (
    FastPath(
        "sqlite_statements_kept",
        "SQLiteConnectionPool._create_connection, whose connections keep one prepared statement",
        "bench.stored_size appends, one action a save, SQLite (the packed form)",
    ),
    FastPath(
        "sqlite_notifications_as_text",
        "SQLiteApplicationRecorder.select_notifications",
        "bench.projection_speed catch-up of the trait-card game's read tables, SQLite",
    ),
    FastPath(
        "postgres_one_statement_append",
        "PostgresApplicationRecorder.insert_events",
        "bench.ledger_speed appends, PostgreSQL",
    ),
)


def stored_event(originator_id: UUID | str, originator_version: int, topic: str, state: bytes) -> StoredEvent:
    """A stored event made without its frozen dataclass's per-field set."""
    event = object.__new__(StoredEvent)
    fields = {"originator_id": originator_id, "originator_version": originator_version, "topic": topic, "state": state}
    object.__setattr__(event, "__dict__", fields)
    return event


def notification(event_id: int, originator_id: UUID | str, version: int, topic: str, state: bytes) -> Notification:
    """A notification made without its frozen dataclass's per-field set."""
    event = object.__new__(Notification)
    fields = {
        "originator_id": originator_id,
        "originator_version": version,
        "topic": topic,
        "state": state,
        "id": event_id,
    }
    object.__setattr__(event, "__dict__", fields)
    return event


# The prepared statements each SQLite connection keeps.
STATEMENTS_KEPT = 64


class DurableSQLiteConnectionPool(SQLiteConnectionPool):
    """Every connection commits to disk before it returns (`synchronous=FULL`): durability, not speed. The library
    opens its connections in a method of its own and offers no setting for this. sqlite_statements_kept: each
    connection keeps STATEMENTS_KEPT prepared statements where the library's keeps one, so that a statement is not
    prepared again whenever another ran between (the packed form's append and reads take tens of microseconds to
    prepare)."""

    def _create_connection(self) -> SQLiteConnection:
        try:
            connection = sqlite3.connect(
                database=self.db_name,
                uri=True,
                check_same_thread=False,
                isolation_level=None,
                cached_statements=STATEMENTS_KEPT,
                timeout=self.lock_timeout or SQLITE3_DEFAULT_LOCK_TIMEOUT,
            )
        except (sqlite3.Error, TypeError) as error:
            raise InterfaceError(error) from error
        if str(connection.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            connection.execute("PRAGMA journal_mode=WAL")
        self.is_journal_mode_wal = True
        connection.execute("PRAGMA synchronous=FULL")
        connection.row_factory = sqlite3.Row
        return SQLiteConnection(sqlite_conn=connection, max_age=self.max_age)


class OneStatementSQLiteConnectionPool(SQLiteConnectionPool):
    """The library's own connections, each keeping one prepared statement, made durable: what
    sqlite_statements_kept is measured against."""

    def _create_connection(self) -> SQLiteConnection:
        connection = super()._create_connection()
        connection._sqlite_conn.execute("PRAGMA synchronous=FULL;")
        return connection


def make_durable(
    datastore: SQLiteDatastore, pool_class: type[SQLiteConnectionPool] = DurableSQLiteConnectionPool
) -> None:
    """The datastore's pool made again as a durable pool with the same settings."""
    plain = datastore.pool
    datastore.pool = pool_class(
        db_name=plain.db_name,
        lock_timeout=plain.lock_timeout,
        pool_size=plain.pool_size,
        max_overflow=plain.max_overflow,
        pool_timeout=plain.pool_timeout,
        max_age=plain.max_age,
        pre_ping=plain.pre_ping,
    )
    plain.close()


def dashed(hex_id: str) -> str:
    """A UUID stored as 32 hex digits, in its usual form (as `str(UUID(hex_id))` gives it)."""
    return f"{hex_id[:8]}-{hex_id[8:12]}-{hex_id[12:16]}-{hex_id[16:20]}-{hex_id[20:]}"


class SQLiteNotificationsAsText(SQLiteApplicationRecorder):
    """sqlite_notifications_as_text: a page of the log with each originator id as text in a UUID's usual form, as
    the read tables want it (the library makes a UUID of each, which they would turn back into text)."""

    def select_notifications_after(self, position: int, limit: int) -> list[Notification]:
        statement = (
            f"SELECT rowid, originator_id, originator_version, topic, state FROM {self.events_table_name} "
            "WHERE rowid>? ORDER BY rowid LIMIT ?"
        )
        as_text = dashed if self.datastore.originator_id_type == "uuid" else str
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement, (position, limit))
            return [
                Notification(
                    id=row[0], originator_id=as_text(row[1]), originator_version=row[2], topic=row[3], state=row[4]
                )
                for row in cursor.fetchall()
            ]


_ARRAY_HEADER = struct.Struct("!iiiii")  # dimensions, has nulls, element type, length, lower bound
_ELEMENT_LENGTH = struct.Struct("!i")
_BIGINT = struct.Struct("!q")


class BinaryArray:
    """A one-dimensional PostgreSQL array of non-null values, in the binary form it travels in (psycopg dumps a
    Python list by looking again at every element's type at each call)."""

    __slots__ = ("data",)
    element_oid: ClassVar[int]
    array_oid: ClassVar[int]

    def __init__(self, elements: Sequence[bytes]) -> None:
        header = _ARRAY_HEADER.pack(1, 0, self.element_oid, len(elements), 1)
        self.data = header + b"".join([_ELEMENT_LENGTH.pack(len(element)) + element for element in elements])


class UuidArray(BinaryArray):
    __slots__ = ()
    element_oid, array_oid = 2950, 2951


class BigintArray(BinaryArray):
    __slots__ = ()
    element_oid, array_oid = 20, 1016

    def __init__(self, numbers: Sequence[int]) -> None:
        super().__init__([_BIGINT.pack(number) for number in numbers])


class TextArray(BinaryArray):
    __slots__ = ()
    element_oid, array_oid = 25, 1009

    def __init__(self, texts: Sequence[str]) -> None:
        super().__init__([text.encode("utf-8") for text in texts])


class ByteaArray(BinaryArray):
    __slots__ = ()
    element_oid, array_oid = 17, 1001


_ARGUMENT_FORMATS = [Format.BINARY] * 4 + [Format.TEXT]


class PreparedCall:
    """A statement of four binary arguments and a text one (the lock timeout) that returns bigints, run by libpq
    itself, prepared once on each connection, without a psycopg cursor's handling of its parameters and rows. A
    statement the connection has lost is prepared again."""

    def __init__(self, name: bytes, query: bytes, types: list[int]) -> None:
        self.name, self.query, self.types = name, query, types
        self._prepared_on: weakref.WeakSet[PGconn] = weakref.WeakSet()

    def run(self, connection: psycopg.Connection[Any], arguments: list[bytes]) -> list[int]:
        try:
            return self._run(connection, arguments)
        except psycopg.errors.InvalidSqlStatementName:
            self._prepared_on.discard(connection.pgconn)
            return self._run(connection, arguments)

    def _run(self, connection: psycopg.Connection[Any], arguments: list[bytes]) -> list[int]:
        pgconn = connection.pgconn
        if pgconn not in self._prepared_on:
            _succeeded(pgconn.prepare(self.name, self.query, self.types), connection)
            self._prepared_on.add(pgconn)
        result = pgconn.exec_prepared(self.name, arguments, _ARGUMENT_FORMATS, Format.BINARY)
        _succeeded(result, connection)
        return [_BIGINT.unpack(result.get_value(row, 0) or b"")[0] for row in range(result.ntuples)]


class PostgresOneStatementAppend(PostgresApplicationRecorder):
    """postgres_one_statement_append: a batch of events appended by one call of a stored function that takes the
    table lock, notifies and inserts: one statement, so one round trip and one implicit transaction (the library
    sends six statements, and waits on the server several times). The same lock keeps notification ids in commit
    order; a batch of any size goes in one go."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        schema, function = Identifier(datastore.schema), Identifier(f"{self.channel_name}_append")
        self.sql_create_statements.append(
            SQL(
                "CREATE OR REPLACE FUNCTION {schema}.{function}("
                "ids {id_type}[], versions bigint[], topics text[], states bytea[], lock_timeout text) "
                "RETURNS SETOF bigint LANGUAGE plpgsql AS $$ BEGIN "
                "PERFORM set_config('lock_timeout', lock_timeout, true); "
                "LOCK TABLE {schema}.{table} IN EXCLUSIVE MODE; "
                "NOTIFY {channel}; "
                "RETURN QUERY INSERT INTO {schema}.{table} (originator_id, originator_version, topic, state) "
                "SELECT * FROM unnest(ids, versions, topics, states) RETURNING notification_id; "
                "END $$"
            ).format(
                schema=schema,
                function=function,
                id_type=SQL(datastore.originator_id_type),
                table=Identifier(self.events_table_name),
                channel=Identifier(self.channel_name),
            )
        )
        id_array = TextArray if datastore.originator_id_type == "text" else UuidArray
        self.append_call = PreparedCall(
            b"evo_ledger_append",
            SQL("SELECT id FROM {schema}.{function}($1, $2, $3, $4, $5) AS appended(id)")
            .format(schema=schema, function=function)
            .as_bytes(None),
            [id_array.array_oid, BigintArray.array_oid, TextArray.array_oid, ByteaArray.array_oid, 25],
        )

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if not stored_events:
            return []
        columns = [
            self._ids([event.originator_id for event in stored_events]).data,
            BigintArray([event.originator_version for event in stored_events]).data,
            TextArray([event.topic for event in stored_events]).data,
            ByteaArray([event.state for event in stored_events]).data,
            f"{self.datastore.lock_timeout}s".encode(),
        ]
        with self.datastore.get_connection() as connection:
            return self.append_call.run(connection, columns)

    def _ids(self, ids: list[UUID | str]) -> BinaryArray:
        if self.datastore.originator_id_type == "text":
            return TextArray([str(originator_id) for originator_id in ids])
        return UuidArray([UUID(str(i)).bytes if isinstance(i, str) else i.bytes for i in ids])


def _succeeded(result: PGresult, connection: psycopg.Connection[Any]) -> None:
    """Raises what psycopg would raise for a failed command."""
    if result.status not in (ExecStatus.COMMAND_OK, ExecStatus.TUPLES_OK):
        raise psycopg.errors.error_from_result(result, connection.info.encoding)
