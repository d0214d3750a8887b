"""The 26 event cards of Evo 1st edition, each played where its window and target allow and refused where they do
not, on the 12-space board of the ruling files with a long meteor track [E1-23 to E1-31]."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.evo1.kit import Kit, parse_kit
from evo_ledger.rules.evo1.ruleset import Evo1Ruleset
from evo_ledger.rules.evo1.state import Phase, State
from evo_ledger.rules.kits import load_kit
from tests.helpers.evo1 import DEAL
from tests.helpers.support import ROOT, steps_of

RULES = Evo1Ruleset()
KIT_FILE = ROOT / "tests" / "rulings" / "tiny-e1-3p-cards.json"
# Turns 1 and 2, with no card play: turn 3 begins with the order ann, ben, cat and the marker on brown; ann on A2,
# ben on B2 and B3, cat on C2, C3 and D2.
TURNS_1_AND_2 = (
    DEAL
    + """roll 2
roll 3
roll 1
roll 6
cat move D3 D2
ann move A1 B1
ben move D1 C2
cat birth C3
ann birth A1
ben birth B2
draw egg
draw fur
draw horn
cat bid 3 row1
ann bid 5 row2
ben bid 2 row3
roll 5
roll 3
roll 3
ben pass
cat move D2 D3
ann move B1 A2
ben birth B3
cat birth C2
cat birth D2
ann birth B1
ann remove B1
draw foot
draw foot
draw horn
ben bid 6 row2
cat bid 4 row3
ann bid 1 row1
"""
)


@cache
def kit(track: int = 12) -> Kit:
    """The board of the ruling files; a track of 4 spaces strikes in turn 3."""
    if track == 12:
        loaded: Kit = load_kit(str(KIT_FILE))
        return loaded
    document: dict[str, Any] = json.loads(KIT_FILE.read_text())
    document["meteor_track"]["spaces"] = [None] * track
    return parse_kit(document, f"track of {track}")


def turn_3(track: int = 12, **options: Any) -> State:
    state = RULES.setup(kit(track), ["ann", "ben", "cat"], options)
    return play_on(state, *TURNS_1_AND_2.split("\n"))


def play_on(state: State, *lines: str) -> State:
    for line in lines:
        if line.strip():
            state = RULES.apply(state, RULES.parse_action(line.strip())).state
    return state


def holding(state: State, **hands: tuple[str, ...] | str) -> State:
    """The state with the seats' hands replaced, as another deal would have given them."""
    changed = state.copy()
    for name, hand in hands.items():
        changed.own_seat(name).hand = (hand,) if isinstance(hand, str) else hand
    return changed


def with_board(state: State, board: dict[str, str], position: int | None = None) -> State:
    changed = state.copy()
    changed.board = dict(board)
    if position is not None:
        changed.climate_position = position
    return changed


def refusal(state: State, line: str) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        RULES.apply(state, RULES.parse_action(line))
    return caught.value


def found(state: State, line: str) -> dict[str, dict[str, Any]]:
    """The consequences of `line` by kind (the last of each)."""
    return {c.kind: dict(c.data) for c in RULES.apply(state, RULES.parse_action(line)).consequences}


def consequences(state: State, *lines: str) -> list[tuple[str, dict[str, Any]]]:
    """Every consequence of `lines`, in order."""
    seen = []
    for line in lines:
        transition = RULES.apply(state, RULES.parse_action(line))
        seen += [(c.kind, dict(c.data)) for c in transition.consequences]
        state = transition.state
    return seen


# Where each phase of turn 3 begins: the movement after the climate die stays on brown, the births after every
# seat passes its movement, the survival before its step, the auction after the meteor's step.
MOVEMENT = ("roll 2",)
BIRTHS = (*MOVEMENT, "ann pass", "ben pass", "cat pass")
SURVIVAL = (*BIRTHS, "ann birth A1", "ben birth A3", "cat birth D1", "cat birth D3")
AUCTION = (*SURVIVAL, "survival", "meteor")
BIDDING = (*AUCTION, "draw tail", "draw foot", "draw egg")


def test_E1_23_no_card_in_turns_1_and_2_and_only_a_card_held() -> None:
    state = holding(turn_3(), ann="stampede")
    assert refusal(state, "ben play stampede").ruling == "E1-23"
    early = RULES.setup(kit(), ["ann", "ben", "cat"], {})
    early = play_on(early, *TURNS_1_AND_2.split("\n")[:16])
    assert early.turn == 1 and refusal(early, "ann play heat_stroke").ruling == "E1-23"


