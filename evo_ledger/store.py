"""The event store: on SQLite, made explicitly durable; on PostgreSQL, able to take batches of any size.

The library opens SQLite files in WAL journal mode. Every connection here also sets `synchronous=FULL`, so a
commit returns only once the write-ahead log is on disk: an acknowledged event survives a crash of the process,
and of the machine. PostgreSQL commits are durable with its default `synchronous_commit=on`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InfrastructureFactoryError, StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresFactory
from eventsourcing.sqlite import (
    SQLiteAggregateRecorder,
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteCursor,
    SQLiteDatastore,
    SQLiteFactory,
)
from eventsourcing.utils import retry
from psycopg import InterfaceError, OperationalError
from psycopg.sql import SQL, Identifier


class DurableSQLiteConnectionPool(SQLiteConnectionPool):
    def _create_connection(self) -> SQLiteConnection:
        connection = super()._create_connection()
        connection._sqlite_conn.execute("PRAGMA synchronous=FULL;")
        return connection


class DurableSQLiteDatastore(SQLiteDatastore):
    def __init__(self, db_name: str, **options: Any) -> None:
        super().__init__(db_name, **options)
        if self.pool.is_sqlite_memory_mode:
            raise InfrastructureFactoryError("evo-ledger keeps games in a SQLite file, not in memory")
        self.pool.close()
        self.pool = DurableSQLiteConnectionPool(db_name=db_name, lock_timeout=options.get("lock_timeout"))


class BatchInsertingSQLiteApplicationRecorder(SQLiteApplicationRecorder):
    """Inserts a batch of events in one statement, not a statement per event.

    Inside the write transaction each new row's id follows on from the largest, so the batch's notification ids
    are the last one inserted and those just before it."""

    def _insert_events(self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int]:
        SQLiteAggregateRecorder._insert_events(self, c, stored_events, **kwargs)
        if not stored_events:
            return []
        c.execute("SELECT last_insert_rowid()")
        last: int = c.fetchone()[0]
        return list(range(last - len(stored_events) + 1, last + 1))

    def select_events_of(self, originator_ids: Sequence[UUID]) -> list[StoredEvent]:
        """Every event of each of the aggregates, in one query, by aggregate and version."""
        if not originator_ids:
            return []
        marks = ",".join("?" * len(originator_ids))
        statement = (
            f"SELECT * FROM {self.events_table_name} WHERE originator_id IN ({marks}) "
            "ORDER BY originator_id, originator_version"
        )
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(statement, [originator_id.hex for originator_id in originator_ids])
            return [
                StoredEvent(
                    self.convert_originator_id(row["originator_id"]),
                    row["originator_version"],
                    row["topic"],
                    row["state"],
                )
                for row in cursor.fetchall()
            ]


class DurableSQLiteFactory(SQLiteFactory):
    """The library's SQLite factory, every connection committing to disk before it returns."""

    application_recorder_class = BatchInsertingSQLiteApplicationRecorder

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        plain = self.datastore
        self.datastore = DurableSQLiteDatastore(
            plain.pool.db_name,
            lock_timeout=plain.pool.lock_timeout,
            single_row_tracking=plain.single_row_tracking,
            originator_id_type=plain.originator_id_type,
        )
        plain.close()


# psycopg's pipeline mode can hang on one very large statement (its issue 685); larger batches go without it.
PIPELINED_BYTES = 1_000_000


class LargeBatchPostgresApplicationRecorder(PostgresApplicationRecorder):
    """The library's recorder, except that a batch of more than PIPELINED_BYTES of events is inserted by plain
    statements in one transaction: the same table lock, notification and returned ids, one round trip more."""

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        if sum(len(event.state) for event in stored_events) <= PIPELINED_BYTES:
            ids: Sequence[int] | None = super().insert_events(stored_events, **kwargs)
        else:
            ids = self._insert_unpipelined(stored_events, **kwargs)
        return ids

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def _insert_unpipelined(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        with self.datastore.get_connection() as connection, connection.transaction(), connection.cursor() as cursor:
            self._insert_events(cursor, stored_events, **kwargs)
            self._insert_stored_events(cursor, stored_events, **kwargs)
            ids: Sequence[int] | None = self._fetch_ids_after_insert_events(cursor, stored_events, **kwargs)
            return ids

    def select_events_of(self, originator_ids: Sequence[UUID]) -> list[StoredEvent]:
        """Every event of each of the aggregates, in one query, by aggregate and version."""
        if not originator_ids:
            return []
        statement = SQL(
            "SELECT * FROM {schema}.{table} WHERE originator_id = ANY(%s) ORDER BY originator_id, originator_version"
        ).format(schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name))
        with self.datastore.get_connection() as connection, connection.cursor() as cursor:
            cursor.execute(statement, [list(originator_ids)])
            return [
                StoredEvent(row["originator_id"], row["originator_version"], row["topic"], bytes(row["state"]))
                for row in cursor.fetchall()
            ]


class LedgerPostgresFactory(PostgresFactory):
    """The library's PostgreSQL factory, with a recorder that takes batches of any size."""

    application_recorder_class = LargeBatchPostgresApplicationRecorder
