"""Someone with write access to the database: events rewritten, notes added and hashes chained again, seals taken
off and snapshots deleted, for the audits and the checkpoints to catch."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from contextlib import closing
from typing import Any
from uuid import UUID

import psycopg

from evo_ledger.app.access import access_id
from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.app.transfer import export_bundle
from evo_ledger.game.aggregate import stored_hash
from evo_ledger.game.codec import canonical, pack, unpack
from evo_ledger.game.notation import parse_game
from evo_ledger.game.seal import unsealed_bytes
from evo_ledger.store.packed import guard_name
from evo_ledger.store.runs import unpack_run
from tests.helpers.support import ROOT

GAME_TEXT = (ROOT / "replays" / "hand-3p-first-game.evo").read_text()


class Tamperer:
    """Changes the stored events of a game behind the ledger's back, with plain SQL.

    Where the ledger stores events in the packed form, each append's events one row of its runs table, every
    statement is run after the runs are moved into the one-row-an-event table, as someone with the database would
    unpack them to edit one event: the trigger that refuses rows of that table dropped, each event of a run made a
    row under the notification id it has, and the runs deleted, in one transaction (on PostgreSQL the notification
    ids' sequence set past the largest, so that a row inserted after takes a new one). The ledger reads both
    tables, so the log reads as before, and a statement finds each event in a row of its own however many the
    ledger appended since the last. A statement on the runs table itself (`table` set to `runs_table`), and every
    statement while `unpacking` is False, sees the rows as they are; a store without a runs table (the keyed and
    compact forms) is left as it is."""

    def __init__(self, ledger: Ledger, game_id: UUID) -> None:
        self.database, self.game_id = ledger.settings.database, game_id
        self.postgres = self.database.startswith("postgresql://")
        self.events_table: str = ledger.store.recorder.events_table_name  # type: ignore[attr-defined]
        self.runs_table: str | None = getattr(ledger.store.recorder, "runs_table_name", None)
        self.table = self.events_table
        self.unpacking = self.runs_table is not None

    def execute(self, statement: str, *params: Any) -> list[Any]:
        statement = statement.replace("{table}", self.table)
        unpacking = self.unpacking and self.table != self.runs_table
        if self.postgres:
            with psycopg.connect(self.database, autocommit=True) as connection:
                if unpacking:
                    with connection.transaction():
                        self.unpack_postgres(connection)
                cursor = connection.execute(statement.replace("?", "%s"), params)
                return cursor.fetchall() if cursor.description else []
        with closing(sqlite3.connect(self.database, isolation_level=None)) as connection:
            if unpacking:
                connection.execute("BEGIN IMMEDIATE")
                try:
                    self.unpack_sqlite(connection)
                except BaseException:
                    connection.rollback()
                    raise
                connection.commit()
            return connection.execute(statement, params).fetchall()

    def unpacked_rows(self, runs: list[Any], key_of: Callable[[Any], Any]) -> list[tuple[Any, ...]]:
        """Each event of the runs (rows of last notification id, originator id, last version, events and body) as
        a row of the events table: its notification id, originator id as `key_of` makes it, version, topic, state."""
        rows = []
        for last_id, originator_id, last_version, events, body in runs:
            run = unpack_run(bytes(body))
            assert len(run) == events, f"a run of {originator_id} holds {len(run)} events, its row says {events}"
            for place, (topic, state) in enumerate(run, start=1 - events):
                rows.append((last_id + place, key_of(originator_id), last_version + place, topic, state))
        return rows

    def unpack_sqlite(self, connection: sqlite3.Connection) -> None:
        connection.execute(f"DROP TRIGGER IF EXISTS {guard_name(self.events_table)}")
        runs = connection.execute(
            f"SELECT last_notification_id, originator_id, last_version, events, body FROM {self.runs_table}"
        ).fetchall()
        if not runs:
            return
        connection.executemany(
            f"INSERT INTO {self.events_table} (rowid, originator_id, originator_version, topic, state) "
            "VALUES (?, ?, ?, ?, ?)",
            self.unpacked_rows(runs, lambda key: UUID(bytes=key).hex if isinstance(key, bytes) else key),
        )
        connection.execute(f"DELETE FROM {self.runs_table}")

    def unpack_postgres(self, connection: psycopg.Connection[Any]) -> None:
        connection.execute(f"LOCK TABLE {self.runs_table} IN EXCLUSIVE MODE")
        connection.execute(f"DROP TRIGGER IF EXISTS {guard_name(self.events_table)} ON {self.events_table}")
        runs = connection.execute(
            f"SELECT last_notification_id, originator_id, last_version, events, body FROM {self.runs_table}"
        ).fetchall()
        if not runs:
            return
        connection.cursor().executemany(
            f"INSERT INTO {self.events_table} (notification_id, originator_id, originator_version, topic, state) "
            "VALUES (%s, %s, %s, %s, %s)",
            self.unpacked_rows(runs, lambda key: key),
        )
        connection.execute(f"DELETE FROM {self.runs_table}")
        connection.execute(
            "SELECT setval(pg_get_serial_sequence(%s, 'notification_id'), "
            f"(SELECT max(notification_id) FROM {self.events_table}))",
            (self.events_table,),
        )

    @property
    def key(self) -> Any:
        return self.game_id if self.postgres else self.game_id.hex

    def stored(self, version: int) -> tuple[str, bytes]:
        """The event's topic and canonical bytes, whichever form they are stored in (both are read)."""
        [(topic, state)] = self.execute(
            "SELECT topic, state FROM {table} WHERE originator_id=? AND originator_version=?", self.key, version
        )
        return topic, canonical(bytes(state))

    def write(self, version: int, topic: str, state: bytes) -> None:
        self.execute(
            "UPDATE {table} SET topic=?, state=? WHERE originator_id=? AND originator_version=?",
            topic,
            state,
            self.key,
            version,
        )

    def delete(self, condition: str, version: int) -> None:
        self.execute(
            f"DELETE FROM {self.table} WHERE originator_id=? AND originator_version{condition}?", self.key, version
        )


def rehash_from(ledger: Ledger, tamperer: Tamperer, version: int, change: dict[str, Any]) -> None:
    """Change event `version`, then make its hash and every later one's again, as a forger without the key would."""
    previous = ledger.store.mapper.transcoder.decode(tamperer.stored(version - 1)[1])["hash"]
    for at in range(version, ledger.queries.receipt(tamperer.game_id).version + 1):
        topic, state = tamperer.stored(at)
        fields = ledger.store.mapper.transcoder.decode(state)
        if at == version:
            fields.update(change)
        fields["prev_hash"] = previous
        del fields["hash"]
        fields["hash"] = previous = stored_hash(topic, tamperer.game_id, at, fields)
        old_seal = state[len(unsealed_bytes(state)) :]  # kept: a forger cannot make a new one
        tamperer.write(at, topic, ledger.store.mapper.transcoder.encode(fields) + old_seal)


def strip_every_seal(tamperer: Tamperer, last: int) -> None:
    for version in range(1, last + 1):
        topic, state = tamperer.stored(version)
        tamperer.write(version, topic, unsealed_bytes(state))


def forge_without_the_key(ledger: Ledger, game_id: UUID, note: int, text: str) -> None:
    """The whole forgery of someone who holds the database but not the key: every seal of the game taken off, its
    first event made to say it was never sealed, the note at event `note` made to say `text`, every hash made
    again, and the game's snapshots deleted. Hashes, chain and seals all hold; the rules cannot check a note."""
    tamperer = Tamperer(ledger, game_id)
    strip_every_seal(tamperer, ledger.queries.receipt(game_id).version)
    topic, state = tamperer.stored(1)
    first = unpack(state)
    del first["hash"]
    first["sealed"] = False
    first["hash"] = stored_hash(topic, game_id, 1, first)
    tamperer.write(1, topic, pack(first))
    rehash_from(ledger, tamperer, 2, {})
    rehash_from(ledger, tamperer, note, {"text": text})
    snapshots = Tamperer(ledger, game_id)
    snapshots.table = ledger.store.snapshots.recorder.events_table_name  # type: ignore[union-attr]
    snapshots.delete(">", 0)


def forged_bundle(ledger: Ledger, game_id: UUID, note: int, text: str) -> bytes:
    """The game's bundle as anyone who may export it gets it, with the note at event `note` made to say `text`
    and every hash after it made again: a bundle carries no seal, so nothing in it shows the change."""
    bundle = unpack(export_bundle(ledger, game_id))
    previous = None
    for row in bundle["events"]:
        topic, version, state = row
        fields = unpack(state)
        if version >= note:
            if version == note:
                fields["text"] = text
            fields["prev_hash"] = previous
            del fields["hash"]
            fields["hash"] = stored_hash(topic, game_id, version, fields)
            row[2] = pack(fields)
        previous = fields["hash"]
    return pack(bundle)


def delete_game(ledger: Ledger, game_id: UUID) -> None:
    """Every row of the game deleted from the database: its events, its snapshots and who may write to it."""
    for table, key in (
        (ledger.store.recorder, game_id),
        (ledger.store.snapshots.recorder, game_id),  # type: ignore[union-attr]
        (ledger.store.recorder, access_id(game_id)),
    ):
        rows = Tamperer(ledger, key)
        rows.table = table.events_table_name  # type: ignore[union-attr]
        rows.delete(">", 0)


KEY = "the server's own secret"


def annotate_and_finish(ledger: Ledger, game_id: UUID, actions: list[str]) -> Receipt:
    ledger.commands.annotate(game_id, 5, "the die rolled under the sofa")
    return ledger.commands.record(game_id, actions)


def recorded_with_a_note(ledger: Ledger) -> tuple[Receipt, int]:
    """A game with an annotation in the middle: a fact the rules cannot check, so only a seal protects it."""
    actions = [line.text for line in parse_game(GAME_TEXT).actions]
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, actions[:20])
    note = ledger.queries.receipt(game).version + 1
    return annotate_and_finish(ledger, game, actions[20:40]), note