def test_E1_26_heat_stroke_rolls_a_die_for_each_dinosaur_and_kills_at_4_or_less_with_parasols() -> None:
    state = play_on(turn_3(), "ann play heat_stroke")
    assert state.heat_rolls == ("A2", "B2", "B3", "C2", "C3", "D2")
    rolled = [data for kind, data in consequences(state, "roll 3", "roll 4") if kind == "heat_stroke_rolled"]
    assert [(d["space"], d["face"], d["parasols"], d["died"]) for d in rolled] == [
        ("A2", 3, 1, True),
        ("B2", 4, 1, False),
    ]
    state = play_on(state, "roll 3", "roll 4", "roll 1", "roll 6", "roll 5", "roll 2")
    assert state.board == {"B2": "ben", "C2": "cat", "C3": "cat"} and state.phase == Phase.CLIMATE
    assert refusal(state, "ann move A2 A1").ruling == "E1-06"  # the climate die is still to roll


def test_E1_24_heat_stroke_is_played_during_the_climate_phase_only() -> None:
    violation = refusal(play_on(turn_3(), *MOVEMENT), "ann play heat_stroke")
    assert violation.ruling == "E1-24" and "during phase 2" in violation.message


def test_E1_26_cull_enemy_takes_a_dinosaur_of_a_seat_with_5_or_more() -> None:
    state = with_board(turn_3(), {"A2": "ann", "B2": "ben", **dict.fromkeys(("C2", "C3", "D1", "D2", "D3"), "cat")})
    played = found(state, "ann play cull_enemy D3")["card_played"]
    assert played == {"turn": 3, "player": "ann", "card": "cull_enemy", "space": "D3", "owner": "cat"}
    assert "D3" not in play_on(state, "ann play cull_enemy D3").board


def test_E1_27_cull_enemy_counts_the_target_when_played_and_E1_26_takes_no_own_dinosaur() -> None:
    state = turn_3()
    violation = refusal(state, "ann play cull_enemy B2")
    assert violation.ruling == "E1-27" and "ben has 2 dinosaurs" in violation.message
    assert refusal(state, "ann play cull_enemy A2").ruling == "E1-26"
    assert refusal(state, "ann play cull_enemy").ruling == "E1-26"


def test_E1_26_climate_double_shift_moves_the_marker_two_clockwise_and_replaces_the_roll_E1_06() -> None:
    state = play_on(turn_3(), "ann play climate_double_shift")
    assert state.climate_position == 4 and state.phase == Phase.MOVEMENT
    assert refusal(state, "roll 3").ruling == "E1-06"


def test_E1_25_one_climate_card_a_turn_and_E1_24_at_the_start_of_phase_2() -> None:
    mirrored = play_on(holding(turn_3(), cat="choose_climate"), "ben play mirror_climate")
    violation = refusal(mirrored, "cat play choose_climate 3")
    assert violation.ruling == "E1-25" and "mirror_climate" in violation.message
    assert refusal(play_on(turn_3(), *MOVEMENT), "ann play climate_double_shift").ruling == "E1-24"


def test_E1_26_choose_climate_names_the_face_of_the_climate_die() -> None:
    changed = found(turn_3(), "ben play choose_climate 1")["climate_changed"]
    assert (changed["face"], changed["card"], changed["position"]) == (1, "choose_climate", 1)
    assert refusal(turn_3(), "ben play choose_climate 7").ruling == "E1-26"
    assert refusal(turn_3(), "ben play choose_climate").ruling == "E1-26"


def test_E1_26_mirror_climate_moves_to_the_other_position_of_its_colour_and_the_roll_still_comes() -> None:
    state = play_on(turn_3(), "ben play mirror_climate")
    assert state.climate_position == 4 and state.phase == Phase.CLIMATE and state.window_open
    assert play_on(state, "roll 2").climate_position == 4
    on_yellow = with_board(turn_3(), turn_3().board, position=0)
    assert found(on_yellow, "ben play mirror_climate")["card_played"]["moved"] is False


