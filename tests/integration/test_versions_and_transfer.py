"""Old event versions still replay; whole games go out and come back byte for byte."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from eventsourcing.persistence import StoredEvent

from evo_ledger.app.access import GameAccess, new_token
from evo_ledger.app.ledger import Ledger, VersionConflict
from evo_ledger.app.transfer import (
    BundleError,
    IllegalAction,
    _worker_context,
    bundle_game,
    export_bundle,
    export_notation,
    import_bundles,
    import_notation,
    import_notations,
    store_game,
)
from evo_ledger.game.aggregate import Game, player_id
from evo_ledger.game.checker import check_game
from evo_ledger.game.codec import canonical, pack, unpack
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings
from tests.helpers.shown import shown, shown_value
from tests.helpers.support import ROOT

GAME_TEXT = (ROOT / "replays" / "hand-3p-first-game.evo").read_text()


def test_a_started_event_of_version_1_replays_with_seats_and_stable_ids(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    first = ledger.queries.stored_events(game)[0]
    state = unpack(canonical(first.state))
    assert state.pop("class_version") == 4
    assert state.pop("sealed") is False  # version 4 added it
    assert state.pop("commitment") is None  # version 3 added it
    names = [seat["name"] for seat in state["players"]]  # the seats' labels
    assert [shown(ledger, name) for name in names] == ["ann", "ben", "cat"]
    state["players"] = names  # how version 1 wrote them
    old_game = uuid.uuid4()
    ledger.commands.insert_stored_events([StoredEvent(old_game, 1, first.topic, pack(state))])
    replayed = ledger.queries.game(old_game)
    expected = [{"seat": n, "name": name, "id": player_id(name)} for n, name in enumerate(names, 1)]
    assert replayed.players == expected and replayed.commitment is None
    assert replayed.state.board == ledger.queries.game(game).state.board


def test_a_started_event_of_version_2_replays_without_a_commitment(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    first = ledger.queries.stored_events(game)[0]
    state = unpack(canonical(first.state))
    del state["commitment"], state["sealed"]
    state["class_version"] = 2
    old_game = uuid.uuid4()
    ledger.commands.insert_stored_events([StoredEvent(old_game, 1, first.topic, pack(state))])
    replayed = ledger.queries.game(old_game)
    assert replayed.commitment is None and replayed.players == ledger.queries.game(game).players
    assert replayed.sealed is False


def test_an_action_of_version_2_replays_with_no_time_at_the_table(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, "order ann ben cat")
    started, action = ledger.queries.stored_events(game)[:2]
    state = unpack(canonical(action.state))
    assert state.pop("class_version") == 3 and state.pop("entered_at") is None  # version 3 added it
    state["class_version"] = 2
    old_game = uuid.uuid4()
    ledger.commands.insert_stored_events(
        [StoredEvent(old_game, 1, started.topic, started.state), StoredEvent(old_game, 2, action.topic, pack(state))]
    )
    [_, replayed] = ledger.queries.game_events(old_game)[:2]
    assert replayed.entered_at is None and shown(ledger, replayed.notation) == "order ann ben cat"
    assert ledger.queries.game(old_game).state.order == ledger.queries.game(game).state.order


def test_an_exported_bundle_imports_elsewhere_and_exports_the_same_bytes(ledger: Ledger, tmp_path: Path) -> None:
    receipt = import_notation(ledger, GAME_TEXT)
    ledger.commands.undo(receipt.game_id, 1, "meteorite recorded too early")
    ledger.commands.record(receipt.game_id, "climate meteorite")
    ledger.commands.annotate(receipt.game_id, 3, "order drawn from the bag")
    bundle = export_bundle(ledger, receipt.game_id)
    with Ledger(Settings(str(tmp_path / "other.sqlite"))) as target:
        [imported] = import_bundles(target, [bundle])
        assert imported == ledger.queries.receipt(receipt.game_id)
        assert export_bundle(target, receipt.game_id) == bundle
        assert target.store.snapshots is not None and list(target.store.snapshots.get(receipt.game_id))
        [again] = import_bundles(target, [bundle])  # already there: nothing stored
        assert again == replace(imported, already_stored=True)


def test_a_game_imported_again_is_found_stored_and_not_stored_twice(ledger: Ledger) -> None:
    receipt = import_notation(ledger, GAME_TEXT)
    bundle = export_bundle(ledger, receipt.game_id)
    [from_bundle] = import_bundles(ledger, [bundle])
    from_notation = import_notation(ledger, GAME_TEXT)
    assert from_bundle == from_notation == replace(receipt, already_stored=True)
    assert list(ledger.queries.game_ids()) == [receipt.game_id]
    copy = import_notation(ledger, GAME_TEXT, again=True)
    assert not copy.already_stored and copy.game_id != receipt.game_id
    assert len(list(ledger.queries.game_ids())) == 2


def edited_bundle(bundle: bytes, change: Callable[[list[Any]], None]) -> bytes:
    document = unpack(bundle)
    change(document["events"])
    return pack(document)


def forge(events: list[Any]) -> None:
    """Change one event's content but not its hash: the time it was recorded."""
    topic, version, state = events[40]
    fields = unpack(state)
    fields["timestamp"] = fields["timestamp"].replace(year=2000)
    events[40] = [topic, version, pack(fields)]


