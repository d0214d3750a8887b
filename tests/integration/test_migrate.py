"""`evo-ledger migrate`, on SQLite and PostgreSQL: a database stored in the keyed form and one stored in the compact
form (tests/fixtures/stored/README.md) are read, audited and migrated into the packed form, the default. After, the
events table holds no row and every event is in a run, under the same key, topic and notification id, giving back
the bytes it held before; every snapshot is compact and gives back the bytes it held; every game audits clean under
the fixture's seal key, replays to its head hash and the checkpoint log verifies. A migration stopped part way
leaves a database that reads and audits clean, which a second run completes, and Ctrl-C stops the command between
batches saying how far it went; `--into` migrates a new copy and leaves the original's bytes as they were, and
refuses a file that exists; a database stored packed is left as it is, and the command says so; a SQLite log with
a gap in its notification ids keeps every event's. With EVO_LEDGER_STORED_FORM=compact the rows are rewritten
compact in place instead, each keeping its key, topic and notification id."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import psycopg
import pytest

from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.cli.ledger_commands import EXIT_BAD_INPUT, EXIT_OK
from evo_ledger.cli.main import main
from evo_ledger.cli.migrate_command import EXIT_STOPPED
from evo_ledger.cli.terminal import ProgressBar
from evo_ledger.game.checkpoints import published
from evo_ledger.game.codec import COMPACT_MARK, canonical
from evo_ledger.settings import COMPACT, PACKED, STORED_FORM_VARIABLE, Settings
from evo_ledger.store.migration import BATCH_ROWS, Migration, Progress, runs_table, stored_tables
from evo_ledger.store.recorders import runs_table_name
from tests.helpers.databases import BACKENDS, emptied
from tests.helpers.keyed_copies import copy_into_postgres, table_names
from tests.helpers.stored import FIXTURES

FORMS = ("keyed-form", "compact-form")
MADE: dict[str, dict[str, Any]] = {form: json.loads((FIXTURES / f"{form}.json").read_text()) for form in FORMS}
LOG_PAGE = 100_000  # more events than any database here holds: one page reads the whole log


@pytest.fixture(params=FORMS)
def form(request: pytest.FixtureRequest) -> str:
    """The fixture's name: `keyed-form` or `compact-form`."""
    return str(request.param)


def copied(form: str, folder: Path) -> Path:
    """A copy of the fixture's file: the fixture is never changed."""
    copy = folder / f"{form}.sqlite"
    shutil.copyfile(FIXTURES / f"{form}.sqlite", copy)
    return copy


@pytest.fixture(params=BACKENDS)
def stored(request: pytest.FixtureRequest, form: str, tmp_path: Path) -> str:
    """The fixture as a database of its own: a copy of its file, or its rows in PostgreSQL's tables."""
    copy = copied(form, tmp_path)
    if request.param == "sqlite":
        return str(copy)
    url = emptied(request.getfixturevalue("process_postgres"))
    copy_into_postgres(copy, url)
    return url


@dataclass(frozen=True)
class StoredRow:
    """A row as the database holds it, or an event as the log gives it: its notification id (None for a
    snapshot), its topic and its state."""

    position: int | None
    topic: str
    state: bytes


Rows = dict[tuple[UUID, int], StoredRow]  # by originator id and version


@dataclass(frozen=True)
class Tables:
    """The names of a ledger's events, snapshots and runs tables."""

    events: str
    snapshots: str
    runs: str


def tables_of(database: str, stored_form: str = PACKED) -> Tables:
    """The tables of the ledger at `database` as a ledger storing `stored_form` names them."""
    with Ledger(Settings(database, stored_form=stored_form)) as ledger:
        events, snapshots = table_names(ledger)
    return Tables(events, snapshots, runs_table_name(events))


def selected(database: str, statement: str) -> list[Any]:
    """The rows a statement selects, read with plain SQL, beside the ledger."""
    if database.startswith("postgresql://"):
        with psycopg.connect(database) as connection:
            return connection.execute(statement).fetchall()
    with closing(sqlite3.connect(database)) as connection:
        return connection.execute(statement).fetchall()