def test_E1_24_mirror_climate_comes_before_the_roll() -> None:
    assert refusal(play_on(turn_3(), *MOVEMENT), "ben play mirror_climate").ruling == "E1-24"


def test_E1_26_no_fighting_forbids_every_attack_this_turn_E1_09() -> None:
    state = play_on(turn_3(), *MOVEMENT, "ben play no_fighting")
    violation = refusal(state, "ann attack A2 B2")
    assert violation.ruling == "E1-09" and "no_fighting" in violation.message


def test_E1_24_no_fighting_comes_before_the_first_move() -> None:
    violation = refusal(play_on(turn_3(), *MOVEMENT, "ann move A2 A1"), "ben play no_fighting")
    assert violation.ruling == "E1-24" and "phase 3 has already begun" in violation.message


def test_E1_26_peace_treaty_forbids_fighting_between_its_two_seats_only() -> None:
    state = play_on(turn_3(), *MOVEMENT, "cat play peace_treaty ben", "ann pass")
    assert refusal(state, "ben attack B2 C2").ruling == "E1-09"
    RULES.legal(state, RULES.parse_action("ben attack B2 A2"))


def test_E1_26_peace_treaty_names_another_seat() -> None:
    state = play_on(turn_3(), *MOVEMENT)
    assert refusal(state, "cat play peace_treaty cat").ruling == "E1-26"
    assert refusal(state, "cat play peace_treaty dan").ruling == "E1-26"


def test_E1_26_defence_horns_add_2_when_defending_so_an_attack_at_minus_2_is_refused_E1_09() -> None:
    state = play_on(turn_3(), *MOVEMENT, "cat play defence_horns", "ann pass")
    violation = refusal(state, "ben attack B2 C2")
    assert violation.ruling == "E1-09" and "2 horns fewer" in violation.message


def test_E1_24_defence_horns_are_played_at_the_start_of_the_movement() -> None:
    assert refusal(play_on(turn_3(), *BIRTHS), "cat play defence_horns").ruling == "E1-24"


def test_E1_26_attack_horns_add_2_when_attacking_E1_09() -> None:
    state = play_on(turn_3(), *MOVEMENT, "cat play attack_horns", "ann pass", "ben pass", "cat attack C2 B2")
    combat = found(state, "roll 5")["combat_resolved"]
    assert (combat["attacker_horns"], combat["defender_horns"], combat["wins_on"]) == (3, 1, 5)
    assert (combat["attacker_genes"], combat["winner"]) == (1, "cat")


def test_E1_24_attack_horns_come_before_the_first_action_of_the_movement() -> None:
    assert refusal(play_on(turn_3(), *MOVEMENT, "ann pass"), "cat play attack_horns").ruling == "E1-24"


def test_E1_26_stampede_gives_a_movement_point_a_dinosaur_E1_08() -> None:
    state = play_on(holding(turn_3(), cat="stampede"), *MOVEMENT, "cat play stampede", "ann pass", "ben pass")
    assert state.current_player == "cat" and state.movement_left == 3
    fewer = play_on(holding(turn_3(), ann="stampede"), *MOVEMENT, "ann play stampede")
    assert fewer.movement_left == 1  # one dinosaur: fewer than its feet, it still replaces them


def test_E1_24_stampede_is_played_at_the_start_of_the_movement() -> None:
    assert refusal(holding(turn_3(), cat="stampede"), "cat play stampede").ruling == "E1-24"


def test_E1_26_distant_births_reach_3_spaces_from_an_adult_E1_10() -> None:
    state = play_on(turn_3(), *BIRTHS)
    assert refusal(state, "ann birth D1").ruling == "E1-10"
    state = play_on(holding(state, ann="distant_births"), "ann play distant_births")
    assert play_on(state, "ann birth D1").board["D1"] == "ann"  # 3 spaces from A2


def test_E1_26_distant_births_come_before_the_players_own_births_end() -> None:
    state = play_on(holding(turn_3(), ann="distant_births"), *BIRTHS, "ann birth A1")
    violation = refusal(state, "ann play distant_births")
    assert violation.ruling == "E1-26" and "births are over" in violation.message


