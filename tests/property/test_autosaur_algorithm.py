"""Every Autosaur decision in seeded self-play (setup dinosaurs, births, survival, bids and passes) equals the one
a second implementation computes, written in the tests from AS-03 and AS-06 to AS-16 and sharing no code with the
ledger's [AS-18]; the games are played by both bots with 1 to 3 Autosaurs among 3 to 5 seats, some of them under
`experienced` (passes open) and `costly_rebid`. Fixed seeds."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.helpers.profiles import Seeds, seeded
from tests.helpers.referee import play_and_referee

GAMES = 200
SEEDS = seeded(GAMES, batches=2, quick=10, reason="a hundred whole games, each Autosaur decision computed twice")


@pytest.mark.parametrize("seeds", SEEDS)
def test_AS_06_to_AS_16_every_autosaur_decision_equals_the_second_implementations(seeds: Seeds) -> None:
    """Whole seeded games, each Autosaur decision of each computed twice, by the ledger and by the second
    implementation, enough for every kind of decision to be met, some fifty a game."""
    decisions = Counter[str]()
    for seed in seeds:
        referee = play_and_referee(seed)
        assert referee.differences == [], f"seed {seed}: {referee.differences[:3]}"
        decisions += referee.decisions
    assert set(decisions) == {"setup", "birth", "survival", "bid", "pass"} and decisions.total() > 50 * len(seeds)
