"""The event store: eventsourcing's recorders, on SQLite made explicitly durable, with the one query the ledger adds.

The library opens SQLite files in WAL journal mode; every connection here also sets `synchronous=FULL`, so a commit
returns only once the write-ahead log is on disk: an acknowledged event survives a crash of the process, and of the
machine. PostgreSQL commits are durable with its default `synchronous_commit=on`. The recorders' departures from the
library's public API are the fast paths of `evo_ledger.store.fast_paths`.

A store that cannot be opened (a SQLite file in a folder that does not exist, a PostgreSQL server that is down) is
refused with `StoreUnusable`, which names it and says why in a line; an unreachable server within
`CONNECT_TIMEOUT_SECONDS`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from uuid import UUID

import psycopg
from eventsourcing.persistence import ApplicationRecorder, InfrastructureFactoryError, PersistenceError
from eventsourcing.postgres import PostgresFactory
from eventsourcing.sqlite import SQLiteFactory
from psycopg.sql import SQL, Identifier

from evo_ledger.settings import (
    CONNECT_TIMEOUT_SECONDS,
    DATABASE_VARIABLE,
    LOCK_TIMEOUT_SECONDS,
    PACKED,
    Settings,
    SettingsError,
)
from evo_ledger.store.fast_paths import (
    PostgresOneStatementAppend,
    SQLiteNotificationsAsText,
    make_durable,
)

__all__ = [
    "DATABASE_ERRORS",
    "DurableSQLiteFactory",
    "LedgerPostgresFactory",
    "StoreUnusable",
    "changed_since",
    "persistence_env",
    "replica_refusal",
    "replication_of",
    "store_opening",
]

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


def runs_table_name(events_table_name: str) -> str:
    """The packed form's table of runs beside the one-row-an-event table the library names (`stored_events`:
    `stored_runs`)."""
    return events_table_name.rsplit("_", 1)[0] + "_runs"


class LedgerSQLiteApplicationRecorder(SQLiteNotificationsAsText):
    """The library's SQLite recorder with the ledger's fast path, and the query the ledger adds."""

    def select_changed_since(self, position: int | None, topics: Sequence[str]) -> tuple[int, set[UUID]]:
        return changed_since(self, position, topics)

    def holds_runs(self) -> bool:
        """Whether the store holds events in the packed form (`evo_ledger.store.packed`), which this recorder
        would not read."""
        runs = runs_table_name(self.events_table_name)
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (runs,))
            if cursor.fetchone() is None:
                return False
            cursor.execute(f"SELECT 1 FROM {runs} LIMIT 1")
            return cursor.fetchone() is not None


class DurableSQLiteFactory(SQLiteFactory):
    """The library's SQLite factory, every connection committing to disk before it returns; games are kept in a
    file, never in memory."""

    application_recorder_class = LedgerSQLiteApplicationRecorder

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        if self.datastore.pool.is_sqlite_memory_mode:
            raise InfrastructureFactoryError("evo-ledger keeps games in a SQLite file, not in memory")
        make_durable(self.datastore)


class LedgerPostgresApplicationRecorder(PostgresOneStatementAppend):
    """The library's PostgreSQL recorder with the ledger's fast path, and the query the ledger adds."""

    def select_changed_since(self, position: int | None, topics: Sequence[str]) -> tuple[int, set[UUID]]:
        return changed_since(self, position, topics)

    def wake_followers(self) -> None:
        """Every subscription to this log is told to read it again, as an append tells it. The library's
        subscription reads the log once before it listens for appends, so an append that commits between the two
        would otherwise wait for the next append to be read."""
        with self.datastore.get_connection() as connection:
            connection.execute(SQL("NOTIFY {0}").format(Identifier(self.channel_name)))

    def holds_runs(self) -> bool:
        """Whether the store holds events in the packed form (`evo_ledger.store.packed`), which this recorder
        would not read."""
        runs = Identifier(self.datastore.schema, runs_table_name(self.events_table_name))
        with self.datastore.get_connection() as connection, connection.cursor() as cursor:
            cursor.execute(SQL("SELECT to_regclass(%s) IS NOT NULL AS found"), (runs.as_string(connection),))
            row = cursor.fetchone()
            if row is None or not row["found"]:
                return False
            cursor.execute(SQL("SELECT 1 AS found FROM {0} LIMIT 1").format(runs))
            return cursor.fetchone() is not None

    def replication(self) -> Replication:
        """Where the database stands as a streaming replica (not one: `in_recovery` false, and nothing else
        known)."""
        with self.datastore.get_connection() as connection, connection.cursor() as cursor:
            cursor.execute(REPLICATION_QUERY)
            row = cursor.fetchone()
        assert row is not None  # the library's connections give each row as a dict
        if not row["in_recovery"]:
            return Replication(in_recovery=False)
        return Replication(True, bool(row["receiving"]), row["lag_bytes"], row["lag_seconds"], row["replayed_at"])


# Received but not yet replayed WAL is the lag a replica knows of itself; its age is that of the last transaction
# it replayed, nothing while it has replayed all it received (an idle primary sends no transactions to age). The
# receiver's status is shown to roles with pg_read_all_stats (pg_monitor) alone; to others, that it runs.
REPLICATION_QUERY = SQL("""
SELECT pg_is_in_recovery() AS in_recovery,
       (SELECT coalesce(status = 'streaming', pid IS NOT NULL) FROM pg_stat_wal_receiver) AS receiving,
       pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())::bigint AS lag_bytes,
       CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0.0
            ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 END AS lag_seconds,
       pg_last_xact_replay_timestamp() AS replayed_at
