"""A lease on a named job: the jobs that must run once among the servers on one database (the read tables'
follower, the checkpoints) run only in the process that holds their lease.

On PostgreSQL a lease is a session advisory lock (`pg_try_advisory_lock`) taken on a connection of the lease's
own, in autocommit: it is held while that connection lives, and the database frees it when the connection ends.
A holder that dies has its connection closed by its operating system, which frees the lock at once; a holder whose
machine or network goes silent is dropped by the database once the TCP keepalives set on the connection go
unanswered, or its unacknowledged data waits longer than SILENT_PEER_SECONDS (evo_ledger.store.keepalives). A
process that does not hold the lease keeps its connection and asks for the lock on it again every
`RETRY_SECONDS`; the holder checks its connection as often (`SELECT 1`: the lock lives as long as the session),
with the same keepalives on its side, and knows the lease lost when the check fails. So a lease moves to another
process within `LEASE_SECONDS` of its holder's death: the silence waited for, one retry and, if the waiting
process's connection had to be made again, a connection made.

A try that fails (the database refusing connections, a query refused) is logged, the first at once and then at
most once every FAILURE_LOG_SECONDS while they go on failing, and its reason kept (`failure`) until a try is
answered. A lease given up (`release`) is never asked for again, even by a try already under way.

On SQLite the store is one file that one server serves: the lease is the process's from its first `hold`, which
asks no one, and it is never lost. Two servers on one SQLite file would each hold it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import threading
import time
from contextlib import suppress
from typing import Protocol

import psycopg
from psycopg.rows import TupleRow

from evo_ledger.settings import CONNECT_TIMEOUT_SECONDS, Settings
from evo_ledger.store.keepalives import SILENT_PEER_SECONDS, silent_peers_dropped
from evo_ledger.store.recorders import connection_options

__all__ = [
    "LEASE_SECONDS",
    "RETRY_SECONDS",
    "SILENT_PEER_SECONDS",
    "Lease",
    "LocalLease",
    "PostgresLease",
    "lease_on",
]

# How often a process that does not hold a lease asks for it, and how often its holder checks that it still does.
RETRY_SECONDS = 3
# The longest a lease stays with a holder that died: its silence waited for, a retry, a connection made.
LEASE_SECONDS = SILENT_PEER_SECONDS + RETRY_SECONDS + CONNECT_TIMEOUT_SECONDS
# The longest the database runs one of the lease's queries (neither waits for anything: each answers at once).
STATEMENT_TIMEOUT_MILLISECONDS = RETRY_SECONDS * 1000
# While tries keep failing, at most one log line this often.
FAILURE_LOG_SECONDS = 60.0
LEASE_KEY_PREFIX = "evo-ledger lease "
# The longest name the database keeps for a connection (NAMEDATALEN - 1 bytes): longer ones are cut.
APPLICATION_NAME_BYTES = 63
log = logging.getLogger(__name__)


class Lease(Protocol):
    """A lease on one named job, as a server holds it."""

    name: str

    @property
    def held(self) -> bool:
        """Whether this process held the lease when last asked (`hold`)."""

    @property
    def failure(self) -> str | None:
        """Why the last try to take or check the lease failed, in words that name no host (None: it was answered)."""

    def hold(self) -> bool:
        """Whether this process holds the lease now: the holder's hold checked, another's a try to take it."""

    def release(self) -> None:
        """The lease given up for good (the job stopped first), for another process to take: a `hold` under way or
        asked for after never takes it again."""


def lease_on(settings: Settings, name: str) -> Lease:
    """The lease on the job `name` among the processes on the store `settings` names."""
    if settings.is_postgres:
        return PostgresLease(settings, name)
    return LocalLease(name)


class LocalLease:
    """On SQLite: the lease is the process's that opened the store, from its first `hold`, and never lost."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.held = False
        self.closed = False
        self.failure: str | None = None

    def hold(self) -> bool:
        self.held = not self.closed
        return self.held

    def release(self) -> None:
        self.held, self.closed = False, True


