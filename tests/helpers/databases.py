"""Databases for the tests: a SQLite file in a temporary folder, or a PostgreSQL database.

Each test process creates its own PostgreSQL database with a unique name, empties it before each test that uses it
(every table's rows deleted, its sequences started again, any connection left over ended) and drops it at the end,
so that neither runs nor tests see each other's data. Tests that need a database no test used before make one of
their own.
The server is found at EVO_TEST_POSTGRES (default postgresql://postgres@127.0.0.1:5432/test).
Under CI=true a missing server fails the run; elsewhere the PostgreSQL tests are skipped, saying how to run them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

ADMIN_URL = os.environ.get("EVO_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
# The quick tier runs every layer on SQLite; the whole suite runs it on PostgreSQL too.
ON_POSTGRES = pytest.mark.slow(reason="on PostgreSQL: the quick tier runs each layer on SQLite")
BACKENDS = ("sqlite", pytest.param("postgres", marks=ON_POSTGRES))


def postgres_unavailable() -> str | None:
    try:
        with psycopg.connect(ADMIN_URL, connect_timeout=3):
            return None
    except psycopg.Error as error:
        return str(error).strip().splitlines()[0]


def require_postgres() -> None:
    problem = postgres_unavailable()
    if problem is None:
        return
    missing(
        f"PostgreSQL is not reachable at {ADMIN_URL} ({problem})",
        "CI runs every PostgreSQL test",
        "start PostgreSQL, or set EVO_TEST_POSTGRES to a server's URL, to run these tests",
    )


def missing(problem: str, under_ci: str, to_enable: str) -> NoReturn:
    """A server or program the test needs is missing: under CI=true the test fails, elsewhere it is skipped,
    saying how to enable it."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{problem}: {under_ci}")
    pytest.skip(f"{problem}: {to_enable}")


def url_for(database: str) -> str:
    parts = urlsplit(ADMIN_URL)
    return urlunsplit((parts.scheme, parts.netloc, f"/{database}", "", ""))


@contextmanager
def fresh_postgres_database() -> Iterator[str]:
    """The URL of a new, empty database, dropped when the block ends."""
    require_postgres()
    name = f"evo_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url_for(name)
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


OURS = " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"  # the tables and sequences the tests made


def emptied(url: str) -> str:
    """`url`'s database with no rows in any table, every sequence at its start, no trigger (as a store that kept
    runs leaves on its events table) and no other connection open. Rows are deleted rather than tables truncated: a
    truncate makes every table's and index's files anew, several times slower on tables this small (the schema has
    no foreign keys, so the order does not matter)."""
    with psycopg.connect(url) as connection:
        connection.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        for (table,) in connection.execute(f"SELECT format('%I.%I', schemaname, tablename) FROM pg_tables{OURS}"):
            connection.execute(f"DELETE FROM {table}")
        for (sequence,) in connection.execute(
            f"SELECT format('%I.%I', schemaname, sequencename) FROM pg_sequences{OURS}"
        ):
            connection.execute(f"ALTER SEQUENCE {sequence} RESTART")
        for (trigger,) in connection.execute(
            "SELECT format('%I ON %s', tgname, tgrelid::regclass) FROM pg_trigger WHERE NOT tgisinternal"
        ).fetchall():
            connection.execute(f"DROP TRIGGER {trigger}")
    return url
