"""The event store: eventsourcing's recorders, on SQLite made explicitly durable, with the queries the ledger adds.

The library opens SQLite files in WAL journal mode; every connection here also sets `synchronous=FULL`, so a commit
returns only once the write-ahead log is on disk: an acknowledged event survives a crash of the process, and of the
machine. PostgreSQL commits are durable with its default `synchronous_commit=on`. The recorders' departures from the
library's public API are the fast paths of `evo_ledger.store.fast_paths`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from eventsourcing.persistence import InfrastructureFactoryError, StoredEvent
from eventsourcing.postgres import PostgresFactory
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore, SQLiteFactory
from psycopg.rows import tuple_row
from psycopg.sql import SQL, Identifier

from evo_ledger.store.fast_paths import (
    DurableSQLiteConnectionPool,
    PostgresGameEvents,
    PostgresOneStatementAppend,
)

__all__ = ["DurableSQLiteFactory", "LedgerPostgresFactory"]


class DurableSQLiteDatastore(SQLiteDatastore):
    def __init__(self, db_name: str, **options: Any) -> None:
        super().__init__(db_name, **options)
        if self.pool.is_sqlite_memory_mode:
            raise InfrastructureFactoryError("evo-ledger keeps games in a SQLite file, not in memory")
        self.pool.close()
        self.pool = DurableSQLiteConnectionPool(db_name=db_name, lock_timeout=options.get("lock_timeout"))


class LedgerSQLiteApplicationRecorder(SQLiteApplicationRecorder):
    """The library's SQLite recorder, with the ledger's own queries."""

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

    def select_changed_since(self, position: int | None, topic_prefix: str) -> tuple[int, set[UUID]]:
        """The log's last notification id, and the aggregates with an event whose topic starts with
        `topic_prefix` stored after `position` and up to it (with None for `position`, none: from now on)."""
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(f"SELECT MAX(rowid) FROM {self.events_table_name}")  # the notification id
            last: int = cursor.fetchone()[0] or 0
            if position is None or position >= last:
                return last, set()
            cursor.execute(
                f"SELECT DISTINCT originator_id FROM {self.events_table_name} "
                "WHERE rowid > ? AND rowid <= ? AND substr(topic, 1, ?) = ?",
                [position, last, len(topic_prefix), topic_prefix],
            )
            return last, {UUID(row[0]) for row in cursor.fetchall()}


class DurableSQLiteFactory(SQLiteFactory):
    """The library's SQLite factory, every connection committing to disk before it returns."""

    application_recorder_class = LedgerSQLiteApplicationRecorder

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


class LedgerPostgresApplicationRecorder(PostgresGameEvents, PostgresOneStatementAppend):
    """The library's PostgreSQL recorder, with the ledger's own queries."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        table = SQL("{schema}.{table}").format(
            schema=Identifier(self.datastore.schema), table=Identifier(self.events_table_name)
        )
        self.events_of_statement = SQL(
            "SELECT * FROM {table} WHERE originator_id = ANY(%s) ORDER BY originator_id, originator_version"
        ).format(table=table)
        # The log's last id and what changed up to it, from one snapshot: one statement, one round trip.
        self.changed_statement = (
            SQL(
                "SELECT last.id, changed.originator_id FROM (SELECT MAX(notification_id) AS id FROM {table}) AS last "
                "LEFT JOIN LATERAL (SELECT DISTINCT originator_id FROM {table} "
                "WHERE notification_id > %s AND notification_id <= last.id AND left(topic, %s) = %s) AS changed ON true"
            )
            .format(table=table)
            .as_bytes(None)
        )

    def select_events_of(self, originator_ids: Sequence[UUID]) -> list[StoredEvent]:
        """Every event of each of the aggregates, in one query, by aggregate and version."""
        if not originator_ids:
            return []
        with self.datastore.get_connection() as connection, connection.cursor() as cursor:
            cursor.execute(self.events_of_statement, [list(originator_ids)])
            return [
                StoredEvent(row["originator_id"], row["originator_version"], row["topic"], bytes(row["state"]))
                for row in cursor.fetchall()
            ]

    def select_changed_since(self, position: int | None, topic_prefix: str) -> tuple[int, set[UUID]]:
        """The log's last notification id, and the aggregates with an event whose topic starts with
        `topic_prefix` stored after `position` and up to it (with None for `position`, none: from now on).

        Notification ids follow the order of commits (appends take the table's lock), so an event not yet
        committed when the last id was read has a larger one."""
        with self.datastore.get_connection() as connection, connection.cursor(row_factory=tuple_row) as cursor:
            cursor.execute(self.changed_statement, [position, len(topic_prefix), topic_prefix], prepare=True)
            rows = cursor.fetchall()
        last: int = rows[0][0] or 0
        return last, {UUID(str(row[1])) for row in rows if row[1] is not None}


class LedgerPostgresFactory(PostgresFactory):
    """The library's PostgreSQL factory, with the ledger's recorder."""

    application_recorder_class = LedgerPostgresApplicationRecorder
