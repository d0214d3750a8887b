"""Personal data kept beside the log, in two tables of the store that erasure deletes from: the handles seats are
known by (`seat_labels`: a seat's label in the log, the handle it stands for, the stable id it carries) and the keys
personal text in the log is sealed under (`personal_keys`: one per owner, a person or a game); and a third that
erasure adds to, the digests of the stable ids it erased (`erased_seat_ids`), so that none is given out again.

Nothing here is hashed, sealed or checkpointed: the log holds labels and sealed text, and these rows say what they
stand for until erasure deletes them. A row is written, and committed, before the event that uses it is appended:
a row no event uses (its append refused) is harmless, and an event is never acknowledged whose row could be lost.
On SQLite, rows are deleted with `secure_delete` on, so that their bytes do not stay in the file's free pages."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Collection, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from eventsourcing.persistence import AggregateRecorder
from eventsourcing.postgres import PostgresDatastore
from eventsourcing.sqlite import SQLiteDatastore
from psycopg.rows import tuple_row

__all__ = ["PersonalTables", "SeatLabel", "personal_tables"]

LABELS = "seat_labels"
KEYS = "personal_keys"
ERASED = "erased_seat_ids"


def erased_mark(stable_id: str) -> str:
    """What is kept of an erased stable id: its digest, so that it is never given out again, yet not readable."""
    return hashlib.sha256(f"erased seat id:{stable_id}".encode()).hexdigest()


@dataclass(frozen=True)
class SeatLabel:
    """A seat's label in the log, the handle it stands for and the stable id it carries. `claim` is what the label
    was asked for by: a handle alone (`handle:ann`), or a handle with a stable id (`id:<stable id>:ann`)."""

    label: str
    handle: str
    stable_id: str
    claim: str


class Cursor(Protocol):
    def execute(self, statement: Any, params: Any = ..., /) -> Any: ...

    def fetchall(self) -> Any: ...


class PersonalTables(ABC):
    """The two tables on one store, in its own dialect (`mark`: its parameter mark)."""

    mark = "?"
    blob = "BLOB"

    def create(self) -> None:
        with self.writing() as cursor:
            cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {self.table(LABELS)} (label TEXT PRIMARY KEY, claim TEXT NOT NULL UNIQUE,"
                " handle TEXT NOT NULL, stable_id TEXT NOT NULL)"
            )
            cursor.execute(f"CREATE INDEX IF NOT EXISTS seat_labels_by_stable_id ON {self.table(LABELS)} (stable_id)")
            cursor.execute(
                f"CREATE TABLE IF NOT EXISTS {self.table(KEYS)} (owner TEXT PRIMARY KEY, secret {self.blob} NOT NULL)"
            )
            cursor.execute(f"CREATE TABLE IF NOT EXISTS {self.table(ERASED)} (mark TEXT PRIMARY KEY)")

    def table(self, name: str) -> str:
        return name

    @abstractmethod
    def writing(self) -> AbstractContextManager[Cursor]:
        """A cursor in a transaction that commits."""

    @abstractmethod
    def reading(self) -> AbstractContextManager[Cursor]:
        """A cursor that reads."""

    def claimed(self, wanted: Sequence[SeatLabel]) -> dict[str, SeatLabel]:
        """The label of each claim: the one stored for it, else the one offered (stored now, and committed)."""
        with self.writing() as cursor:
            for offer in wanted:
                cursor.execute(
                    f"INSERT INTO {self.table(LABELS)} (label, claim, handle, stable_id) VALUES ({self.marks(4)})"
                    " ON CONFLICT (claim) DO NOTHING",
                    (offer.label, offer.claim, offer.handle, offer.stable_id),
                )
        return self.labels_claimed([offer.claim for offer in wanted])

    def labels_claimed(self, claims: Collection[str]) -> dict[str, SeatLabel]:
        rows = self._select("label, handle, stable_id, claim", LABELS, "claim", claims)
        return {row[3]: SeatLabel(*row) for row in rows}

    def handles(self, labels: Collection[str]) -> dict[str, str]:
        """The handle each label stands for, of those not erased."""
        return {label: handle for label, handle in self._select("label, handle", LABELS, "label", labels)}

    def labels_standing_for(self, handle: str) -> list[str]:
        """The labels that stand for the handle (of each stable id it sat under)."""
        return [label for (label,) in self._select("label", LABELS, "handle", [handle])]

    def keys(self, owners: Collection[str]) -> dict[str, bytes]:
        return {owner: bytes(secret) for owner, secret in self._select("owner, secret", KEYS, "owner", owners)}

    def key_made(self, owner: str, offered: bytes) -> bytes:
        """The owner's key: the one stored, else the one offered (stored now, and committed)."""
        stored = self.keys([owner]).get(owner)
        if stored is not None:
            return stored
        with self.writing() as cursor:
            cursor.execute(
                f"INSERT INTO {self.table(KEYS)} (owner, secret) VALUES ({self.marks(2)})"
                " ON CONFLICT (owner) DO NOTHING",
                (owner, offered),
            )
        return self.keys([owner])[owner]

    def erased_among(self, stable_ids: Collection[str]) -> set[str]:
        """Those of the stable ids that were erased."""
        marks = {erased_mark(stable_id): stable_id for stable_id in stable_ids}
        return {marks[mark] for (mark,) in self._select("mark", ERASED, "mark", marks)}

    def erase(self, stable_ids: Collection[str], owners: Collection[str]) -> None:
        """Delete the labels of these stable ids and the keys of these owners, and mark the stable ids erased, in
        one transaction."""
        with self.writing() as cursor:
            self.deleting_securely(cursor)
            for stable_id in stable_ids:
                cursor.execute(
                    f"INSERT INTO {self.table(ERASED)} (mark) VALUES ({self.mark}) ON CONFLICT (mark) DO NOTHING",
                    (erased_mark(stable_id),),
                )
            if stable_ids:
                cursor.execute(
                    f"DELETE FROM {self.table(LABELS)} WHERE stable_id IN ({self.marks(len(stable_ids))})",
                    list(stable_ids),
                )
            if owners:
                cursor.execute(
                    f"DELETE FROM {self.table(KEYS)} WHERE owner IN ({self.marks(len(owners))})", list(owners)
                )

    @abstractmethod
    def deleting_securely(self, cursor: Cursor) -> None:
        """What makes deleted rows' bytes unreadable in the store's files, where it can be asked for."""

    def _select(self, columns: str, table: str, column: str, values: Collection[str]) -> list[tuple[Any, ...]]:
        if not values:
            return []
        with self.reading() as cursor:
            cursor.execute(
                f"SELECT {columns} FROM {self.table(table)} WHERE {column} IN ({self.marks(len(values))})",
                list(values),
            )
            return [tuple(row) for row in cursor.fetchall()]

    def marks(self, count: int) -> str:
        return ", ".join([self.mark] * count)