def rows_of(database: str, table: str, position: str) -> Rows:
    found = selected(database, f"SELECT {position}, originator_id, originator_version, topic, state FROM {table}")
    return {(UUID(str(key)), version): StoredRow(at, topic, bytes(state)) for at, key, version, topic, state in found}


def events_table(database: str, stored_form: str = PACKED) -> Rows:
    """Every row of the events table (one an event), with its notification id (SQLite's rowid)."""
    position = "notification_id" if database.startswith("postgresql://") else "rowid"
    return rows_of(database, tables_of(database, stored_form).events, position)


def snapshot_rows(database: str, stored_form: str = PACKED) -> Rows:
    """Every row of the snapshots table."""
    return rows_of(database, tables_of(database, stored_form).snapshots, "NULL")


def runs(database: str) -> list[Any]:
    """Every row of the runs table, as it is stored, in the order of their notification ids."""
    return selected(
        database,
        f"SELECT last_notification_id, originator_id, last_version, events, body FROM {tables_of(database).runs} "
        "ORDER BY last_notification_id",
    )


def logged(database: str) -> Rows:
    """Every event of the log as a ledger storing the packed form reads it, from the runs and from the events table
    alike."""
    with Ledger(Settings(database, stored_form=PACKED)) as ledger:
        found = ledger.store.recorder.select_notifications(start=1, limit=LOG_PAGE)
    assert len(found) < LOG_PAGE
    return {
        (UUID(str(event.originator_id)), event.originator_version): StoredRow(event.id, event.topic, event.state)
        for event in found
    }


def as_signed(rows: Rows) -> dict[tuple[UUID, int], tuple[int | None, str, bytes]]:
    """Each row's notification id, topic and canonical bytes (what hashes, seals and checkpoints are taken over)."""
    return {key: (row.position, row.topic, canonical(row.state)) for key, row in rows.items()}


def not_compact(rows: Rows) -> int:
    return sum(row.state[:1] != COMPACT_MARK for row in rows.values())


def assert_moved_into_runs(events: Rows, database: str) -> None:
    """The events table holds no row, and its rows `events` are each in a run: the log gives each back under the
    same key, topic and notification id, with the canonical bytes it held."""
    assert events_table(database) == {}
    assert as_signed(logged(database)) == as_signed(events)
    assert sum(run[3] for run in runs(database)) == len(events)


def assert_rewritten(before: Rows, after: Rows) -> None:
    """Every row compact, under the same key, topic and notification id, giving back the canonical bytes it held."""
    assert before.keys() == after.keys()
    assert [key for key, row in after.items() if row.state[:1] != COMPACT_MARK] == []
    assert as_signed(after) == as_signed(before)


def assert_verifies(database: str, made: dict[str, Any], stored_form: str = PACKED) -> None:
    """Every game replays to the head it was stored with and audits clean under the seal key, against the
    checkpoints kept elsewhere; the checkpoint log verifies under the key."""
    games: list[dict[str, Any]] = made["games"]
    with Ledger(Settings(database, seal_key=made["seal_key"], stored_form=stored_form)) as ledger:
        for game in games:
            game_id = UUID(game["id"])
            assert Receipt.of(ledger.queries.game(game_id)).head_hash == game["head_hash"]
            report = ledger.queries.audit(game_id, expect_head=game["head_hash"], kept=made["checkpoints"])
            assert report.verdict == "clean", report.data
            assert [report.check(name)["verdict"] for name in ("hashes", "chain", "seals", "checkpoints")] == [
                "pass"
            ] * 4
        index = ledger.vouched.checkpoint_index()
        assert index.faults == [] and all(checkpoint.genuine for checkpoint in index.checkpoints)
        assert [published(checkpoint) for checkpoint in index.checkpoints] == made["checkpoints"]
        assert {game["id"]: index.covered_of(game["id"]) for game in games} == {
            game["id"]: game["version"] for game in games
        }
        assert ledger.vouched.unvouched_by_last_checkpoint() == []


