"""Signed checkpoints: a log changed by someone who holds the database but not the key (an event edited in place,
the chain rewritten with the seals stripped, the end cut off, a snapshot edited) is named by the audit with the
key, at the first event that differs, on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from api.app import ApiSettings, create_app
from evo_ledger.checkpoints import CHECKPOINT_LOG_ID, CheckpointError, signed_events_id
from evo_ledger.codec import digest, pack, unpack
from evo_ledger.game import SNAPSHOT_INTERVAL, stored_hash
from evo_ledger.ledger import Ledger
from evo_ledger.seal import unsealed_bytes
from evo_ledger.settings import Settings
from evo_ledger.transfer import import_notation
from tests.integration.test_audit import GAME_TEXT, KEY, Tamperer, recorded_with_a_note, rehash_from


@pytest.fixture
def sealed(database: str) -> Iterator[Ledger]:
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        yield ledger


def checkpointed(ledger: Ledger) -> tuple[UUID, int, int]:
    """A sealed game with a note in the middle, signed by a checkpoint: its id, its note's event, its last."""
    receipt, note = recorded_with_a_note(ledger)
    ledger.take_checkpoint()
    return receipt.game_id, note, receipt.version


def named(ledger: Ledger, game_id: UUID) -> tuple[str, Any]:
    """The audit's verdict, and the checkpoints check's event and detail."""
    report = ledger.audit(game_id)
    return report.verdict, (report.check("checkpoints")["event"], report.check("checkpoints")["detail"])


def test_a_checkpoint_signs_each_games_new_events_and_follows_the_one_before(sealed: Ledger) -> None:
    first, _ = recorded_with_a_note(sealed)
    second = import_notation(sealed, GAME_TEXT)
    checkpoint, new = sealed.take_checkpoint()
    assert new and checkpoint["number"] == 1 and checkpoint["previous"] is None
    heads = {game: entry[:2] for game, entry in checkpoint["games"].items()}
    assert heads == {
        str(first.game_id): [first.version, first.head_hash],
        str(second.game_id): [second.version, second.head_hash],
    }
    assert sealed.take_checkpoint() == (checkpoint, False)  # nothing stored since: the same checkpoint
    later = sealed.annotate(first.game_id, 3, "a later note")
    following, new = sealed.take_checkpoint()
    assert new and following["number"] == 2 and following["previous"] == checkpoint["signature"]
    assert {game: entry[:2] for game, entry in following["games"].items()} == {
        str(first.game_id): [later.version, later.head_hash]
    }
    report = sealed.audit(first.game_id)
    assert report.verdict == "clean"
    assert report.check("checkpoints")["detail"] == f"events 1 to {later.version} are as checkpoints signed them"


def test_a_checkpoint_needs_the_key_and_an_audit_without_it_does_not_check_them(database: str) -> None:
    with Ledger(Settings(database)) as keyless:
        with pytest.raises(CheckpointError, match="set EVO_LEDGER_SEAL_KEY"):
            keyless.take_checkpoint()
        game_id = import_notation(keyless, GAME_TEXT).game_id
        assert keyless.audit(game_id).check("checkpoints")["verdict"] == "not run"


def test_an_event_edited_in_place_is_named(sealed: Ledger) -> None:
    game_id, note, _ = checkpointed(sealed)
    tamperer = Tamperer(sealed, game_id)
    topic, state = tamperer.stored(note)
    fields = unpack(unsealed_bytes(state))
    fields["text"] = "nothing happened"
    tamperer.write(note, topic, pack(fields) + state[len(unsealed_bytes(state)) :])
    verdict, (event, detail) = named(sealed, game_id)
    assert verdict == "damaged" and event == note
    assert detail == f"event {note} is not the one checkpoint 1 signed: it, or the chain, was rewritten"


def test_a_chain_rewritten_with_its_seals_stripped_is_named_at_its_first_event(sealed: Ledger) -> None:
    """The whole forgery: every seal taken off, the game's first event made to say it was never sealed, a note
    rewritten and every hash made again. Hashes, chain and seals all hold; the checkpoint does not."""
    game_id, note, last = checkpointed(sealed)
    tamperer = Tamperer(sealed, game_id)
    for version in range(1, last + 1):
        topic, state = tamperer.stored(version)
        tamperer.write(version, topic, unsealed_bytes(state))
    topic, state = tamperer.stored(1)
    first = unpack(state)
    del first["hash"]
    first["sealed"] = False
    first["hash"] = stored_hash(topic, game_id, 1, first)
    tamperer.write(1, topic, pack(first))
    rehash_from(sealed, tamperer, 2, {})
    rehash_from(sealed, tamperer, note, {"text": "nothing happened"})
    report = sealed.audit(game_id)
    assert [check["check"] for check in report.data["checks"] if check["verdict"] == "fail"] == ["checkpoints"]
    assert report.verdict == "damaged" and report.data["first_divergence"]["event"] == 1
    assert report.check("checkpoints")["detail"].startswith("event 1 is not the one checkpoint 1 signed")


