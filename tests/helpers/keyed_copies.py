"""A SQLite ledger's stored rows copied byte for byte into a PostgreSQL ledger's tables, so that a database made on
SQLite (the keyed-form and compact-form fixtures) is read, audited and migrated on PostgreSQL too."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg

from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import KEYED, Settings


def table_names(ledger: Ledger) -> tuple[str, str]:
    """The names of the ledger's events table and snapshots table, as its recorders give them."""
    assert ledger.store.snapshots is not None
    events: str = ledger.store.recorder.events_table_name  # type: ignore[attr-defined]
    snapshots: str = ledger.store.snapshots.recorder.events_table_name  # type: ignore[attr-defined]
    return events, snapshots


def copy_into_postgres(source: Path, url: str) -> None:
    """Every row of the SQLite ledger `source` (a copy: opening it may change it) inserted into the PostgreSQL
    ledger at `url`, whose tables are made if need be and must hold no rows: each event under its SQLite rowid as
    its notification id (checkpoints name positions in the log), each originator id's 32 hex digits as a uuid,
    each state's bytes as they are; then the notification ids' sequence set past the last, so that appends go on
    after it."""
    with Ledger(Settings(str(source))) as ledger:
        sqlite_events, sqlite_snapshots = table_names(ledger)
    with Ledger(Settings(url, stored_form=KEYED)) as ledger:  # a store of one row an event, as the source is
        events, snapshots = table_names(ledger)
    with closing(sqlite3.connect(source)) as reader, psycopg.connect(url) as writer:
        found = reader.execute(
            f"SELECT rowid, originator_id, originator_version, topic, state FROM {sqlite_events} ORDER BY rowid"
        ).fetchall()
        writer.cursor().executemany(
            f"INSERT INTO {events} (notification_id, originator_id, originator_version, topic, state) "
            "VALUES (%s, %s, %s, %s, %s)",
            [(rowid, *as_postgres(row)) for rowid, *row in found],
        )
        kept = reader.execute(f"SELECT originator_id, originator_version, topic, state FROM {sqlite_snapshots}")
        writer.cursor().executemany(
            f"INSERT INTO {snapshots} (originator_id, originator_version, topic, state) VALUES (%s, %s, %s, %s)",
            [as_postgres(row) for row in kept.fetchall()],
        )
        if found:
            last = found[-1][0]
            writer.execute(f"SELECT setval(pg_get_serial_sequence('{events}', 'notification_id'), %s)", (last,))


def as_postgres(row: list[Any] | tuple[Any, ...]) -> tuple[UUID, int, str, bytes]:
    originator_id, version, topic, state = row
    return UUID(hex=originator_id), version, topic, bytes(state)
