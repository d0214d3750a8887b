"""The trait-card game's seeded bots: the same seed prints the same game, which checks clean; a generated game
commits to its seed, and the audit draws every random fact again [TR-23], naming one edited at its event."""

from __future__ import annotations

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import PLAYER_NAMES, play_game
from evo_ledger.game.aggregate import Game, seed_commitment
from evo_ledger.game.checker import check_game
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.kits import load_kit_document
from evo_ledger.rules.traits.selfplay import CHANCE_GENERATOR, TraitsSelfPlay
from tests.helpers.support import selfplay_output


def selfplay(*args: str) -> str:
    return selfplay_output("--ruleset", "traits", *args)


def test_the_same_seed_prints_the_same_game_and_it_checks_clean() -> None:
    first = selfplay("--players", "3", "--seed", "7")
    assert first == selfplay("--players", "3", "--seed", "7") != selfplay("--players", "3", "--seed", "8")
    assert "# after millennium 1: " in first and first.rstrip().splitlines()[-1].startswith("result 1 ")
    report = check_game(parse_game(first))
    assert report.refused is None and report.result_mismatch is None and report.outcome is not None


@pytest.mark.parametrize(("players", "bot"), [(2, "random"), (2, "sensible"), (3, "random"), (4, "sensible")])
def test_bots_play_whole_games_for_2_to_4_players_TR_03(players: int, bot: str) -> None:
    game = play_game(players, 11, bot, "traits")
    assert len(game.outcome.standings) == players
    report = check_game(parse_game(game.text()))
    assert report.refused is None and report.result_mismatch is None


def test_a_generated_game_passes_the_chance_check_TR_23(ledger: Ledger) -> None:
    receipt = ledger.commands.generate_game(3, seed=3, ruleset="traits")
    report = ledger.queries.audit(receipt.game_id)
    chance = report.check("chance")
    assert report.verdict == "clean" and chance["verdict"] == "pass", chance
    assert chance["detail"].endswith("drawn again from seed 3")


@pytest.mark.parametrize("forged_kind", ["deal fauna", "topup"])
def test_a_random_fact_edited_and_hashed_again_is_named_by_the_chance_check_TR_23(
    ledger: Ledger, forged_kind: str
) -> None:
    """A forger changes one dealt fauna (to another still in the deck) or one card of the last top-up (to another
    trait), records the game again with every action legal, and reveals the seed."""
    rules = get_ruleset("traits")
    document, kit = load_kit_document("standin-traits")
    names = PLAYER_NAMES[:2]
    actions = [rules.format_action(action) for action, _ in TraitsSelfPlay(rules).play(kit, names, 5, "sensible")]
    if forged_kind == "deal fauna":
        at = next(i for i, line in enumerate(actions) if line.startswith("deal fauna"))
        dealt = {line.split()[3] for line in actions if line.startswith("deal fauna")}
        other = next(card for card in kit.fauna if card not in dealt)
        forged_line = " ".join([*actions[at].split()[:3], other])
    else:
        at = max(i for i, line in enumerate(actions) if " topup " in line)
        words = actions[at].split()
        words[2] = "agility" if words[2] != "agility" else "size"
        forged_line = " ".join(words)
    forged = [*actions[:at], forged_line, *actions[at + 1 :]]
    commitment = seed_commitment(CHANCE_GENERATOR, "salt", 5)
    game = Game.start(rules, document, kit, [(name, None) for name in names], {}, commitment=commitment)
    game.record_all(forged)
    game.reveal_seed(CHANCE_GENERATOR, "salt", 5)
    ledger.commands.save_games([game])
    report = ledger.queries.audit(game.id)
    assert report.check("rules")["verdict"] == "pass"
    assert report.data["first_divergence"]["check"] == "chance"
    assert report.data["first_divergence"]["event"] == game.history[at][0]
