"""The one-row-an-event stored forms of events, on SQLite and PostgreSQL: with the compact form every row of the
events and snapshots tables is compact, whatever made it (games recorded, self-played and imported, who may write to
a game, an answered append, people, a competition, a stored kit, checkpoints), every game audits clean under the
seal key and the checkpoint log verifies; with the keyed form no row is compact, and the canonical bytes of a game's
events are those the compact form gives back; a database stored in the keyed form, opened with the compact form,
takes compact events after its keyed ones, and audits clean. The stored form is read from the environment, the
packed form where it names none; a stored form the settings do not know is refused by name."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import AggregateRecorder

from evo_ledger.app.competitions import Organiser, Placement
from evo_ledger.app.ledger import AppendRequest, Idempotency, Ledger, Recorder
from evo_ledger.app.personal import game_owner
from evo_ledger.app.transfer import export_bundle, import_bundles
from evo_ledger.game.checkpoints import CHECKPOINT_LOG_ID, published
from evo_ledger.game.codec import COMPACT_MARK, canonical, unpack_sealed
from evo_ledger.game.notation import parse_game
from evo_ledger.rules.kits import load_kit_document
from evo_ledger.settings import (
    COMPACT,
    KEYED,
    PACKED,
    STORED_FORM_VARIABLE,
    Settings,
    SettingsError,
)
from tests.helpers.databases import fresh_postgres_database
from tests.helpers.stored import FIXTURES
from tests.helpers.tampering import GAME_TEXT, KEY, Tamperer

RECORDER, CO_RECORDER = "the recorder's token", "ben's phone's token"
ACTIONS = [line.text for line in parse_game(GAME_TEXT).actions]
# Self-played games of each ruleset, made once and handed whole to the ledgers (their events the same in each).
SELF_PLAYED = (("evo1", 3, 5), ("evo2", 2, 2), ("traits", 2, 4))


@dataclass(frozen=True)
class Filled:
    """What `filled` stored: every game, and the game recorded at the table with tokens."""

    games: list[UUID]
    table: UUID


@dataclass(frozen=True)
class Row:
    originator_id: str
    version: int
    topic: str
    state: bytes

    def fields(self) -> tuple[str, ...]:
        value = unpack_sealed(self.state)[0]
        return tuple(value) if isinstance(value, dict) else (type(value).__name__,)


@pytest.fixture(scope="module")
def bundles(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """A self-played game of each ruleset, as bundles."""
    database = tmp_path_factory.mktemp("bundles") / "source.sqlite"
    with Ledger(Settings(str(database))) as source:
        made = [source.commands.generate_game(n, seed=s, ruleset=ruleset).game_id for ruleset, n, s in SELF_PLAYED]
        return [export_bundle(source, game) for game in made]


@pytest.fixture
def second_database(database: str, tmp_path: Path) -> Iterator[str]:
    """A database of the same kind as `database`, for a second ledger."""
    if database.startswith("postgresql://"):
        with fresh_postgres_database() as url:
            yield url
    else:
        yield str(tmp_path / "second.sqlite")


def filled(ledger: Ledger, bundles: list[bytes]) -> Filled:
    """The ledger with a record of every kind: the bundles' games imported; an evo2 game on a stored kit recorded
    at the table under a recorder token, with a co-recorder, an answered append, an undo, a correction and a
    note; a self-played game of each ruleset; a person merged into another; a competition with a game; and a
    checkpoint before and after the last appends."""
    imported = [receipt.game_id for receipt in import_bundles(ledger, bundles)]
    kit = ledger.commands.store_kit({**load_kit_document("standin-e2-3p")[0], "name": "compact-island"}).kit_hash
    players = [("ann", "ann-a"), ("ben", "ben-1"), ("cat", None)]
    table = ledger.commands.create_game("evo2", kit, players, recorder_token=RECORDER).game_id
    ledger.commands.change_recorders(table, lambda access: access.add_co_recorder("ben's phone", CO_RECORDER), RECORDER)
    by_recorder = Recorder(RECORDER, token_required=True)
    ledger.commands.record_many(
        [
            AppendRequest(table, ACTIONS[:5], None, Idempotency("phone:1", "a request"), RECORDER, token_required=True),
            AppendRequest(table, ACTIONS[5:9], recorder_token=CO_RECORDER, token_required=True),
        ]
    )
    ledger.commands.correct(table, "cat move B1 B2", "it was the other dinosaur", by=by_recorder)
    ledger.commands.undo(table, 1, "the move was not made", by=by_recorder)
    ledger.commands.annotate(table, 3, "the climate die rolled under the sofa", by=by_recorder)
    played = [ledger.commands.generate_game(n, seed=s + 1, ruleset=ruleset).game_id for ruleset, n, s in SELF_PLAYED]
    ann = ledger.people.register("Ann Example", ["ann-a"]).person_id
    again = ledger.people.register("Ann Again", ["ann-b"]).person_id
    ledger.people.merge(again, ann)
    opened = ledger.competitions.open("tournament", "Compact cup", "2026 autumn")
    ledger.competitions.add_game(opened.competition.id, played[0], Placement(1, "A"), Organiser(opened.token))
    ledger.commands.take_checkpoint()
    ledger.commands.record(table, ACTIONS[8:12])
    ledger.commands.take_checkpoint()
    return Filled([*imported, table, *played], table)


def rows(ledger: Ledger, snapshots: bool = False) -> list[Row]:
    """Every row of the events table, or of the snapshots table, as the database holds it."""
    recorder: AggregateRecorder = ledger.store.recorder
    if snapshots:
        assert ledger.store.snapshots is not None
        recorder = ledger.store.snapshots.recorder
    reader = Tamperer(ledger, CHECKPOINT_LOG_ID)
    reader.table = recorder.events_table_name  # type: ignore[attr-defined]
    found = reader.execute("SELECT originator_id, originator_version, topic, state FROM {table}")
    return [Row(str(key), version, topic, bytes(state)) for key, version, topic, state in found]


def every_row(ledger: Ledger) -> list[Row]:
    return [*rows(ledger), *rows(ledger, snapshots=True)]


def not_compact(found: list[Row]) -> str:
    """The shapes of the rows that are not compact, each with a topic it was stored under, one a line."""
    shapes = {row.fields(): row.topic for row in found if row.state[:1] != COMPACT_MARK}
    return "\n".join(f"  {fields!r},  # {topic}" for fields, topic in shapes.items())


def assert_audits_clean(database: str, filled: Filled, form: str) -> None:
    """Every game audited clean under the key, the checkpoint log verified and the access records read, by an
    auditor's own process, which reads the database afresh."""
    with Ledger(Settings(database, seal_key=KEY, stored_form=form)) as auditor:
        for game in filled.games:
            report = auditor.queries.audit(game)
            assert report.verdict == "clean", (game, report.data)
            assert [report.check(name)["verdict"] for name in ("seals", "checkpoints")] == ["pass", "pass"]
        index = auditor.vouched.checkpoint_index()
        assert index.faults == [] and len(index.checkpoints) == 2
        assert all(checkpoint.genuine for checkpoint in index.checkpoints)
        assert auditor.vouched.unvouched_by_last_checkpoint() == []
        versions = {str(game): auditor.queries.receipt(game).version for game in filled.games}
        assert {game: index.covered_of(game) for game in versions} == versions
        access = auditor.vouched.access(filled.table)
        assert access is not None and access.co_recorder_of(CO_RECORDER) == "ben's phone"
        keyed = auditor.store.personal.keyed_digest(game_owner(filled.table), "a request")
        assert auditor.vouched.answered(filled.table, Idempotency("phone:1", keyed)) is not None


