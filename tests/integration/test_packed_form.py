"""The packed stored form's recorder, on SQLite and PostgreSQL: every read of a packed store gives what the same
appends give stored one row an event (seeded queries of a game's events, of the log with and without topics, of
the last position and of the games changed since one); an append that brings a version stored already is refused
whole, and on SQLite so is a row written past the recorder, and a run over an event row where aggregates are named
by text; a store part way through its move into runs reads as one log; a recorder of one row an event refuses a
store holding runs, and one that opened before the runs were cannot append after; a game named by its UUID and by
its text is one game; servers opening a store at once each make its tables in turn; runs are at most RUN_EVENTS
long, one append's events of a game in a run."""

from __future__ import annotations

import multiprocessing
import random
import sqlite3
from collections.abc import Iterator
from typing import Any
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.sqlite import SQLiteDatastore

from evo_ledger.app.ledger import Ledger
from evo_ledger.game.codec import canonical
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import COMPACT, KEYED, PACKED, Settings
from evo_ledger.store.packed import PackedSQLiteRecorder
from evo_ledger.store.recorders import LedgerSQLiteApplicationRecorder, StoreUnusable
from evo_ledger.store.runs import RUN_EVENTS
from tests.helpers.databases import fresh_postgres_database
from tests.helpers.tampering import GAME_TEXT

SEED = 69
ACTIONS = [line.text for line in parse_game(GAME_TEXT).actions]
TOPICS = ("evo-ledger:Game.Created", "evo-ledger:Game.ActionRecorded", "evo-ledger:Game.AnnotationAdded")


@pytest.fixture
def second_database(database: str, tmp_path: Any) -> Iterator[str]:
    if database.startswith("postgresql://"):
        with fresh_postgres_database() as url:
            yield url
    else:
        yield str(tmp_path / "second.sqlite")


def appends(rng: random.Random) -> list[list[StoredEvent]]:
    """Seeded appends of three aggregates: one event, a few, a long one cut into runs, and several aggregates'
    events in one append, some states stored values and some not."""
    games = [uuid4() for _ in range(3)]
    versions = dict.fromkeys(games, 0)
    batches: list[list[StoredEvent]] = []
    for size in [1, 3, RUN_EVENTS + 30, 2, 1, 5, 1, 1, 2 * RUN_EVENTS + 1, 4]:
        batch = []
        for _ in range(size):
            game = rng.choice(games) if size < 10 else games[0]
            versions[game] += 1
            state = rng.randbytes(rng.randint(0, 40))
            batch.append(StoredEvent(game, versions[game], rng.choice(TOPICS), state))
        batches.append(batch)
    return batches


def stored(events: Any) -> list[tuple[Any, ...]]:
    """Events as comparable rows (the notification id where the event has one)."""
    return [
        (getattr(event, "id", None), str(event.originator_id), event.originator_version, event.topic, event.state)
        for event in events
    ]


def test_every_read_of_a_packed_store_gives_what_one_row_an_event_gives(database: str, second_database: str) -> None:
    rng = random.Random(SEED)
    batches = appends(rng)
    with (
        Ledger(Settings(database, stored_form=PACKED)) as packed,
        Ledger(Settings(second_database, stored_form=COMPACT)) as rows,
    ):
        packed_recorder: Any = packed.store.recorder
        rows_recorder: Any = rows.store.recorder
        for batch in batches:
            assert packed_recorder.insert_events(batch) == rows_recorder.insert_events(batch)
        games = sorted({event.originator_id for batch in batches for event in batch})
        last: int = rows_recorder.max_notification_id()
        assert packed_recorder.max_notification_id() == last
        for _ in range(300):
            game, gt, lte = rng.choice(games), rng.choice([None, *range(0, 40)]), rng.choice([None, *range(1, 300)])
            query = {"gt": gt, "lte": lte, "desc": rng.random() < 0.5, "limit": rng.choice([None, 1, 2, 7, 150])}
            assert stored(packed_recorder.select_events(game, **query)) == stored(
                rows_recorder.select_events(game, **query)
            ), query
        for _ in range(300):
            start = rng.choice([None, *range(1, last + 2)])
            query = {
                "stop": rng.choice([None, *range(1, last + 2)]),
                "topics": rng.choice([(), TOPICS[:1], TOPICS[1:]]),
                "inclusive_of_start": rng.random() < 0.5,
            }
            limit = rng.choice([1, 3, 10, 1000])
            assert stored(packed_recorder.select_notifications(start, limit, **query)) == stored(
                rows_recorder.select_notifications(start, limit, **query)
            ), (start, limit, query)
        for position in [None, 0, 1, 5, 140, last - 1, last]:
            for topics in [TOPICS[:1], TOPICS[2:], TOPICS]:
                assert packed_recorder.select_changed_since(position, topics) == rows_recorder.select_changed_since(
                    position, topics
                )


