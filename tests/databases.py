"""Databases for the tests: a SQLite file in a temporary folder, or a PostgreSQL database.

Each test process creates its own PostgreSQL database with a unique name, empties it before each test that uses it
(every table truncated, its counters started again, any connection left over ended) and drops it at the end, so that
neither runs nor tests see each other's data. Tests that need a database no test used before make one of their own.
The server is found at EVO_TEST_POSTGRES (default postgresql://postgres@127.0.0.1:5432/test).
Under CI=true a missing server fails the run; elsewhere the PostgreSQL tests are skipped, saying how to run them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

ADMIN_URL = os.environ.get("EVO_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
BACKENDS = ("sqlite", "postgres")


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
    message = f"PostgreSQL is not reachable at {ADMIN_URL} ({problem})"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}: CI runs every PostgreSQL test")
    pytest.skip(f"{message}: start PostgreSQL, or set EVO_TEST_POSTGRES to a server's URL, to run these tests")


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


def emptied(url: str) -> str:
    """`url`'s database with no rows in any table, every sequence at its start and no other connection open."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        tables = [
            name
            for (name,) in connection.execute(
                "SELECT format('%I.%I', schemaname, tablename) FROM pg_tables"
                " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
            )
        ]
        if tables:
            connection.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
    return url