def test_E1_28_birth_attack_fights_with_1_more_horn_at_no_movement_cost() -> None:
    state = play_on(holding(turn_3(), ben="birth_attack"), *BIRTHS, "ben play birth_attack", "ann birth A1")
    state = play_on(state, "ben birth C2")
    assert state.combat is not None and state.combat.birth
    combat = found(state, "roll 4")["combat_resolved"]
    assert (combat["attacker_horns"], combat["defender_horns"], combat["wins_on"], combat["birth"]) == (2, 1, 4, True)
    after = play_on(state, "roll 4")
    assert after.board["C2"] == "ben" and after.current_player == "cat"
    lost = play_on(state, "roll 5")
    assert lost.board["C2"] == "cat" and lost.count_of("ben") == 2 and lost.current_player == "cat"


def test_E1_09_no_birth_attack_under_no_fighting_and_none_without_the_card_E1_10() -> None:
    state = holding(turn_3(), ben=("birth_attack", "no_fighting"))
    state = play_on(state, *MOVEMENT, "ben play no_fighting", "ann pass", "ben pass", "cat pass")
    state = play_on(state, "ben play birth_attack", "ann birth A1")
    assert refusal(state, "ben birth C2").ruling == "E1-09"
    assert refusal(play_on(turn_3(), *BIRTHS, "ann birth A1"), "ben birth C2").ruling == "E1-10"


def test_E1_24_birth_attack_is_played_during_the_births() -> None:
    assert refusal(play_on(holding(turn_3(), ben="birth_attack"), *MOVEMENT), "ben play birth_attack").ruling == "E1-24"


def swap_table() -> State:
    """cat with six dinosaurs and two eggs, ben with one: the births begin."""
    board = {"A2": "ann", "B3": "ben", **dict.fromkeys(("C1", "C2", "C3", "D1", "D2", "D3"), "cat")}
    state = with_board(play_on(turn_3(), *MOVEMENT), board)
    return play_on(holding(state, ann="baby_swap", cat="baby_swap"), "ann pass", "ben pass", "cat pass")


def test_E1_30_baby_swap_puts_the_players_own_dinosaur_in_place_of_a_baby() -> None:
    state = play_on(swap_table(), "ann birth A1", "ben birth A3", "cat birth B1")
    played = found(state, "ann play baby_swap B1")["card_played"]
    assert (played["space"], played["owner"]) == ("B1", "cat")
    after = play_on(state, "ann play baby_swap B1")
    assert after.board["B1"] == "ann" and after.current_player == "cat" and after.births_left == 1
    assert after.adults["ann"] == ("A2",)  # the new dinosaur is a baby


def test_E1_30_baby_swap_takes_another_seats_baby_and_E1_27_counts_more_than_5() -> None:
    state = play_on(swap_table(), "ann birth A1", "ben birth A3", "cat birth B1")
    assert refusal(state, "cat play baby_swap B1").ruling == "E1-30"
    violation = refusal(state, "ann play baby_swap A3")
    assert violation.ruling == "E1-27" and "ben has 2" in violation.message
    assert refusal(state, "ann play baby_swap C1").ruling == "E1-30"  # an adult, not a baby


def survival_table(board: dict[str, str], position: int = 2, **hands: tuple[str, ...] | str) -> State:
    """The survival phase before its step, on `board` with the marker on `position`."""
    state = play_on(turn_3(), *SURVIVAL)
    assert state.due == "survival"
    return holding(with_board(state, board, position), **hands)


HOT_PAIRS = {"A2": "ann", "B3": "ben", "D2": "cat", "B2": "ben", "C3": "cat"}


def perished(state: State, *lines: str) -> dict[str, list[str]]:
    return {d["player"]: d["spaces"] for kind, d in consequences(state, *lines) if kind == "dinosaurs_perished"}


def test_E1_27_less_parasol_takes_a_parasol_from_every_species() -> None:
    state = survival_table(HOT_PAIRS, ann="less_parasol")
    assert perished(state, "survival") == {}
    assert perished(state, "ann play less_parasol", "survival") == {"ann": ["A2"], "ben": ["B3"], "cat": ["D2"]}


def test_E1_27_phase_5_cards_come_before_the_first_removal() -> None:
    board = {"A2": "ann", "B1": "ann", "B2": "ben", "C3": "cat"}  # ann has two in the hot zone and one parasol
    state = play_on(
        survival_table(board, cat=("less_parasol", "less_fur", "cold_survival", "heat_survival")), "survival"
    )
    assert state.phase == Phase.SURVIVAL and state.current_player == "ann"
    for card in ("less_parasol", "less_fur", "cold_survival", "heat_survival"):
        violation = refusal(state, f"cat play {card}")
        assert violation.ruling == "E1-27" and "before the first removal" in violation.message


