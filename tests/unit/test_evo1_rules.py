"""Evo 1st edition's rules, ruling by ruling, on the 12-space board of the ruling files and the stand-in kits."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evo_ledger.rules.base import RuleViolation, SetupError
from evo_ledger.rules.evo1 import board
from evo_ledger.rules.evo1.kit import Kit, parse_kit
from evo_ledger.rules.evo1.ruleset import Evo1Ruleset
from evo_ledger.rules.evo1.state import Phase, State
from evo_ledger.rules.kits import KitError, load_kit
from tests.helpers.evo1 import DEAL, TINY, lines
from tools.make_evo1_kits import KITS, KITS_DIR, make_kit, render

RULES = Evo1Ruleset()
TURN_1 = (
    DEAL
    + """
roll 1
roll 2
roll 3
roll 2
ann move A1 A2
ben move D1 D2
cat pass
ann birth B1
ben birth D1
cat birth C3
ann remove B1
roll 3
"""
)

# Under `experienced` the meteor stays put in turns 1 and 2: no meteor roll [E1-21].
EXPERIENCED_TURN_1 = TURN_1.removesuffix("roll 3\n")


def tiny_document() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(TINY.read_text())
    return document


def play(text: str, options: dict[str, Any] | None = None, kit: Kit | None = None) -> State:
    state: State = RULES.setup(kit or load_kit(str(TINY)), ["ann", "ben", "cat"], options or {})
    for line in lines(text):
        state = RULES.apply(state, RULES.parse_action(line)).state
    return state


def refusal(state: State, line: str) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        RULES.apply(state, RULES.parse_action(line))
    return caught.value


def consequences(state: State, line: str) -> dict[str, dict[str, Any]]:
    return {c.kind: dict(c.data) for c in RULES.apply(state, RULES.parse_action(line)).consequences}


def test_E1_01_a_kit_for_each_table_of_3_to_5_with_two_half_boards_and_a_star_a_player() -> None:
    for name, players in (("standin-e1-3p", 3), ("standin-e1-4p", 4), ("standin-e1-4p-alt", 4), ("standin-e1-5p", 5)):
        kit = load_kit(name)
        assert kit.stand_in and kit.players == players and len(kit.start_beaches) == players
        assert set(kit.half_of.values()) == set(kit.halves) and len(kit.halves) == 2
    assert load_kit("standin-e1-4p").halves != load_kit("standin-e1-4p-alt").halves


def test_E1_01_tables_outside_3_to_5_are_refused() -> None:
    document = tiny_document()
    document["players"] = 2
    with pytest.raises(KitError, match=r"\[E1-01\].*not 2"):
        parse_kit(document, "two")
    with pytest.raises(SetupError, match=r"\[E1-01\]"):
        RULES.setup(load_kit("standin-e1-4p"), ["ann", "ben", "cat"], {})


def test_the_stand_in_files_are_what_the_generator_writes_E1_01() -> None:
    for name in KITS:
        assert (KITS_DIR / f"{name}.json").read_text() == render(make_kit(name))


def test_E1_02_setup_10_mp_sheet_genes_hidden_cards_and_starred_beaches() -> None:
    state = play(DEAL)
    assert {name: seat.mp for name, seat in state.seats.items()} == {"ann": 10, "ben": 10, "cat": 10}
    genes = {g: state.gene("ann", g) for g in ("tail", "foot", "egg", "fur", "parasol", "horn", "mutant")}
    assert genes == {"tail": 1, "foot": 1, "egg": 1, "fur": 1, "parasol": 1, "horn": 0, "mutant": 0}
    assert state.board == {"A1": "ann", "D1": "ben", "D3": "cat"}
    public = RULES.public_state(state)
    assert public["seats"]["ann"][3] == 3 and "heat_stroke" not in json.dumps(public)
    assert RULES.seat_state(state, "ann")["seats"]["ann"][3] == ["heat_stroke", "cull_enemy", "climate_double_shift"]
    assert RULES.visible_only_to(RULES.parse_action("ann drew heat_stroke")) == "ann"
    setup = play(DEAL.replace("start ann A1 ben D1 cat D3", ""))
    assert refusal(setup, "start ann A1 ben D1 cat C1").ruling == "E1-02"
    assert refusal(setup, "start ann A1 ben D1").ruling == "E1-02"
    assert refusal(setup, "ann drew heat_stroke").ruling == "E1-23"


def test_E1_03_a_gene_the_bag_has_run_out_of_cannot_be_drawn() -> None:
    document = tiny_document()
    document["genes"]["card"] = 1
    state = play(TURN_1 + "draw card", kit=parse_kit(document, "one card gene"))
    violation = refusal(state, "draw card")
    assert violation.ruling == "E1-03" and "all have been drawn" in violation.message


def test_E1_04_each_seat_acts_in_its_turn_and_each_action_in_its_phase() -> None:
    state = play(DEAL + "roll 1\nroll 2\nroll 3\nroll 2")
    assert refusal(state, "ben move D1 D2").ruling == "E1-04"
    assert refusal(state, "ann birth A2").ruling == "E1-04"
    assert refusal(state, "ann bid 1 row1").ruling == "E1-04"


def with_genes(state: State, **genes: dict[str, int]) -> State:
    changed = state.copy()
    for name, bought in genes.items():
        seat = changed.own_seat(name)
        seat.genes = {**seat.genes, **bought}
    return changed


def test_E1_05_initiative_by_tail_then_fewer_dinosaurs_then_lowest_roll() -> None:
    state = play(TURN_1 + "draw card\ndraw horn\ndraw foot\nann bid 2 card\nben bid 1 horn\ncat bid 0 foot")
    # ann owes a card; then turn 2 begins. Dinosaurs: ann 1, ben 2, cat 1; tails equal: ann and cat roll.
    after = RULES.apply(state, RULES.parse_action("ann drew no_births")).state
    assert after.phase == Phase.INITIATIVE and after.to_roll == ("ann", "cat")
    after = play_on(after, "roll 4", "roll 2")
    assert after.order == ("cat", "ann", "ben")
    longer_tail = with_genes(state, ben={"tail": 1})
    longer_tail = RULES.apply(longer_tail, RULES.parse_action("ann drew no_births")).state
    assert longer_tail.to_roll == ("ann", "cat")
    assert play_on(longer_tail, "roll 4", "roll 2").order == ("ben", "cat", "ann")


def play_on(state: State, *actions: str) -> State:
    for line in actions:
        state = RULES.apply(state, RULES.parse_action(line)).state
    return state


def test_E1_05_equal_rolls_are_rolled_again_among_those_seats() -> None:
    state = play_on(play(DEAL), "roll 3", "roll 3", "roll 1")
    assert state.to_roll == ("ann", "ben")
    state = play_on(state, "roll 5", "roll 2")
    assert state.order == ("cat", "ben", "ann") and state.phase == Phase.CLIMATE


@pytest.mark.parametrize(("face", "position"), [(1, 5), (2, 0), (3, 1), (4, 1), (5, 1), (6, 1)])
def test_E1_06_the_climate_die_turns_the_marker_on_the_chart(face: int, position: int) -> None:
    state = play(DEAL + "roll 1\nroll 2\nroll 3")
    after = play_on(state, f"roll {face}")
    assert after.climate_position == position and after.phase == Phase.MOVEMENT


def test_E1_07_zones_ideal_hot_cold_and_deadly_from_the_marker() -> None:
    kit = load_kit("standin-e1-3p")
    by_colour = {
        colour: {kit.spaces[s].terrain: z for s, z in kit.zones[position].items()}
        for position, colour in enumerate(kit.chart)
    }
    assert by_colour["yellow"] == {"yellow": "ideal", "green": "cold", "brown": "deadly", "grey": "deadly"}
    assert by_colour["green"] == {"yellow": "hot", "green": "ideal", "brown": "cold", "grey": "deadly"}
    assert by_colour["grey"] == {"yellow": "deadly", "green": "deadly", "brown": "hot", "grey": "ideal"}


def test_E1_08_no_move_onto_or_through_an_occupied_space_and_spent_points_end_the_turn() -> None:
    state = play(DEAL + "roll 1\nroll 2\nroll 3\nroll 2")
    two_feet = with_genes(state, ann={"foot": 1})
    two_feet.movement_left = 2
    two_feet.own_board()["A2"] = "ann"
    assert refusal(two_feet, "ann move A1 A2").ruling == "E1-08"
    two_feet.own_board()["A2"] = "ben"
    assert "an attack" in refusal(two_feet, "ann move A1 A2 A3").message
    moved = play_on(state, "ann move A1 B1")
    assert moved.current_player == "ben"


def combat_state(attacker_horns: int, defender_horns: int) -> State:
    state = play(DEAL + "roll 1\nroll 2\nroll 3\nroll 2")
    state = with_genes(state, ann={"horn": attacker_horns}, ben={"horn": defender_horns})
    state.own_board()["A2"] = "ben"
    return state


@pytest.mark.parametrize(("attacker", "defender", "wins_on"), [(0, 1, 1), (0, 0, 2), (1, 0, 4), (2, 0, 5), (4, 1, 5)])
def test_E1_09_the_attacker_wins_on_the_faces_of_its_horn_difference(
    attacker: int, defender: int, wins_on: int
) -> None:
    state = play_on(combat_state(attacker, defender), "ann attack A1 A2")
    won = consequences(state, f"roll {wins_on}")["combat_resolved"]
    assert won["winner"] == "ann" and won["wins_on"] == wins_on
    lost = RULES.apply(state, RULES.parse_action(f"roll {wins_on + 1}"))
    assert [c.data["winner"] for c in lost.consequences if c.kind == "combat_resolved"] == ["ben"]
    assert lost.state.board["A1"] == "ann" and lost.state.board["A2"] == "ben"
    assert lost.state.current_player == "ben", "the lost attack spent ann's only movement point"


def test_E1_09_no_attack_at_minus_2_and_no_protection_for_a_lone_dinosaur() -> None:
    violation = refusal(combat_state(0, 2), "ann attack A1 A2")
    assert violation.ruling == "E1-09" and "-2 or worse" in violation.message
    state = play_on(combat_state(0, 0), "ann attack A1 A2", "roll 1")
    assert state.board["A2"] == "ann" and state.count_of("ben") == 1, "ben's lone dinosaur on D1 stays"


def test_E1_10_babies_go_next_to_adults_and_births_are_compulsory() -> None:
    state = play(DEAL + "roll 1\nroll 2\nroll 3\nroll 2\nann move A1 A2\nben move D1 D2\ncat pass")
    assert refusal(state, "ann birth C1").ruling == "E1-10"
    assert refusal(state, "ann pass").ruling == "E1-10"
    two_eggs = with_genes(state, ann={"egg": 1})
    two_eggs.births_left = 2
    after = play_on(two_eggs, "ann birth A1")
    violation = refusal(after, "ann birth B2" if "B2" not in board.birth_spaces(after, "ann") else "ann birth C2")
    assert violation.ruling == "E1-10", "a baby is no adult: C2 is next to none"


def test_E1_11_the_owner_chooses_only_where_some_may_stay() -> None:
    state = play(
        DEAL + "roll 1\nroll 2\nroll 3\nroll 2\nann move A1 A2\nben move D1 D2\ncat pass\nann birth B1\nben birth D1"
    )
    result = RULES.apply(state, RULES.parse_action("cat birth C3"))
    assert result.state.current_player == "ann", "ann must choose between A2 and B1"
    assert refusal(result.state, "ann remove A2 B1").ruling == "E1-11"
    after = RULES.apply(result.state, RULES.parse_action("ann remove B1"))
    perished = [c.data for c in after.consequences if c.kind == "dinosaurs_perished"]
    assert [(p["player"], p["spaces"], p["chosen"]) for p in perished] == [("ann", ["B1"], ["B1"]), ("cat", ["C3"], [])]


def test_E1_12_each_dinosaur_on_the_board_earns_1_mp() -> None:
    state = play(TURN_1.removesuffix("ann remove B1\nroll 3\n"))
    awarded = consequences(state, "ann remove B1")["mp_awarded"]
    assert awarded["awards"] == {"ann": 1, "ben": 2, "cat": 1} and awarded["totals"] == {
        "ann": 11,
        "ben": 12,
        "cat": 11,
    }


def test_E1_13_the_meteor_strikes_on_a_roll_at_most_its_number_or_at_the_end() -> None:
    before_roll = play(TURN_1.removesuffix("roll 3\n"))
    assert before_roll.meteor == 1 and before_roll.awaiting_meteor_roll
    assert consequences(before_roll, "roll 2")["meteor_rolled"]["impact"] is True
    assert consequences(before_roll, "roll 3")["meteor_rolled"]["impact"] is False
    kit = load_kit("standin-e1-3p")
    assert kit.meteor_track[9:] == (2, 3, 4, None) and kit.meteor_start == 0
    assert load_kit("standin-e1-5p").meteor_start == 2


def test_E1_14_the_impact_turn_has_no_auction_and_ends_the_game() -> None:
    state = play_on(play(TURN_1.removesuffix("roll 3\n")), "roll 1")
    assert state.phase == Phase.OVER and state.rows_due == 0
    assert RULES.outcome(state) is not None


def test_E1_15_genes_fill_the_rows_in_the_order_drawn_before_any_bid() -> None:
    state = play(TURN_1 + "draw card\ndraw horn")
    assert refusal(state, "ann bid 1 card").ruling == "E1-15"
    state = play_on(state, "draw horn")
    assert state.rows == ("card", "horn", "horn")
    violation = refusal(state, "ann bid 1 horn")
    assert violation.ruling == "E1-16" and "rows 2 and 3" in violation.message


def test_E1_16_an_outbid_seat_rebids_at_once_in_the_same_row_and_bids_have_no_cap() -> None:
    state = play(TURN_1 + "draw card\ndraw horn\ndraw foot\nann bid 2 card\nben bid 7 card")
    assert state.outbid == "ann"
    assert refusal(state, "cat bid 0 foot").ruling == "E1-16"
    state = play_on(state, "ann bid 8 card", "ben bid 9 card", "ann bid 0 foot")
    settled = consequences(state, "cat bid 0 horn")["auction_settled"]
    assert [(r["player"], r["gene"], r["bid"]) for r in settled["rows"]] == [
        ("ben", "card", 9),
        ("cat", "horn", 0),
        ("ann", "foot", 0),
    ]


def test_E1_17_a_bid_must_be_affordable_after_the_mutant_discount() -> None:
    state = with_genes(play(TURN_1 + "draw card\ndraw horn\ndraw foot"), ann={"mutant": 2})
    assert state.seats["ann"].mp == 11
    RULES.legal(state, RULES.parse_action("ann bid 13 card"))
    assert refusal(state, "ann bid 14 card").ruling == "E1-17"


def test_E1_18_and_E1_21_experienced_draws_one_gene_fewer_and_opens_one_pass() -> None:
    state = play(EXPERIENCED_TURN_1 + "draw card\ndraw horn", {"experienced": True})
    assert state.rows_due == 2 and state.meteor == 0, "the meteor does not move in turns 1 and 2"
    state = play_on(state, "ann bid 1 card", "ben bid 1 horn", "cat pass")
    assert state.turn == 1 and state.cards_due == ("ann",), "turn 2 waits for the card gene's card"


def test_E1_18_only_one_pass_and_the_passer_gets_nothing() -> None:
    state = play(EXPERIENCED_TURN_1 + "draw card\ndraw horn\nann bid 1 card\nben pass", {"experienced": True})
    assert refusal(state, "cat pass").ruling == "E1-18"
    after = RULES.apply(state, RULES.parse_action("cat bid 0 horn"))
    settled = next(c.data for c in after.consequences if c.kind == "auction_settled")
    assert settled["passed"] == ["ben"] and after.state.seats["ben"].genes == {}


def test_E1_19_mutants_bought_in_this_auction_give_no_discount_and_a_card_gene_draws_a_card() -> None:
    state = with_genes(play(TURN_1 + "draw mutant\ndraw card\ndraw foot"), ann={"mutant": 1})
    after = play_on(state, "ann bid 3 mutant", "ben bid 4 card", "cat bid 2 foot")
    assert after.seats["ann"].mp == 11 - 2 and after.seats["ben"].mp == 12 - 4 and after.seats["cat"].mp == 11 - 2
    assert after.cards_due == ("ben",) and after.seats["ann"].genes["mutant"] == 2
    assert refusal(after, "ben drew heat_stroke").ruling == "E1-23", "heat_stroke is in ann's hand"
    drawn = play_on(after, "ben drew no_births")
    assert "no_births" in drawn.seats["ben"].hand and drawn.turn == 2


def test_E1_20_most_mp_wins_then_most_dinosaurs_then_a_shared_place() -> None:
    state = play_on(play(TURN_1.removesuffix("roll 3\n")), "roll 1")
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert [(s.rank, s.player, s.score) for s in outcome.standings] == [
        (1, "ben", (12, 2)),
        (2, "ann", (11, 1)),
        (2, "cat", (11, 1)),
    ]
    assert refusal(state, "roll 3").ruling == "E1-20"


def test_E1_22_a_species_without_adults_has_no_births_unless_the_option_says_so() -> None:
    text = DEAL + "roll 1\nroll 2\nroll 3\nroll 2\nann move A1 A2\nben move D1 D2"
    for option in (False, True):
        state = play(text, {"rebirth_without_adults": option})
        del state.own_board()["A2"]
        births = play_on(state, "cat pass")
        assert (births.current_player == "ann") is option
        if option:
            assert board.birth_spaces(births, "ann") == set(births.kit.spaces) - set(births.board)