class PostgresLease:
    """On PostgreSQL: a session advisory lock on a connection of its own, which the database frees when the
    connection ends (its holder gone, or silent beyond its keepalives). Its key is a digest of the job's name, so
    that every server asks for the same lock; advisory locks belong to one database, so that servers of other
    databases on the same server never meet on it."""

    def __init__(self, settings: Settings, name: str) -> None:
        self.settings, self.name = settings, name
        self.key = lock_key(name)
        self.connection: psycopg.Connection[TupleRow] | None = None
        self.holding = False
        self.closed = False
        self.failure: str | None = None
        self.failures = FailureLog(name)
        self.turn = threading.Lock()  # `hold` and `release` one at a time, from whichever thread asks

    @property
    def held(self) -> bool:
        return self.holding

    def hold(self) -> bool:
        with self.turn:
            if self.closed or (self.connection is None and not self._connected()):
                return False
            try:
                held = self._checked() if self.holding else self._tried()
            except psycopg.Error as error:
                self._failed(error, f"the database did not answer the lease's query ({error_kind(error)})")
                return False
            self.failure = None
            self.failures.answered()
            return held

    def release(self) -> None:
        """The lock given up on the lease's connection, then the connection closed: the lock is free for another
        process as this returns (the database frees a closed session's locks only once its backend has ended). No
        try takes it after."""
        with self.turn:
            self.closed = True
            if self.holding and self.connection is not None:
                with suppress(psycopg.Error):  # a connection already broken has its lock freed with it
                    self.connection.execute("SELECT pg_advisory_unlock(%s::bigint)", (self.key,))
            self._forget()

    def _connected(self) -> bool:
        """Whether the lease's connection could be made (a failure kept and logged)."""
        try:
            self.connection = self.open_connection()
        except psycopg.Error as error:
            self._failed(error, f"the database could not be reached ({error_kind(error)})")
            return False
        return True

    def _tried(self) -> bool:
        """A try to take the lock, on the lease's connection, kept whether it got it or not."""
        assert self.connection is not None
        row = self.connection.execute("SELECT pg_try_advisory_lock(%s::bigint)", (self.key,)).fetchone()
        self.holding = row is not None and bool(row[0])
        return self.holding

    def _checked(self) -> bool:
        """The holder's connection asked for an answer: while the session lives, so does its lock (a failed
        connection raises)."""
        assert self.connection is not None
        self.connection.execute("SELECT 1").fetchone()
        return True

    def _failed(self, error: psycopg.Error, words: str) -> None:
        """A try that failed: the connection dropped (a holder's lock goes with it), why kept and logged."""
        lost = self.holding
        self._forget()
        self.failure = words
        if lost:
            log.warning("the lease on %s is lost: its connection failed (%s)", self.name, first_line(error))
        else:
            self.failures.failed(first_line(error))

    def open_connection(self) -> psycopg.Connection[TupleRow]:
        """A connection of the lease's own, in autocommit, on which both ends drop a silent peer within
        SILENT_PEER_SECONDS; the database lists it by the job's name and the holder's host and process."""
        return psycopg.connect(
            **connection_options(self.settings.database),
            autocommit=True,
            application_name=application_name(self.name, socket.gethostname(), os.getpid()),
            **silent_peers_dropped({"statement_timeout": STATEMENT_TIMEOUT_MILLISECONDS}),
        )

    def _forget(self) -> None:
        connection, self.connection, self.holding = self.connection, None, False
        if connection is not None:
            connection.close()


class FailureLog:
    """The failed tries of one lease, logged: the first of a run at once, then at most one line every
    FAILURE_LOG_SECONDS with how many failed since the last; a try answered after them says so."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.logged_at: float | None = None
        self.unlogged = 0

    def failed(self, reason: str) -> None:
        now = time.monotonic()
        if self.logged_at is not None and now - self.logged_at < FAILURE_LOG_SECONDS:
            self.unlogged += 1
            return
        also = f" ({self.unlogged} more tries failed since the last said)" if self.unlogged else ""
        log.warning("the lease on %s cannot be asked for: %s%s", self.name, reason, also)
        self.logged_at, self.unlogged = now, 0

    def answered(self) -> None:
        if self.logged_at is not None:
            log.info("the lease on %s can be asked for again", self.name)
        self.logged_at, self.unlogged = None, 0


def error_kind(error: psycopg.Error) -> str:
    """An error's kind, without the database's own words (they may name its host): its class and SQLSTATE."""
    return f"{type(error).__name__}, SQLSTATE {error.sqlstate}" if error.sqlstate else type(error).__name__


def application_name(job: str, host: str, pid: int) -> str:
    """How the database lists a lease's connection: the job's name, the holder's host and its process id, the host
    cut short rather than the process id when the whole is longer than the database keeps."""
    tail = f" {pid}".encode()
    head = f"{LEASE_KEY_PREFIX}{job} {host}".encode()[: APPLICATION_NAME_BYTES - len(tail)]
    return (head + tail).decode(errors="ignore")


def lock_key(name: str) -> int:
    """The advisory lock's key for a job's name: a signed 64-bit digest of it."""
    digest = hashlib.sha256(f"{LEASE_KEY_PREFIX}{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