def migrated(database: str, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    """What `evo-ledger migrate` printed, once it succeeded."""
    assert main(["migrate", "--database", database, *options]) == EXIT_OK
    return capsys.readouterr().out


def test_a_database_migrated_into_the_packed_form_verifies_as_before(
    stored: str, form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_verifies(stored, MADE[form])
    events, snapshots = events_table(stored), snapshot_rows(stored)
    assert len(events) > 400 and len(snapshots) == 3
    assert as_signed(logged(stored)) == as_signed(events)
    said = migrated(stored, capsys)
    assert (
        f"moved into runs       {len(events)} rows, in {len(runs(stored))} runs\n"
        f"rewritten compact     {not_compact(snapshots)} rows\n"
        "left keyed            0 rows\n"
    ) in said
    assert_moved_into_runs(events, stored)
    assert_rewritten(snapshots, snapshot_rows(stored))
    assert_verifies(stored, MADE[form])


class Stopped(Exception):
    """The migration's process stopping, as a kill would stop it, between two batches."""


def stop_after(batches: int) -> Any:
    def after_batch(progress: Progress) -> None:
        if progress.looked_at >= batches * 50:
            raise Stopped

    return after_batch


def test_a_migration_stopped_part_way_reads_and_audits_clean_and_a_second_run_completes_it(
    stored: str, form: str
) -> None:
    events, snapshots = events_table(stored), snapshot_rows(stored)
    with (
        Ledger(Settings(stored)) as ledger,
        Migration(ledger.settings, stored_tables(ledger.store), 50, runs=runs_table(ledger.store)) as migration,
        pytest.raises(Stopped),
    ):
        migration.run(stop_after(2))
    left = events_table(stored)
    assert left == {key: events[key] for key in sorted(events)[100:]}  # the first 100 by key moved, the rest as before
    assert sum(run[3] for run in runs(stored)) == 100
    assert as_signed(logged(stored)) == as_signed(events)
    assert snapshot_rows(stored) == snapshots
    assert_verifies(stored, MADE[form])
    with (
        Ledger(Settings(stored)) as ledger,
        Migration(ledger.settings, stored_tables(ledger.store), 50, runs=runs_table(ledger.store)) as migration,
    ):
        progress = migration.run()
    keyed = not_compact(snapshots)
    assert (progress.to_do, progress.packed, progress.rewritten, progress.left_keyed) == (
        len(events) - 100 + keyed,
        len(events) - 100,
        keyed,
        0,
    )
    assert_moved_into_runs(events, stored)
    assert_rewritten(snapshots, snapshot_rows(stored))
    assert_verifies(stored, MADE[form])


def test_ctrl_c_stops_the_command_between_batches_saying_how_far_it_went(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = str(copied(form, tmp_path))
    events, snapshots = events_table(copy), snapshot_rows(copy)
    assert len(events) <= BATCH_ROWS  # the first batch moves every event, and Ctrl-C comes after it
    keyed = not_compact(snapshots)

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ProgressBar, "update", interrupted)
    assert main(["migrate", "--database", copy]) == EXIT_STOPPED
    assert capsys.readouterr().err == (
        f"evo-ledger migrate: stopped with {len(events)} rows moved into runs, 0 rows rewritten compact and {keyed} "
        "still to look at (every form is read): run it again to go on\n"
    )
    assert_moved_into_runs(events, copy)
    assert snapshot_rows(copy) == snapshots
    monkeypatch.undo()
    said = migrated(copy, capsys)
    if keyed:
        assert said.startswith(f"rewritten compact     {keyed} rows\nleft keyed            0 rows\n")
    else:
        assert said.startswith("every row is stored in its form already: nothing rewritten\n")
    assert_moved_into_runs(events, copy)
    assert_rewritten(snapshots, snapshot_rows(copy))


def test_into_migrates_a_new_file_and_leaves_the_original_as_it_was(
    form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original, into = copied(form, tmp_path), tmp_path / "packed.sqlite"
    bytes_before = original.read_bytes()
    said = migrated(str(original), capsys, "--into", str(into))
    assert said.startswith(f"migrating a copy, {into}: {original} is only read\n")
    assert original.read_bytes() == bytes_before
    assert_moved_into_runs(events_table(str(original)), str(into))
    assert_rewritten(snapshot_rows(str(original)), snapshot_rows(str(into)))
    assert_verifies(str(into), MADE[form])
    migrated_bytes = into.read_bytes()
    assert main(["migrate", "--database", str(original), "--into", str(into)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == (
        f"evo-ledger migrate: --into {into}: exists already: the rewritten copy goes into a new file\n"
    )
    assert into.read_bytes() == migrated_bytes


def test_into_copies_a_sqlite_file_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    postgres, into = "postgresql://postgres@127.0.0.1:1/evo", tmp_path / "copy.sqlite"
    assert main(["migrate", "--database", postgres, "--into", str(into)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == (
        f"evo-ledger migrate: --into {into}: a SQLite file is copied into a new one, not a PostgreSQL database evo "
        "at 127.0.0.1:1\n"
    )
    assert not into.exists()


def test_a_sqlite_file_that_is_not_there_is_refused_not_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.sqlite"
    assert main(["migrate", "--database", str(missing)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == (
        f"evo-ledger migrate: SQLite file {missing}: cannot be opened: there is no such file\n"
    )
    assert not missing.exists()


def test_a_database_stored_packed_is_left_as_it_is(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(Settings(database)) as ledger:
        ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
        ledger.commands.generate_game(2, seed=2, ruleset="evo2")
    before, stored_runs, snapshots = logged(database), runs(database), snapshot_rows(database)
    assert len(before) == 1 + 173 and len(snapshots) == 1
    assert len(stored_runs) == 1 + 2  # the new game's event; the self-played game's, a hundred events at most a run
    assert events_table(database) == {} and not_compact(snapshots) == 0
    said = migrated(database, capsys)
    assert said.startswith("every row is stored in its form already: nothing rewritten\n")
    assert (logged(database), runs(database), snapshot_rows(database)) == (before, stored_runs, snapshots)


@pytest.mark.parametrize("stored_form", [PACKED, COMPACT])
def test_a_sqlite_log_with_a_gap_in_its_positions_keeps_every_events_notification_id(
    stored_form: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """VACUUM may number again the rows of a table without an INTEGER PRIMARY KEY; the events' rowids are their
    notification ids. Where they run without a gap a copy in their order keeps them; where one is missing, the
    file is not vacuumed, and every row left in the events table (the compact form's, rewritten in place) keeps its
    rowid. Moved into runs, every event keeps its notification id, the gap among them."""
    monkeypatch.setenv(STORED_FORM_VARIABLE, stored_form)
    database = str(copied("keyed-form", tmp_path))
    events = tables_of(database, COMPACT).events
    with sqlite3.connect(database) as connection:
        connection.execute(f'DELETE FROM "{events}" WHERE rowid = 5')
    before = events_table(database, COMPACT)
    assert sorted(row.position or 0 for row in before.values())[3:5] == [4, 6]
    migrated(database, capsys)
    if stored_form == PACKED:
        assert_moved_into_runs(before, database)
    else:
        assert_rewritten(before, events_table(database, COMPACT))


def test_with_the_compact_form_the_rows_are_rewritten_compact_in_place(
    stored: str, form: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """EVO_LEDGER_STORED_FORM=compact: each row not compact is rewritten compact where it is, in the events table
    or the snapshots table, under the same key, topic and notification id; none is moved into runs. A database
    stored compact is left as it is."""
    monkeypatch.setenv(STORED_FORM_VARIABLE, COMPACT)
    before = {"events": events_table(stored, COMPACT), "snapshots": snapshot_rows(stored, COMPACT)}
    keyed = sum(not_compact(rows) for rows in before.values())
    said = migrated(stored, capsys)
    if keyed:
        assert said.startswith(f"rewritten compact     {keyed} rows\nleft keyed            0 rows\n")
    else:
        assert said.startswith("every row is stored in its form already: nothing rewritten\n")
    after = {"events": events_table(stored, COMPACT), "snapshots": snapshot_rows(stored, COMPACT)}
    for table, rows in before.items():
        assert_rewritten(rows, after[table])
    assert_verifies(stored, MADE[form], COMPACT)
    assert runs(stored) == []
