"""Autosaur seats in Evo 1st edition, ruling by ruling (AS-01 to AS-18), on the 12-space board of the ruling files:
`cat` is the Autosaur; ann and ben are people."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evo_ledger.rules.base import RuleViolation, SetupError, Transition
from evo_ledger.rules.effects import Effects
from evo_ledger.rules.evo1 import autosaur, flow
from evo_ledger.rules.evo1.kit import parse_kit
from evo_ledger.rules.evo1.ruleset import Evo1Ruleset
from evo_ledger.rules.evo1.state import AUTOSAUR_ROLL, Phase, State
from evo_ledger.rules.kits import KitError, load_kit
from tests.helpers.evo1 import DEAL as RULINGS_DEAL
from tests.helpers.evo1 import TINY, lines

RULES = Evo1Ruleset()
# The people's deal of the ruling files' games; cat, an Autosaur, is dealt none [AS-04].
DEAL = "\n".join(line for line in lines(RULINGS_DEAL) if line.startswith(("ann drew", "ben drew"))) + "\n"
PEOPLE = ("ann", "ben")
# cat starts on D3; no beach is free next to it, so its second dinosaur goes on the best other neighbour [AS-03].
SETUP = DEAL + "start ann A1 ben D1 cat D3\ncat birth D2\n"
# Turn 1 up to cat's births: ann and ben roll for initiative (cat, with two dinosaurs, is last), the climate stays
# on yellow, nobody moves, ann and ben place their babies.
TO_CAT_BIRTHS = SETUP + "roll 1\nroll 2\nroll 2\nann pass\nben pass\nann birth A2\nben birth C1\n"
# cat's birth attack on ben's D1 fails, so turn 1 goes to the meteor (its roll misses) and the rows.
TO_THE_BIDS = TO_CAT_BIRTHS + "cat birth D1\nroll 6\nroll 6\ndraw horn\ndraw tail\ndraw egg\n"
# cat leaves the algorithm to outbid ann on row 1, and ann outbids it back.
OUTBID = TO_THE_BIDS + "ann bid 0 row1\nben bid 0 row2\nroll 3\ncat bid 1 row1\nann bid 2 row1"


def play(text: str, **options: Any) -> State:
    state: State = RULES.setup(load_kit(str(TINY)), ["ann", "ben", "cat"], {"autosaurs": "cat", **options})
    for line in lines(text):
        state = RULES.apply(state, RULES.parse_action(line)).state
    return state


def step(state: State, line: str) -> Transition[State]:
    return RULES.apply(state, RULES.parse_action(line))


def refusal(state: State, line: str) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        step(state, line)
    return caught.value


def legal(state: State) -> list[str]:
    return [RULES.format_action(action) for action in RULES.legal_actions(state)]


def test_AS_01_an_autosaur_is_a_seat_named_at_the_setup_that_counts_only_tails_and_horns() -> None:
    state = play(SETUP)
    assert state.autosaurs == {"cat"} and "cat" in state.seats
    assert [state.gene("cat", gene) for gene in ("tail", "horn", "foot", "egg", "fur", "parasol")] == [1, 0, 0, 0, 0, 0]
    assert state.gene("ann", "egg") == 1
    with pytest.raises(SetupError, match=r"\[AS-01\].*not rex"):
        RULES.setup(load_kit(str(TINY)), ["ann", "ben", "cat"], {"autosaurs": "rex"})


def test_AS_02_an_autosaur_starts_on_its_starred_beach_with_10_mp() -> None:
    state = play(SETUP)
    assert state.board["D3"] == "cat" and state.starts == {"cat": "D3"} and state.seats["cat"].mp == 10


def test_AS_03_the_second_dinosaur_goes_on_the_best_free_neighbour_of_the_start() -> None:
    state = play(DEAL + "start ann A1 ben D1 cat D3")
    assert state.phase == Phase.SETUP and state.placing == ("cat",)
    assert legal(state) == ["cat birth C3", "cat birth D2"]  # no beach is free next to D3
    assert refusal(state, "cat birth A3").ruling == "AS-03"
    assert step(state, "cat birth D2").warnings == ()  # green is cold on the setup's yellow, brown deadly
    [warning] = step(state, "cat birth C3").warnings
    assert warning.ruling == "AS-03" and "on D2, not on C3" in warning.message
    beach = play(DEAL + "start ann A1 ben D3 cat D1")
    assert legal(beach) == ["cat birth C1"]  # a free beach comes before any other space
    assert refusal(beach, "cat birth D2").ruling == "AS-03"
    assert play(DEAL + "start ann A1 ben D3 cat D1\ncat birth C1").phase == Phase.INITIATIVE


def test_AS_04_an_autosaur_is_dealt_no_card_and_draws_none() -> None:
    state = RULES.setup(load_kit(str(TINY)), ["ann", "ben", "cat"], {"autosaurs": "cat"})
    assert "cat" not in state.cards_due and state.cards_due.count("ann") == 3
    assert refusal(state, "cat drew peace_treaty").ruling == "AS-04"


def test_AS_04_an_autosaur_that_wins_a_card_gene_draws_no_card_for_it() -> None:
    state = play(
        TO_CAT_BIRTHS + "cat birth D1\nroll 6\nroll 6\ndraw card\ndraw tail\ndraw egg\n"
        "ann bid 0 row2\nben bid 0 row3\nroll 3\ncat bid 0 row1"
    )
    violation = refusal(state, "cat drew peace_treaty")
    assert violation.ruling == "AS-04" and "Autosaur" in violation.message
    assert refusal(state, "ann drew peace_treaty").ruling == "E1-23", "a person owed no card is refused as before"


def test_AS_05_an_autosaur_never_moves_but_takes_its_initiative_place() -> None:
    state = play(SETUP + "roll 1\nroll 2\nroll 2\nann pass")
    assert state.order == ("ann", "ben", "cat")  # all tails 1; cat has two dinosaurs, the others one
    assert refusal(state, "cat move D2 C3").ruling == "E1-04"  # it is never cat's turn to move
    after = step(state, "ben pass").state
    assert after.phase == Phase.BIRTHS  # cat's movement is skipped


def test_AS_06_births_try_the_candidates_of_the_step_and_refuse_any_other_space() -> None:
    state = play(TO_CAT_BIRTHS)
    assert (state.current_player, state.birth_step, tuple(state.step_keys)) == ("cat", "B", ("D1",))
    assert legal(state) == ["cat birth D1"]  # C3, next to both adults, is deadly on yellow
    assert refusal(state, "cat birth A3").ruling == "AS-06"
    assert refusal(state, "cat pass").ruling == "AS-06"


def test_AS_06_step_a_tries_each_space_next_to_two_adults_and_step_c_the_nearest_to_the_start() -> None:
    state = play(SETUP + "roll 1\nroll 2\nroll 3\nann pass\nben pass\nann birth A2\nben birth C1")
    assert (state.birth_step, tuple(state.step_keys), state.births_left) == ("A", ("C3",), 8)  # brown: cold on green
    after = step(state, "cat birth C3").state
    assert after.board["C3"] == "cat" and after.phase == Phase.SURVIVAL  # no fall-through to step B
    alone = state.copy()
    alone.adults = {**state.adults, "cat": ()}
    step_c, spaces = autosaur.birth_step(alone, "cat")
    assert step_c == "C" and set(spaces) == {"C3"}  # the candidates nearest D3 (D2 is its own)


def test_AS_07_candidates_are_ranked_key_by_key() -> None:
    state = play(TO_CAT_BIRTHS)
    ranking = autosaur.rank(state, "cat", ["A3", "D1", "B1"])
    assert ranking.best == ("A3",)
    assert ranking.dropped == {"D1": 1, "B1": 2}  # an enemy's space after the empty ones; green is cold on yellow
    nearer = autosaur.rank(state, "cat", ["A3", "C1"])
    assert nearer.dropped == {"C1": 1}
    assert autosaur.preference_keys(state, "cat", "A3")[2] == 3  # its distance to D3
    assert autosaur.PREFERENCES[3] == "closer to the centre of the island"


def test_AS_08_a_birth_attack_fights_with_the_autosaurs_horns_and_a_loss_fails_the_space() -> None:
    state = play(TO_CAT_BIRTHS + "cat birth D1")
    assert state.combat is not None and state.combat.birth
    lost = step(state, "roll 6")
    [combat] = [c.data for c in lost.consequences if c.kind == "combat_resolved"]
    assert (combat["attacker_horns"], combat["wins_on"], combat["winner"]) == (0, 2, "ben")  # no +1 for a birth
    assert lost.state.board["D1"] == "ben" and lost.state.phase != Phase.BIRTHS
    won = step(state, "roll 1").state
    assert won.board["D1"] == "cat"


def test_AS_09_a_space_filled_by_an_earlier_birth_is_an_enemy_space_it_may_attack() -> None:
    state = play(TO_CAT_BIRTHS)
    assert "C1" in autosaur.candidates(state, "cat")  # ben's baby of this turn
    assert autosaur.preference_keys(state, "cat", "C1")[0] == 1


def test_AS_10_survival_takes_its_dinosaurs_in_deadly_zones_then_those_left_alone() -> None:
    state = play(SETUP)
    state.board = {"A1": "ann", "D1": "ben", "D3": "cat", "C2": "cat", "A3": "cat", "A2": "cat"}
    effects = Effects()
    flow.autosaur_survival(state, "cat", effects)
    [survived] = effects.consequences
    assert survived.data["deadly"] == ["C2"]  # grey on yellow
    assert survived.data["isolated"] == ["D3"]  # its neighbour C2 is gone; A2 and A3 keep each other
    assert sorted(state.dinosaurs_of("cat")) == ["A2", "A3"]
    assert RULES.describe("autosaur_survived", survived.data).endswith("(AS-10).")


def test_AS_11_an_autosaur_pays_in_full_and_never_bids_above_its_mp() -> None:
    state = play(TO_THE_BIDS + "ann bid 0 row1\nben bid 0 row2\nroll 3")
    cat = state.own_seat("cat")
    cat.genes = {"mutant": 2}
    assert state.gene("cat", "mutant") == 0
    assert refusal(state, "cat bid 13 row3").ruling == "E1-17"  # 12 MP after turn 1


def test_AS_12_the_rows_are_the_genes_in_the_order_drawn() -> None:
    assert play(TO_THE_BIDS).rows == ("horn", "tail", "egg")


def test_AS_13_an_autosaur_rolls_then_bids_the_lowest_required_bid() -> None:
    state = play(TO_THE_BIDS + "ann bid 0 row1\nben bid 0 row2")
    assert legal(state) == [f"roll {face}" for face in range(1, 7)]  # it rolls first
    assert refusal(state, "cat bid 0 row3").ruling == "AS-13"
    rolled = step(state, "roll 3")
    [decided] = [c.data for c in rolled.consequences if c.kind == "autosaur_rolled"]
    assert (decided["row"], decided["amount"], decided["ruling"]) == (3, 0, "AS-13")
    assert step(rolled.state, "cat bid 0 row3").warnings == ()


def test_AS_14_the_roll_of_an_outbid_autosaur_is_modified_by_mp_and_cheaper_rows_alike() -> None:
    state = play(OUTBID)
    assert state.outbid == "cat" and state.lost_row == 1
    assert autosaur.modified_roll(state, "cat", 4, 1) == 4
    state.own_seat("cat").mp = 20
    assert autosaur.modified_roll(state, "cat", 4, 1) == 5  # it leads every seat
    state.own_seat("cat").mp = 2
    assert autosaur.modified_roll(state, "cat", 4, 1) == 3  # it trails every seat
    costly = play(OUTBID, costly_rebid=True)
    assert autosaur.modified_roll(costly, "cat", 4, 1) == 5  # the increase to 3 costs 3 or more


def test_AS_15_an_outbid_autosaur_increases_on_5_or_moves_to_the_best_other_row() -> None:
    state = play(OUTBID)
    assert autosaur.bid_decision(state, "cat", 5) == autosaur.BidDecision(1, 3, "AS-15", "its roll 5 is 5 or more", 5)
    moved = autosaur.bid_decision(state, "cat", 2)
    assert (moved.row, moved.amount) == (3, 0)  # row 3 needs less than row 1 and least of all
    [warning] = step(step(state, "roll 2").state, "cat bid 3 row1").warnings
    assert warning.ruling == "AS-15" and "bids 0 on row 3" in warning.message


def test_AS_16_an_autosaur_passes_where_a_pass_is_open_and_its_roll_is_below_every_required_bid() -> None:
    # Under `experienced`, 3 seats bid for 2 rows: one pass is open, and turn 1 has no meteor.
    text = TO_CAT_BIRTHS + "cat birth D1\nroll 6\ndraw horn\ndraw tail\n"
    state = play(text + "ann bid 1 row1\nben bid 1 row2", experienced=True)
    assert state.passes_open == 1 and flow.awaited_roll(state) == AUTOSAUR_ROLL
    assert autosaur.bid_decision(state, "cat", 1).ruling == "AS-16"
    assert autosaur.bid_decision(state, "cat", 2).row == 1  # 2 is not below the lowest required bid
    assert step(step(state, "roll 1").state, "cat pass").warnings == ()


def test_AS_17_a_card_gene_an_autosaur_wins_leaves_the_game_without_a_card() -> None:
    state = play(
        TO_CAT_BIRTHS + "cat birth D1\nroll 6\nroll 6\ndraw card\ndraw tail\ndraw egg\n"
        "ann bid 0 row2\nben bid 0 row3\nroll 3\ncat bid 0 row1"
    )
    assert "cat" not in state.cards_due and "card" not in state.seats["cat"].genes
    assert state.phase == Phase.INITIATIVE and state.turn == 2


def test_AS_18_a_legal_decision_that_differs_is_accepted_with_a_warning_and_an_illegal_one_refused() -> None:
    state = play(TO_THE_BIDS + "ann bid 0 row1\nben bid 0 row2\nroll 3")
    [warning] = step(state, "cat bid 1 row2").warnings
    assert warning.ruling == "AS-13" and "not a bid of 1 on row 2" in warning.message
    assert refusal(state, "cat bid 0 row1").ruling == "E1-16"  # ann holds row 1 at 0
    assert "cat, an Autosaur, rolls 3" in RULES.describe(
        "autosaur_rolled", {"player": "cat", "face": 3, "row": 3, "amount": 0, "ruling": "AS-13", "reason": "r"}
    )


def test_AS_18_the_rules_offer_each_autosaur_decision_with_what_decided_it() -> None:
    births = RULES.advice(play(TO_CAT_BIRTHS))
    assert births is not None and [RULES.format_action(a) for a in births.actions] == ["cat birth D1"]
    assert births.ruling == "AS-07" and births.reason.startswith("step B of its births; best by AS-07: D1")
    bids = play(TO_THE_BIDS + "ann bid 0 row1\nben bid 0 row2")
    assert RULES.advice(bids) is None  # its roll comes first
    rolled = RULES.advice(step(bids, "roll 3").state)
    assert rolled is not None and [RULES.format_action(a) for a in rolled.actions] == ["cat bid 0 row3"]
    assert RULES.advice(play(SETUP)) is None  # the people's turn


def test_AS_18_an_autosaurs_decision_rests_on_no_card_a_person_holds() -> None:
    """The readers offer the decision to every reader its actions would be listed for (`advice_for`): the people's
    hands, hidden from the other seats, decide none of it. Each decision is the same with ann's and ben's cards
    dealt the other way round."""
    hands = {seat: [line.split()[-1] for line in lines(DEAL) if line.startswith(f"{seat} drew")] for seat in PEOPLE}
    other_hand = dict(zip(PEOPLE, PEOPLE[::-1], strict=True))
    swapped = "".join(f"{seat} drew {card}\n" for seat in PEOPLE for card in hands[other_hand[seat]])
    placing = DEAL + "start ann A1 ben D1 cat D3\n"
    rolled = TO_THE_BIDS + "ann bid 0 row1\nben bid 0 row2\nroll 3\n"
    for text in (placing, TO_CAT_BIRTHS, rolled):
        dealt, other_way = play(text), play(text.replace(DEAL, swapped, 1))
        assert dealt.seats["ann"].hand != other_way.seats["ann"].hand
        assert RULES.advice(dealt) is not None and RULES.advice(dealt) == RULES.advice(other_way)


def test_AS_07_a_tie_left_after_the_seventh_key_is_the_recorders_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    state = play(DEAL + "start ann A1 ben D1 cat D3")
    monkeypatch.setattr(autosaur, "preference_keys", lambda *_: (0, 0, 1, 0, 0, 0, 0))  # nothing tells them apart
    reason = autosaur.ranking_reason(autosaur.rank(state, "cat", ["C3", "D2"]))
    assert reason.startswith("an open tie after key 7 between C3 and D2")
    advice = RULES.advice(state)
    assert advice is not None and [RULES.format_action(a) for a in advice.actions] == ["cat birth C3", "cat birth D2"]
    for space in ("C3", "D2"):  # either is the algorithm's: no deviation, an open tie for the audit to report
        [noted] = step(state, f"cat birth {space}").warnings
        assert (noted.ruling, noted.kind) == ("AS-03", "open tie") and f"{space} chosen" in noted.message


def test_AS_07_a_kit_may_give_the_centre_its_fourth_key_measures_from() -> None:
    document = json.loads(TINY.read_text())
    state = play(SETUP)
    assert autosaur.centre(state) == (1, 1)  # the land hex nearest the mean of the twelve
    document["center"] = [3, 1]
    moved = RULES.setup(parse_kit(document, "tiny"), ["ann", "ben", "cat"], {"autosaurs": "cat"})
    assert autosaur.centre(moved) == (3, 1)
    document["center"] = "D3"
    with pytest.raises(KitError, match=r"center: must be a hex coordinate"):
        parse_kit(document, "tiny")
