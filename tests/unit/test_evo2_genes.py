"""The 12 unique genes of Evo 2nd edition and how they combine [E2-02, E2-08 to E2-12, E2-16]."""

from __future__ import annotations

from evo_ledger.rules.evo2.state import ESCAPE, KILLER_BABY_ROLL, Phase
from tests.helpers.support import (
    CAT_NEXT_TO_ANN,
    RULES,
    first_birth_turn,
    kinds,
    movement,
    new_game,
    play,
    refused,
    step,
)


def test_wings_carry_a_dinosaur_two_spaces_over_anything_once_per_phase_for_one_point_E2_10() -> None:
    state = movement({"C1": "cat", "B1": "cat", "C2": "ann", "D2": "ann", "G1": "ben", "G2": "ben"})
    state.players["cat"].genes["wings"] = 1
    state.movement_left = 3
    after = play(state, "cat fly C1 C3")  # over ann's C2
    assert after.board["C3"] == "cat" and after.movement_left == 2
    assert refused(after, "cat fly B1 B3").ruling == "E2-10"  # once per movement phase
    assert refused(state, "cat fly C1 D1").ruling == "E2-10"  # distance 1
    assert refused(state, "cat fly C1 D3").ruling == "E2-10"  # distance 3
    assert refused(state, "cat fly C1 D2").ruling == "E2-10"  # occupied
    state.players["cat"].genes["wings"] = 0
    assert refused(state, "cat fly C1 C3").ruling == "E2-10"


def test_flippers_move_one_dinosaur_between_any_coastal_spaces_once_per_phase_E2_10() -> None:
    state = movement({"C1": "cat", "B1": "cat", "G1": "ben", "G2": "ben", "B5": "ann", "C6": "ann"})
    state.players["cat"].genes["flippers"] = 1
    after = play(state, "cat swim C1 F5")
    assert after.board["F5"] == "cat" and after.movement_left == 1
    assert refused(after, "cat swim B1 A1").ruling == "E2-10"
    assert refused(state, "cat swim C1 C3").ruling == "E2-10"  # inland


def test_strong_thighs_give_two_more_movement_points_E2_02() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw strong_thighs", "draw eggs")
    state = play(state, "ann bid 0 eggs", "ben bid 0 strong_thighs", "cat bid 0 card")
    assert state.current_player == "cat" and state.movement_left == 2
    assert play(state, "cat pass").movement_left == 4


def test_a_chameleon_escapes_next_to_its_space_but_not_to_the_attackers_E2_10() -> None:
    state = movement(CAT_NEXT_TO_ANN)
    state.players["ann"].genes["chameleon_skin"] = 1
    lost = play(state, "cat attack C2 C3", "roll horn")
    assert lost.pending is not None and lost.pending.kind == ESCAPE and lost.pending.player == "ann"
    assert refused(lost, "cat move B1 B2").ruling == "E2-10"
    assert refused(lost, "ann escape C2").ruling == "E2-10"  # the attacker's origin
    assert refused(lost, "ann escape D2").ruling == "E2-10"  # occupied
    escaped = step(lost, "ann escape B3")
    assert escaped.state.board["B3"] == "ann" and escaped.state.board["C3"] == "cat" and "C2" not in escaped.state.board
    assert escaped.state.count_of("ann") == 3 and kinds(escaped) == ["chameleon_escaped"]


def test_a_chameleon_with_nowhere_to_go_dies_E2_10() -> None:
    surrounded = {**CAT_NEXT_TO_ANN, "B2": "ben", "B3": "ben", "C4": "ben"}
    state = movement(surrounded)
    state.players["ann"].genes["chameleon_skin"] = 1
    resolved = step(play(state, "cat attack C2 C3"), "roll horn").consequences[0]
    assert resolved.data["removed"] == "C3" and resolved.data["escape_from"] is None


