"""Evo 2nd edition: setup, the order of a round, climate, the lab and the auction [E2-01 to E2-08]."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evo_ledger.rules.evo2.state import Phase
from tests.helpers.support import ROUND_ONE_AUCTION, kinds, new_game, play, refused, step


def test_setup_puts_one_dinosaur_on_each_start_mark_of_the_seat_E2_02() -> None:
    state = new_game()
    assert state.board == {"B5": "ann", "C6": "ann", "G2": "ben", "G1": "ben", "C1": "cat", "B1": "cat"}


def test_setup_gives_6_mp_2_legs_1_egg_and_nothing_else_E2_02() -> None:
    for player in new_game().players.values():
        assert (player.mp, player.legs, player.eggs, sum(player.genes.values())) == (6, 2, 1, 0)


def test_movement_points_are_the_legs_not_two_plus_legs_E2_02() -> None:
    state = play(new_game(), *ROUND_ONE_AUCTION, "cat pass")
    assert state.current_player == "ben" and state.movement_left == 3  # 2 on the sheet + 1 legs gene
    assert refused(state, "ben move G1 F2 E2 D1 C2").ruling == "E2-02"
    state = play(state, "ben move G1 F2 E2 D1")
    assert state.current_player == "ann"


def test_a_round_runs_climate_mutations_auction_movement_birth_survival_then_mp_E2_01() -> None:
    state = play(new_game(), "order ann ben cat")
    phases = [state.phase]
    for line in (*ROUND_ONE_AUCTION[1:], "cat pass", "ben pass", "ann pass", "cat pass", "ben pass", "ann pass"):
        state = step(state, line).state
        if state.phase != phases[-1]:
            phases.append(state.phase)
    # pass 2 of births is ann's alone (she won an egg); survival and MP need no input here.
    assert phases == [Phase.CLIMATE, Phase.MUTATIONS, Phase.AUCTION, Phase.MOVEMENT, Phase.BIRTH]
    last = step(state, "ann pass")
    assert last.state.phase == Phase.CLIMATE and last.state.round == 2
    assert kinds(last)[-1] == "mp_awarded"


def test_round_one_is_bid_in_the_random_order_and_round_two_in_the_previous_initiative_E2_01() -> None:
    state = play(new_game(), "order ben cat ann", "climate cw", "draw legs", "draw eggs")
    assert refused(state, "ann bid 0 card").ruling == "E2-07"
    state = play(state, "ben bid 0 card", "cat bid 0 legs", "ann bid 0 eggs")
    assert state.order == ("ben", "cat", "ann")
    state = play(state, "ben pass", "cat pass", "ann pass", "ben pass", "cat pass", "ann pass", "ann pass")
    state = play(state, "climate cw", "draw horns", "draw fur")
    assert state.to_bid == ("ben", "cat", "ann")


def test_an_action_out_of_its_phase_is_refused_E2_01() -> None:
    state = play(new_game(), "order ann ben cat")
    assert refused(state, "ann pass").ruling == "E2-01"
    assert refused(state, "ann move B5 B4").ruling == "E2-01"
    assert refused(state, "roll horn").ruling == "E2-09"  # the die answers an attack, whatever the phase


def test_a_draw_no_kit_gene_has_is_refused_E2_03() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw")
    assert refused(state, "draw wing").ruling == "E2-03"


def test_a_draw_the_kit_makes_impossible_is_accepted_with_a_warning_E2_03() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", *["draw legs"] * 6)
    transition = step(state, "draw legs")
    assert [w.ruling for w in transition.warnings] == ["E2-03"]
    assert "no more 'legs'" in transition.warnings[0].message


def test_a_ninth_different_unique_gene_warns_E2_03() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw")
    state.genes_taken = dict.fromkeys(
        ["wings", "flippers", "thick_shell", "regeneration", "killer_babies", "sixth_sense"], 1
    )
    state = play(state, "draw cave_dweller", "draw strong_thighs")  # the lab is full: 8 unique genes seen
    state = play(state, "ann bid 0 card", "ben bid 0 cave_dweller", "cat bid 0 strong_thighs")
    state.phase, state.lab = Phase.MUTATIONS, ()
    warnings = step(state, "draw bony_plates").warnings
    assert [w.ruling for w in warnings] == ["E2-03"] and "only 8" in warnings[0].message


def test_the_meteorite_cannot_come_before_round_10_E2_04() -> None:
    state = play(new_game(), "order ann ben cat")
    assert refused(state, "climate meteorite").ruling == "E2-04"
    state.round = 9
    assert refused(state, "climate meteorite").ruling == "E2-04"
    state.round = 10
    assert step(state, "climate meteorite").state.phase == Phase.OVER


def test_round_12_must_reveal_the_meteorite_E2_04() -> None:
    state = play(new_game(), "order ann ben cat")
    state.round = 12
    assert refused(state, "climate cw").ruling == "E2-04"
    state.round = 11
    assert step(state, "climate cw").state.phase == Phase.MUTATIONS


def test_no_more_tokens_of_a_kind_than_the_composition_holds_E2_04() -> None:
    state = play(new_game(), "order ann ben cat")
    state.revealed = {"acw": 2}
    violation = refused(state, "climate acw")
    assert violation.ruling == "E2-04" and "hold 2 'acw'" in violation.message
    state.revealed = {**state.revealed, "zero": 0}
    assert step(state, "climate zero").state.climate_position == 0


@pytest.mark.parametrize(
    ("token", "position", "zones"),
    [
        ("cw", 1, {"green": "ideal", "yellow": "hot", "brown": "cold", "white": "deadly"}),
        ("cw2", 2, {"brown": "ideal", "green": "hot", "white": "cold", "yellow": "deadly"}),
        ("acw", 5, {"green": "ideal", "yellow": "hot", "brown": "cold", "white": "deadly"}),
        ("zero", 0, {"yellow": "ideal", "green": "cold", "brown": "deadly", "white": "deadly"}),
    ],
)
def test_climate_tokens_turn_the_kits_wheel_from_yellow_ideal_E2_04_E2_05(
    token: str, position: int, zones: dict[str, str]
) -> None:
    transition = step(play(new_game(), "order ann ben cat"), f"climate {token}")
    assert transition.state.climate_position == position
    changed = transition.consequences[0]
    assert changed.kind == "climate_changed" and changed.data["zones"] == zones


def test_the_wheel_is_kit_data_a_different_wheel_gives_different_zones_E2_05() -> None:
    state = play(new_game(), "order ann ben cat")
    kit = state.kit
    white_next = (
        {"yellow": "ideal", "green": "cold", "brown": "deadly", "white": "deadly"},
        {"yellow": "deadly", "green": "deadly", "brown": "hot", "white": "ideal"},
    )
    wheel = replace(kit.climate, positions=white_next)
    state.kit = replace(kit, climate=wheel)
    assert step(state, "climate cw").state.zone_of("B5") == "deadly"  # the stand-in wheel makes it hot


def test_the_lab_takes_players_minus_one_genes_and_sets_duplicates_aside_E2_06() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw legs")
    aside = step(state, "draw legs")
    assert kinds(aside) == ["gene_set_aside"] and aside.state.lab == ("legs",)
    full = step(aside.state, "draw fur")
    assert kinds(full) == ["gene_placed", "genes_returned_to_bag"]
    assert full.state.lab == ("legs", "fur") and full.state.phase == Phase.AUCTION
    assert refused(full.state, "draw eggs").ruling == "E2-06"


def test_a_bag_that_cannot_fill_the_lab_leaves_empty_columns_that_win_nothing_E2_06_E2_07() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw legs")
    transition = step(state, "draw none")
    assert [w.ruling for w in transition.warnings] == ["E2-03"]  # the kit says genes are left
    state = play(transition.state, "ann bid 0 col3", "ben bid 1 legs", "cat bid 0 card")
    assert sum(state.players["ann"].genes.values()) == 0 and state.players["ann"].event_cards == 0
    assert state.players["ben"].genes["legs"] == 1 and state.players["cat"].event_cards == 1


@pytest.mark.parametrize("amount", [0, 6])
def test_bids_run_from_0_to_6_E2_07(amount: int) -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw legs", "draw eggs")
    assert step(state, f"ann bid {amount} legs").state.markers["ann"].amount == amount
    assert refused(state, "ann bid 7 legs").ruling == "E2-07"


def test_a_bid_of_6_cannot_be_outbid_E2_07() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw legs", "draw eggs", "ann bid 6 legs")
    violation = refused(state, "ben bid 6 legs")
    assert violation.ruling == "E2-07" and "cannot be outbid" in violation.message


def test_an_outbid_player_bids_at_once_elsewhere_and_may_come_back_later_E2_07() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw legs", "draw eggs")
    state = play(state, "ann bid 1 legs")
    transition = step(state, "ben bid 2 legs")
    assert kinds(transition) == ["bid_outbid"] and transition.state.outbid == ("ann", 2)
    assert refused(transition.state, "cat bid 0 card").ruling == "E2-07"  # ann bids first, at once
    state = play(transition.state, "ann bid 1 eggs", "cat bid 2 eggs")  # ann outbid again, on eggs
    state = play(state, "ann bid 3 legs")  # ... and comes back to legs, outbidding ben
    assert state.outbid == ("ben", 2)


def test_a_bid_is_legal_only_if_its_price_is_affordable_E2_07() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw legs", "draw eggs")
    state.players["ann"].mp = 2
    assert refused(state, "ann bid 3 legs").ruling == "E2-07"
    state.players["ann"].genes["vial"] = 1
    assert step(state, "ann bid 3 legs").state.markers["ann"].amount == 3


def test_over_bidding_can_be_allowed_by_option_E2_07() -> None:
    state = play(new_game(options={"affordable_bids": False}), "order ann ben cat", "climate cw", "draw legs")
    state = play(state, "draw eggs")
    state.players["ann"].mp = 0
    assert step(state, "ann bid 5 legs").state.markers["ann"].amount == 5


def test_payment_is_the_bid_less_vials_won_in_earlier_auctions_E2_07() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw vial", "draw eggs")
    state.players["ben"].genes["vial"] = 2
    state = play(state, "ann bid 4 vial", "ben bid 3 eggs", "cat bid 1 card")
    # ann's new vial does not discount the auction she won it in; ben's two old vials do, not below 0.
    assert {name: p.mp for name, p in state.players.items()} == {"ann": 2, "ben": 5, "cat": 5}
    assert state.players["ann"].genes["vial"] == 1 and state.players["cat"].event_cards == 1


def test_initiative_follows_the_lab_columns_then_fewer_dinosaurs_first_stably_E2_08() -> None:
    state = play(new_game(), "order ann ben cat", "climate cw", "draw legs", "draw eggs")
    state.board["A1"] = "cat"  # cat has 3 dinosaurs, the others 2
    transition = step(play(state, "ann bid 0 eggs", "ben bid 0 legs"), "cat bid 0 card")
    # columns: cat (1), ben (2), ann (3); then cat, with more dinosaurs, goes after both.
    assert transition.state.order == ("ben", "ann", "cat")
    assert kinds(transition) == ["auction_settled", "initiative_set"]