def test_E1_27_heat_survival_lifts_the_hot_limit_of_the_players_own_dinosaurs() -> None:
    board = {"A2": "ann", "B1": "ann", "B2": "ben", "C3": "cat"}
    state = survival_table(board, ann="heat_survival")
    assert play_on(state, "survival").current_player == "ann"  # ann chooses which of two goes
    assert perished(state, "ann play heat_survival", "survival") == {}


def test_E1_27_cold_survival_lifts_the_cold_limit_but_not_the_deadly_zones() -> None:
    board = {"A2": "ann", "B2": "ben", "C3": "ben", "C2": "ben", "D2": "cat"}  # on green: brown cold, grey deadly
    state = survival_table(board, 1, ben="cold_survival")
    assert play_on(state, "survival").current_player == "ben"
    assert perished(state, "ben play cold_survival", "survival") == {"ben": ["C2"]}


def test_E1_27_less_fur_takes_a_fur_from_every_species() -> None:
    board = {"A2": "ann", "B2": "ben", "C3": "cat", "D2": "cat"}  # on green: one in the cold each for ben and cat
    state = survival_table(board, 1, ann="less_fur")
    assert perished(state, "survival") == {}
    assert perished(state, "ann play less_fur", "survival") == {"ben": ["B2"], "cat": ["C3"]}


def test_E1_12_loss_penalty_charges_every_other_seat_1_mp_a_dinosaur_lost() -> None:
    board = {"A1": "ann", "A2": "ann", "B2": "ben", "A3": "ben", "C3": "cat"}  # yellow is deadly on brown
    state = survival_table(board, cat="loss_penalty")
    lost = found(play_on(state, "cat play loss_penalty"), "survival")["mp_lost"]
    assert lost["losses"] == {"ann": 1, "ben": 1} and lost["by"] == "cat"
    before = play_on(state, "survival")
    after = play_on(state, "cat play loss_penalty", "survival")
    assert after.seats["ann"].mp == before.seats["ann"].mp - 1 and after.seats["cat"].mp == before.seats["cat"].mp


def test_E1_24_loss_penalty_is_played_during_the_survival_phase() -> None:
    assert refusal(play_on(holding(turn_3(), cat="loss_penalty"), *BIRTHS), "cat play loss_penalty").ruling == "E1-24"


def test_E1_16_outbid_plus3_makes_an_outbid_take_3_more() -> None:
    state = play_on(holding(turn_3(), ann="outbid_plus3"), *BIDDING, "ann play outbid_plus3", "ann bid 2 row1")
    violation = refusal(state, "ben bid 4 row1")
    assert violation.ruling == "E1-16" and "5 or more" in violation.message
    assert play_on(state, "ben bid 5 row1").outbid == "ann"


def test_E1_26_outbid_plus3_goes_with_the_players_own_bid() -> None:
    state = play_on(holding(turn_3(), ben="outbid_plus3"), *BIDDING)
    assert refusal(state, "ben play outbid_plus3").ruling == "E1-26"


def test_E1_18_missing_link_draws_a_gene_fewer_and_opens_a_pass() -> None:
    state = play_on(holding(turn_3(), ben="missing_link"), *AUCTION, "ben play missing_link")
    assert (state.rows_due, state.passes_open) == (2, 1)
    state = play_on(state, "draw tail", "draw foot", "ann pass")
    assert state.passed == ("ann",)


def test_E1_26_missing_link_comes_after_the_meteor_and_before_the_draw() -> None:
    state = holding(turn_3(), ben="missing_link")
    assert refusal(play_on(state, *SURVIVAL, "survival"), "ben play missing_link").ruling == "E1-26"
    assert refusal(play_on(state, *AUCTION, "draw tail"), "ben play missing_link").ruling == "E1-26"


