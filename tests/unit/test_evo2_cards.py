"""Event cards: hidden in hand, played with recorded facts and modifiers that legality honours [E2-15]."""

from __future__ import annotations

from dataclasses import replace

from evo_ledger.rules.evo2.state import Phase
from evo_ledger.rules.hexisland.kit import CardDefinition
from tests.helpers.evo2 import cat_holding_a_card
from tests.helpers.support import (
    CAT_NEXT_TO_ANN,
    ROUND_ONE_AUCTION,
    RULES,
    first_birth_turn,
    kinds,
    new_game,
    play,
    refused,
    step,
)


def test_the_card_winner_holds_a_card_whose_name_only_its_holder_sees_E2_15() -> None:
    state = cat_holding_a_card()
    drew = RULES.parse_action("cat drew Ambush")
    assert RULES.visible_only_to(drew) == "cat"
    named = play(state, "cat drew Ambush")
    assert named.players["cat"].named_cards == ["Ambush"]
    assert refused(named, "cat drew Storm").ruling == "E2-15"  # cat's only card is named already
    assert refused(state, "ann drew Storm").ruling == "E2-15"
    assert refused(named, "cat play Storm").ruling == "E2-15"  # cat holds Ambush, not Storm


def test_a_play_records_its_facts_removal_climate_shift_and_mp_E2_15() -> None:
    transition = step(cat_holding_a_card(), "cat play Quake remove D3, shift +1, mp ben -2")
    state = transition.state
    assert kinds(transition) == ["card_played", "dinosaur_removed", "climate_changed"]
    assert transition.consequences[0].data["checked"] is False  # the stand-in kit defines no card
    assert (
        "D3" not in state.board and state.climate_position == 2 and state.players["ben"].mp == 3
    )  # 6, less 1 for legs
    assert state.players["cat"].event_cards == 0
    assert refused(state, "cat play Quake").ruling == "E2-15"


def test_a_card_cannot_remove_from_an_empty_space_E2_15() -> None:
    assert refused(cat_holding_a_card(), "cat play Quake remove E4").ruling == "E2-15"


def test_no_attacks_holds_for_the_round_and_ends_with_it_E2_15() -> None:
    state = play(cat_holding_a_card(), "cat play Truce no_attacks for round")
    violation = refused(state, "cat attack C2 C3")
    assert violation.ruling == "E2-15" and "Truce" in violation.message
    passes = ("cat pass", "ben pass", "ann pass", "cat pass", "ben pass", "ann pass", "ann pass")
    next_round = play(state, *passes, "ann remove C3")
    assert next_round.round == 2 and next_round.modifiers == ()


def test_peace_forbids_fights_between_two_players_only_E2_15() -> None:
    board = {**CAT_NEXT_TO_ANN, "C1": "ben", "D1": "ben"}
    state = play(cat_holding_a_card(board), "cat play Pact peace ann for round")
    assert refused(state, "cat attack C2 C3").ruling == "E2-15"
    assert play(state, "cat attack C2 C1").pending is not None


def test_defence_and_attack_modifiers_change_the_horns_E2_15_E2_09() -> None:
    state = play(cat_holding_a_card(), "cat play Rage attack +2 for phase", "cat attack C2 C3")
    combat = step(state, "roll horn+").consequences[0].data
    assert (combat["attack_horns"], combat["defence_horns"], combat["winner"]) == (2, 0, "cat")


def test_a_modifier_for_the_phase_ends_with_the_phase_E2_15() -> None:
    state = play(cat_holding_a_card(), "cat play Truce no_attacks for phase")
    assert refused(state, "cat attack C2 C3").ruling == "E2-15"
    assert play(state, "cat pass", "ben pass", "ann pass").active("no_attacks") == []


def test_a_movement_card_sets_the_points_of_its_players_turns_E2_15() -> None:
    state = play(new_game(), "order cat ann ben", "climate cw", "draw legs", "draw eggs")
    state = play(state, "cat bid 0 card", "ann bid 0 eggs", "ben bid 0 legs")
    ahead = play(state.copy(), "cat pass")
    assert ahead.current_player == "ben" and ahead.movement_left == 3
    state = play(state, "cat play Sprint movement 5 for round")
    assert state.current_player == "cat" and state.movement_left == 2  # set from the next turn of its player


def test_no_births_and_birth_range_cards_E2_15_E2_11() -> None:
    state = first_birth_turn()
    state.players["cat"].event_cards = 2
    far = play(state, "cat play Nest birth_range 3 for round", "cat birth C4")
    assert far.board["C4"] == "cat"
    barren = play(state, "cat play Drought no_births for phase")
    assert refused(barren, "cat birth C2").ruling == "E2-15"


def test_cards_change_survival_for_every_species_or_save_one_E2_15_E2_12() -> None:
    board = {"C2": "cat", "E2": "cat", "D2": "cat", "C4": "cat", "G1": "ben", "G2": "ben", "B5": "ann", "C6": "ann"}
    state = play(first_birth_turn(board), "cat pass", "ben pass", "ann pass")
    state.players["cat"].genes["fur"] = 1
    state.players["cat"].event_cards = 1
    frozen = play(state, "cat play Frost fur -1 for round", "ann pass")
    assert frozen.count_of("cat") == 2  # no fur left: both brown dinosaurs die, forced
    saved = play(state, "cat play Coat survive_cold for round", "ann pass")
    assert saved.count_of("cat") == 4


def test_an_override_lets_a_card_bend_a_rule_and_says_so_E2_15() -> None:
    state = first_birth_turn()
    state.players["cat"].event_cards = 1
    assert refused(state, "cat birth C4 override Nest").ruling == "E2-15"  # Nest not played
    state = play(state, "cat play Nest")
    transition = step(state, "cat birth C4 override Nest")
    assert transition.state.board["C4"] == "cat"
    assert transition.consequences[0].kind == "rule_overridden"
    assert transition.consequences[0].data == {"round": 1, "player": "cat", "card": "Nest", "action": "cat birth C4"}
    assert refused(state, "cat birth C2 override Nest").ruling == "E2-15"  # legal without it
    assert refused(state, "cat birth G1 override Nest").ruling == "E2-11"  # the board itself is never bent
    assert "has not played Nest" in refused(state, "ben birth F2 override Nest").message


def test_an_override_can_attack_a_protected_species_E2_15_E2_09() -> None:
    state = cat_holding_a_card({**CAT_NEXT_TO_ANN, "D3": "ben"})
    assert refused(state, "cat attack C2 C3").ruling == "E2-09"
    state = play(state, "cat play Fury", "cat attack C2 C3 override Fury")
    assert state.pending is not None


def test_the_kits_catalogue_checks_a_defined_card_E2_15() -> None:
    state = cat_holding_a_card()
    state.kit = replace(state.kit, cards={"Truce": CardDefinition(("movement",), ("no_attacks",))})
    assert refused(state, "cat play Truce remove D3").ruling == "E2-15"
    checked = step(state, "cat play Truce no_attacks for round")
    assert checked.consequences[0].data["checked"] is True
    early = play(new_game(), *ROUND_ONE_AUCTION[:3])
    early.players["cat"].event_cards = 1
    early.kit = state.kit
    assert early.phase == Phase.MUTATIONS
    assert refused(early, "cat play Truce no_attacks for round").ruling == "E2-15"