def test_killer_babies_kill_an_adjacent_enemy_on_horn_horn_equal_and_horn_plus_E2_11() -> None:
    for face, baby_wins in [("horn", True), ("horn=", True), ("horn+", True), ("horn++", False), ("x", False)]:
        state = first_birth_turn(CAT_NEXT_TO_ANN)
        state.players["cat"].genes["killer_babies"] = 1
        born = play(state, "cat birth C3")
        assert born.pending is not None and born.pending.kind == KILLER_BABY_ROLL
        resolved = step(born, f"roll {face}")
        assert resolved.state.board["C3"] == ("cat" if baby_wins else "ann"), face
        assert resolved.consequences[0].data["winner"] == ("cat" if baby_wins else "ann")
        assert resolved.state.current_player == "ben"  # the killer baby used cat's egg pass, won or lost


def test_killer_babies_reach_adjacent_spaces_only_even_with_thick_shell_E2_11() -> None:
    state = first_birth_turn({**CAT_NEXT_TO_ANN, "E4": "ann"})
    state.players["cat"].genes.update({"killer_babies": 1, "thick_shell": 1})
    assert refused(state, "cat birth D3").ruling == "E2-11"  # two away from C2
    assert refused(state, "cat birth G1").ruling == "E2-11"  # ben has 2: protected


def test_a_birth_onto_an_enemy_needs_killer_babies_E2_11() -> None:
    assert refused(first_birth_turn(CAT_NEXT_TO_ANN), "cat birth C3").ruling == "E2-11"


def test_chameleon_skin_does_not_save_a_dinosaur_killed_by_a_baby_E2_11() -> None:
    state = first_birth_turn(CAT_NEXT_TO_ANN)
    state.players["cat"].genes["killer_babies"] = 1
    state.players["ann"].genes["chameleon_skin"] = 1
    after = play(state, "cat birth C3", "roll horn")
    assert after.board["C3"] == "cat" and after.pending is None and after.count_of("ann") == 2


def test_regeneration_makes_a_species_of_three_no_target_for_killer_babies_E2_09_E2_11() -> None:
    state = first_birth_turn(CAT_NEXT_TO_ANN)
    state.players["cat"].genes["killer_babies"] = 1
    state.players["ann"].genes["regeneration"] = 1
    assert refused(state, "cat birth C3").ruling == "E2-11"


def test_thick_shell_places_a_newborn_up_to_three_spaces_away_E2_11() -> None:
    state = first_birth_turn()
    state.players["cat"].genes["thick_shell"] = 1
    assert play(state, "cat birth C4").board["C4"] == "cat"  # 3 from B1 and C1
    assert refused(state, "cat birth D4").ruling == "E2-11"  # 4 away


def test_adrenaline_rush_lets_its_holder_pick_any_place_after_the_sort_E2_08() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw adrenaline_rush", "draw eggs")
    state = play(state, "ann bid 0 eggs", "ben bid 0 adrenaline_rush", "cat bid 0 card")
    assert state.phase == Phase.INITIATIVE and state.order == ("cat", "ben", "ann")
    assert refused(state, "ann slot 1").ruling == "E2-08"
    assert refused(state, "ben slot 4").ruling == "E2-08"
    assert refused(state, "cat pass").ruling == "E2-01"
    after = play(state, "ben slot 1")
    assert after.order == ("ben", "cat", "ann") and after.phase == Phase.MOVEMENT and after.current_player == "ben"


def test_sixth_sense_sees_the_next_token_hidden_and_the_reveal_must_match_E2_16() -> None:
    state = play(new_game(), "order ann ben cat")
    assert refused(state, "ann peek cw").ruling == "E2-16"
    state.players["ann"].genes["sixth_sense"] = 1
    peek = RULES.parse_action("ann peek acw")
    assert RULES.visible_only_to(peek) == "ann"
    assert refused(state, "ann peek meteorite").ruling == "E2-04"  # round 1 cannot show the meteorite
    seen = play(state, "ann peek acw")
    assert refused(seen, "ann peek cw").ruling == "E2-16"
    assert refused(seen, "climate cw").ruling == "E2-16"
    assert play(seen, "climate acw").peeked is None


def test_a_peek_after_the_climate_phase_sees_next_rounds_token_E2_16() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw")
    state.players["ann"].genes["sixth_sense"] = 1
    state.round = 9
    assert play(state, "ann peek meteorite").peeked == "meteorite"  # round 10's token