def test_every_row_is_stored_compact_and_every_game_audits_clean(database: str, bundles: list[bytes]) -> None:
    """A shape missing from STORED_SHAPES is stored keyed: this test names it, to be added."""
    with Ledger(Settings(database, seal_key=KEY, stored_form=COMPACT)) as ledger:
        made = filled(ledger, bundles)
        events, snapshots = rows(ledger), rows(ledger, snapshots=True)
    assert len(events) > 2000 and len(snapshots) > 10
    missing = not_compact(events + snapshots)
    assert not missing, (
        "rows of these shapes are stored keyed: add each shape to STORED_SHAPES in evo_ledger/game/stored_shapes.py"
        f" (at its end):\n{missing}"
    )
    assert_audits_clean(database, made, COMPACT)


def test_with_the_keyed_form_no_row_is_compact_and_every_game_audits_clean(database: str, bundles: list[bytes]) -> None:
    with Ledger(Settings(database, seal_key=KEY, stored_form=KEYED)) as ledger:
        made = filled(ledger, bundles)
        found = every_row(ledger)
    assert [row for row in found if row.state[:1] == COMPACT_MARK] == []
    assert_audits_clean(database, made, KEYED)


def canonical_events(ledger: Ledger, games: list[UUID]) -> dict[UUID, list[tuple[int, str, bytes]]]:
    return {
        game: [(e.originator_version, e.topic, canonical(e.state)) for e in ledger.queries.stored_events(game)]
        for game in games
    }


