"""The event store: eventsourcing's recorders, on SQLite made explicitly durable, with the one query the ledger adds.

The library opens SQLite files in WAL journal mode; every connection here also sets `synchronous=FULL`, so a commit
returns only once the write-ahead log is on disk: an acknowledged event survives a crash of the process, and of the
machine. PostgreSQL commits are durable with its default `synchronous_commit=on`. The recorders' departures from the
library's public API are the fast paths of `evo_ledger.store.fast_paths`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlsplit
from uuid import UUID

from eventsourcing.persistence import ApplicationRecorder, InfrastructureFactoryError
from eventsourcing.postgres import PostgresFactory
from eventsourcing.sqlite import SQLiteFactory
from psycopg.sql import SQL, Identifier

from evo_ledger.settings import DATABASE_VARIABLE, LOCK_TIMEOUT_SECONDS, Settings, SettingsError
from evo_ledger.store.fast_paths import (
    PostgresChangesInOneQuery,
    PostgresGameEvents,
    PostgresOneStatementAppend,
    SQLiteNotificationsAsText,
    make_durable,
)

__all__ = ["DurableSQLiteFactory", "LedgerPostgresFactory", "changed_since", "persistence_env"]

CHANGES_PAGE = 1000


def changed_since(recorder: ApplicationRecorder, position: int | None, topics: Sequence[str]) -> tuple[int, set[UUID]]:
    """The log's last notification id, and the aggregates with an event of one of `topics` stored after `position`
    and up to it (with None for `position`, none: from now on). Notification ids follow the order of commits, so an
    event not yet committed when the last id was read has a larger one."""
    last = recorder.max_notification_id() or 0
    if position is None or position >= last:
        return last, set()
    changed: set[UUID] = set()
    start = position + 1
    while True:
        page = recorder.select_notifications(start=start, limit=CHANGES_PAGE, stop=last, topics=topics)
        changed.update(UUID(str(notification.originator_id)) for notification in page)
        if len(page) < CHANGES_PAGE:
            return last, changed
        start = page[-1].id + 1


class LedgerSQLiteApplicationRecorder(SQLiteNotificationsAsText):
    """The library's SQLite recorder with the ledger's fast path, and the query the ledger adds."""

    def select_changed_since(self, position: int | None, topics: Sequence[str]) -> tuple[int, set[UUID]]:
        return changed_since(self, position, topics)


class DurableSQLiteFactory(SQLiteFactory):
    """The library's SQLite factory, every connection committing to disk before it returns; games are kept in a
    file, never in memory."""

    application_recorder_class = LedgerSQLiteApplicationRecorder

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        if self.datastore.pool.is_sqlite_memory_mode:
            raise InfrastructureFactoryError("evo-ledger keeps games in a SQLite file, not in memory")
        make_durable(self.datastore)


class LedgerPostgresApplicationRecorder(PostgresChangesInOneQuery, PostgresGameEvents, PostgresOneStatementAppend):
    """The library's PostgreSQL recorder with the ledger's fast paths, among them the query the ledger adds."""

    def wake_followers(self) -> None:
        """Every subscription to this log is told to read it again, as an append tells it. The library's
        subscription reads the log once before it listens for appends, so an append that commits between the two
        would otherwise wait for the next append to be read."""
        with self.datastore.get_connection() as connection:
            connection.execute(SQL("NOTIFY {0}").format(Identifier(self.channel_name)))


class LedgerPostgresFactory(PostgresFactory):
    """The library's PostgreSQL factory, with the ledger's recorder."""

    application_recorder_class = LedgerPostgresApplicationRecorder


def persistence_env(settings: Settings) -> dict[str, str]:
    """The event store's configuration, in the eventsourcing library's terms."""
    if settings.is_postgres:
        return postgres_env(settings.database)
    return {
        "PERSISTENCE_MODULE": f"{__name__}:{DurableSQLiteFactory.__name__}",
        "SQLITE_DBNAME": settings.database,
        "SQLITE_LOCK_TIMEOUT": str(LOCK_TIMEOUT_SECONDS),
    }


def postgres_env(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    if not parts.hostname or not parts.path.strip("/"):
        raise SettingsError(f"{DATABASE_VARIABLE}: a PostgreSQL URL needs a host and a database name: {url!r}")
    return {
        "PERSISTENCE_MODULE": f"{__name__}:{LedgerPostgresFactory.__name__}",
        "POSTGRES_DBNAME": unquote(parts.path.strip("/")),
        "POSTGRES_HOST": parts.hostname,
        "POSTGRES_PORT": str(parts.port or 5432),
        "POSTGRES_USER": unquote(parts.username or os.environ.get("USER") or "postgres"),
        "POSTGRES_PASSWORD": unquote(parts.password or ""),
        "POSTGRES_LOCK_TIMEOUT": str(LOCK_TIMEOUT_SECONDS),
        "POSTGRES_POOL_SIZE": "5",
    }
