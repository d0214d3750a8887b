"""Signed checkpoints: a log changed by someone who holds the database but not the key (an event edited in place,
the chain rewritten with the seals stripped, the end cut off, a snapshot edited, the checkpoint log itself
changed or cut) is named by the audit with the key, at the first event that differs, on SQLite and PostgreSQL;
a checkpoint signs only the events whose seals hold under the key, and names the others, which `/health` and the
audit name too; no row of the checkpoint log, however made, makes the audit fail otherwise than with a verdict."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import IntegrityError
from fastapi.testclient import TestClient

from api.app import ApiSettings, create_app
from api.supervision import CheckpointSigner
from evo_ledger.app.audit import IMPORTED_WHY
from evo_ledger.app.ledger import Ledger, ReplacedGame
from evo_ledger.app.readers import Caller
from evo_ledger.app.transfer import export_bundle, import_bundles, import_notation
from evo_ledger.cli.main import main
from evo_ledger.game.aggregate import SNAPSHOT_INTERVAL
from evo_ledger.game.checkpoints import (
    CHECKPOINT_LOG_ID,
    CheckpointError,
    SignedEvents,
    next_checkpoint,
    read_events,
    signature_of,
    signed_events_id,
)
from evo_ledger.game.codec import digest, pack, unpack
from evo_ledger.game.notation import parse_game
from evo_ledger.game.seal import unsealed_bytes
from evo_ledger.settings import SEAL_KEY_VARIABLE, Settings
from tests.helpers.servers import ADMIN, health_when
from tests.helpers.tampering import (
    GAME_TEXT,
    KEY,
    Tamperer,
    delete_game,
    forge_without_the_key,
    forged_bundle,
    recorded_with_a_note,
    rehash_from,
    strip_every_seal,
)

FIRST_CHECKPOINT_ROW = 2  # row 1 of the checkpoint log is its creation


@pytest.fixture
def sealed(database: str) -> Iterator[Ledger]:
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        yield ledger


def checkpointed(ledger: Ledger) -> tuple[UUID, int, int]:
    """A sealed game with a note in the middle, signed by a checkpoint: its id, its note's event, its last."""
    receipt, note = recorded_with_a_note(ledger)
    ledger.commands.take_checkpoint()
    return receipt.game_id, note, receipt.version


def audited(database: str, game_id: UUID, kept: Sequence[dict[str, Any]] = ()) -> Any:
    """The audit with the key, as an auditor's own process makes it: the checkpoint log read afresh."""
    with Ledger(Settings(database, seal_key=KEY)) as auditor:
        return auditor.queries.audit(game_id, kept=kept)


def named(database: str, game_id: UUID) -> tuple[str, Any]:
    """The audit's verdict, and the checkpoints check's event and detail."""
    report = audited(database, game_id)
    return report.verdict, (report.check("checkpoints")["event"], report.check("checkpoints")["detail"])


def test_a_checkpoint_signs_each_games_new_events_and_follows_the_one_before(sealed: Ledger, database: str) -> None:
    first, _ = recorded_with_a_note(sealed)
    second = import_notation(sealed, GAME_TEXT)
    checkpoint, new = sealed.commands.take_checkpoint()
    assert new and checkpoint["number"] == 1 and checkpoint["previous"] is None
    assert str(first.game_id) not in json.dumps(checkpoint) and first.head_hash not in json.dumps(checkpoint)
    heads = {game: entry[:2] for game, entry in sealed.vouched.checkpoint_index().checkpoints[0].games.items()}
    assert heads == {
        str(first.game_id): [first.version, first.head_hash],
        str(second.game_id): [second.version, second.head_hash],
    }
    assert sealed.commands.take_checkpoint() == (checkpoint, False)  # nothing stored since: the same checkpoint
    later = sealed.commands.annotate(first.game_id, 3, "a later note")
    following, new = sealed.commands.take_checkpoint()
    assert new and following["number"] == 2 and following["previous"] == checkpoint["signature"]
    assert list(sealed.vouched.checkpoint_index().checkpoints[1].games) == [str(first.game_id)]
    report = audited(database, first.game_id, kept=[checkpoint, following])
    assert report.verdict == "clean"
    assert report.check("checkpoints")["detail"] == f"events 1 to {later.version} are as checkpoints signed them"


