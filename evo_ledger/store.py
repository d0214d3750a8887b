"""The event store on SQLite, made explicitly durable.

The library opens SQLite files in WAL journal mode. Every connection here also sets `synchronous=FULL`, so a
commit returns only once the write-ahead log is on disk: an acknowledged event survives a crash of the process,
and of the machine. PostgreSQL commits are durable with its default `synchronous_commit=on`.
"""

from __future__ import annotations

from typing import Any

from eventsourcing.persistence import InfrastructureFactoryError
from eventsourcing.sqlite import SQLiteConnection, SQLiteConnectionPool, SQLiteDatastore, SQLiteFactory


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


class DurableSQLiteFactory(SQLiteFactory):
    """The library's SQLite factory, every connection committing to disk before it returns."""

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