def test_runs_hold_an_appends_events_of_a_game_at_most_run_events_long(database: str) -> None:
    game = uuid4()
    long_append = [StoredEvent(game, version, TOPICS[1], b"") for version in range(1, 2 * RUN_EVENTS + 2)]
    with Ledger(Settings(database)) as ledger:
        recorder = ledger.store.recorder
        assert recorder.insert_events(long_append) == list(range(1, 2 * RUN_EVENTS + 2))
        recorder.insert_events([StoredEvent(game, 2 * RUN_EVENTS + 2, TOPICS[1], b"")])
        runs = runs_of(ledger, game)
    assert runs == [
        (RUN_EVENTS, RUN_EVENTS),
        (2 * RUN_EVENTS, RUN_EVENTS),
        (2 * RUN_EVENTS + 1, 1),
        (2 * RUN_EVENTS + 2, 1),
    ]


def runs_of(ledger: Ledger, game: UUID) -> list[tuple[int, int]]:
    """Each run of the game, as its last version and its events, read from the runs' table."""
    recorder: Any = ledger.store.recorder
    table, key = recorder.runs_table_name, game
    if ledger.settings.is_postgres:
        with recorder.datastore.get_connection() as connection:
            found = connection.execute(
                f"SELECT last_version, events FROM {table} WHERE originator_id = %s ORDER BY last_version", (key,)
            ).fetchall()
            return [(row["last_version"], row["events"]) for row in found]
    with recorder.datastore.transaction(commit=False) as cursor:
        cursor.execute(f"SELECT last_version, events FROM {table} WHERE originator_id = ? ORDER BY 1", (key.bytes,))
        return [(row[0], row[1]) for row in cursor.fetchall()]


def test_an_append_bringing_a_version_stored_already_is_refused_whole(database: str) -> None:
    game, other = uuid4(), uuid4()
    with Ledger(Settings(database)) as ledger:
        recorder = ledger.store.recorder
        recorder.insert_events([StoredEvent(game, version, TOPICS[1], b"") for version in (1, 2, 3)])
        for refused in (
            [StoredEvent(other, 1, TOPICS[1], b""), StoredEvent(game, 3, TOPICS[1], b"")],
            [
                StoredEvent(game, 2, TOPICS[1], b""),
                StoredEvent(game, 3, TOPICS[1], b""),
                StoredEvent(game, 4, TOPICS[1], b""),
            ],
            [StoredEvent(game, 4, TOPICS[1], b""), StoredEvent(game, 4, TOPICS[1], b"")],
        ):
            with pytest.raises(IntegrityError):
                recorder.insert_events(refused)
        assert recorder.select_events(other) == [] and recorder.max_notification_id() == 3
        assert recorder.insert_events([StoredEvent(game, 4, TOPICS[1], b"")]) == [4]


def test_a_sqlite_store_refuses_a_run_over_a_stored_version_whoever_writes_it(tmp_path: Any) -> None:
    """On SQLite a trigger of the runs table checks the versions, so a row written past the recorder is refused as
    an append is; a run that follows on is taken."""
    game = uuid4()
    with Ledger(Settings(str(tmp_path / "store.sqlite"))) as ledger:
        recorder: Any = ledger.store.recorder
        recorder.insert_events([StoredEvent(game, version, TOPICS[1], b"") for version in (1, 2, 3)])
        with recorder.datastore.transaction(commit=True) as cursor:
            written = f"INSERT INTO {recorder.runs_table_name} VALUES (?, ?, ?, ?, ?)"
            for last_version, events in ((3, 1), (4, 2), (5, 5)):
                with pytest.raises(sqlite3.IntegrityError, match="one of the versions of this run is stored already"):
                    cursor.execute(written, (10 + last_version, game.bytes, last_version, events, b""))
            cursor.execute(written, (10, game.bytes, 4, 1, b""))
        assert [event.originator_version for event in recorder.select_events(game)] == [1, 2, 3, 4]


def test_a_sqlite_store_of_text_ids_refuses_a_run_over_an_event_row_of_a_uuid(tmp_path: Any) -> None:
    """Where aggregates are named by text, a UUID given as itself is kept as its 32 hex digits in the one-row-an-event
    table and as its text in a run's row: the trigger matches both."""
    game = uuid4()
    path = str(tmp_path / "text-ids.sqlite")
    rows = LedgerSQLiteApplicationRecorder(SQLiteDatastore(path, originator_id_type="text"))
    rows.create_table()
    rows.insert_events([StoredEvent(game, version, TOPICS[1], b"") for version in (1, 2)])
    runs = PackedSQLiteRecorder(SQLiteDatastore(path, originator_id_type="text"))
    runs.create_table()
    for refused in ([StoredEvent(game, 2, TOPICS[1], b"")], [StoredEvent(str(game), 2, TOPICS[1], b"")]):
        with pytest.raises(IntegrityError, match="stored already"):
            runs.insert_events(refused)
    assert runs.insert_events([StoredEvent(game, 3, TOPICS[1], b"")]) == [3]
    assert runs.insert_events([StoredEvent(str(uuid4()).upper(), 1, TOPICS[1], b"")]) == [4]