class SQLiteTables(PersonalTables):
    def __init__(self, datastore: SQLiteDatastore) -> None:
        self.datastore = datastore

    @contextmanager
    def writing(self) -> Iterator[Cursor]:
        with self.datastore.transaction(commit=True) as cursor:
            yield cursor

    @contextmanager
    def reading(self) -> Iterator[Cursor]:
        with self.datastore.transaction(commit=False) as cursor:
            yield cursor

    def deleting_securely(self, cursor: Cursor) -> None:
        cursor.execute("PRAGMA secure_delete = ON")

    def erase(self, stable_ids: Collection[str], owners: Collection[str]) -> None:
        """As on any store, then the write-ahead log copied into the file and emptied, so that the pages the
        deleted rows were on leave it too (as far as no reader holds them at that moment)."""
        super().erase(stable_ids, owners)
        with self.datastore.get_connection(commit=True) as connection:
            cursor = connection.cursor()
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")


class PostgresTables(PersonalTables):
    mark = "%s"
    blob = "BYTEA"

    def __init__(self, datastore: PostgresDatastore) -> None:
        self.datastore = datastore

    def table(self, name: str) -> str:
        return f'"{self.datastore.schema}".{name}'

    @contextmanager
    def writing(self) -> Iterator[Cursor]:
        with (
            self.datastore.get_connection() as connection,
            connection.transaction(),
            connection.cursor(row_factory=tuple_row) as cursor,
        ):
            yield cursor

    @contextmanager
    def reading(self) -> Iterator[Cursor]:
        with self.datastore.get_connection() as connection, connection.cursor(row_factory=tuple_row) as cursor:
            yield cursor

    def deleting_securely(self, cursor: Cursor) -> None:
        """A deleted row's bytes stay in its table's pages until a vacuum reuses them: the database's own
        autovacuum, or `VACUUM` run by its operator (docs/people.md)."""


def personal_tables(recorder: AggregateRecorder, create: bool) -> PersonalTables:
    """The personal tables on the store the recorder writes to, made where they are missing if `create`."""
    datastore = getattr(recorder, "datastore", None)
    tables: PersonalTables
    if isinstance(datastore, SQLiteDatastore):
        tables = SQLiteTables(datastore)
    elif isinstance(datastore, PostgresDatastore):
        tables = PostgresTables(datastore)
    else:
        raise TypeError(f"personal data is kept on SQLite or PostgreSQL, not beside {type(recorder).__name__}")
    if create:
        tables.create()
    return tables
