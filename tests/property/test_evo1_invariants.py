"""Invariants over seeded self-played Evo 1st edition games, event cards and all, with actions bent out of the
rules at every step: a refused action changes nothing, `apply` never changes the state it is given (states share
what they have not changed), `replay` reaches the same state, and snapshots read back the same."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.checked_evo1 import play_checked
from tests.helpers.profiles import Seeds, seeded

GAMES = 200
SEEDS = seeded(GAMES, batches=4, quick=8, reason="a quarter of two hundred whole games, every step checked")


@pytest.mark.parametrize("seeds", SEEDS)
def test_seeded_games_keep_every_invariant_and_refuse_every_bent_action_E1_08_E1_10_E1_17_E1_23(seeds: Seeds) -> None:
    """Whole games, every step checked with its bent actions, snapshots, replay and restore, enough for each batch
    to play at least 20 of the 26 event cards."""
    games = [play_checked(seed) for seed in seeds]
    steps = sum(game.steps for game in games)
    assert steps > len(seeds) * 100  # every game ran to its end
    assert len(sum((game.cards for game in games), Counter())) >= 20  # most cards are played in a batch
