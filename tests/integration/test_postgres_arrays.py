"""How an append reaches PostgreSQL: its columns as binary arrays made directly, read by the server as the lists
they were made of, and its statement prepared on each connection, again if the connection lost it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest
from eventsourcing.persistence import StoredEvent

from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import COMPACT, Settings
from evo_ledger.store.fast_paths import (
    BigintArray,
    BinaryArray,
    ByteaArray,
    PostgresOneStatementAppend,
    TextArray,
    UuidArray,
)
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database

pytestmark = ON_POSTGRES


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with fresh_postgres_database() as database:
        yield database


@pytest.fixture
def connection(url: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(url, autocommit=True) as opened:
        yield opened


IDS = [uuid4(), UUID(int=0), UUID(int=2**128 - 1)]
NUMBERS = [1, 0, -1, 2**63 - 1, -(2**63)]
TEXTS = ["evo_ledger.game.aggregate:Game", "", "Æsa's ü 🦕", 'quote " and {brace}, back\\slash']
BLOBS = [b"\x00\xff", b"", bytes(range(256)) * 40]
CASES: list[tuple[str, BinaryArray, list[Any]]] = [
    ("uuid[]", UuidArray([value.bytes for value in IDS]), IDS),
    ("bigint[]", BigintArray(NUMBERS), NUMBERS),
    ("text[]", TextArray(TEXTS), TEXTS),
    ("bytea[]", ByteaArray(BLOBS), BLOBS),
    ("bigint[]", BigintArray([]), []),
]


@pytest.mark.parametrize(("cast", "array", "values"), CASES)
def test_a_binary_array_reads_on_the_server_as_the_list_it_was_made_of(
    connection: psycopg.Connection[Any], cast: str, array: BinaryArray, values: list[Any]
) -> None:
    """Both made text by the server: the array sent as bytes, and the list as psycopg sends it."""
    query = f"SELECT $1::{cast}::text".encode()
    sent = connection.pgconn.exec_params(query, [array.data], [array.array_oid], [1])
    [(from_list,)] = connection.execute(f"SELECT %s::{cast}::text", [values]).fetchall()
    assert sent.get_value(0, 0) == from_list.encode()


def test_an_element_out_of_its_type_is_refused_by_the_server(connection: psycopg.Connection[Any]) -> None:
    refused = connection.pgconn.exec_params(b"SELECT $1::uuid[]", [UuidArray([b"short"]).data], [2951], [1])
    assert refused.status == psycopg.pq.ExecStatus.FATAL_ERROR


@pytest.fixture
def ledger(url: str) -> Iterator[Ledger]:
    with Ledger(Settings(url, stored_form=COMPACT)) as opened:  # the one-statement append stores a row an event
        yield opened


def recorder_and_first_event(ledger: Ledger) -> tuple[PostgresOneStatementAppend, StoredEvent]:
    """The ledger's recorder, and the first event of a new game."""
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    assert isinstance(ledger.store.recorder, PostgresOneStatementAppend)
    return ledger.store.recorder, ledger.queries.stored_events(game.game_id)[0]


def test_an_append_prepares_its_statement_again_on_a_connection_that_lost_it(ledger: Ledger) -> None:
    recorder, first = recorder_and_first_event(ledger)
    copies = [uuid4(), uuid4()]
    with recorder.datastore.get_connection() as pooled:
        before = recorder.append_call.run(pooled, columns(copies[0], first))
        pooled.execute("DEALLOCATE ALL")
        after = recorder.append_call.run(pooled, columns(copies[1], first))
    assert len(before) == len(after) == 1 and after[0] > before[0]
    assert [ledger.queries.stored_events(copy)[0].state for copy in copies] == [first.state] * 2


def test_a_refused_append_raises_what_psycopg_would(ledger: Ledger) -> None:
    recorder, first = recorder_and_first_event(ledger)
    with recorder.datastore.get_connection() as pooled, pytest.raises(psycopg.errors.UniqueViolation):
        recorder.append_call.run(pooled, columns(UUID(str(first.originator_id)), first))  # its game's version 1 again


def columns(game_id: UUID, event: StoredEvent) -> list[bytes]:
    """An append's columns: `event` as the first event of `game_id`."""
    arrays = [UuidArray([game_id.bytes]), BigintArray([1]), TextArray([event.topic]), ByteaArray([event.state])]
    return [*(array.data for array in arrays), b"5s"]