def test_a_checkpoint_needs_the_key_and_something_to_sign(database: str, tmp_path: Path) -> None:
    with Ledger(Settings(database)) as keyless:
        with pytest.raises(CheckpointError, match="set EVO_LEDGER_SEAL_KEY"):
            keyless.commands.take_checkpoint()
        game_id = import_notation(keyless, GAME_TEXT).game_id
        assert keyless.queries.audit(game_id).check("checkpoints")["verdict"] == "not run"
    empty = Settings(str(tmp_path / "empty.sqlite"), seal_key=KEY)
    with Ledger(empty) as ledger, pytest.raises(CheckpointError, match="nothing to sign"):
        ledger.commands.take_checkpoint()


def test_an_event_edited_in_place_is_named(sealed: Ledger, database: str) -> None:
    game_id, note, _ = checkpointed(sealed)
    tamperer = Tamperer(sealed, game_id)
    topic, state = tamperer.stored(note)
    fields = unpack(unsealed_bytes(state))
    fields["text"] = "nothing happened"
    tamperer.write(note, topic, pack(fields) + state[len(unsealed_bytes(state)) :])
    verdict, (event, detail) = named(database, game_id)
    assert verdict == "damaged" and event == note
    assert detail == f"event {note} is not the one checkpoint 1 signed: it, or the chain, was rewritten"


def test_a_chain_rewritten_with_its_seals_stripped_is_named_at_its_first_event(sealed: Ledger, database: str) -> None:
    """The whole forgery: every seal taken off, the game's first event made to say it was never sealed, a note
    rewritten, every hash made again and the snapshots deleted. Hashes, chain and seals all hold; the checkpoint
    does not."""
    game_id, note, _ = checkpointed(sealed)
    forge_without_the_key(sealed, game_id, note, "nothing happened")
    report = audited(database, game_id)
    assert [check["check"] for check in report.data["checks"] if check["verdict"] == "fail"] == ["checkpoints"]
    assert report.verdict == "damaged" and report.data["first_divergence"]["event"] == 1
    assert report.check("checkpoints")["detail"].startswith("event 1 is not the one checkpoint 1 signed")


def test_seals_stripped_are_named_by_the_checkpoint_too(sealed: Ledger, database: str) -> None:
    game_id, _, last = checkpointed(sealed)
    strip_every_seal(Tamperer(sealed, game_id), last)
    verdict, (event, detail) = named(database, game_id)
    assert verdict == "damaged" and event == 1
    assert detail == "event 1 carries no seal, though checkpoint 1 signed it sealed: seals were stripped"


def forged_since_a_checkpoint(ledger: Ledger) -> tuple[UUID, int]:
    """A checkpoint taken, then a game stored and forged without the key: its id and its last event."""
    import_notation(ledger, GAME_TEXT)
    ledger.commands.take_checkpoint()
    receipt, note = recorded_with_a_note(ledger)
    forge_without_the_key(ledger, receipt.game_id, note, "nothing happened")
    return receipt.game_id, receipt.version


def unvouched(ledger: Ledger) -> list[tuple[str, int, int, str]]:
    return [(run.game_id, run.first, run.last, run.reason) for run in ledger.vouched.unvouched_by_last_checkpoint()]


def test_a_game_forged_since_the_last_checkpoint_is_named_and_none_of_it_signed(sealed: Ledger, database: str) -> None:
    """The forgery of a game stored since the last checkpoint (seals taken off, its first event made to say it was
    never sealed, a note rewritten, every hash made again, its snapshots deleted) leaves hashes, chain and seals
    holding. The next checkpoint signs none of its events, and names them; the audit with the key names the game
    at its first event, and says which events no checkpoint covers and why."""
    game_id, last = forged_since_a_checkpoint(sealed)
    checkpoint, new = sealed.commands.take_checkpoint()
    assert new and checkpoint["number"] == 2 and str(game_id) not in json.dumps(checkpoint)
    assert str(game_id) not in sealed.vouched.checkpoint_index().checkpoints[1].games
    assert unvouched(sealed) == [(str(game_id), 1, last, "unsealed")]
    report = audited(database, game_id)
    assert report.verdict == "damaged"
    assert [check["check"] for check in report.data["checks"] if check["verdict"] == "fail"] == ["checkpoints"]
    assert report.check("checkpoints")["event"] == 1
    assert report.check("checkpoints")["detail"].startswith(
        "checkpoint 2 could not vouch for event 1, and did not sign it: it carries no seal"
    )
    [run] = report.data["not_covered"]
    assert {name: run[name] for name in ("events", "checkpoint", "reason")} == {
        "events": [1, last],
        "checkpoint": 2,
        "reason": "unsealed",
    }
    assert "its seal was taken off" in run["why"]
    assert "not covered: events 1 to" in report.text()


