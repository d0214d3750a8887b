"""Every Autosaur decision in seeded self-play (setup dinosaurs, births, survival, bids and passes) equals the one
a second implementation computes, written in the tests from AS-03 and AS-06 to AS-16 and sharing no code with the
ledger's [AS-18]; the games are played by both bots with 1 to 3 Autosaurs among 3 to 5 seats, some of them under
`experienced` (passes open) and `costly_rebid`. Fixed seeds."""

from __future__ import annotations

from collections import Counter
from typing import Any

from evo_ledger.app.selfplay import marked_options, player_names
from evo_ledger.rules.evo1.ruleset import Evo1Ruleset
from evo_ledger.rules.kits import load_kit
from tests.autosaur_reference import Referee

GAMES = 200


def play_and_referee(seed: int) -> Referee:
    """One seeded game, every Autosaur decision computed again."""
    rules = Evo1Ruleset()
    players = 3 + seed % 3
    names = player_names(players)
    options: dict[str, Any] = marked_options(names, {"autosaurs": 1 + seed % min(3, players)})
    if seed % 4 == 1:
        options["experienced"] = True
    if seed % 5 == 2:
        options["costly_rebid"] = True
    bots = rules.self_play()
    assert bots is not None
    kit = load_kit(bots.default_kit(players))
    referee = Referee(frozenset(str(options["autosaurs"]).split()))
    before = rules.setup(kit, names, options)
    bot = "random" if seed % 2 else "sensible"
    for action, transition in bots.play(kit, names, seed, bot, options):
        referee.follow(before, action, transition.state, transition.consequences)
        before = transition.state
    return referee


def test_AS_06_to_AS_16_every_autosaur_decision_equals_the_second_implementations() -> None:
    """Long by design: two hundred whole seeded games, each Autosaur decision of each computed twice, by the
    ledger and by the second implementation, enough for every kind of decision to be met, over ten thousand in all."""
    decisions = Counter[str]()
    for seed in range(GAMES):
        referee = play_and_referee(seed)
        assert referee.differences == [], f"seed {seed}: {referee.differences[:3]}"
        decisions += referee.decisions
    assert set(decisions) == {"setup", "birth", "survival", "bid", "pass"} and decisions.total() > 10_000