def test_E1_17_and_E1_19_a_voucher_held_lets_a_bid_above_mp_and_pays_3_of_it() -> None:
    state = play_on(turn_3(), *BIDDING)
    mp = state.seats["ann"].mp
    assert refusal(state, f"ann bid {mp + 2} row1").ruling == "E1-17"
    state = play_on(holding(state, ann="mp_voucher_3"), f"ann bid {mp + 2} row1", "ben bid 0 row2", "cat bid 0 row3")
    assert state.paying == ("ann",)
    assert refusal(state, "cat play mp_voucher_3").ruling == "E1-23"
    settled = found(state, "ann play mp_voucher_3")["auction_settled"]
    assert settled["rows"][0] == {
        "row": 1,
        "gene": "tail",
        "player": "ann",
        "bid": mp + 2,
        "paid": mp - 1,
        "vouchers": 1,
    }


def test_E1_19_a_voucher_pays_for_a_gene_won_not_for_a_pass() -> None:
    state = holding(turn_3(), ann=("missing_link", "mp_voucher_3"))
    assert refusal(play_on(state, *SURVIVAL), "ann play mp_voucher_3").ruling == "E1-24"
    state = play_on(state, *AUCTION, "ann play missing_link", "draw tail", "draw foot", "ann pass")
    violation = refusal(state, "ann play mp_voucher_3")
    assert violation.ruling == "E1-19" and "passed" in violation.message


def test_E1_20_fossils_are_played_in_the_end_window_for_2_points_each() -> None:
    state = holding(turn_3(track=4), ann="fossil_2mp", ben="fossil_2mp")
    state = play_on(state, *AUCTION)
    assert state.phase == Phase.END and state.due == "end" and RULES.outcome(state) is None
    state = play_on(state, "ann play fossil_2mp", "end")
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome.score_labels == ("score", "dinosaurs")
    scores = {s.player: s.score[0] for s in outcome.standings}
    assert scores["ann"] == state.seats["ann"].mp + 2 and scores["ben"] == state.seats["ben"].mp


def test_E1_24_a_fossil_is_played_only_in_the_end_window_and_nothing_else_there() -> None:
    state = holding(turn_3(track=4), ann=("fossil_2mp", "stampede"), ben="fossil_2mp")
    assert refusal(play_on(state, *MOVEMENT), "ann play fossil_2mp").ruling == "E1-24"
    ended = play_on(state, *AUCTION)
    assert refusal(ended, "ann play stampede").ruling == "E1-24"
    assert refusal(play_on(ended, "ben play fossil_2mp"), "ann play fossil_2mp").ruling == "E1-25"


def test_E1_29_an_embargo_stops_every_play_until_the_next_turn_recovery_and_fossils_included() -> None:
    state = play_on(
        holding(turn_3(track=4), ann="card_embargo", ben=("recover_card", "fossil_2mp")), "ann play card_embargo"
    )
    assert refusal(state, "ben play recover_card").ruling == "E1-29"
    assert refusal(state, "ben play fossil_2mp").ruling == "E1-29"
    state = play_on(state, *(line for line in AUCTION if line not in ("survival", "meteor")))
    assert state.phase == Phase.OVER  # no end window under the embargo


def test_E1_29_a_fossil_after_an_impact_under_the_embargo_is_refused_by_the_embargo() -> None:
    state = play_on(holding(turn_3(track=4), ann="card_embargo", ben="fossil_2mp"), "ann play card_embargo")
    state = play_on(state, *(line for line in AUCTION if line not in ("survival", "meteor")))
    assert state.phase == Phase.OVER and state.impact
    violation = refusal(state, "ben play fossil_2mp")
    assert violation.ruling == "E1-29" and "end window" in violation.message
    ended = play_on(holding(turn_3(track=4), ann="fossil_2mp", ben="fossil_2mp"), *AUCTION, "end")
    assert refusal(ended, "ben play fossil_2mp").ruling == "E1-20", "after the result, with no embargo, as before"


def test_E1_29_no_embargo_that_would_strand_a_bid_only_vouchers_can_pay() -> None:
    state = play_on(holding(turn_3(), ann="mp_voucher_3", ben="card_embargo"), *BIDDING)
    state = play_on(state, f"ann bid {state.seats['ann'].mp + 2} row1")
    violation = refusal(state, "ben play card_embargo")
    assert violation.ruling == "E1-29" and "needs its vouchers" in violation.message


def test_E1_26_seize_initiative_puts_its_player_first_for_the_rest_of_the_turn() -> None:
    state = play_on(holding(turn_3(), cat="seize_initiative"), *MOVEMENT, "cat play seize_initiative")
    assert state.order == ("cat", "ann", "ben") and state.current_player == "cat"
    assert state.movement_left == state.gene("cat", "foot")


