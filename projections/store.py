"""The read tables' database, through SQLAlchemy: the ledger's own PostgreSQL database, or beside a SQLite ledger a
file of their own (`games.sqlite` -> `games.read.sqlite`). SQLite has one write lock a file: in the ledger's file,
each page the follower wrote held it, and the ledger's appends waited for it, sleeping between tries.

Rows and the position in the log they reach are written in one transaction. A transaction that writes starts by
taking the position under a lock (`BEGIN IMMEDIATE` on SQLite, `SELECT ... FOR UPDATE` on PostgreSQL) and checks
that it is the one its reader started from, so two runners never apply the same events twice. On PostgreSQL no
one holds that lock for long: every connection drops a silent peer, ends a transaction left idle and gives up
waiting for a lock within a few seconds (`engine_for`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, Table, create_engine, event, func, insert, inspect, select, update
from sqlalchemy.engine import Inspector, make_url
from sqlalchemy.exc import DBAPIError

from evo_ledger.settings import CONNECT_TIMEOUT_SECONDS, LOCK_TIMEOUT_SECONDS, Settings
from evo_ledger.store.keepalives import SILENT_PEER_SECONDS, silent_peers_dropped
from evo_ledger.store.recorders import StoreUnusable
from projections.schema import POSITIONS, SET_ASIDE, metadata, read_tables

# The read tables' position is kept under this name, which carries the version of what their rows mean: rows
# written by another version (a status word changed, say) are built again from the log.
PROJECTION = "read_tables/6"
APPLICATION = "Ledger"
CREATE_ATTEMPTS = 5
# On PostgreSQL, a transaction that writes the read tables left idle this long is ended by the database, and its
# locks freed: a runner whose server went silent mid-page, or stopped, holds the position's row no longer than
# its silent connection is waited for (evo_ledger.store.keepalives). A page waits for no one between its
# statements (a thousand events take well under a second, a few seconds with a tenth of a core), so this ends
# none that goes on. Every connection waits at most LOCK_TIMEOUT_SECONDS for a lock: a runner that meets the
# position's row held stops, and starts again from its position (projections.runner.database_unavailable).
IDLE_IN_TRANSACTION_SECONDS = SILENT_PEER_SECONDS
# What a rebuild, or a version whose rows mean something else, drops.
log = logging.getLogger(__name__)


def every_table() -> tuple[Table, ...]:
    """Every table the read store keeps: the read tables, the games set aside and the positions."""
    return (*read_tables(), SET_ASIDE, POSITIONS)


class PositionMoved(RuntimeError):
    """Another runner moved the read tables on since this one read their position: nothing was written."""


def engine_for(settings: Settings, writing: bool = False) -> Engine:
    """The read tables' engine. On SQLite, a `writing` engine's transactions take the write lock as they begin
    (two writers would otherwise deadlock upgrading their locks); a reading one's take none: in WAL mode a reader
    sees the last commit and neither waits for a writer nor holds one up. On PostgreSQL, every connection drops a
    silent database and asks it to drop a silent client alike (evo_ledger.store.keepalives) and waits at most
    LOCK_TIMEOUT_SECONDS for a lock; a `writing` one's transactions left idle IDLE_IN_TRANSACTION_SECONDS are ended
    by the database (a reading one's are not: a slow client reading a table's CSV holds one open)."""
    if settings.is_postgres:
        url = make_url(settings.database).set(drivername="postgresql+psycopg")
        # As on SQLite below: a commit of the read tables stays atomic with their position but need not wait for
        # the disk, so it does not queue for the sync to disk behind the appends' commits.
        asked: dict[str, object] = {"synchronous_commit": "off", "lock_timeout": LOCK_TIMEOUT_SECONDS * 1000}
        if writing:
            asked["idle_in_transaction_session_timeout"] = IDLE_IN_TRANSACTION_SECONDS * 1000
        options = silent_peers_dropped(asked) | {"connect_timeout": CONNECT_TIMEOUT_SECONDS}
        return create_engine(url, pool_size=5, pool_pre_ping=True, connect_args=options)
    engine = create_engine(f"sqlite:///{read_tables_file(settings.database)}")
    event.listen(engine, "connect", _sqlite_connected)
    event.listen(engine, "begin", _sqlite_begin_writing if writing else _sqlite_begin_reading)
    return engine


def read_tables_file(database: str) -> str:
    """The SQLite file of a SQLite ledger's read tables, beside the ledger's."""
    path = Path(database)
    return str(path.with_name(f"{path.stem}.read{path.suffix}"))


def _sqlite_connected(dbapi_connection: Any, _: Any) -> None:
    # The driver's own transaction handling is turned off so that `_sqlite_begin` decides how each one begins.
    dbapi_connection.isolation_level = None
    dbapi_connection.execute(f"PRAGMA busy_timeout={LOCK_TIMEOUT_SECONDS * 1000}")
    dbapi_connection.execute("PRAGMA journal_mode=WAL")
    # The read tables can be rebuilt from the log: a commit need not wait for the disk, only stay atomic.
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")


def _sqlite_begin_writing(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def _sqlite_begin_reading(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN")


@dataclass
class Advance:
    """A transaction moving the read tables on: the rows written on `connection` take them to `position`."""

    connection: Connection
    position: int


@dataclass(frozen=True)
class SetAside:
    """An event of the log the read tables could not apply, and went on without: its game, its version there, its
    position in the log, and the type of the error."""

    game_id: str
    event: int
    position: int
    error: str

    def __str__(self) -> str:
        return f"event {self.event} of game {self.game_id}, at position {self.position} of the log ({self.error})"


def position_in(connection: Connection) -> int:
    """The last notification of the log the read tables include (0: none), as the connection sees them."""
    found = connection.execute(
        select(POSITIONS.c.notification_id).where(POSITIONS.c.projection == PROJECTION)
    ).scalar_one_or_none()
    return int(found or 0)


class ReadStore:
    def __init__(self, settings: Settings) -> None:
        """`engine` reads the tables; `writing` changes them."""
        self.settings = settings
        self.engine = engine_for(settings)
        self.writing = engine_for(settings, writing=True)
        if settings.read_only:
            self.check_readable()
        else:
            self.create()

    def close(self) -> None:
        self.engine.dispose()
        self.writing.dispose()

    def create(self) -> None:
        """The read tables, made if missing, at position 0 if new (two processes starting at once may collide:
        the later tries again). Tables whose columns are not those of this version are made again from the log's
        start."""
        for attempt in range(CREATE_ATTEMPTS):
            try:
                every = every_table()  # the rulesets' tables made first, so that `metadata` holds them
                found = inspect(self.engine)
                existing = set(found.get_table_names())
                if not self._columns_match(found, existing) or not self._version_matches(existing):
                    log.warning("the read tables were written by another version: they are built again from the log")
                    metadata.drop_all(self.writing, tables=every)
                    existing -= {table.name for table in every}
                missing = [table for table in metadata.sorted_tables if table.name not in existing]
                metadata.create_all(self.writing, tables=missing, checkfirst=False)
                self._start_position()
                return
            except DBAPIError:
                if attempt == CREATE_ATTEMPTS - 1:
                    raise
                time.sleep(0.1 * (attempt + 1))

    def check_readable(self) -> None:
        """Read tables opened read only are read as the server that writes them left them: missing, or written by
        another version, they are refused as they open (StoreUnusable), not made again."""
        found = inspect(self.engine)
        existing = set(found.get_table_names())
        every = {table.name for table in every_table()}
        if not every <= existing or not self._columns_match(found, existing) or not self._version_matches(existing):
            raise StoreUnusable(
                f"{self.settings.described}: its read tables are missing or were written by another version "
                "(read only, they are not made again): serve the database with a server of this version that "
                "writes, and read them once it has made them"
            )

    def _columns_match(self, found: Inspector, existing: set[str]) -> bool:
        """Whether every read table that exists has the columns, and the key, this version writes, and none is
        missing beside the others (a table added since would lack the rows of the log already followed). The events
        set aside may be missing: a version before them set none aside. The tables are read in one question each
        for their columns and their keys."""
        written = {table.name for table in read_tables()} & existing
        if written and len(written) < len(read_tables()):
            return False
        tables = [table for table in (*read_tables(), SET_ASIDE) if table.name in existing]
        if not tables:
            return True
        names = [table.name for table in tables]
        columns = {
            name: found_columns for (_, name), found_columns in found.get_multi_columns(filter_names=names).items()
        }
        keys = {name: key for (_, name), key in found.get_multi_pk_constraint(filter_names=names).items()}
        return all(
            {column["name"] for column in columns[table.name]} == set(table.columns.keys())
            and set(keys[table.name]["constrained_columns"]) == set(table.primary_key.columns.keys())
            for table in tables
        )

    def _version_matches(self, existing: set[str]) -> bool:
        """Whether the read tables' rows, if any, were written by this version."""
        if POSITIONS.name not in existing:
            return True
        with self.engine.connect() as connection:
            names = set(connection.execute(select(POSITIONS.c.projection)).scalars())
        return not names or PROJECTION in names

    def _start_position(self) -> None:
        with self.writing.begin() as connection:
            known = select(POSITIONS.c.projection).where(POSITIONS.c.projection == PROJECTION)
            if connection.execute(known).first() is None:
                values = {"projection": PROJECTION, "application": APPLICATION, "notification_id": 0}
                connection.execute(insert(POSITIONS).values(values))

    def reset(self) -> None:
        """The read tables dropped and made again, empty, at position 0."""
        metadata.drop_all(self.writing, tables=every_table())
        self.create()

    def position(self) -> int:
        with self.engine.connect() as connection:
            return position_in(connection)

    @contextmanager
    def at_once(self) -> Iterator[Connection]:
        """A connection that reads every read table as one transaction sees them: on PostgreSQL at repeatable read,
        each statement seeing what the first saw (at its default, read committed, each sees what is committed as it
        starts); on SQLite, a transaction of the write-ahead log already does."""
        with self.engine.connect() as connection:
            if self.settings.is_postgres:
                connection.execution_options(isolation_level="REPEATABLE READ")
            yield connection

    def set_aside(self, limit: int | None = None) -> list[SetAside]:
        """The events set aside, in the log's order (the first `limit` of them)."""
        query = select(SET_ASIDE.c.game_id, SET_ASIDE.c.event, SET_ASIDE.c.position, SET_ASIDE.c.error)
        with self.engine.connect() as connection:
            rows = connection.execute(query.order_by(SET_ASIDE.c.position).limit(limit))
            return [SetAside(*row) for row in rows]

    def set_aside_count(self) -> int:
        with self.engine.connect() as connection:
            return int(connection.execute(select(func.count()).select_from(SET_ASIDE)).scalar_one())

    @contextmanager
    def advancing(self, start: int) -> Iterator[Advance]:
        """A transaction that moves the read tables on from position `start`: the block writes rows and sets the
        position they reach; both commit together, or neither."""
        with self.writing.begin() as connection:
            locked = select(POSITIONS.c.notification_id).where(POSITIONS.c.projection == PROJECTION)
            if self.settings.is_postgres:
                locked = locked.with_for_update()
            found = connection.execute(locked).scalar_one()
            if found != start:
                raise PositionMoved(f"the read tables are at notification {found}, not {start}")
            advance = Advance(connection, start)
            yield advance
            if advance.position != start:
                where = POSITIONS.c.projection == PROJECTION
                connection.execute(update(POSITIONS).where(where).values(notification_id=advance.position))
