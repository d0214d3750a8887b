"""Who may write to a game and read it is trusted only as far as the seal key vouches for it: someone who holds the
database but not the key, and so stores a token of their own in a game's access (as a process without the key
would), gets no append sealed by the server, and no reader is answered with the forged access; a game's other
appends in the same transaction go on; a game stored before the key was set keeps its unsealed access."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from eventsourcing.persistence import StoredEvent
from fastapi.testclient import TestClient

from api.app import ApiSettings, create_app
from evo_ledger.app.access import AccessNotVouched, AnsweredAppend, GameAccess, access_id
from evo_ledger.app.ledger import AppendRequest, Idempotency, Ledger, Receipt
from evo_ledger.app.transfer import bundle_game, export_bundle, store_game
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings
from tests.helpers.tampering import GAME_TEXT, KEY, Tamperer, delete_game

ACTIONS = [line.text for line in parse_game(GAME_TEXT).actions]
PLAYERS = ["ann", "ben", "cat"]
FORGER = "the forger's own token"


@pytest.fixture
def sealed(database: str) -> Iterator[Ledger]:
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        yield ledger


def recorded(ledger: Ledger, token: str = "the recorder's token") -> UUID:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", PLAYERS, recorder_token=token).game_id
    ledger.commands.record_many([AppendRequest(game, ACTIONS[:5], recorder_token=token, token_required=True)])
    return game


def append_with(ledger: Ledger, game: UUID, token: str, done: int = 5) -> Receipt | Exception:
    """The game's action after the first `done` appended with `token`: its receipt, or what refused it."""
    [outcome] = ledger.commands.record_many(
        [AppendRequest(game, ACTIONS[done : done + 1], recorder_token=token, token_required=True)]
    )
    return outcome


def test_a_token_stored_without_the_key_gets_no_append_sealed(sealed: Ledger, database: str) -> None:
    game = recorded(sealed)
    with Ledger(Settings(database)) as forger:
        forger.commands.grant_recorder(game, FORGER)
    version = sealed.queries.receipt(game).version
    outcome = append_with(sealed, game, FORGER)
    assert isinstance(outcome, AccessNotVouched)
    assert "its event 2 carries no seal, and the game's record must" in str(outcome)
    assert isinstance(append_with(sealed, game, "the recorder's token"), AccessNotVouched)
    assert sealed.queries.receipt(game).version == version


def test_an_access_replaced_whole_without_the_key_is_refused(sealed: Ledger, database: str) -> None:
    game = recorded(sealed)
    rows = Tamperer(sealed, access_id(game))
    rows.delete(">", 0)
    with Ledger(Settings(database)) as forger:
        forger.commands.grant_recorder(game, FORGER)
    with pytest.raises(AccessNotVouched, match="its event 1 carries no seal, and the game's record must"):
        sealed.vouched.access(game)


def test_a_sealed_access_event_moved_from_another_game_is_refused(sealed: Ledger, database: str) -> None:
    """An event edited in place is read again once the server no longer holds the game's access (as it starts)."""
    game, other = recorded(sealed), recorded(sealed, FORGER)
    mine, theirs = Tamperer(sealed, access_id(game)), Tamperer(sealed, access_id(other))
    mine.write(1, *theirs.stored(1))
    refused = pytest.raises(AccessNotVouched, match="its event 1 names another game than the one it is kept for")
    with Ledger(Settings(database, seal_key=KEY)) as started, refused:
        started.vouched.access(game)


def test_one_games_forged_access_refuses_its_appends_alone(sealed: Ledger, database: str) -> None:
    game, other = recorded(sealed), recorded(sealed, "another recorder's token")
    with Ledger(Settings(database)) as forger:
        forger.commands.grant_recorder(game, FORGER)
    forged, honest = sealed.commands.record_many(
        [
            AppendRequest(game, ACTIONS[5:6], recorder_token=FORGER, token_required=True),
            AppendRequest(other, ACTIONS[5:6], recorder_token="another recorder's token", token_required=True),
        ]
    )
    assert isinstance(forged, AccessNotVouched)
    assert not isinstance(honest, Exception) and honest.version == sealed.queries.receipt(other).version


