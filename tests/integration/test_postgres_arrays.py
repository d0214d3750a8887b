"""How an append reaches PostgreSQL: its columns as binary arrays made directly, read by the server as the lists
they were made of, and its statement prepared on each connection, again if the connection lost it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest

from evo_ledger.ledger import Ledger
from evo_ledger.settings import Settings
from evo_ledger.store import (
    BigintArray,
    BinaryArray,
    ByteaArray,
    OneStatementPostgresApplicationRecorder,
    TextArray,
    UuidArray,
)
from tests.databases import fresh_postgres_database


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
TEXTS = ["evo_ledger.game:Game", "", "Æsa's ü 🦕", 'quote " and {brace}, back\\slash']
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


def test_an_append_prepares_its_statement_again_on_a_connection_that_lost_it(url: str) -> None:
    with Ledger(Settings(url)) as ledger:
        game = ledger.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
        recorder = ledger.recorder
        assert isinstance(recorder, OneStatementPostgresApplicationRecorder)
        first = ledger.stored_events(game.game_id)[0]
        copies = [uuid4(), uuid4()]
        with recorder.datastore.get_connection() as pooled:
            ids = [recorder.appended(pooled, columns(copy, first.topic, first.state)) for copy in copies[:1]]
            pooled.execute("DEALLOCATE ALL")
            ids.append(recorder.appended(pooled, columns(copies[1], first.topic, first.state)))
        assert [len(appended) for appended in ids] == [1, 1] and ids[1][0] > ids[0][0]
        assert [ledger.stored_events(copy)[0].state for copy in copies] == [first.state] * 2


def test_a_refused_append_raises_what_psycopg_would(url: str) -> None:
    with Ledger(Settings(url)) as ledger:
        game = ledger.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
        recorder = ledger.recorder
        assert isinstance(recorder, OneStatementPostgresApplicationRecorder)
        first = ledger.stored_events(game.game_id)[0]
        with recorder.datastore.get_connection() as pooled, pytest.raises(psycopg.errors.UniqueViolation):
            recorder.appended(pooled, columns(game.game_id, first.topic, first.state))


def columns(game_id: UUID, topic: str, state: bytes) -> list[bytes]:
    """An append's columns: the game's first event."""
    arrays = [UuidArray([game_id.bytes]), BigintArray([1]), TextArray([topic]), ByteaArray([state])]
    return [*(array.data for array in arrays), b"5s"]
