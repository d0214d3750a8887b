"""Evo 2nd edition positions the card tests start from."""

from __future__ import annotations

from evo_ledger.rules.evo2.state import State
from tests.helpers.support import (
    CAT_NEXT_TO_ANN,
    movement,
)


def cat_holding_a_card(board: dict[str, str] = CAT_NEXT_TO_ANN) -> State:
    """Round 1's movement, cat first: cat won column 1 and holds one event card."""
    state = movement(board)
    assert state.players["cat"].event_cards == 1
    return state