def test_a_game_stored_before_the_key_keeps_its_unsealed_access(database: str) -> None:
    """Once a checkpoint named the game's first event as stored before the key was set."""
    with Ledger(Settings(database)) as keyless:
        game = recorded(keyless)
    with Ledger(Settings(database, seal_key=KEY)) as sealed:
        assert isinstance(append_with(sealed, game, "the recorder's token"), AccessNotVouched)
        sealed.commands.take_checkpoint()
        assert not isinstance(append_with(sealed, game, "the recorder's token"), Exception)
        sealed.commands.grant_recorder(game, "a new token")  # sealed: from now on every access event must be
        assert not isinstance(append_with(sealed, game, "a new token", 6), Exception)
    with Ledger(Settings(database)) as forger:
        forger.commands.grant_recorder(game, FORGER)
    with Ledger(Settings(database, seal_key=KEY)) as sealed:
        assert isinstance(append_with(sealed, game, FORGER, 7), AccessNotVouched)


def test_the_api_answers_a_forged_access_with_503_and_stores_nothing(tmp_path: Path) -> None:
    database = str(tmp_path / "forged.sqlite")
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        game = recorded(ledger)
        version = ledger.queries.receipt(game).version
    with Ledger(Settings(database)) as forger:
        forger.commands.grant_recorder(game, FORGER)
    settings = ApiSettings(store=Settings(database, seal_key=KEY), follow_projections=False, writer_process=False)
    with TestClient(create_app(settings)) as client:
        appended = client.post(
            f"/v1/games/{game}/actions",
            json={"actions": ACTIONS[5:6]},
            headers={"Authorization": f"Bearer {FORGER}"},
        )
        read = client.get(f"/v1/games/{game}/state")
    assert appended.status_code == 503 and appended.json()["code"] == "access_not_vouched"
    assert "changed without the seal key" in appended.json()["message"]
    assert read.status_code == 503 and read.json()["code"] == "access_not_vouched"
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        assert ledger.queries.receipt(game).version == version


def test_a_forged_access_naming_another_game_is_refused(sealed: Ledger, database: str) -> None:
    """The check is of the game the access is kept for, never of one its forged first event names."""
    game = recorded(sealed)
    Tamperer(sealed, access_id(game)).delete(">", 0)
    [granted] = GameAccess.grant(uuid4(), FORGER).collect_events()
    with Ledger(Settings(database)) as forger:
        stored = forger.store.mapper.to_stored_event(granted)
        forger.store.recorder.insert_events([StoredEvent(access_id(game), 1, stored.topic, stored.state)])
    with Ledger(Settings(database, seal_key=KEY)) as started:
        outcome = append_with(started, game, FORGER)
    assert isinstance(outcome, AccessNotVouched) and "names another game than the one it is kept for" in str(outcome)


def test_an_access_an_import_sealed_serves_no_game_recorded_here(sealed: Ledger, database: str) -> None:
    """The game deleted and imported again gets an access the server seals as imported; the game's recorded
    events put back, that access serves it no more."""
    game = recorded(sealed)
    saved = list(sealed.store.recorder.select_events(game))
    bundle = export_bundle(sealed, game)
    delete_game(sealed, game)
    store_game(sealed, bundle_game(sealed.store.mapper, bundle), recorder_token=FORGER)
    Tamperer(sealed, game).delete(">", 0)
    sealed.store.recorder.insert_events(saved)
    with Ledger(Settings(database, seal_key=KEY)) as started:
        outcome = append_with(started, game, FORGER)
    assert isinstance(outcome, AccessNotVouched) and "carries a seal the key did not make for it" in str(outcome)


def test_an_imported_game_is_recorded_on_with_the_token_its_import_gave(sealed: Ledger, database: str) -> None:
    game = recorded(sealed)
    bundle = export_bundle(sealed, game)
    delete_game(sealed, game)
    store_game(sealed, bundle_game(sealed.store.mapper, bundle), recorder_token="the importer's token")
    with Ledger(Settings(database, seal_key=KEY)) as started:
        assert not isinstance(append_with(started, game, "the importer's token"), Exception)


def test_an_answer_kept_for_an_idempotency_key_without_the_key_is_refused(sealed: Ledger, database: str) -> None:
    """A forged answer would tell the recorder an append was stored that never was."""
    game = recorded(sealed)
    asked = Idempotency("tablet-7:42", "the request's digest")
    with Ledger(Settings(database)) as forger:
        forger.store.save(AnsweredAppend.answer(game, asked.key, asked.request, 999, "ab" * 32))
    request = AppendRequest(game, ACTIONS[5:6], idempotency=asked, recorder_token="the recorder's token")
    [outcome] = sealed.commands.record_many([replace(request, token_required=True)])
    assert isinstance(outcome, AccessNotVouched)
    assert "the answer kept for an append's idempotency key was changed without the seal key" in str(outcome)