def test_a_store_of_one_row_an_event_takes_runs_after_its_rows_and_reads_as_one_log(database: str) -> None:
    with Ledger(Settings(database, stored_form=KEYED)) as keyed:
        game = keyed.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
        keyed.commands.record(game, ACTIONS[:3])
        before = keyed.store.recorder.select_notifications(1, 1000)
    with Ledger(Settings(database)) as packed:
        assert stored(packed.store.recorder.select_notifications(1, 1000)) == stored(before)
        receipt = packed.commands.record(game, ACTIONS[3:5])
        log = packed.store.recorder.select_notifications(1, 1000)
        assert [event.id for event in log] == list(range(1, len(log) + 1))
        assert [event.originator_version for event in log if event.originator_id == game][-1] == receipt.version
        assert [canonical(event.state) for event in log[: len(before)]] == [event.state for event in before]
        assert packed.queries.audit(game).verdict == "clean"


def test_a_recorder_of_one_row_an_event_refuses_a_store_holding_runs(database: str) -> None:
    with Ledger(Settings(database)) as ledger:
        ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    for form in (COMPACT, KEYED):
        with pytest.raises(
            StoreUnusable, match=f"holds events in the packed form, which EVO_LEDGER_STORED_FORM={form}"
        ):
            Ledger(Settings(database, stored_form=form))


def test_a_server_of_one_row_an_event_that_opened_before_the_runs_were_cannot_append_after(database: str) -> None:
    """It would number its events after its own table's last and never see a run's versions: a trigger the packed
    form leaves on that table refuses its append, saying why, and nothing of it is stored."""
    with Ledger(Settings(database, stored_form=COMPACT)) as old:
        game = old.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
        with Ledger(Settings(database)) as packed:
            packed.commands.record(game, ACTIONS[:2])
            last = packed.store.recorder.max_notification_id()
        with pytest.raises(Exception, match="keeps its events in runs") as refused:
            old.store.recorder.insert_events([StoredEvent(uuid4(), 1, TOPICS[0], b"")])
        assert "stop that server" in str(refused.value)
    with Ledger(Settings(database)) as packed:
        assert packed.store.recorder.max_notification_id() == last
        assert packed.queries.audit(game).verdict == "clean"


def test_one_game_named_by_its_uuid_and_by_its_text_is_one_game(database: str) -> None:
    game = uuid4()
    with Ledger(Settings(database, stored_form=KEYED)) as keyed:
        keyed.store.recorder.insert_events([StoredEvent(game, 1, TOPICS[1], b"")])
    with Ledger(Settings(database)) as ledger:
        recorder = ledger.store.recorder
        with pytest.raises(IntegrityError):
            recorder.insert_events([StoredEvent(str(game), 1, TOPICS[1], b"")])
        recorder.insert_events([StoredEvent(str(game), 2, TOPICS[1], b""), StoredEvent(game, 3, TOPICS[1], b"")])
        with pytest.raises(IntegrityError):
            recorder.insert_events([StoredEvent(game, 4, TOPICS[1], b""), StoredEvent(str(game), 4, TOPICS[1], b"")])
        assert [event.originator_version for event in recorder.select_events(str(game))] == [1, 2, 3]


def open_ledger(database: str, ready: Any) -> None:
    ready.wait()
    Ledger(Settings(database)).close()


def opened_at_once(database: str) -> list[int | None]:
    """The exit codes of four processes opening the store at the same moment."""
    spawning = multiprocessing.get_context("spawn")
    ready = spawning.Barrier(4)
    servers = [spawning.Process(target=open_ledger, args=(database, ready)) for _ in range(4)]
    for server in servers:
        server.start()
    for server in servers:
        server.join(60)
    return [server.exitcode for server in servers]


def test_servers_opening_a_store_at_once_each_make_its_tables_in_turn(tmp_path: Any) -> None:
    """Each waits for the write lock to make the tables the packed form adds, where one that read first would be
    refused at once."""
    database = str(tmp_path / "shared.sqlite")
    with Ledger(Settings(database, stored_form=COMPACT)) as ledger:
        ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    assert opened_at_once(database) == [0, 0, 0, 0]
