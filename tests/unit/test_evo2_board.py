"""Evo 2nd edition on the board: movement, combat, birth, survival, MP and the end [E2-09 to E2-14]."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from evo_ledger.rules.evo2.state import Phase, State
from tests.helpers.support import (
    CAT_NEXT_TO_ANN,
    ROUND_ONE_AUCTION,
    RULES,
    first_birth_turn,
    kinds,
    last_birth_turn,
    movement,
    new_game,
    play,
    refused,
    step,
)

# The combat table of RULINGS E2-09, written out: the faces on which the attacker wins.
DIE_FACES = ("horn", "horn=", "horn+", "horn++", "x")
WINS = {
    "fewer": {"horn"},
    "as many": {"horn", "horn="},
    "one more": {"horn", "horn=", "horn+"},
    "two or more": {"horn", "horn=", "horn+", "horn++"},
}
DIFFERENCES = {-2: "fewer", -1: "fewer", 0: "as many", 1: "one more", 2: "two or more", 3: "two or more"}


@pytest.mark.parametrize("difference", sorted(DIFFERENCES))
@pytest.mark.parametrize("face", DIE_FACES)
def test_the_attacker_wins_on_the_faces_its_horn_difference_allows_E2_09(difference: int, face: str) -> None:
    state = movement(CAT_NEXT_TO_ANN)
    state.players["cat"].genes["horns"] = max(0, difference)
    state.players["ann"].genes["horns"] = max(0, -difference)
    resolved = step(play(state, "cat attack C2 C3"), f"roll {face}").consequences[0]
    assert resolved.kind == "combat_resolved"
    expected_winner = "cat" if face in WINS[DIFFERENCES[difference]] else "ann"
    assert resolved.data["winner"] == expected_winner


def test_a_losing_defender_is_removed_and_the_attacker_moves_in_E2_09() -> None:
    state = play(movement(CAT_NEXT_TO_ANN), "cat attack C2 C3", "roll horn")
    assert state.board["C3"] == "cat" and "C2" not in state.board and state.count_of("ann") == 2


def test_a_losing_attacker_stays_and_does_not_die_and_the_fight_cost_one_point_E2_09() -> None:
    state = play(movement(CAT_NEXT_TO_ANN), "cat attack C2 C3", "roll x")
    assert state.board["C2"] == "cat" and state.board["C3"] == "ann"
    assert state.current_player == "cat" and state.movement_left == 1


def test_large_horn_counts_two_when_attacking_and_bony_plates_two_when_defending_E2_09() -> None:
    state = movement(CAT_NEXT_TO_ANN)
    state.players["cat"].genes.update({"large_horn": 1, "horns": 1, "bony_plates": 1})
    state.players["ann"].genes.update({"bony_plates": 1, "large_horn": 1})
    data = step(play(state, "cat attack C2 C3"), "roll horn=").consequences[0].data
    assert (data["attack_horns"], data["defence_horns"], data["winner"]) == (3, 2, "cat")


def test_a_species_of_two_cannot_be_attacked_nor_of_three_with_regeneration_E2_09() -> None:
    state = movement({**CAT_NEXT_TO_ANN, "D3": "ben"})
    assert refused(state, "cat attack C2 C3").ruling == "E2-09"
    state = movement(CAT_NEXT_TO_ANN)
    state.players["ann"].genes["regeneration"] = 1
    assert refused(state, "cat attack C2 C3").ruling == "E2-09"


def test_the_die_is_rolled_before_any_other_action_E2_09() -> None:
    state = play(movement(CAT_NEXT_TO_ANN), "cat attack C2 C3")
    assert refused(state, "cat move B1 B2").ruling == "E2-09"
    assert refused(state, "cat pass").ruling == "E2-09"


def test_no_moving_through_or_onto_an_occupied_space_E2_10() -> None:
    state = movement(CAT_NEXT_TO_ANN)
    assert refused(state, "cat move B1 C2").ruling == "E2-10"
    assert refused(state, "cat move C2 C3").ruling == "E2-10"  # an enemy is attacked, not walked onto
    assert refused(state, "cat move B1 B2 C3").ruling == "E2-10"


def test_a_step_goes_to_an_adjacent_space_and_only_enemies_are_attacked_E2_10() -> None:
    state = movement(CAT_NEXT_TO_ANN)
    assert refused(state, "cat move B1 B3").ruling == "E2-10"
    assert refused(state, "cat attack B1 C2").ruling == "E2-10"
    assert refused(state, "cat move C3 C4").ruling == "E2-10"  # not cat's dinosaur


def test_spending_the_last_point_ends_the_turn_and_pass_ends_it_early_E2_10() -> None:
    state = play(movement(CAT_NEXT_TO_ANN), "cat move B1 B2 A1")
    assert state.current_player == "ben"
    state = play(state, "ben pass")
    assert state.current_player == "ann"


def test_births_go_in_passes_in_initiative_order_one_per_egg_E2_11() -> None:
    state = first_birth_turn()
    turns = []
    while state.phase == Phase.BIRTH:
        turns.append((state.birth_pass, state.current_player))
        state = play(state, f"{state.current_player} pass")
    assert turns == [(1, "cat"), (1, "ben"), (1, "ann"), (2, "ann")]


def test_a_newborn_goes_next_to_any_own_dinosaur_newborns_included_E2_11() -> None:
    state = play(first_birth_turn(), "cat pass", "ben pass")
    assert refused(state, "ann birth D4").ruling == "E2-11"  # next to neither B5 nor C6
    state = play(state, "ann birth C5")
    assert step(state, "ann birth D4").state.board["D4"] == "ann"  # next to the newborn on C5


def test_births_are_optional_E2_11() -> None:
    state = play(first_birth_turn(), "cat pass")
    assert step(state, "ben pass").state.current_player == "ann"


def test_with_all_8_on_the_board_a_birth_takes_one_off_to_place_it_elsewhere_E2_11() -> None:
    state = first_birth_turn()
    cats = dict.fromkeys(("B1", "C1", "B2", "A1", "A2", "B3", "B4", "B5"), "cat")
    state.board = {**cats, "C6": "ann", "D5": "ann", "G1": "ben", "G2": "ben"}
    assert refused(state, "cat birth C5").ruling == "E2-11"
    assert refused(state, "cat birth B5 from B5").ruling == "E2-11"
    assert refused(state, "cat birth C5 from G1").ruling == "E2-11"  # ben's dinosaur
    after = play(state, "cat birth C5 from A1")
    assert after.board["C5"] == "cat" and "A1" not in after.board and after.count_of("cat") == 8


# Round 1's climate: position 1, green ideal, yellow hot, brown cold, white deadly.
def test_deadly_zones_kill_down_to_the_floor_of_two_without_a_choice_when_there_is_none_E2_12() -> None:
    board = {"C2": "cat", "E2": "cat", "C3": "cat", "D3": "cat", "C5": "ann", "E5": "ann", "F2": "ben", "F4": "ben"}
    transition = step(last_birth_turn(board), "ann pass")
    perished = [c.data for c in transition.consequences if c.kind == "dinosaurs_perished"]
    assert perished == [{"round": 1, "player": "cat", "spaces": ["C3", "D3"], "chosen": False}]
    assert transition.state.phase == Phase.CLIMATE  # ben's beach pair is at the floor of 2


def test_the_owner_chooses_which_excess_dinosaurs_go_E2_12() -> None:
    board = {"C2": "cat", "E2": "cat", "C4": "cat", "D2": "cat", "D4": "cat", "C5": "ann", "E5": "ann"}
    state = last_birth_turn({**board, "G1": "ben", "G2": "ben"})
    state.players["cat"].genes["fur"] = 1
    state = play(state, "ann pass")
    assert state.phase == Phase.SURVIVAL and state.to_choose[0] == "cat"
    assert refused(state, "cat remove C2 D2").ruling == "E2-12"  # C2 is on green, ideal
    assert refused(state, "cat remove D2").ruling == "E2-12"  # fur keeps 1 of 3 in the cold: 2 must go
    assert refused(state, "ann remove C5").ruling == "E2-12"
    state = play(state, "cat remove D2 D4")
    assert sorted(state.dinosaurs_of("cat")) == ["C2", "C4", "E2"] and state.phase == Phase.CLIMATE


def test_hot_zones_keep_one_per_thermoregulation_E2_12() -> None:
    state = last_birth_turn({"C2": "ann", "B5": "ann", "C6": "ann", "D5": "ann", "G1": "ben", "G2": "ben"})
    state.players["ann"].genes["thermo"] = 2
    state = play(state, "ann pass", "ann remove D5")
    assert state.count_of("ann") == 3 and state.count_of("ben") == 2


def test_cave_dweller_keeps_one_in_a_deadly_zone_E2_12() -> None:
    state = last_birth_turn({"C2": "ann", "E2": "ann", "C3": "ann", "D3": "ann", "G1": "ben", "G2": "ben"})
    state.players["ann"].genes["cave_dweller"] = 1
    state = play(state, "ann pass", "ann remove C3")
    assert sorted(state.dinosaurs_of("ann")) == ["C2", "D3", "E2"]


def test_regeneration_at_exactly_three_ignores_the_climate_E2_12() -> None:
    state = last_birth_turn({"C3": "ann", "D3": "ann", "E4": "ann", "G1": "ben", "G2": "ben"})
    state.players["ann"].genes["regeneration"] = 1
    assert play(state, "ann pass").count_of("ann") == 3


def test_survival_choices_are_made_in_initiative_order_E2_12() -> None:
    board = {"C3": "cat", "D3": "cat", "E4": "cat", "C4": "ann", "D4": "ann", "E3": "ann", "G1": "ben", "G2": "ben"}
    state = play(last_birth_turn(board), "ann pass")
    assert state.to_choose[0] == "cat"
    assert refused(state, "ann remove C4").ruling == "E2-12"
    state = play(state, "cat remove E4", "ann remove C4")
    assert state.phase == Phase.CLIMATE


def test_each_player_gains_one_mp_per_dinosaur_on_the_board_E2_13() -> None:
    state = last_birth_turn({"C2": "cat", "E2": "cat", "C5": "cat", "F2": "ben", "F4": "ben", "E5": "ann"})
    before = {name: p.mp for name, p in state.players.items()}
    transition = step(state, "ann pass")
    assert transition.consequences[-1].data["awards"] == {"cat": 3, "ben": 2, "ann": 1}
    assert {n: p.mp - before[n] for n, p in transition.state.players.items()} == {"ann": 1, "ben": 2, "cat": 3}


def ended(mp: Mapping[str, int], board: Mapping[str, str]) -> State:
    state = play(new_game(), "order ann ben cat")
    state.round = 10
    state.board = dict(board)
    for name, points in mp.items():
        state.players[name].mp = points
    return play(state, "climate meteorite")


def test_the_meteorite_ends_the_game_at_once_most_mp_winning_E2_14() -> None:
    state = ended({"ann": 20, "ben": 25, "cat": 10}, {"A1": "ann", "G1": "ben", "C1": "cat"})
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.winners == ("ben",)
    assert [(s.rank, s.player, s.score) for s in outcome.standings] == [
        (1, "ben", (25, 1)),
        (2, "ann", (20, 1)),
        (3, "cat", (10, 1)),
    ]
    assert refused(state, "ann bid 0 card").ruling == "E2-14"


def test_ties_go_to_most_dinosaurs_then_are_shared_E2_14() -> None:
    board = {"A1": "ann", "A2": "ann", "G1": "ben", "C1": "cat", "C2": "cat"}
    outcome = RULES.outcome(ended({"ann": 20, "ben": 20, "cat": 20}, board))
    assert outcome is not None
    assert [(s.rank, s.player) for s in outcome.standings] == [(1, "ann"), (1, "cat"), (3, "ben")]
    assert outcome.winners == ("ann", "cat")


def test_the_game_goes_on_until_the_meteorite_E2_14() -> None:
    state = play(new_game(), *ROUND_ONE_AUCTION)
    assert RULES.outcome(state) is None
    assert kinds(step(state, "cat pass")) == []
