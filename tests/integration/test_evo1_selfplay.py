"""Evo 1st edition's seeded bots: a whole game for the same seed is the same bytes and checks clean; a generated
game commits to its seed, and the audit draws every chance action again (the deal, the beaches, each die face,
each gene), naming a die face edited and hashed again at its event."""

from __future__ import annotations

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import PLAYER_NAMES, play_game
from evo_ledger.game.aggregate import Game, seed_commitment
from evo_ledger.game.checker import check_game
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.evo1.selfplay import CHANCE_GENERATOR, Evo1SelfPlay
from evo_ledger.rules.kits import load_kit_document
from tests.helpers.support import selfplay_output


def selfplay(*args: str) -> str:
    return selfplay_output("--ruleset", "evo1", *args)


def test_the_same_seed_prints_the_same_game_and_it_checks_clean() -> None:
    first = selfplay("--players", "3", "--seed", "7")
    assert first == selfplay("--players", "3", "--seed", "7") != selfplay("--players", "3", "--seed", "8")
    assert "# after turn 1: " in first and first.rstrip().splitlines()[-1].startswith("result 1 ")
    report = check_game(parse_game(first))
    assert report.refused is None and report.result_mismatch is None and report.outcome is not None


@pytest.mark.parametrize(("players", "bot"), [(3, "random"), (4, "sensible"), (5, "random"), (5, "sensible")])
def test_bots_play_whole_games_for_every_table_E1_01(players: int, bot: str) -> None:
    game = play_game(players, 11, bot, "evo1")
    assert len(game.outcome.standings) == players
    report = check_game(parse_game(game.text()))
    assert report.refused is None and report.result_mismatch is None


def test_a_generated_game_passes_the_chance_check(ledger: Ledger) -> None:
    receipt = ledger.commands.generate_game(4, seed=3, ruleset="evo1")
    report = ledger.queries.audit(receipt.game_id)
    chance = report.check("chance")
    assert report.verdict == "clean" and chance["verdict"] == "pass", chance
    assert chance["detail"].endswith("drawn again from seed 3")


def test_a_die_face_edited_and_the_game_hashed_again_is_named_by_the_chance_check_at_its_event(
    ledger: Ledger,
) -> None:
    """A forger turns one climate roll into another that moves the marker the same way, records the game again
    (every action legal, every hash made anew) and reveals the seed it was generated from."""
    rules = get_ruleset("evo1")
    document, kit = load_kit_document("standin-e1-3p")
    names = PLAYER_NAMES[:3]
    actions: list[str] = []
    climate_rolls: list[int] = []
    phase = "setup"
    for action, transition in Evo1SelfPlay(rules).play(kit, names, 5, "sensible"):
        line = rules.format_action(action)
        if phase == "climate" and line in ("roll 3", "roll 4"):
            climate_rolls.append(len(actions))
        actions.append(line)
        phase = transition.state.phase
    forged_at = climate_rolls[1]
    forged = list(actions)
    forged[forged_at] = "roll 4" if actions[forged_at] == "roll 3" else "roll 3"
    commitment = seed_commitment(CHANCE_GENERATOR, "salt", 5)
    game = Game.start(rules, document, kit, [(name, None) for name in names], {}, commitment=commitment)
    game.record_all(forged)
    game.reveal_seed(CHANCE_GENERATOR, "salt", 5)
    ledger.commands.save_games([game])
    version = game.history[forged_at][0]
    report = ledger.queries.audit(game.id)
    assert report.check("rules")["verdict"] == "pass" and report.verdict == "damaged"
    assert (report.data["first_divergence"]["check"], report.data["first_divergence"]["event"]) == ("chance", version)
    assert (
        report.check("chance")["detail"]
        == f"event {version} ({forged[forged_at]!r}) is not what the revealed seed draws"
    )


def test_a_heat_stroke_die_edited_after_cards_were_played_is_named_by_the_chance_check_E1_26(ledger: Ledger) -> None:
    """In a game where the bots play cards before chance acts, a forger changes one heat stroke die to another
    face with the same verdict: every action stays legal, and the chance check names the event."""
    rules = get_ruleset("evo1")
    document, kit = load_kit_document("standin-e1-4p-alt")
    names = PLAYER_NAMES[:4]
    actions: list[str] = []
    heat: list[tuple[int, int]] = []
    for action, transition in Evo1SelfPlay(rules).play(kit, names, 39, "sensible"):
        for consequence in transition.consequences:
            if consequence.kind == "heat_stroke_rolled":
                heat.append((len(actions), consequence.data["parasols"]))
        actions.append(rules.format_action(action))
    assert heat and any(" play " in line for line in actions[: heat[0][0]])
    forged_at, parasols = heat[0]
    face = int(actions[forged_at].split()[1])
    same = [other for other in range(1, 7) if other != face and (other + parasols <= 4) == (face + parasols <= 4)]
    forged = list(actions)
    forged[forged_at] = f"roll {same[0]}"
    commitment = seed_commitment(CHANCE_GENERATOR, "salt", 39)
    game = Game.start(rules, document, kit, [(name, None) for name in names], {}, commitment=commitment)
    game.record_all(forged)
    game.reveal_seed(CHANCE_GENERATOR, "salt", 39)
    ledger.commands.save_games([game])
    report = ledger.queries.audit(game.id)
    assert report.check("rules")["verdict"] == "pass"
    assert report.data["first_divergence"] == {**report.data["first_divergence"], "check": "chance"}
    assert report.data["first_divergence"]["event"] == game.history[forged_at][0]
