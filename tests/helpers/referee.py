"""An Autosaur game played by the ledger and refereed by the second implementation (`autosaur_reference`)."""

from __future__ import annotations

from typing import Any

from evo_ledger.app.selfplay import marked_options, player_names
from evo_ledger.rules.evo1.ruleset import Evo1Ruleset
from evo_ledger.rules.kits import load_kit
from tests.helpers.autosaur_reference import Referee


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
