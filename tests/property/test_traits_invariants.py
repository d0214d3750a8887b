"""Invariants over seeded self-played games of the trait-card "Evo", with actions bent out of the rules at every
step: a refused action changes nothing, `apply` never changes the state it is given (states share what they have
not changed), `replay` reaches the same state, snapshots read back the same, and the trait cards and tokens add
up."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.checked_traits import play_checked
from tests.helpers.profiles import Seeds, seeded

GAMES = 120
SEEDS = seeded(GAMES, batches=3, quick=4, reason="a third of a hundred and twenty whole games, every step checked")


@pytest.mark.parametrize("seeds", SEEDS)
def test_seeded_games_keep_every_invariant_and_refuse_every_bent_action_TR_08_TR_11_TR_13(seeds: Seeds) -> None:
    """Whole games, every step checked with its bent actions, snapshots, replay and restore, enough for every kind
    of action to be played in each batch."""
    games = [play_checked(seed) for seed in seeds]
    kinds = sum((game.kinds for game in games), Counter[str]())
    assert sum(game.steps for game in games) > len(seeds) * 150
    assert {"Hunt", "Forage", "Migrate", "Journey", "TopUp", "Select", "Deal"} <= set(kinds)
