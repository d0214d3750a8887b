"""The arrays an append sends to PostgreSQL already in binary form: the server reads what psycopg's lists give."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import psycopg
import pytest

from evo_ledger.store import BigintArray, BinaryArray, ByteaArray, TextArray, UuidArray
from tests.databases import fresh_postgres_database


@pytest.fixture(scope="module")
def connection() -> Iterator[psycopg.Connection[Any]]:
    with fresh_postgres_database() as url, psycopg.connect(url, autocommit=True) as connection:
        yield connection


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
    [(from_binary, from_list)] = connection.execute(f"SELECT %s::{cast}, %s::{cast}", (array, values)).fetchall()
    assert from_binary == from_list == values


def test_an_element_out_of_its_type_is_refused_by_the_server(connection: psycopg.Connection[Any]) -> None:
    with pytest.raises(psycopg.Error):
        connection.execute("SELECT %s::uuid[]", (UuidArray([b"short"]),)).fetchall()