def test_an_access_cut_back_after_a_checkpoint_signed_it_is_refused(sealed: Ledger, database: str) -> None:
    """Its last event (a co-recorder let go) deleted: the co-recorder would record again; the checkpoint signed
    the record's head, so the record shows it was cut back."""
    game = recorded(sealed)
    sealed.commands.change_access(game, lambda access: access.add_co_recorder("ben's phone", "ben's token"))
    sealed.commands.change_access(game, lambda access: access.revoke_co_recorder(2))
    sealed.commands.take_checkpoint()
    Tamperer(sealed, access_id(game)).delete(">", 2)
    with Ledger(Settings(database, seal_key=KEY)) as started:
        outcome = append_with(started, game, "ben's token")
    assert isinstance(outcome, AccessNotVouched)
    assert "(its event 3 is not as checkpoint 1 signed it: the record was cut back" in str(outcome)


def test_an_access_deleted_after_a_checkpoint_signed_it_is_refused(sealed: Ledger, database: str) -> None:
    """A private game whose record is deleted would read as public: the checkpoint that signed it says no."""
    game = recorded(sealed)
    sealed.commands.change_access(game, lambda access: access.set_private(True))
    sealed.commands.take_checkpoint()
    Tamperer(sealed, access_id(game)).delete(">", 0)
    with Ledger(Settings(database, seal_key=KEY)) as started, pytest.raises(AccessNotVouched, match="deleted"):
        started.vouched.access(game)


def test_an_older_access_event_moved_up_the_log_never_lowers_the_signed_head(tmp_path: Path) -> None:
    """A genuine older event of the record moved to a new log position, then the later ones deleted: the next
    checkpoint signs the record's last stored event as its head, never one behind the head signed before."""
    database = str(tmp_path / "moved.sqlite")
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        game = recorded(ledger)
        ledger.commands.change_access(game, lambda access: access.add_co_recorder("ben's phone", "ben's token"))
        ledger.commands.change_access(game, lambda access: access.revoke_co_recorder(2))
        ledger.commands.take_checkpoint()
        record = Tamperer(ledger, access_id(game))
        moved = (
            "UPDATE {table} SET rowid=(SELECT max(rowid)+1 FROM {table}) WHERE originator_id=? AND originator_version=2"
        )
        record.execute(moved, record.key)
        ledger.commands.take_checkpoint()
        record.delete(">", 2)
    with Ledger(Settings(database, seal_key=KEY)) as started:
        outcome = append_with(started, game, "ben's token")
    assert isinstance(outcome, AccessNotVouched) and "its event 3 is not as checkpoint 2 signed it" in str(outcome)


def test_a_crafted_row_of_version_0_is_never_signed(tmp_path: Path) -> None:
    """No row the server writes has version 0: a checkpoint passes it by, and the log of them stays readable."""
    database = str(tmp_path / "zero.sqlite")
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        game = recorded(ledger)
        topic = ledger.store.recorder.select_events(game, lte=1)[0].topic
        rows = Tamperer(ledger, uuid4())
        rows.execute(
            "INSERT INTO {table} (originator_id, originator_version, topic, state) VALUES (?, 0, ?, ?)",
            rows.key,
            topic,
            b"x",
        )
        ledger.commands.take_checkpoint()
    with Ledger(Settings(database, seal_key=KEY)) as started:
        assert started.vouched.checkpoint_index().faults == []
        started.commands.annotate(game, 2, "a later note")
        assert started.commands.take_checkpoint()[1]


def test_the_first_checkpoint_to_sign_heads_signs_every_records_also_one_stored_before_the_key(
    database: str,
) -> None:
    """A private game stored before the key: its record, unsealed and unchanged since, has its head signed, so
    deleting it (which would make the game public) shows."""
    with Ledger(Settings(database)) as keyless:
        game = recorded(keyless)
        keyless.commands.change_access(game, lambda access: access.set_private(True))
    with Ledger(Settings(database, seal_key=KEY)) as sealed:
        sealed.commands.take_checkpoint()
        assert sealed.vouched.checkpoint_index().head_of(str(access_id(game))).version == 2
        Tamperer(sealed, access_id(game)).delete(">", 0)
    with Ledger(Settings(database, seal_key=KEY)) as started, pytest.raises(AccessNotVouched, match="deleted"):
        started.vouched.access(game)