def test_an_event_changed_since_the_last_checkpoint_is_named_and_the_others_signed(
    sealed: Ledger, database: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import_notation(sealed, GAME_TEXT)
    sealed.commands.take_checkpoint()
    receipt, note = recorded_with_a_note(sealed)
    tamperer = Tamperer(sealed, receipt.game_id)
    topic, state = tamperer.stored(note)
    fields = unpack(unsealed_bytes(state))
    fields["text"] = "nothing happened"
    tamperer.write(note, topic, pack(fields) + state[len(unsealed_bytes(state)) :])
    monkeypatch.setenv(SEAL_KEY_VARIABLE, KEY)
    assert main(["checkpoint", "--database", database]) == 0
    assert f"game {receipt.game_id} event {note} (seal: its seal does not match it" in capsys.readouterr().err
    assert unvouched(sealed) == [(str(receipt.game_id), note, note, "seal")]
    head = sealed.vouched.checkpoint_index().checkpoints[1].games[str(receipt.game_id)]
    assert head[:2] == [receipt.version, receipt.head_hash]  # the events after it are the server's, and signed
    report = audited(database, receipt.game_id)
    assert report.check("checkpoints")["event"] == note
    assert [(run["events"], run["checkpoint"], run["reason"]) for run in report.data["not_covered"]] == [
        ([note, note], 2, "seal")
    ]


def test_events_stored_before_the_key_are_named_by_the_first_checkpoint_and_the_later_ones_signed(
    database: str,
) -> None:
    """Unsealed events of a game stored without a key before the log's first checkpoint may be what was stored:
    the first checkpoint names them without signing them, and the audit lists them without calling them damaged."""
    actions = [line.text for line in parse_game(GAME_TEXT).actions]
    with Ledger(Settings(database)) as keyless:
        game = keyless.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
        before = keyless.commands.record(game, actions[:10]).version
    with Ledger(Settings(database, seal_key=KEY)) as sealed:
        sealed.commands.take_checkpoint()
        assert unvouched(sealed) == [(str(game), 1, before, "stored without a key")]
        report = sealed.queries.audit(game)
        assert report.verdict == "clean" and report.check("checkpoints")["verdict"] == "not run"
        detail = report.check("checkpoints")["detail"]
        assert detail == "no checkpoint could vouch for the game's events: not_covered says why"
        last = sealed.commands.record(game, actions[10:20]).version
        sealed.commands.take_checkpoint()
        assert unvouched(sealed) == []
    report = audited(database, game)
    assert report.verdict == "clean"
    assert report.check("checkpoints")["detail"] == f"events {before + 1} to {last} are as checkpoints signed them"
    assert [(run["events"], run["checkpoint"], run["reason"]) for run in report.data["not_covered"]] == [
        ([1, before], 1, "stored without a key")
    ]


def test_a_game_forged_after_a_sealed_one_is_never_taken_for_one_stored_before_the_key(
    sealed: Ledger, database: str
) -> None:
    """With no checkpoint yet (none taken, or the log of them deleted), a game forged to say it was never sealed,
    stored after a sealed event in the log, was stored with a key: the first checkpoint names it unsealed."""
    import_notation(sealed, GAME_TEXT)
    receipt, note = recorded_with_a_note(sealed)
    forge_without_the_key(sealed, receipt.game_id, note, "nothing happened")
    sealed.commands.take_checkpoint()
    assert unvouched(sealed) == [(str(receipt.game_id), 1, receipt.version, "unsealed")]
    assert audited(database, receipt.game_id).verdict == "damaged"


def test_a_game_deleted_and_imported_forged_in_its_place_is_named_as_imported(sealed: Ledger, database: str) -> None:
    """Someone who holds the database deletes a game stored since the last checkpoint and imports, through the
    ledger's own import, its bundle with a note rewritten and the hashes made again. The server seals what it
    imports, and the next checkpoint signs it, but as imported: the audit with the key says which events the
    server was handed whole, so the forgery never passes for the game recorded on it."""
    import_notation(sealed, GAME_TEXT)
    sealed.commands.take_checkpoint()
    receipt, note = recorded_with_a_note(sealed)
    forged = forged_bundle(sealed, receipt.game_id, note, "nothing happened")
    delete_game(sealed, receipt.game_id)
    import_bundles(sealed, [forged])
    sealed.commands.take_checkpoint()
    signed = read_events(list(sealed.store.recorder.select_events(signed_events_id(receipt.game_id, 2))))
    assert signed is not None and {sealed_as for _, _, sealed_as in signed} == {"imported"}
    report = audited(database, receipt.game_id)
    assert report.data["imported"] == [[1, receipt.version]]
    assert report.check("seals")["detail"] == f"events 1 to {receipt.version} are sealed as imported: {IMPORTED_WHY}"
    assert "the server was handed them whole" in report.text()


def test_a_checkpointed_game_deleted_is_never_imported_in_its_place(sealed: Ledger) -> None:
    game_id, _, _ = checkpointed(sealed)
    bundle = export_bundle(sealed, game_id)
    delete_game(sealed, game_id)
    with pytest.raises(ReplacedGame, match=f"game {game_id} was stored on this server and a checkpoint names it"):
        import_bundles(sealed, [bundle])
    assert sealed.queries.stored_among([game_id]) == set()


def test_a_checkpointed_game_put_back_as_imported_is_named_at_its_first_event(
    sealed: Ledger, database: str, tmp_path: Path
) -> None:
    """A game a checkpoint signed as recorded on the server, its rows replaced by the same events sealed as
    imported (as the server sealed them on an import elsewhere under the key): the audit says so."""
    game_id, _, last = checkpointed(sealed)
    bundle = export_bundle(sealed, game_id)
    with Ledger(Settings(str(tmp_path / "elsewhere.sqlite"), seal_key=KEY)) as elsewhere:
        import_bundles(elsewhere, [bundle])
        imported = list(elsewhere.store.recorder.select_events(game_id))
    Tamperer(sealed, game_id).delete(">", 0)
    sealed.store.recorder.insert_events(imported)
    report = audited(database, game_id)
    assert report.verdict == "damaged" and report.data["imported"] == [[1, last]]
    assert named(database, game_id)[1] == (
        1,
        "event 1 is sealed as imported, though checkpoint 1 signed it as recorded here: "
        "the game was deleted and imported again",
    )


def test_an_imported_tail_put_after_recorded_events_is_refused(sealed: Ledger, database: str, tmp_path: Path) -> None:
    """A game's events not yet checkpointed replaced by the tail of a forged game the server sealed on an import
    (elsewhere, under the key): an import is of a whole game, so an imported seal after a recorded one is never
    vouched for, nor passes the audit."""
    receipt, _ = recorded_with_a_note(sealed)
    sealed.commands.take_checkpoint()
    sealed.commands.annotate(receipt.game_id, 3, "a genuine later note")
    forged = forged_bundle(sealed, receipt.game_id, receipt.version + 1, "ben conceded the game here")
    with Ledger(Settings(str(tmp_path / "elsewhere.sqlite"), seal_key=KEY)) as elsewhere:
        import_bundles(elsewhere, [forged])
        tail = list(elsewhere.store.recorder.select_events(receipt.game_id, gt=receipt.version))
    Tamperer(sealed, receipt.game_id).delete(">", receipt.version)
    sealed.store.recorder.insert_events(tail)
    sealed.commands.take_checkpoint()
    assert unvouched(sealed) == [(str(receipt.game_id), receipt.version + 1, receipt.version + 1, "imported")]
    report = audited(database, receipt.game_id)
    assert report.verdict == "damaged" and report.check("seals")["event"] == receipt.version + 1
    assert "sealed as imported after events that were not" in report.check("seals")["detail"]


def test_a_forged_event_hidden_before_the_last_checkpoints_position_is_examined(tmp_path: Path) -> None:
    """An event written behind the server's back under a log position a checkpoint has passed (or committed late)
    is examined with the game's next events, by the game's versions, and named."""
    database = str(tmp_path / "low.sqlite")
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        receipt, _ = recorded_with_a_note(ledger)
        ledger.commands.take_checkpoint()
        with Ledger(Settings(database)) as forger:
            forger.commands.annotate(receipt.game_id, 3, "ben conceded the game here")
        forged = receipt.version + 1
        tamperer = Tamperer(ledger, receipt.game_id)
        [(low,)] = tamperer.execute("SELECT min(rowid) FROM {table}")
        tamperer.execute("UPDATE {table} SET rowid=(SELECT max(rowid)+1 FROM {table}) WHERE rowid=?", low)
        tamperer.execute(
            "UPDATE {table} SET rowid=? WHERE originator_id=? AND originator_version=?", low, tamperer.key, forged
        )
        ledger.commands.annotate(receipt.game_id, 4, "a genuine note on top")
        ledger.commands.take_checkpoint()
        assert unvouched(ledger) == [(str(receipt.game_id), forged, forged, "unsealed")]


@pytest.mark.parametrize("version", [1, 2, 3])
def test_a_checkpoint_of_an_earlier_version_still_holds_and_is_followed(
    sealed: Ledger, database: str, version: int
) -> None:
    """A checkpoint signed before checkpoints named the events they could not vouch for (1), said which were
    acknowledged (2), or signed the heads of the records of who may write to each game (3)."""
    game_id, _, _ = checkpointed(sealed)
    log = Tamperer(sealed, CHECKPOINT_LOG_ID)
    topic, state = log.stored(FIRST_CHECKPOINT_ROW)
    fields = unpack(unsealed_bytes(state))
    del fields["accesses"], fields["signed"]["accesses"]
    if version < 3:
        del fields["signed"]["acknowledged"]
    if version == 1:
        del fields["refused"], fields["signed"]["refused"]
    fields["signed"]["version"] = version
    fields["signature"] = signature_of(KEY, fields["signed"])
    log.write(FIRST_CHECKPOINT_ROW, topic, pack(fields))
    sealed.commands.annotate(game_id, 2, "a later note")
    with Ledger(Settings(database, seal_key=KEY)) as server:
        taken, new = server.commands.take_checkpoint()
    assert new and taken["version"] == 4 and taken["previous"] == fields["signature"] and taken["acknowledged"] == 0
    assert audited(database, game_id).verdict == "clean"


def test_events_cut_off_the_end_are_named_without_a_receipt(sealed: Ledger, database: str) -> None:
    game_id, note, last = checkpointed(sealed)
    Tamperer(sealed, game_id).delete(">", note)
    verdict, (event, detail) = named(database, game_id)
    assert verdict == "damaged" and event == note + 1 and last > note
    assert detail == f"checkpoint 1 signed event {note + 1}, but the log ends at event {note}: events were cut off"


def test_an_edited_snapshot_is_named(sealed: Ledger, database: str) -> None:
    game_id = import_notation(sealed, GAME_TEXT).game_id
    sealed.commands.take_checkpoint()
    snapshots = Tamperer(sealed, game_id)
    snapshots.table = sealed.store.snapshots.recorder.events_table_name  # type: ignore[union-attr]
    topic, state = snapshots.stored(SNAPSHOT_INTERVAL)
    fields = unpack(unsealed_bytes(state))
    fields["state"]["state"]["players"]["ann"][1] += 50
    snapshots.write(SNAPSHOT_INTERVAL, topic, pack(fields))
    report = audited(database, game_id)
    assert report.verdict == "damaged" and report.check("snapshots")["event"] == SNAPSHOT_INTERVAL
    assert report.check("checkpoints")["verdict"] == "pass"  # the log itself is as signed


def test_signed_events_rewritten_to_match_a_forgery_are_named(sealed: Ledger, database: str) -> None:
    """A forger rewrites the game, then the events the checkpoint signed, then the checkpoint's digests of them:
    each step is named, the last because only the key signs a checkpoint."""
    game_id, note, _ = checkpointed(sealed)
    rehash_from(sealed, Tamperer(sealed, game_id), note, {"text": "nothing happened"})
    forged = [[e.originator_version, e.hash, True] for e in sealed.queries.game_events(game_id)]
    record = Tamperer(sealed, signed_events_id(game_id, 1))
    topic, state = record.stored(1)
    fields = unpack(unsealed_bytes(state))
    fields["events"] = forged
    record.write(1, topic, pack(fields))
    assert named(database, game_id)[1] == (
        None,
        "the game's events checkpoint 1 signed are not stored as it signed them",
    )
    log = Tamperer(sealed, CHECKPOINT_LOG_ID)
    topic, state = log.stored(FIRST_CHECKPOINT_ROW)
    fields = unpack(unsealed_bytes(state))
    fields["games"][str(game_id)][2] = digest(forged)
    fields["signed"]["games"] = digest(fields["games"])
    log.write(FIRST_CHECKPOINT_ROW, topic, pack(fields))
    verdict, (event, detail) = named(database, game_id)
    assert verdict == "damaged" and event is None
    assert detail == "checkpoint 1 is not signed by the key: it was made or changed without it"


def test_a_fault_in_the_checkpoint_log_hides_no_forgery(sealed: Ledger, database: str) -> None:
    """A checkpoint whose signature holds counts whatever else is wrong with the log: a forged game is named at
    its first event, an untouched one only by the fault."""
    game_id, note, _ = checkpointed(sealed)
    untouched = import_notation(sealed, GAME_TEXT).game_id
    sealed.commands.take_checkpoint()
    rehash_from(sealed, Tamperer(sealed, game_id), note, {"text": "nothing happened"})
    log = Tamperer(sealed, CHECKPOINT_LOG_ID)
    log.write(FIRST_CHECKPOINT_ROW + 1, *log.stored(FIRST_CHECKPOINT_ROW))  # the first checkpoint again
    verdict, (event, detail) = named(database, game_id)
    assert verdict == "damaged" and event == note
    assert detail.endswith("(and checkpoint 2 does not follow checkpoint 1: the log was cut or reordered)")
    assert named(database, untouched) == (
        "damaged",
        (None, "checkpoint 2 does not follow checkpoint 1: the log was cut or reordered"),
    )


CRAFTED_ROWS = {
    "not msgpack": ("evo-ledger:CheckpointLog.Signed", b"\xc1\xc1\xc1"),
    "signed not a map": ("evo-ledger:CheckpointLog.Signed", pack({"signed": [1], "games": {}, "signature": "x"})),
    "a signature not text": (
        "evo-ledger:CheckpointLog.Signed",
        pack({"signed": {}, "games": {}, "signature": 7}),
    ),
    "a module for a topic": ("os:system", pack({"signed": {}, "games": {}, "signature": "é"})),
    "another aggregate's event": ("evo-ledger:SignedEvents.Created", pack({"events": []})),
}


@pytest.mark.parametrize("crafted", CRAFTED_ROWS, ids=list(CRAFTED_ROWS))
def test_a_crafted_checkpoint_row_is_a_fault_never_an_error(sealed: Ledger, database: str, crafted: str) -> None:
    game_id, _, _ = checkpointed(sealed)
    Tamperer(sealed, CHECKPOINT_LOG_ID).write(FIRST_CHECKPOINT_ROW, *CRAFTED_ROWS[crafted])
    verdict, (event, detail) = named(database, game_id)
    assert verdict == "damaged" and event is None
    assert detail in (
        "checkpoint 1 cannot be read",
        "checkpoint 1 is not a checkpoint as the server writes one",
        f"row {FIRST_CHECKPOINT_ROW} of the checkpoint log is not a checkpoint",
    )
    with Ledger(Settings(database, seal_key=KEY)) as server, pytest.raises(CheckpointError, match="without the key"):
        sealed.commands.annotate(game_id, 2, "a later note")
        server.commands.take_checkpoint()  # no checkpoint is signed over a log changed without the key


@pytest.mark.parametrize("events", [b"\xc1", pack({"events": [["x", 1, 2]]}), pack({"events": {"a": 1}})])
def test_a_crafted_record_of_signed_events_is_a_fault_and_imports_nothing(
    sealed: Ledger, database: str, events: bytes
) -> None:
    game_id, _, _ = checkpointed(sealed)
    Tamperer(sealed, signed_events_id(game_id, 1)).write(1, "this:nothing", events)
    assert named(database, game_id) == (
        "damaged",
        (None, "the game's events checkpoint 1 signed are not stored as it signed them"),
    )


def test_a_checkpoint_lost_to_another_leaves_no_trace_and_the_next_follows_the_winner(
    sealed: Ledger, database: str
) -> None:
    game_id, _, _ = checkpointed(sealed)
    stale = copy.deepcopy(sealed.vouched.checkpoint_index())
    with Ledger(Settings(database, seal_key=KEY)) as other:
        other.commands.annotate(game_id, 2, "noted on the other server")
        won, _ = other.commands.take_checkpoint()
    events = {str(game_id): [[999, "0" * 64, True]]}
    with pytest.raises(IntegrityError):
        sealed.store.save(*next_checkpoint(stale, events, 10**6))  # the stale one cannot be appended
    sealed.commands.annotate(game_id, 3, "noted here")
    taken, new = sealed.commands.take_checkpoint()
    assert new and taken["number"] == 3 and taken["previous"] == won["signature"]
    assert audited(database, game_id).verdict == "clean"


def test_take_checkpoint_tells_a_checkpoint_lost_to_another_server_as_a_checkpoint_error(
    sealed: Ledger, database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id, _, _ = checkpointed(sealed)
    sealed.commands.annotate(game_id, 2, "noted here")
    read_log = sealed.store.notifications_after
    won: list[dict[str, Any]] = []
    with Ledger(Settings(database, seal_key=KEY)) as other:
        other.commands.annotate(game_id, 3, "noted on the other server")

        def read_while_the_other_signs(after: int, topics: Sequence[str] = ()) -> Iterator[Any]:
            """The other server signs once this one has read the checkpoint log and before it appends to it."""
            if not won:
                won.append(other.commands.take_checkpoint()[0])
            return read_log(after, topics)

        monkeypatch.setattr(sealed.store, "notifications_after", read_while_the_other_signs)
        with pytest.raises(CheckpointError, match="another checkpoint was taken at the same moment: take it again"):
            sealed.commands.take_checkpoint()
    monkeypatch.undo()
    assert won and won[0]["number"] == 2
    assert sealed.commands.take_checkpoint() == (won[0], False), "the winner signed both notes: nothing is left to sign"
    assert audited(database, game_id).verdict == "clean"


def test_a_checkpoint_kept_elsewhere_shows_a_checkpoint_log_that_was_cut(sealed: Ledger, database: str) -> None:
    game_id, note, _ = checkpointed(sealed)
    kept, _ = sealed.commands.take_checkpoint()
    rehash_from(sealed, Tamperer(sealed, game_id), note, {"text": "nothing happened"})
    Tamperer(sealed, CHECKPOINT_LOG_ID).delete(">", 0)  # the whole checkpoint log
    Tamperer(sealed, signed_events_id(game_id, 1)).delete(">", 0)
    assert audited(database, game_id).check("checkpoints")["verdict"] == "not run"
    report = audited(database, game_id, kept=[kept])
    assert report.verdict == "damaged"
    assert report.check("checkpoints")["detail"] == (
        "checkpoint 1, kept elsewhere, is not in the checkpoint log: the log was cut or replaced"
    )


CRAFTED_FILES = {
    "not a number": '{"format": "evo-ledger checkpoint", "number": NaN, "signature": "x"}',
    "nested past any limit": "[" * 100_000 + "]" * 100_000,
    "not a checkpoint": '{"format": "something else", "signature": "x"}',
}


@pytest.mark.parametrize("crafted", CRAFTED_FILES, ids=list(CRAFTED_FILES))
def test_a_crafted_checkpoint_file_is_refused_as_bad_input(
    sealed: Ledger, database: str, tmp_path: Path, crafted: str, capsys: pytest.CaptureFixture[str]
) -> None:
    game_id, _, _ = checkpointed(sealed)
    path = tmp_path / "kept.json"
    path.write_text(CRAFTED_FILES[crafted])
    assert main(["audit", str(game_id), "--checkpoint", str(path), "--database", database]) == 2
    assert f"--checkpoint {path}: not a checkpoint as `checkpoint` prints one" in capsys.readouterr().err


def test_a_kept_checkpoint_whose_signature_is_not_the_keys_is_named(sealed: Ledger, database: str) -> None:
    game_id, _, _ = checkpointed(sealed)
    kept, _ = sealed.commands.take_checkpoint()
    report = audited(database, game_id, kept=[{**kept, "signature": "é"}, {**kept, "number": True}])
    assert report.check("checkpoints")["detail"] == "the checkpoint kept elsewhere numbered 1 is not signed by the key"


def test_a_server_with_a_seal_key_signs_a_checkpoint_as_it_starts_and_at_its_interval(tmp_path: Path) -> None:
    database = str(tmp_path / "served.sqlite")
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        before = import_notation(ledger, GAME_TEXT).game_id
    settings = ApiSettings(store=Settings(database, seal_key=KEY), checkpoint_seconds=0.05)
    with TestClient(create_app(settings)) as client:
        created = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in "abc"]})
        game = created.json()["game_id"]
        ledger = client.app.state.ledger  # type: ignore[attr-defined]
        deadline = time.monotonic() + 30
        while game not in ledger.vouched.checkpoint_index().naming and time.monotonic() < deadline:
            time.sleep(0.05)
        health = client.get("/health").json()
        assert ledger.vouched.checkpoint_index().naming[str(before)] == [1]  # signed as the server started
    assert health["checkpoints"]["last"] >= 2 and health["checkpoints"]["failure"] is None
    report = audited(database, UUID(game))
    assert report.check("checkpoints")["detail"] == "events 1 to 1 are as checkpoints signed them"


