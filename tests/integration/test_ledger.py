"""The ledger on each database: appends, receipts, refusals, undo, corrections, notes, snapshots."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from evo_ledger.app.ledger import Ledger, UnknownGame, VersionConflict
from evo_ledger.game.aggregate import GENESIS, Game, player_id
from evo_ledger.game.labels import is_label
from evo_ledger.game.notation import parse_game
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.text import NotationError
from evo_ledger.settings import Settings
from tests.helpers.shown import handles, shown
from tests.helpers.support import ROOT, ROUND_ONE_AUCTION


def actions_of(path: str) -> list[str]:
    return [line.text for line in parse_game((ROOT / path).read_text()).actions]


def seat_labels(ledger: Ledger, game: uuid.UUID) -> dict[str, str]:
    """Each seat's label (what the rules and the log hold), by the handle it stands for."""
    return {shown(ledger, p["name"]): p["name"] for p in ledger.queries.game(game).players}


def test_an_append_returns_a_receipt_chained_to_the_one_before(ledger: Ledger) -> None:
    started = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    first = ledger.commands.record(started.game_id, "order ann ben cat", expected_version=1)
    second = ledger.commands.record(started.game_id, "climate cw", expected_version=first.version)
    assert (started.version, first.version) == (1, 3)  # the order, and the initiative it sets
    assert second.version == 5  # the reveal, and the climate change it causes
    events = ledger.queries.game_events(started.game_id)
    hashes = [e.hash for e in events]
    assert [e.prev_hash for e in events] == [GENESIS, *hashes[:-1]]
    assert second.head_hash == hashes[-1] and len(set(hashes)) == 5


def test_each_fact_is_its_own_event_followed_by_what_the_rules_derived(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, list(ROUND_ONE_AUCTION))
    names = [type(e).__name__ for e in ledger.queries.game_events(game)]
    assert names == [
        "Started",
        "InitiativeDrawn",
        "InitiativeSet",
        "ClimateTokenRevealed",
        "ClimateChanged",
        "GeneDrawn",
        "GenePlaced",
        "GeneDrawn",
        "GenePlaced",
        "BidPlaced",
        "BidPlaced",
        "BidPlaced",
        "AuctionSettled",
        "InitiativeSet",
    ]
    topics = {event.topic for event in ledger.queries.stored_events(game)}
    assert "evo-ledger:Game.AuctionSettled" in topics and "evo-ledger:Game.BidPlaced" in topics


def test_an_illegal_action_is_refused_naming_its_ruling_and_stores_nothing(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, "order ann ben cat")
    before = ledger.queries.stored_events(game)
    with pytest.raises(RuleViolation) as refused:
        ledger.commands.record(game, "climate meteorite")
    assert refused.value.ruling == "E2-04"
    with pytest.raises(NotationError):
        ledger.commands.record(game, "ann bids lots")
    with pytest.raises(RuleViolation):
        ledger.commands.record(game, ["climate cw", "draw legs", "draw eggs", "ann bid 7 legs"])  # all or nothing
    assert ledger.queries.stored_events(game) == before
    assert ledger.queries.game(game).version == len(before)


def test_an_append_at_a_stale_version_is_a_conflict(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, "order ann ben cat", expected_version=1)
    with pytest.raises(VersionConflict, match="expected version 1, but it is at version 3"):
        ledger.commands.record(game, "climate cw", expected_version=1)