def test_E1_24_seize_initiative_comes_at_the_start_of_a_phase() -> None:
    state = play_on(holding(turn_3(), cat="seize_initiative"), *MOVEMENT, "ann pass")
    assert refusal(state, "cat play seize_initiative").ruling == "E1-24"


def test_E1_28_recover_card_takes_the_card_just_played_into_the_hand_for_the_next_turn() -> None:
    state = play_on(holding(turn_3(), cat="recover_card"), *MOVEMENT, "ben play no_fighting", "cat play recover_card")
    assert "no_fighting" in state.seats["cat"].hand and state.in_force("no_fighting") is not None
    assert refusal(state, "cat play no_fighting").ruling == "E1-28"
    returned = play_on(
        holding(turn_3(recover_returns_to_owner=True), cat="recover_card"),
        *MOVEMENT,
        "ben play no_fighting",
        "cat play recover_card",
    )
    assert "no_fighting" in returned.seats["ben"].hand and "no_fighting" not in returned.seats["cat"].hand


def test_E1_24_recover_card_answers_the_play_just_recorded_and_is_exempt_from_the_order_E1_25() -> None:
    state = play_on(holding(turn_3(), ann="recover_card"), *MOVEMENT, "cat play attack_horns")
    RULES.legal(state, RULES.parse_action("ann play recover_card"))
    violation = refusal(play_on(state, "ann pass"), "ann play recover_card")
    assert violation.ruling == "E1-24" and "very next action" in violation.message


def test_E1_25_plays_in_a_start_window_follow_the_order_in_force() -> None:
    state = play_on(holding(turn_3(), ann="stampede"), *MOVEMENT, "cat play attack_horns")
    violation = refusal(state, "ann play stampede")
    assert violation.ruling == "E1-25" and "comes before cat" in violation.message
    RULES.legal(play_on(state, "cat play defence_horns"), RULES.parse_action("cat play peace_treaty ann"))


def test_E1_26_no_births_ends_the_births_before_they_begin() -> None:
    state = play_on(holding(turn_3(), ann="no_births"), *BIRTHS, "ann play no_births")
    assert state.phase == Phase.SURVIVAL and state.board == turn_3().board


def test_E1_10_a_birth_while_no_births_is_in_force_is_refused_under_the_births_ruling_naming_the_card() -> None:
    state = play_on(holding(turn_3(), ann="no_births"), *BIRTHS, "ann play no_births")
    assert state.due == "survival"
    violation = refusal(state, "ben birth A3")
    assert violation.ruling == "E1-10" and "ann played no_births" in violation.message
    assert "forbids births this turn" in violation.message
    later = play_on(holding(turn_3(), ann="no_births", ben=(), cat=()), *BIRTHS, "ann play no_births")
    assert later.phase == Phase.EVOLUTION and refusal(later, "ben birth A3").ruling == "E1-10"


def test_E1_24_no_births_comes_before_the_first_birth() -> None:
    state = play_on(holding(turn_3(), ben="no_births"), *BIRTHS, "ann birth A1")
    assert refusal(state, "ben play no_births").ruling == "E1-24"


def test_E1_24_the_table_steps_before_survival_the_meteor_and_the_result_while_a_card_is_held() -> None:
    state = play_on(turn_3(), *SURVIVAL)
    assert refusal(state, "ann remove A1").ruling == "E1-24"
    assert refusal(state, "meteor").ruling == "E1-24"
    after = play_on(state, "survival")
    assert after.due == "meteor" and after.phase == Phase.EVOLUTION
    empty = holding(play_on(turn_3(), *BIRTHS), ann=(), ben=(), cat=())
    assert play_on(empty, "ann birth A1", "ben birth A3", "cat birth D1", "cat birth D3").due == ""


def test_E1_31_a_card_play_is_recorded_with_its_targets_as_notation_and_data() -> None:
    play = RULES.parse_action("cat play peace_treaty ben")
    assert RULES.format_action(play) == "cat play peace_treaty ben"
    assert RULES.action_from_data(RULES.action_data(play)) == play
    assert (
        RULES.fact_of(play) == "EventCardPlayed" and RULES.fact_of(RULES.parse_action("survival")) == "TableProceeded"
    )


