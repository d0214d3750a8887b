"""A change is made to a copy of its game, never to the game the ledger's cache holds and its readers read: a
reader in another thread holds the game as stored, whatever a change does meanwhile, and a refused change leaves
nothing of itself in any game a reader can be given."""

from __future__ import annotations

import pytest

from evo_ledger.app.ledger import Ledger, Receipt
from evo_ledger.rules.base import RuleViolation
from tests.helpers.support import ROUND_ONE_AUCTION


def started(ledger: Ledger) -> Receipt:
    receipt = ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
    return ledger.commands.record(receipt.game_id, list(ROUND_ONE_AUCTION[:3]))


def test_a_game_read_before_a_refused_batch_is_left_as_stored(ledger: Ledger) -> None:
    """The batch's legal first action was made, then its second refused: none of it reaches a game read."""
    receipt = started(ledger)
    read = ledger.queries.game(receipt.game_id)
    with pytest.raises(RuleViolation):
        ledger.commands.record(receipt.game_id, [ROUND_ONE_AUCTION[3], "ann move Z9 Z8"], receipt.version)
    assert (read.version, read.head_hash, read.pending_events) == (receipt.version, receipt.head_hash, [])
    again = ledger.queries.game(receipt.game_id)
    assert (again.version, again.head_hash, again.pending_events) == (receipt.version, receipt.head_hash, [])
    assert len(ledger.queries.game_events(receipt.game_id)) == receipt.version


def test_a_game_read_before_an_append_stays_as_it_was_and_the_next_read_gives_the_append(ledger: Ledger) -> None:
    receipt = started(ledger)
    read = ledger.queries.game(receipt.game_id)
    appended = ledger.commands.record(receipt.game_id, ROUND_ONE_AUCTION[3], receipt.version)
    assert (read.version, len(read.history)) == (receipt.version, 3)
    after = ledger.queries.game(receipt.game_id)
    assert after is not read and (after.version, after.head_hash) == (appended.version, appended.head_hash)
    assert len(after.history) == 4 and after.pending_events == []


def test_notes_in_turn_each_store_their_own_event_alone(ledger: Ledger) -> None:
    """A note made while a refused append's copy was changed stores its note and nothing of the append."""
    receipt = started(ledger)
    with pytest.raises(RuleViolation):
        ledger.commands.record(receipt.game_id, [ROUND_ONE_AUCTION[3], "ann move Z9 Z8"])
    noted = ledger.commands.annotate(receipt.game_id, 2, "ann bids first")
    assert noted.version == receipt.version + 1
    kinds = [type(event).__name__ for event in ledger.queries.game_events(receipt.game_id)]
    assert kinds[-1] == "AnnotationAdded" and len(kinds) == noted.version