def test_the_game_at_any_event_is_the_fold_of_the_events_before_it(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    receipt = ledger.commands.record(game, actions_of("replays/hand-3p-first-game.evo"))
    assert receipt.version > 200  # snapshots were taken on the way
    assert ledger.store.snapshots is not None and list(ledger.store.snapshots.get(game))
    fresh = Ledger(ledger.settings)
    for version in (1, 2, 57, 99, 100, 101, 150, receipt.version):
        at = fresh.queries.game(game, version=version)
        assert at.version == version
        events = fresh.queries.game_events(game, up_to=version)
        folded: Any = None
        for event in events:
            folded = event.mutate(folded)
        assert folded.state == at.state and folded.head_hash == at.head_hash
    final = fresh.queries.game(game)
    outcome = final.rules.outcome(final.state)
    assert outcome is not None and handles(fresh, list(outcome.winners)) == ["ann"]
    fresh.close()


def recorded_long_game(ledger: Ledger) -> tuple[uuid.UUID, int]:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    return game, ledger.commands.record(game, actions_of("replays/hand-3p-first-game.evo")).version


def same_game(one: Game, other: Game) -> bool:
    return (one.version, one.head_hash, one.state, one.history, one.annotations) == (
        other.version,
        other.head_hash,
        other.state,
        other.history,
        other.annotations,
    )


def test_the_game_at_an_event_folded_from_held_events_is_the_one_the_store_folds(ledger: Ledger) -> None:
    game, _ = recorded_long_game(ledger)
    head = ledger.commands.annotate(game, 5, "a note").version
    uncached = Ledger(Settings(ledger.settings.database, log_cache_events=0))
    held = Ledger(ledger.settings)
    reads: list[tuple[int, int]] = []
    store_get = held.store.repository.event_store.get

    def counted_get(originator_id: uuid.UUID, gt: int | None = None, lte: int | None = None, **kwargs: Any) -> Any:
        reads.append((gt or 0, lte or 0))
        return store_get(originator_id, gt=gt, lte=lte, **kwargs)

    held.store.repository.event_store.get = counted_get  # type: ignore[method-assign]
    versions = [*range(1, head + 2, 7), 99, 100, 101, 200, head, head + 1]
    for version in versions:
        assert same_game(held.queries.game(game, version=version), uncached.queries.game(game, version=version))
    events_read = [version for after, up_to in reads for version in range(after + 1, min(up_to, head) + 1)]
    assert len(events_read) == len(set(events_read))  # no event was read twice
    reads.clear()
    for version in versions:
        assert same_game(held.queries.game(game, version=version), uncached.queries.game(game, version=version))
    assert set(reads) == {(head, head + 1)}  # all came from held events; only what may follow the head is asked
    too_long = Ledger(Settings(ledger.settings.database, log_cache_events=head // 2))
    for version in (1, 150, head):
        assert same_game(too_long.queries.game(game, version=version), uncached.queries.game(game, version=version))
    for reader in (held, uncached, too_long):
        reader.close()


def test_events_appended_after_a_read_are_read_when_a_later_event_is_asked_for(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    reader = Ledger(ledger.settings)
    assert reader.queries.game(game, version=5).version == 1  # a game with one event, at its head
    receipt = ledger.commands.record(game, ["order ann ben cat", "climate cw"])
    at_head = reader.queries.game(game, version=receipt.version)
    assert (at_head.version, at_head.head_hash) == (receipt.version, receipt.head_hash)
    assert reader.queries.game(game, version=1).version == 1
    reader.close()


def test_a_game_made_from_held_events_shares_nothing_with_the_next_one(ledger: Ledger) -> None:
    game, _ = recorded_long_game(ledger)
    uncached = Ledger(Settings(ledger.settings.database, log_cache_events=0))
    for version in (50, 250):  # before the first snapshot, and after one
        changed = ledger.queries.game(game, version=version)
        changed.undo(1, "trying a change on a copy")
        changed.annotate(version, "not saved")
        assert same_game(ledger.queries.game(game, version=version), uncached.queries.game(game, version=version))
    uncached.close()


def test_undo_and_correction_are_events_with_reasons_and_the_mistake_stays_in_the_log(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, [*ROUND_ONE_AUCTION, "cat move C1 C2"])
    corrected = ledger.commands.correct(game, "cat move B1 B2", "it was the other dinosaur")
    cat = seat_labels(ledger, game)["cat"]
    assert ledger.queries.game(game).state.board.get("B2") == cat and "C1" in ledger.queries.game(game).state.board
    ledger.commands.undo(game, 2, "the auction was misrecorded")
    state = ledger.queries.game(game).state
    assert state.phase == "auction" and "B1" in state.board
    events = ledger.queries.game_events(game)
    kinds = [type(e).__name__ for e in events]
    assert "DinosaurMoved" in kinds and "ActionCorrected" in kinds and "ActionsUndone" in kinds
    undone = next(e for e in events if isinstance(e, Game.ActionsUndone))
    assert undone.reason != "the auction was misrecorded"  # stored sealed
    assert shown(ledger, undone.reason) == "the auction was misrecorded" and len(undone.versions) == 2
    assert corrected.version < ledger.queries.receipt(game).version
    with pytest.raises(ValueError, match="actions to undo"):
        ledger.commands.undo(game, 99, "too many")


def test_annotations_are_events_about_an_earlier_event(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, ["order ann ben cat", "climate cw"])
    ledger.commands.annotate(game, 2, "drawn from a hat")
    notes = ledger.queries.game(game).annotations
    assert [(version, shown(ledger, text)) for version, text in notes] == [(2, "drawn from a hat")]
    with pytest.raises(ValueError, match="events 1 to"):
        ledger.commands.annotate(game, 99, "no such event")


def test_players_keep_stable_ids_across_games(ledger: Ledger) -> None:
    first = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    second = ledger.commands.create_game("evo2", "standin-e2-3p", ["cat", ("ann", "ann@club"), "dan"]).game_id
    ids = {shown(ledger, p["name"]): p["id"] for p in ledger.queries.game(first).players}
    again = {shown(ledger, p["name"]): p["id"] for p in ledger.queries.game(second).players}
    assert ids["cat"] == again["cat"] and again["ann"] == "ann@club"
    assert ids["cat"] == str(uuid.UUID(ids["cat"])) != player_id("cat")  # a fresh id, not derived from the handle
    assert seat_labels(ledger, first)["cat"] == seat_labels(ledger, second)["cat"]
    assert all(is_label(name) for name in ledger.queries.game(second).player_names)
    assert list(ledger.queries.game_ids()) == [first, second]


def test_hidden_facts_are_marked_for_their_player_only(ledger: Ledger) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    ledger.commands.record(game, [*ROUND_ONE_AUCTION, "cat drew Ambush"])
    drew = ledger.queries.game_events(game)[-1]
    assert type(drew).__name__ == "EventCardDrawn" and drew.visible_only_to == seat_labels(ledger, game)["cat"]


def test_an_unknown_game_is_named(ledger: Ledger) -> None:
    missing = uuid.uuid4()
    with pytest.raises(UnknownGame, match=str(missing)):
        ledger.queries.game(missing)
    with pytest.raises(UnknownGame, match=str(missing)):
        ledger.queries.game(missing, version=3)


@pytest.mark.parametrize("held", [50_000, 0])
def test_there_is_no_game_before_its_first_event(ledger: Ledger, held: int) -> None:
    game = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    head = ledger.commands.record(game, ["order ann ben cat", "climate cw"]).version
    reader = Ledger(Settings(ledger.settings.database, log_cache_events=held))
    assert reader.queries.game(game, version=head).version == head
    for version in (0, -1, -3):
        with pytest.raises(UnknownGame):
            reader.queries.game(game, version=version)
    reader.close()


def test_games_survive_a_new_ledger_on_the_same_database(database: str) -> None:
    first = Ledger(Settings(database))
    game = first.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"]).game_id
    receipt = first.commands.record(game, list(ROUND_ONE_AUCTION))
    first.close()
    second = Ledger(Settings(database))
    assert second.queries.receipt(game) == receipt
    second.close()