def retopic(events: list[Any]) -> None:
    """Point the game's first event at another aggregate class."""
    topic, version, state = events[0]
    fields = unpack(state)
    fields["originator_topic"] = "evo_ledger.game.aggregate:Game"
    events[0] = [topic, version, pack(fields)]


def test_a_bundle_whose_events_were_edited_or_dropped_is_refused_before_anything_is_written(
    ledger: Ledger, tmp_path: Path
) -> None:
    source = import_notation(ledger, GAME_TEXT)
    bundle = export_bundle(ledger, source.game_id)
    with Ledger(Settings(str(tmp_path / "target.sqlite"))) as target:
        with pytest.raises(BundleError, match="event 41's content does not match its hash"):
            import_bundles(target, [edited_bundle(bundle, forge)])
        with pytest.raises(BundleError, match="event 1's content does not match its hash"):
            import_bundles(target, [edited_bundle(bundle, retopic)])
        with pytest.raises(BundleError, match="event 11 is missing"):
            import_bundles(target, [edited_bundle(bundle, lambda events: events.pop(10))])
        with pytest.raises(BundleError, match="not a bundle"):
            import_bundles(target, [b"\xc1"])
        assert list(target.queries.game_ids()) == []


# What differs between a game and its copy made from an export: times, hashes and the hidden actions' salts.
NOT_COMPARED = {"timestamp", "prev_hash", "hash", "originator_id", "action_salt", "action_commitment"}


def comparable(ledger: Ledger, game_id: UUID) -> list[tuple[str, dict[str, Any]]]:
    return [
        (type(event).__name__, {k: v for k, v in vars(event).items() if k not in NOT_COMPARED})
        for event in ledger.queries.game_events(game_id)
    ]


def test_a_notation_export_carries_undos_corrections_and_notes_and_imports_to_the_same_events(ledger: Ledger) -> None:
    lines = [line.text for line in parse_game(GAME_TEXT).actions]
    seats = [(name, player_id(name)) for name in ("ann", "ben", "cat")]  # the ids an imported game derives
    game = ledger.commands.create_game(None, "standin-e2-3p", seats).game_id
    ledger.commands.record(game, lines[:-1])
    ledger.commands.undo(game, 2, "too early")
    ledger.commands.record(game, lines[-3:-1])
    ledger.commands.correct(game, lines[-2], "the same, said again")
    ledger.commands.annotate(game, 5, "ann bids first (she won the draw)")
    ledger.commands.record(game, lines[-1])
    text = shown(ledger, export_notation(ledger, game))
    assert "\nundo 2 (too early)\n" in text and f"\ncorrect {lines[-2]} (the same, said again)\n" in text
    assert "\nnote 5 ann bids first (she won the draw)\n" in text
    assert text.rstrip().endswith("result 1 ann 19/4, 2 cat 14/3, 3 ben 13/4")
    again = import_notation(ledger, text, again=True).game_id  # the game's handles, not labels
    assert shown_value(ledger, comparable(ledger, again)) == shown_value(ledger, comparable(ledger, game))
    final = ledger.queries.game(game)
    outcome = final.rules.outcome(final.state)
    assert outcome is not None
    standings = tuple(replace(standing, player=shown(ledger, standing.player)) for standing in outcome.standings)
    assert check_game(parse_game(text)).outcome == replace(outcome, standings=standings)