def test_E1_23_a_held_card_is_hidden_from_other_readers_until_played() -> None:
    state = turn_3()
    assert RULES.public_state(state)["seats"]["ben"][3] == 3
    assert RULES.seat_state(state, "ann")["seats"]["ben"][3] == 3
    assert RULES.rests_on(state, RULES.parse_action("ben play no_fighting")) == "ben"
    played = play_on(state, *MOVEMENT, "ben play no_fighting")
    assert "no_fighting" in RULES.public_state(played)["discards"]


def test_E1_24_a_card_play_is_explained_by_its_window_target_effect_and_what_it_changed() -> None:
    state = with_board(turn_3(), {"A2": "ann", "B2": "ben", **dict.fromkeys(("C2", "C3", "D1", "D2", "D3"), "cat")})
    steps = steps_of(RULES, state, "ann play cull_enemy D3", "roll 2")
    explanation = RULES.explain(steps, 0)
    assert explanation is not None and explanation.kind == "card"
    assert explanation.data["window"] == "during(2)" and explanation.data["targets"] == ["D3"]
    assert explanation.data["changes"] == {"board": {"left": {"D3": "cat"}, "placed": {}}}
    text = " ".join(explanation.words)
    assert "during phase 2 [E1-24]" in text and "who had 5 on the board [E1-27]" in text
    assert "cat's dinosaur on D3 goes to its reserve" in text and "cat's dinosaur left D3" in text
    last = RULES.explain(steps_of(RULES, play_on(turn_3(), *MOVEMENT), "cat play attack_horns"), 0)
    assert last is not None and last.data["changes"]["modifiers"] == [["attack_horns", "cat", ""]]


def test_E1_09_a_combat_with_a_cards_horns_is_explained_with_them() -> None:
    state = play_on(turn_3(), *MOVEMENT, "cat play attack_horns", "ann pass", "ben pass")
    explanation = RULES.explain(steps_of(RULES, state, "cat attack C2 B2", "roll 5"), 0)
    assert explanation is not None and explanation.kind == "combat" and explanation.span == (0, 1)
    assert explanation.data["cards"] == [
        {"card": "attack_horns", "player": "cat", "to": "cat", "horns": 2, "when": "attacking"}
    ]
    assert explanation.data["difference"] == 2 and explanation.data["winning_faces"] == [1, 2, 3, 4, 5]
    assert "cat's attack_horns gave cat +2 horns attacking." in explanation.words


def test_E1_28_a_birth_attack_is_explained_as_a_combat_with_the_babys_horn() -> None:
    state = play_on(holding(turn_3(), ben="birth_attack"), *BIRTHS, "ben play birth_attack", "ann birth A1")
    explanation = RULES.explain(steps_of(RULES, state, "ben birth C2", "roll 6"), 1)
    assert explanation is not None and explanation.kind == "combat"
    assert [card["horns"] for card in explanation.data["cards"]] == [1]
    assert "cat held, and ben's baby stayed in reserve." in " ".join(explanation.words)


def test_E1_26_a_heat_stroke_is_explained_with_every_die_it_rolled() -> None:
    rolls = ("roll 3", "roll 4", "roll 1", "roll 6", "roll 5", "roll 2")
    steps = steps_of(RULES, turn_3(), "ann play heat_stroke", *rolls)
    explanation = RULES.explain(steps, 3)
    assert explanation is not None and explanation.kind == "heat stroke" and explanation.span == (0, 6)
    assert [roll["died"] for roll in explanation.data["rolls"]] == [True, False, True, False, False, True]
    assert "ann's dinosaur on A2: 3 + 1 = 4, it died." in explanation.words


def test_E1_24_the_view_names_the_step_awaited_the_cards_in_force_and_those_played() -> None:
    state = play_on(turn_3(), *MOVEMENT, "ben play no_fighting", "cat play peace_treaty ben")
    view = RULES.view(state)
    assert "cards in force this turn: no fighting (ben), peace treaty (cat with ben)" in view.table
    assert "played: no fighting, peace treaty" in view.table
    assert "the table's 'survival' step" in RULES.view(play_on(turn_3(), *SURVIVAL)).headline
    ended = play_on(holding(turn_3(track=4), ann="fossil_2mp"), *AUCTION)
    assert "the end window" in RULES.view(ended).headline
