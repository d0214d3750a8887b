"""The replica tests' own pair of servers: what the primary writes, the replica serves, and it refuses writes."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests.helpers.replica import PrimaryAndReplica, primary_and_replica


@pytest.fixture(scope="module")
def pair() -> Iterator[PrimaryAndReplica]:
    with primary_and_replica() as started:
        yield started


def test_rows_written_on_the_primary_are_read_on_the_replica(pair: PrimaryAndReplica) -> None:
    with psycopg.connect(pair.primary_url) as primary:
        primary.execute("CREATE TABLE seen (word text)")
        primary.execute("INSERT INTO seen VALUES ('carnivore'), ('burrowing')")
    pair.caught_up()
    with psycopg.connect(pair.replica_url) as replica:
        words = replica.execute("SELECT word FROM seen ORDER BY word").fetchall()
    assert words == [("burrowing",), ("carnivore",)]


def test_the_replica_refuses_writes(pair: PrimaryAndReplica) -> None:
    with psycopg.connect(pair.replica_url) as replica, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        replica.execute("CREATE TABLE refused (word text)")
