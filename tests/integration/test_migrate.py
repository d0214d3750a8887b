"""`evo-ledger migrate`, on SQLite and PostgreSQL: the database stored in the keyed form (tests/fixtures/stored/
README.md) is read, audited and migrated, and after, every row is compact, gives back the bytes it held before and
keeps its key, topic and notification id, while every game audits clean under the fixture's seal key, replays to
its head hash and the checkpoint log verifies; a migration stopped part way leaves a database that reads and
audits clean, which a second run completes, and Ctrl-C stops the command between batches saying how far it went;
`--into` migrates a new copy and leaves the original's bytes as they were, and refuses a file that exists; a
database stored compact is left as it is, and the command says so."""

from __future__ import annotations

import json
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.cli.ledger_commands import EXIT_BAD_INPUT, EXIT_OK
from evo_ledger.cli.main import main
from evo_ledger.cli.migrate_command import EXIT_STOPPED
from evo_ledger.cli.terminal import ProgressBar
from evo_ledger.game.checkpoints import published
from evo_ledger.game.codec import COMPACT_MARK, canonical
from evo_ledger.settings import Settings
from evo_ledger.store.migration import Migration, Progress, stored_tables
from tests.helpers.databases import BACKENDS, emptied
from tests.helpers.keyed_copies import copy_into_postgres, table_names
from tests.helpers.stored import FIXTURES
from tests.helpers.tampering import Tamperer

MADE: dict[str, Any] = json.loads((FIXTURES / "keyed-form.json").read_text())
GAMES: list[dict[str, Any]] = MADE["games"]