""")


@dataclass(frozen=True)
class Replication:
    """A database as a streaming replica: whether it is one (`in_recovery`), whether it receives the primary's
    log now (`receiving`), the bytes of log received and not yet replayed (`lag_bytes`), how old the last
    transaction it replayed is while some remain (`lag_seconds`, 0 when none does) and when that transaction
    was committed (`replayed_at`)."""

    in_recovery: bool
    receiving: bool = False
    lag_bytes: int | None = None
    lag_seconds: float | None = None
    replayed_at: datetime | None = None


# The errors a database's refusal reaches the application as: the drivers' own, or wrapped by the library.
DATABASE_ERRORS: tuple[type[Exception], ...] = (PersistenceError, psycopg.Error, sqlite3.Error)


REPLICA_REFUSALS: tuple[tuple[type[Exception], str], ...] = (
    (psycopg.errors.ReadOnlySqlTransaction, "read_only"),
    (psycopg.errors.SerializationFailure, "replica_conflict"),
    (psycopg.errors.UndefinedTable, "read_tables_changed"),
    (psycopg.errors.UndefinedColumn, "read_tables_changed"),
)


def replica_refusal(error: BaseException) -> str | None:
    """Why a store read only refused what `error` (or an error it was raised from or during) reports: `read_only`,
    a write (SQLSTATE 25006); `replica_conflict`, a read the replica cancelled to replay its primary's log (a
    conflict with recovery, 40001); `read_tables_changed`, a table or column gone (42P01, 42703), as when the
    primary's servers of a new version made the read tables again; None for any other error."""
    seen: list[BaseException] = []
    found: BaseException | None = error
    while found is not None and found not in seen:
        code = next((code for kind, code in REPLICA_REFUSALS if isinstance(found, kind)), None)
        if code is not None:
            return code
        seen.append(found)
        found = found.__cause__ or found.__context__
    return None


def replication_of(recorder: ApplicationRecorder) -> Replication:
    """Where the store stands as a streaming replica: a SQLite file never is one."""
    if isinstance(recorder, LedgerPostgresApplicationRecorder):
        return recorder.replication()
    return Replication(in_recovery=False)


class LedgerPostgresFactory(PostgresFactory):
    """The library's PostgreSQL factory, with the ledger's recorder."""

    application_recorder_class = LedgerPostgresApplicationRecorder


# The factories of the packed form's recorders (evo_ledger.store.packed, whose recorders are made from these).
PACKED_FACTORIES = {
    "sqlite": "evo_ledger.store.packed:PackedSQLiteFactory",
    "postgres": "evo_ledger.store.packed:PackedPostgresFactory",
}