def test_health_is_degraded_and_names_the_events_a_checkpoint_could_not_vouch_for(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    database = str(tmp_path / "forged.sqlite")
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        game_id, last = forged_since_a_checkpoint(ledger)
    settings = ApiSettings(
        store=Settings(database, seal_key=KEY), admin_token=ADMIN, follow_projections=False, writer_process=False
    )
    with TestClient(create_app(settings)) as client:
        health_when(client, lambda health: health["checkpoints"]["last"] == 2)  # signed as the server started
        answer = client.get("/health")
        admin = client.get("/health", headers={"Authorization": f"Bearer {ADMIN}"}).json()
    assert answer.status_code == 503 and answer.json()["status"] == "degraded"
    checkpoints = answer.json()["checkpoints"]
    assert checkpoints["tamper_evidence"] is True and checkpoints["failure"] is None
    assert checkpoints["unvouched_count"] == last
    [run] = checkpoints["unvouched"]
    assert run["events"] == [1, last] and run["reason"] == "unsealed" and "game_id" not in run  # a game may be private
    assert run["checkpoint"] == 2 and checkpoints["acknowledged"] == 0
    assert admin["checkpoints"]["unvouched"] == [{**run, "game_id": str(game_id)}]
    assert f"checkpoint 2 could not vouch for {last} events, and signed none of them: game {game_id}" in caplog.text


def health_once_the_log_is_read(client: TestClient) -> Any:
    """The first `/health` that read the checkpoint log: while the server's first checkpoint is being taken, it
    has not (`unvouched_count` null)."""
    deadline = time.monotonic() + 30
    while True:
        health = client.get("/health")
        if health.json()["checkpoints"]["unvouched_count"] is not None or time.monotonic() > deadline:
            return health
        time.sleep(0.05)


def test_health_stays_degraded_past_later_checkpoints_until_an_admin_acknowledges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkpoint that vouches for every event it examines does not clear the alarm an earlier one raised: the
    forged events stay named until an admin signs a checkpoint that acknowledges them, from the command line, and
    the running server sees it at the next `/health`."""
    database = str(tmp_path / "forged.sqlite")
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        forged_since_a_checkpoint(ledger)
        ledger.commands.take_checkpoint()
        recorded_with_a_note(ledger)
        ledger.commands.take_checkpoint()  # checkpoint 3 vouches for every event it examined
        assert unvouched(ledger) == []
    settings = ApiSettings(
        store=Settings(database, seal_key=KEY), admin_token=ADMIN, follow_projections=False, writer_process=False
    )
    monkeypatch.setenv(SEAL_KEY_VARIABLE, KEY)
    with TestClient(create_app(settings)) as client:
        before = health_once_the_log_is_read(client)
        assert before.status_code == 503 and [
            run["checkpoint"] for run in before.json()["checkpoints"]["unvouched"]
        ] == [2]
        assert main(["checkpoint", "--database", database, "--acknowledge", "9"]) != 0
        assert "--acknowledge 9: a checkpoint from 0 (acknowledged already) to 3 (the last)" in capsys.readouterr().err
        assert main(["checkpoint", "--database", database, "--acknowledge", "3"]) == 0
        after = client.get("/health")
    assert after.status_code == 200 and after.json()["status"] == "ok"
    assert after.json()["checkpoints"] | {"last": None, "position": None} == {
        "tamper_evidence": True,
        "last": None,
        "position": None,
        "failure": None,
        "acknowledged": 3,
        "unvouched": [],
        "unvouched_count": 0,
    }
    with Ledger(Settings(database, seal_key=KEY)) as ledger:
        index = ledger.vouched.checkpoint_index()
        assert [checkpoint.signed["acknowledged"] for checkpoint in index.checkpoints] == [0, 0, 0, 3]
        with pytest.raises(CheckpointError, match="--acknowledge 2: a checkpoint from 3"):
            ledger.commands.take_checkpoint(acknowledge=2)


def test_health_is_degraded_until_it_has_read_the_checkpoint_log(sealed: Ledger) -> None:
    """While the first checkpoint is being taken (the log not yet read), /health does not say all is well."""
    forged_since_a_checkpoint(sealed)
    signer = CheckpointSigner(sealed, 3600)
    with sealed.vouched.checkpoints_lock:  # a checkpoint being taken holds it
        degraded, said = threading_call(lambda: signer.health(Caller()))
    assert degraded and said["unvouched_count"] is None and said["acknowledged"] is None
    degraded, said = signer.health(Caller())
    assert not degraded and said["unvouched_count"] == 0  # the first checkpoint vouched for all it examined


def threading_call(call: Any) -> Any:
    """`call` made on another thread, as a request is served: its answer."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(call).result()


def test_a_server_without_a_key_says_it_offers_no_tamper_evidence(tmp_path: Path) -> None:
    settings = ApiSettings(
        store=Settings(str(tmp_path / "keyless.sqlite")), follow_projections=False, writer_process=False
    )
    with TestClient(create_app(settings)) as client:
        answer = client.get("/health")
    assert answer.status_code == 200 and answer.json()["status"] == "ok"
    assert answer.json()["checkpoints"]["tamper_evidence"] is False
    assert answer.json()["checkpoints"]["why"].startswith("the server has no seal key")


def test_signed_events_are_a_record_a_game_and_checkpoint() -> None:
    game = UUID(int=7)
    assert signed_events_id(game, 1) != signed_events_id(game, 2) != signed_events_id(UUID(int=8), 1)
    assert SignedEvents.Created.TOPIC == "evo-ledger:SignedEvents.Created"