@pytest.fixture(params=BACKENDS)
def keyed(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The keyed-form fixture as a database of its own: a copy of its file, or its rows in PostgreSQL's tables."""
    copy = tmp_path / "keyed-form.sqlite"
    shutil.copyfile(FIXTURES / "keyed-form.sqlite", copy)
    if request.param == "sqlite":
        return str(copy)
    url = emptied(request.getfixturevalue("process_postgres"))
    copy_into_postgres(copy, url)
    return url


@dataclass(frozen=True)
class StoredRow:
    """A row as the database holds it: its notification id (None for a snapshot), its topic and its state."""

    position: int | None
    topic: str
    state: bytes


Rows = dict[tuple[str, str, int], StoredRow]  # by table, originator id and version


def stored_rows(database: str) -> Rows:
    """Every row of the events and the snapshots tables."""
    with Ledger(Settings(database)) as ledger:
        reader = Tamperer(ledger, UUID(int=0))
        position = "notification_id" if reader.postgres else "rowid"
        found: Rows = {}
        for table, column in zip(table_names(ledger), (position, "NULL"), strict=True):
            reader.table = table
            statement = f"SELECT {column}, originator_id, originator_version, topic, state FROM {{table}}"
            for at, originator_id, version, topic, state in reader.execute(statement):
                found[(table, str(originator_id).replace("-", ""), version)] = StoredRow(at, topic, bytes(state))
        return found


def compact_rows(rows: Rows) -> int:
    return sum(row.state[:1] == COMPACT_MARK for row in rows.values())


def assert_migrated(before: Rows, after: Rows) -> None:
    """Every row compact, under the same key, topic and notification id, giving back the bytes it held before."""
    assert before.keys() == after.keys()
    assert [key for key, row in after.items() if row.state[:1] != COMPACT_MARK] == []
    assert {key: (row.position, row.topic) for key, row in after.items()} == {
        key: (row.position, row.topic) for key, row in before.items()
    }
    assert [key for key, row in after.items() if canonical(row.state) != before[key].state] == []


def assert_verifies(database: str) -> None:
    """Every game replays to the head it was stored with and audits clean under the seal key, against the
    checkpoints kept elsewhere; the checkpoint log verifies under the key."""
    with Ledger(Settings(database, seal_key=MADE["seal_key"])) as ledger:
        for made in GAMES:
            game_id = UUID(made["id"])
            assert Receipt.of(ledger.queries.game(game_id)).head_hash == made["head_hash"]
            report = ledger.queries.audit(game_id, expect_head=made["head_hash"], kept=MADE["checkpoints"])
            assert report.verdict == "clean", report.data
            assert [report.check(name)["verdict"] for name in ("hashes", "chain", "seals", "checkpoints")] == [
                "pass"
            ] * 4
        index = ledger.vouched.checkpoint_index()
        assert index.faults == [] and all(checkpoint.genuine for checkpoint in index.checkpoints)
        assert [published(checkpoint) for checkpoint in index.checkpoints] == MADE["checkpoints"]
        assert {made["id"]: index.covered_of(made["id"]) for made in GAMES} == {
            made["id"]: made["version"] for made in GAMES
        }
        assert ledger.vouched.unvouched_by_last_checkpoint() == []


def migrated(database: str, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    """What `evo-ledger migrate` printed, once it succeeded."""
    assert main(["migrate", "--database", database, *options]) == EXIT_OK
    return capsys.readouterr().out


def test_the_keyed_database_migrated_verifies_as_before(keyed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert_verifies(keyed)
    before = stored_rows(keyed)
    assert len(before) > 400 and compact_rows(before) == 0
    said = migrated(keyed, capsys)
    assert f"rewritten compact     {len(before)} rows\nleft keyed            0 rows\n" in said
    assert_migrated(before, stored_rows(keyed))
    assert_verifies(keyed)


class Stopped(Exception):
    """The migration's process stopping, as a kill would stop it, between two batches."""


def stop_after(batches: int) -> Any:
    def after_batch(progress: Progress) -> None:
        if progress.looked_at >= batches * 50:
            raise Stopped

    return after_batch


def test_a_migration_stopped_part_way_reads_and_audits_clean_and_a_second_run_completes_it(keyed: str) -> None:
    before = stored_rows(keyed)
    with (
        Ledger(Settings(keyed)) as ledger,
        Migration(ledger.settings, stored_tables(ledger.store), 50) as migration,
        pytest.raises(Stopped),
    ):
        migration.run(stop_after(2))
    part_way = stored_rows(keyed)
    assert compact_rows(part_way) == 100
    assert [key for key, row in part_way.items() if canonical(row.state) != before[key].state] == []
    assert_verifies(keyed)
    with Ledger(Settings(keyed)) as ledger, Migration(ledger.settings, stored_tables(ledger.store), 50) as migration:
        progress = migration.run()
    assert (progress.to_do, progress.rewritten, progress.left_keyed) == (len(before) - 100, len(before) - 100, 0)
    assert_migrated(before, stored_rows(keyed))


def test_ctrl_c_stops_the_command_between_batches_saying_how_far_it_went(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "keyed-form.sqlite"
    shutil.copyfile(FIXTURES / "keyed-form.sqlite", copy)
    before = stored_rows(str(copy))
    events = sum(row.position is not None for row in before.values())

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ProgressBar, "update", interrupted)
    assert main(["migrate", "--database", str(copy)]) == EXIT_STOPPED
    assert capsys.readouterr().err == (
        f"evo-ledger migrate: stopped with {events} rows rewritten compact and {len(before) - events} still to look "
        "at (both forms are read): run it again to go on\n"
    )
    assert compact_rows(stored_rows(str(copy))) == events
    monkeypatch.undo()
    assert f"rewritten compact     {len(before) - events} rows\n" in migrated(str(copy), capsys)
    assert_migrated(before, stored_rows(str(copy)))


def test_into_migrates_a_new_file_and_leaves_the_original_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original, into = tmp_path / "keyed-form.sqlite", tmp_path / "compact.sqlite"
    shutil.copyfile(FIXTURES / "keyed-form.sqlite", original)
    bytes_before = original.read_bytes()
    said = migrated(str(original), capsys, "--into", str(into))
    assert said.startswith(f"migrating a copy, {into}: {original} is only read\n")
    assert original.read_bytes() == bytes_before
    assert_migrated(stored_rows(str(original)), stored_rows(str(into)))
    assert_verifies(str(into))
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


def test_a_database_stored_compact_is_left_as_it_is(database: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Ledger(Settings(database)) as ledger:
        ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    before = stored_rows(database)
    assert before and compact_rows(before) == len(before)
    said = migrated(database, capsys)
    assert said.startswith("every row is stored compact already: nothing rewritten\n")
    assert stored_rows(database) == before


def test_a_sqlite_log_with_a_gap_in_its_positions_is_migrated_but_not_vacuumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """VACUUM may number again the rows of a table without an INTEGER PRIMARY KEY; the events' rowids are their
    notification ids. Where they run without a gap a copy in their order keeps them; where one is missing, the
    file is not vacuumed, and every row keeps its rowid."""
    database = tmp_path / "gap.sqlite"
    shutil.copy(FIXTURES / "keyed-form.sqlite", database)
    with Ledger(Settings(str(database))) as ledger:
        events = stored_tables(ledger.store)[0].name
    with sqlite3.connect(database) as connection:
        connection.execute(f'DELETE FROM "{events}" WHERE rowid = 5')
        before = connection.execute(f'SELECT rowid, originator_id, originator_version FROM "{events}"').fetchall()
    migrated(str(database), capsys)
    with sqlite3.connect(database) as connection:
        after = connection.execute(f'SELECT rowid, originator_id, originator_version FROM "{events}"').fetchall()
        compact = connection.execute(f'SELECT count(*) FROM "{events}" WHERE substr(state, 1, 1) = ?', (COMPACT_MARK,))
        assert compact.fetchone()[0] == len(before)
    assert after == before