def persistence_env(settings: Settings) -> dict[str, str]:
    """The event store's configuration, in the eventsourcing library's terms: a store opened read only has its
    tables read as they are, never created; one of the packed form has the packed form's recorders."""
    packed = settings.stored_form == PACKED
    if settings.is_postgres:
        env = postgres_env(settings.database) | ({"CREATE_TABLE": "n"} if settings.read_only else {})
        return env | ({"PERSISTENCE_MODULE": PACKED_FACTORIES["postgres"]} if packed else {})
    return {
        "PERSISTENCE_MODULE": PACKED_FACTORIES["sqlite"] if packed else f"{__name__}:{DurableSQLiteFactory.__name__}",
        "SQLITE_DBNAME": settings.database,
        "SQLITE_LOCK_TIMEOUT": str(LOCK_TIMEOUT_SECONDS),
    }


def postgres_env(url: str) -> dict[str, str]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:  # a port that is not a number from 0 to 65535, a bracket left open
        raise SettingsError(f"{DATABASE_VARIABLE}: not a PostgreSQL URL ({error}): {url!r}") from None
    if not parts.hostname or not parts.path.strip("/"):
        raise SettingsError(f"{DATABASE_VARIABLE}: a PostgreSQL URL needs a host and a database name: {url!r}")
    return {
        "PERSISTENCE_MODULE": f"{__name__}:{LedgerPostgresFactory.__name__}",
        "POSTGRES_DBNAME": unquote(parts.path.strip("/")),
        "POSTGRES_HOST": parts.hostname,
        "POSTGRES_PORT": str(port or 5432),
        "POSTGRES_USER": unquote(parts.username or os.environ.get("USER") or "postgres"),
        "POSTGRES_PASSWORD": unquote(parts.password or ""),
        "POSTGRES_LOCK_TIMEOUT": str(LOCK_TIMEOUT_SECONDS),
        "POSTGRES_CONNECT_TIMEOUT": str(CONNECT_TIMEOUT_SECONDS),
        "POSTGRES_POOL_SIZE": "5",
    }


class StoreUnusable(SettingsError):
    """The store a setting names cannot be opened: the message names it and says why, in a line."""


@contextmanager
def store_opening(settings: Settings) -> Iterator[None]:
    """Around the opening of the store `settings` names: a PostgreSQL server that cannot be reached is refused at
    once, and an error in opening the store is raised as StoreUnusable."""
    if settings.is_postgres:
        check_reachable(settings)
    try:
        yield
    except (PersistenceError, sqlite3.Error) as error:
        raise StoreUnusable(f"{settings.described}: cannot be opened: {problem_of(settings, error)}") from error


def connection_options(database: str) -> dict[str, Any]:
    """What a connection of the project's own (not the library's pool) is opened with to the PostgreSQL database
    `database` names: its address and user as the library reads them, and the connect timeout."""
    env = postgres_env(database)
    return {
        "dbname": env["POSTGRES_DBNAME"],
        "host": env["POSTGRES_HOST"],
        "port": env["POSTGRES_PORT"],
        "user": env["POSTGRES_USER"],
        "password": env["POSTGRES_PASSWORD"],
        "connect_timeout": CONNECT_TIMEOUT_SECONDS,
    }


def check_reachable(settings: Settings) -> None:
    """One connection made and closed within the connect timeout, or StoreUnusable saying why: the library's pool
    would wait for a server that cannot be reached, then say only that it had waited."""
    try:
        psycopg.connect(**connection_options(settings.database)).close()
    except psycopg.Error as error:
        raise StoreUnusable(f"{settings.described}: cannot connect: {reason_in(error)}") from None


def problem_of(settings: Settings, error: Exception) -> str:
    if settings.is_postgres:
        return reason_in(error)
    path = Path(settings.database)
    if path.is_dir():
        return "it is a folder"
    if not path.parent.is_dir():
        return f"there is no folder {path.parent}"
    if "not a database" in str(error):
        return "it is not a SQLite database"
    return reason_in(error)


def reason_in(error: Exception) -> str:
    """The reason an error's first line gives (after libpq's `... failed: `), without its severity."""
    lines = str(error).strip().splitlines()
    reason = lines[0].rpartition(" failed: ")[2].removeprefix("FATAL:").strip() if lines else type(error).__name__
    return reason[:1].lower() + reason[1:]