def test_seals_stripped_are_named_by_the_checkpoint_too(sealed: Ledger) -> None:
    game_id, _, last = checkpointed(sealed)
    tamperer = Tamperer(sealed, game_id)
    for version in range(1, last + 1):
        topic, state = tamperer.stored(version)
        tamperer.write(version, topic, unsealed_bytes(state))
    verdict, (event, detail) = named(sealed, game_id)
    assert verdict == "damaged" and event == 1
    assert detail == "event 1 carries no seal, though checkpoint 1 signed it sealed: seals were stripped"


def test_events_cut_off_the_end_are_named_without_a_receipt(sealed: Ledger) -> None:
    game_id, note, last = checkpointed(sealed)
    Tamperer(sealed, game_id).delete(">", note)
    verdict, (event, detail) = named(sealed, game_id)
    assert verdict == "damaged" and event == note + 1
    assert detail == f"checkpoint 1 signed event {note + 1}, but the log ends at event {note}: events were cut off"
    assert last > note


def test_an_edited_snapshot_is_named(sealed: Ledger, database: str) -> None:
    game_id = import_notation(sealed, GAME_TEXT).game_id
    sealed.take_checkpoint()
    snapshots = Tamperer(sealed, game_id)
    snapshots.table = sealed.snapshots.recorder.events_table_name  # type: ignore[union-attr]
    topic, state = snapshots.stored(SNAPSHOT_INTERVAL)
    fields = unpack(unsealed_bytes(state))
    fields["state"]["state"]["players"]["ann"][1] += 50
    snapshots.write(SNAPSHOT_INTERVAL, topic, pack(fields))
    with Ledger(Settings(database, seal_key=KEY)) as reopened:
        report = reopened.audit(game_id)
    assert report.verdict == "damaged" and report.check("snapshots")["event"] == SNAPSHOT_INTERVAL
    assert report.check("checkpoints")["verdict"] == "pass"  # the log itself is as signed


def test_signed_events_rewritten_to_match_a_forgery_are_named(sealed: Ledger) -> None:
    """A forger rewrites the game, then the events the checkpoint signed, then the checkpoint's digest of them:
    each step is named, the last because only the key signs a checkpoint."""
    game_id, note, _ = checkpointed(sealed)
    rehash_from(sealed, Tamperer(sealed, game_id), note, {"text": "nothing happened"})
    forged = [[e.originator_version, e.hash, True] for e in sealed.game_events(game_id)]
    record = Tamperer(sealed, signed_events_id(game_id, 1))
    topic, state = record.stored(1)
    fields = unpack(unsealed_bytes(state))
    fields["events"] = forged
    record.write(1, topic, pack(fields))
    assert named(sealed, game_id)[1] == (
        None,
        "the game's events checkpoint 1 signed are not stored as it signed them",
    )
    log = Tamperer(sealed, CHECKPOINT_LOG_ID)
    topic, state = log.stored(2)  # the log's first checkpoint (1 is the log's creation)
    fields = unpack(unsealed_bytes(state))
    fields["signed"]["games"][str(game_id)][2] = digest(forged)
    log.write(2, topic, pack(fields))
    verdict, (event, detail) = named(sealed, game_id)
    assert verdict == "damaged" and event is None
    assert detail == "checkpoint 1 is not signed by the key: it was made or changed without it"


def test_a_checkpoint_kept_elsewhere_shows_a_checkpoint_log_that_was_cut(sealed: Ledger) -> None:
    game_id, note, _ = checkpointed(sealed)
    kept, _ = sealed.take_checkpoint()
    rehash_from(sealed, Tamperer(sealed, game_id), note, {"text": "nothing happened"})
    Tamperer(sealed, CHECKPOINT_LOG_ID).delete(">", 0)  # the whole checkpoint log
    Tamperer(sealed, signed_events_id(game_id, 1)).delete(">", 0)
    assert sealed.audit(game_id).check("checkpoints")["verdict"] == "not run"
    report = sealed.audit(game_id, kept=[kept])
    assert report.verdict == "damaged"
    assert report.check("checkpoints")["detail"] == (
        "checkpoint 1, kept elsewhere, is not in the checkpoint log: the log was cut or replaced"
    )


def test_a_server_with_a_seal_key_signs_a_checkpoint_at_its_interval(tmp_path: Path) -> None:
    settings = ApiSettings(store=Settings(str(tmp_path / "served.sqlite"), seal_key=KEY), checkpoint_seconds=0.05)
    with TestClient(create_app(settings)) as client:
        created = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in "abc"]})
        game = created.json()["game_id"]
        ledger: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
        deadline = time.monotonic() + 30
        while (
            not any(game in signed.signed["games"] for signed in ledger.checkpoints()) and time.monotonic() < deadline
        ):
            time.sleep(0.05)
        report = ledger.audit(UUID(game))
    assert report.check("checkpoints") == {**report.check("checkpoints"), "verdict": "pass", "event": None}
    assert report.check("checkpoints")["detail"] == "events 1 to 1 are as checkpoints signed them"