def test_bulk_import_stores_many_games_in_batches(ledger: Ledger) -> None:
    texts = [(ROOT / "replays" / name).read_text() for name in ("hand-3p-first-game.evo", "selfplay-3p-seed10.evo")] * 3
    receipts = import_notations(ledger, texts, batch=4, again=True)
    assert len(receipts) == 6 and len(set(r.game_id for r in receipts)) == 6
    assert [r.game_id for r in receipts] == list(ledger.queries.game_ids())
    assert all(ledger.queries.receipt(r.game_id) == r for r in receipts)


def test_a_parallel_bulk_import_stores_what_an_import_in_one_process_stores(ledger: Ledger) -> None:
    texts = [(ROOT / "replays" / name).read_text() for name in ("hand-3p-first-game.evo", "selfplay-3p-seed10.evo")] * 3
    receipts = import_notations(ledger, texts, batch=2, workers=2, again=True)
    assert [r.game_id for r in receipts] == list(ledger.queries.game_ids())
    for receipt, text in zip(receipts, texts, strict=True):
        assert ledger.queries.receipt(receipt.game_id) == receipt
        copy = import_notation(ledger, text, again=True)
        assert ledger.queries.game(receipt.game_id).state == ledger.queries.game(copy.game_id).state


def test_the_same_game_twice_in_one_import_is_stored_once(ledger: Ledger) -> None:
    texts = [(ROOT / "replays" / "hand-3p-first-game.evo").read_text()] * 3
    first, second, third = import_notations(ledger, texts, batch=2)
    assert not first.already_stored and second.already_stored and third.already_stored
    assert first.game_id == second.game_id == third.game_id and list(ledger.queries.game_ids()) == [first.game_id]


def test_a_parallel_import_beside_other_threads_starts_its_workers_from_a_fork_server(ledger: Ledger) -> None:
    texts = [(ROOT / "replays" / "selfplay-3p-seed10.evo").read_text()] * 4
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert _worker_context().get_start_method() == "forkserver"
        receipts = import_notations(ledger, texts, batch=1, workers=2, again=True)
    finally:
        stop.set()
        other.join()
    assert [r.game_id for r in receipts] == list(ledger.queries.game_ids())
    assert all(ledger.queries.receipt(r.game_id) == r for r in receipts)


def test_an_illegal_game_in_a_parallel_import_raises_its_own_error_after_the_batches_before_it(ledger: Ledger) -> None:
    good = (ROOT / "replays" / "hand-3p-first-game.evo").read_text()
    illegal = (ROOT / "tests" / "rulings" / "e2-02-move-beyond-legs.evo").read_text()
    with pytest.raises(IllegalAction) as refused:
        import_notations(ledger, [good, good, illegal, good], batch=2, workers=2, again=True)
    assert refused.value.violation.ruling == "E2-02" and refused.value.line.line == 14
    assert len(list(ledger.queries.game_ids())) == 2


def test_a_batch_of_several_megabytes_is_stored_in_one_go(ledger: Ledger) -> None:
    """16 MB of events in one transaction (psycopg's pipeline mode could hang on a statement this large)."""
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    first = ledger.queries.stored_events(game)[0]
    copies = [StoredEvent(uuid.uuid4(), 1, first.topic, first.state) for _ in range(16_000_000 // len(first.state))]
    ledger.commands.insert_stored_events(copies)
    assert len(list(ledger.queries.game_ids())) == len(copies) + 1


def test_a_game_carries_its_kit_and_refuses_one_whose_hash_changed(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    started = ledger.queries.game_events(game)[0]
    assert isinstance(started, Game.Started) and started.kit_document["name"] == "standin-e2-3p"
    assert started.kit_hash.startswith("sha256:")


def test_an_imported_game_and_its_recorder_token_are_stored_in_one_transaction(ledger: Ledger, tmp_path: Path) -> None:
    with Ledger(Settings(str(tmp_path / "source.sqlite"))) as source:
        receipt = import_notation(source, GAME_TEXT)
        bundle = export_bundle(source, receipt.game_id)
    token = new_token()
    stored = store_game(ledger, bundle_game(ledger.store.mapper, bundle), recorder_token=token)
    access = ledger.vouched.access(stored.game_id)
    assert stored == receipt and access is not None and access.admits(token)
    with Ledger(Settings(str(tmp_path / "other.sqlite"))) as other:
        other.store.save(GameAccess.grant(receipt.game_id, "an earlier token"))
        with pytest.raises(VersionConflict):
            store_game(other, bundle_game(other.store.mapper, bundle), recorder_token=token)
        assert list(other.queries.game_ids()) == []  # the token's refusal took the game's events with it