def test_the_same_games_stored_in_either_form_have_the_same_canonical_bytes(
    database: str, second_database: str, bundles: list[bytes]
) -> None:
    with (
        Ledger(Settings(database, seal_key=KEY, stored_form=COMPACT)) as compacting,
        Ledger(Settings(second_database, seal_key=KEY, stored_form=KEYED)) as keyed,
    ):
        games = [receipt.game_id for receipt in import_bundles(compacting, bundles)]
        assert [receipt.game_id for receipt in import_bundles(keyed, bundles)] == games
        compact_rows, keyed_rows = rows(compacting), rows(keyed)
        assert all(row.state[:1] == COMPACT_MARK for row in compact_rows)
        assert all(row.state[:1] != COMPACT_MARK for row in keyed_rows)
        assert canonical_events(compacting, games) == canonical_events(keyed, games)
        assert sorted(canonical(row.state) for row in compact_rows) == sorted(row.state for row in keyed_rows)


MADE: dict[str, Any] = json.loads((FIXTURES / "keyed-form.json").read_text())
FIXTURE_TABLE = UUID(next(game["id"] for game in MADE["games"] if game["name"] == "evo2-table"))


@pytest.fixture
def keyed_fixture(tmp_path: Path) -> Path:
    """A copy of the database stored in the keyed form (tests/fixtures/stored/README.md): the fixture is never
    changed."""
    copy = tmp_path / "keyed-form.sqlite"
    shutil.copyfile(FIXTURES / "keyed-form.sqlite", copy)
    return copy


def append_legal_actions(ledger: Ledger, game_id: UUID, count: int, token: str) -> None:
    """The game's first legal action, `count` times, each appended with `token`."""
    for _ in range(count):
        game = ledger.queries.game(game_id)
        notation = game.rules.format_action(next(iter(game.rules.legal_actions(game.state))))
        [outcome] = ledger.commands.record_many(
            [AppendRequest(game_id, [notation], recorder_token=token, token_required=True)]
        )
        assert not isinstance(outcome, Exception), outcome


def test_a_keyed_database_takes_compact_events_after_its_keyed_ones_and_audits_clean(keyed_fixture: Path) -> None:
    kept = MADE["checkpoints"]
    with Ledger(Settings(str(keyed_fixture), seal_key=MADE["seal_key"], stored_form=COMPACT)) as ledger:
        before = every_row(ledger)
        assert before and all(row.state[:1] != COMPACT_MARK for row in before)
        old = {(row.originator_id, row.version) for row in before}
        head = ledger.queries.receipt(FIXTURE_TABLE).version
        append_legal_actions(ledger, FIXTURE_TABLE, 3, MADE["co_recorder_token"])
        ledger.commands.annotate(FIXTURE_TABLE, head + 1, "entered late", by=Recorder(MADE["recorder_token"], True))
        ledger.commands.change_recorders(
            FIXTURE_TABLE, lambda access: access.add_co_recorder("cat's phone", "cat's token"), MADE["recorder_token"]
        )
        ledger.commands.take_checkpoint()
        found = every_row(ledger)
    new = [row for row in found if (row.originator_id, row.version) not in old]
    assert len(new) >= 4 + 1 + 1  # the appends and the note, the access, the checkpoint and what it signs
    assert not_compact(new) == ""
    assert all(row.state[:1] != COMPACT_MARK for row in found if (row.originator_id, row.version) in old)
    with Ledger(Settings(str(keyed_fixture), seal_key=MADE["seal_key"], stored_form=COMPACT)) as auditor:
        report = auditor.queries.audit(FIXTURE_TABLE, kept=kept)
        assert report.verdict == "clean", report.data
        assert report.check("seals")["verdict"] == "pass" and report.check("checkpoints")["verdict"] == "pass"
        index = auditor.vouched.checkpoint_index()
        assert index.faults == [] and all(checkpoint.genuine for checkpoint in index.checkpoints)
        assert [published(checkpoint) for checkpoint in index.checkpoints][: len(kept)] == kept
        assert index.covered_of(str(FIXTURE_TABLE)) == head + 4
        assert auditor.vouched.unvouched_by_last_checkpoint() == []
        access = auditor.vouched.access(FIXTURE_TABLE)
        assert access is not None and access.co_recorder_of("cat's token") == "cat's phone"


@pytest.mark.parametrize(
    ("text", "form"), [(None, PACKED), ("", PACKED), (PACKED, PACKED), (COMPACT, COMPACT), (KEYED, KEYED)]
)
def test_the_stored_form_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, text: str | None, form: str
) -> None:
    if text is None:
        monkeypatch.delenv(STORED_FORM_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(STORED_FORM_VARIABLE, text)
    assert Settings.from_environment().stored_form == form


@pytest.mark.parametrize("text", ["bad", "Compact", " keyed", "compact,keyed"])
def test_a_stored_form_it_does_not_know_is_refused_by_name(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(STORED_FORM_VARIABLE, text)
    with pytest.raises(SettingsError, match=STORED_FORM_VARIABLE) as refused:
        Settings.from_environment()
    assert repr(text) in str(refused.value)
