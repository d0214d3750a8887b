"""The trait-card game "Evo", ruling by ruling [TR-01 to TR-25], on the stand-in kit and the hand-worked game."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from evo_ledger.rules.base import RuleViolation, SetupError
from evo_ledger.rules.kits import KitError
from evo_ledger.rules.traits.kit import parse_kit
from evo_ledger.rules.traits.state import Phase, State, total
from tests.helpers.support import steps_of
from tests.helpers.traits import ACTIONS, KIT, RULES, play, until
from tools.make_traits_kit import KITS_DIR, make_kit, render


def refusal(state: State, line: str) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        RULES.apply(state, RULES.parse_action(line))
    return caught.value


def refused_alike(state: State, line: str) -> RuleViolation:
    """The refusal `apply` gives, checked to be the one `legal` gives."""
    with pytest.raises(RuleViolation) as judged:
        RULES.legal(state, RULES.parse_action(line))
    violation = refusal(state, line)
    assert str(judged.value) == str(violation)
    return violation


def found(state: State, line: str) -> dict[str, dict[str, Any]]:
    return {c.kind: dict(c.data) for c in RULES.apply(state, RULES.parse_action(line)).consequences}


SETUP = until("ann active lake")
FIRST_HUNT = until("ann hunt grazer-2 size size speed")


def test_TR_01_the_stand_in_kit_has_every_component_and_is_what_the_generator_writes() -> None:
    assert (KITS_DIR / "standin-traits.json").read_text() == render(make_kit())
    assert len(KIT.traits) == 6 and KIT.trait_cards == 20 and len(KIT.locations) == 6
    assert len(KIT.fauna) == 36 and len(KIT.flora) == 18 and len(KIT.adaptations) == 60
    assert KIT.species == ("circle", "square", "triangle", "hexagon") and KIT.population == 6
    assert KIT.survival_tokens == 24 and KIT.locations["lake"] == "size" and KIT.stand_in


def test_TR_02_a_fauna_the_kit_does_not_know_has_its_face_recorded_and_checked_from_then_on() -> None:
    document = make_kit()
    document["fauna"][0]["symbols"] = None  # grazer-1's face unknown
    kit = parse_kit(document, "unknown faces")
    dealing = play(until("deal fauna lake grazer-1"), kit=kit)
    assert refusal(dealing, "deal fauna lake grazer-1").ruling == "TR-02"
    state = play([*until("deal fauna lake grazer-1"), "deal fauna lake grazer-1 size speed"], kit=kit)
    assert state.faces["grazer-1"] == ("size", "speed")
    rest = ACTIONS[len(until("deal fauna lake grazer-1")) + 1 : len(FIRST_HUNT)]
    state = play([*until("deal fauna lake grazer-1"), "deal fauna lake grazer-1 size speed", *rest], kit=kit)
    assert refusal(state, "ann hunt grazer-1 size strength").ruling == "TR-08"
    assert "hunts grazer-1" in RULES.describe("hunted", found(state, "ann hunt grazer-1 size speed")["hunted"])


def test_TR_02_a_recorded_face_that_contradicts_the_kit_is_refused() -> None:
    violation = refusal(play(until("deal fauna lake grazer-1")), "deal fauna lake grazer-1 speed speed")
    assert violation.ruling == "TR-02" and "size strength" in violation.message


def test_TR_02_the_kit_reader_names_what_is_wrong() -> None:
    document = make_kit()
    document["adaptations"][0]["effect"] = {"swap": ["speed"]}
    with pytest.raises(KitError, match=r"adaptations\[0\]\.effect\.swap"):
        parse_kit(document, "bad")
    document = make_kit()
    document["genome_targets"] = [24, 30]
    with pytest.raises(KitError, match="TR-17"):
        parse_kit(document, "bad")


def test_TR_03_two_to_four_players_each_with_a_species_of_its_own_and_points_may_go_negative() -> None:
    with pytest.raises(SetupError, match=r"\[TR-03\].*not 5"):
        RULES.setup(KIT, ["ann", "ben", "cat", "dan", "eve"], {})
    with pytest.raises(SetupError, match="not a species"):
        RULES.setup(KIT, ["ann", "circle"], {})
    state = play(["ann species circle"])
    assert refusal(state, "ben species circle").ruling == "TR-03"
    assert refusal(state, "ann species square").ruling == "TR-03"  # it is ben's turn to choose
    final = play(ACTIONS)
    assert final.points == {"ann": -11, "ben": -11}


def test_TR_04_the_setup_deals_decks_adaptations_locations_and_hands_in_order() -> None:
    state = play(SETUP)
    circle = state.species["circle"]
    assert total(circle.deck) == 6 and total(circle.hand) == 6 and circle.reserve == 3
    assert [p.location for p in circle.populations] == ["lake"] * 3 and list(circle.adaptations) == [
        "speed-for-size",
        "bountiful-size-1",
    ]
    assert state.locations["lake"].fauna == ("grazer-1", "grazer-2", "sprinter-1") and state.start == "ann"
    early = play(until("deal fauna lake grazer-1"))
    assert refusal(early, "deal flora lake tree-1").ruling == "TR-04"
    assert refusal(early, "ann draw size size size size size size").ruling == "TR-13"
    assert (
        refusal(
            play(until("ann draw size size speed strength toughness agility")), "ann draw size size size size size size"
        ).ruling
        == "TR-13"
    )


def test_TR_05_generations_pass_left_from_the_start_player_skipping_finished_players() -> None:
    state = play(FIRST_HUNT)
    assert refusal(state, "ben active field").ruling == "TR-05"
    state = play(until("ben active field", 2))
    assert state.current == "ben" and "ann" in state.finished  # ann's millennium 1 is over after her second


def test_TR_06_a_future_generation_counts_the_face_up_offspring() -> None:
    state = play(until("ann migrate strength toughness"))
    circle = state.species["circle"]
    assert total(circle.deck) == 6 and circle.offspring == ("size",) and circle.has_future()
    emptied = state.copy()
    emptied.own_species("circle").deck = {}
    assert emptied.species["circle"].has_future()  # the offspring alone
    emptied.own_species("circle").offspring = ()
    assert not emptied.species["circle"].has_future()


def test_TR_07_a_generation_begins_with_a_standing_active_population() -> None:
    state = play(SETUP)
    assert refusal(state, "ann hunt grazer-2 size size speed").ruling == "TR-07"
    assert refusal(state, "ann active field").ruling == "TR-07"
    assert {RULES.format_action(a) for a in RULES.legal_actions(state)} == {"ann active lake"}


def test_TR_08_a_hunt_pays_the_symbols_exactly_and_earns_two_tokens_and_an_offspring() -> None:
    state = play(FIRST_HUNT)
    assert refusal(state, "ann hunt grazer-2 size speed").ruling == "TR-08"
    assert refusal(state, "ann hunt grazer-2 size size speed speed").ruling == "TR-08"
    assert refusal(state, "ann hunt evader-1 endurance agility").ruling == "TR-08"  # at the field
    hunted = found(state, "ann hunt grazer-2 size size speed")["hunted"]
    assert (hunted["tokens"], hunted["offspring"]) == (2, "size")
    after = play([*FIRST_HUNT, "ann hunt grazer-2 size size speed"])
    assert after.species["circle"].future == Counter({"size": 2, "speed": 1})
    bountiful = found(play(until("ann hunt grazer-1 size strength")), "ann hunt grazer-1 size strength")["hunted"]
    assert (bountiful["tokens"], bountiful.get("bountiful")) == (3, True)


def test_TR_09_a_forage_plays_one_search_card_and_gather_cards() -> None:
    state = play(until("ann forage tree-1 size size"))
    assert found(state, "ann forage tree-1 size size")["foraged"]["gathered"] == 1  # lake and tree: both size
    assert refusal(state, "ann forage tree-1 size").ruling == "TR-09"
    state = play(until("ann forage grass-1 size speed"))
    assert found(state, "ann forage grass-1 size speed")["foraged"]["tokens"] == 1
    assert refusal(state, "ann forage grass-1 speed").ruling == "TR-09"  # no search card
    assert refusal(state, "ann forage grass-1 size size speed").ruling == "TR-09"  # two search cards


def test_TR_10_a_migration_needs_a_future_generation_and_a_random_pick_of_the_two() -> None:
    state = play(until("ann journey toughness field"))
    assert refusal(state, "ann journey size field").ruling == "TR-10"
    assert refusal(state, "ann journey toughness lake").ruling == "TR-10"
    assert refusal(state, "ann end").ruling == "TR-10"
    after = play(until("ann end"))
    assert after.species["circle"].offspring == ("size", "toughness") and after.species["circle"].lost["strength"] == 1
    no_future = play(until("ann hunt grazer-1 size strength"))
    assert refusal(no_future, "ann migrate size strength").ruling == "TR-10"


def test_TR_11_hunt_species_is_refused_as_the_source_leaves_it_undefined() -> None:
    violation = refusal(play(FIRST_HUNT), "ann hunt_species square")
    assert violation.ruling == "TR-11"
    assert str(violation) == "[TR-11] Hunt Species is not defined by the source (003:162, 'Tbd')"


def test_TR_12_adaptations_are_the_species_own_claim_their_effect_and_earn_a_token() -> None:
    state = play(until("ben forage berry-1 agility with lean-speed-1 waive speed"))
    foraged = found(state, "ben forage berry-1 agility with lean-speed-1 waive speed")["foraged"]
    assert foraged["adaptations"] == ["lean-speed-1"]
    assert refusal(state, "ben forage berry-1 agility with speed-for-size swap speed size").ruling == "TR-12"
    assert refusal(state, "ben forage berry-1 agility with lean-speed-1 waive size").ruling == "TR-12"
    unchecked = play(until("ben hunt evader-1 strength toughness with uncharted-speed-1 swap strength endurance"))
    transition = RULES.apply(
        unchecked,
        RULES.parse_action("ben hunt evader-1 strength toughness with uncharted-speed-1 swap strength endurance"),
    )
    assert [w.ruling for w in transition.warnings] == ["TR-12"]
    assert transition.state.species["square"].adaptations["uncharted-speed-1"] == 1


def test_TR_09_TR_12_a_forage_naming_an_adaptation_with_no_effect_in_the_kit_still_searches_and_gathers() -> None:
    state = play(until("ben forage berry-1 agility with lean-speed-1 waive speed"))  # square: uncharted-speed-1
    violation = refused_alike(state, "ben forage berry-1 size with uncharted-speed-1 token")
    assert str(violation) == "[TR-09] a forage at field plays speed to search and agility to gather, not size"
    assert refused_alike(state, "ben forage berry-1 agility with uncharted-speed-1 token").ruling == "TR-09"
    line = "ben forage berry-1 size agility with uncharted-speed-1 swap size speed"  # the swap claimed stands
    RULES.legal(state, RULES.parse_action(line))
    transition = RULES.apply(state, RULES.parse_action(line))
    assert [w.ruling for w in transition.warnings] == ["TR-12"]
    foraged = next(c.data for c in transition.consequences if c.kind == "foraged")
    assert (foraged["gathered"], foraged["adaptations"]) == (1, ["uncharted-speed-1"])


def test_TR_12_an_action_names_each_adaptation_once() -> None:
    state = play(until("ann hunt grazer-1 size strength with bountiful-size-2 token"))
    assert found(state, "ann hunt grazer-1 size strength with bountiful-size-2 token")["hunted"]["tokens"] == 3
    thrice = "ann hunt grazer-1 size strength" + " with bountiful-size-2 token" * 3
    violation = refused_alike(state, thrice)
    assert str(violation) == "[TR-12] bountiful-size-2 is named twice: an action uses each adaptation once"
    swapped = play(until("ben hunt evader-1 strength toughness with uncharted-speed-1 swap strength endurance"))
    twice = "ben hunt evader-1 strength toughness with uncharted-speed-1 swap strength endurance"
    assert refused_alike(swapped, f"{twice} with uncharted-speed-1 token").ruling == "TR-12"
    foraging = play(until("ben forage berry-1 agility with lean-speed-1 waive speed"))
    waived = "ben forage berry-1 agility with lean-speed-1 waive speed"
    assert refused_alike(foraging, f"{waived} with lean-speed-1 waive speed").ruling == "TR-12"


def test_TR_13_the_end_of_a_generation_loses_the_hand_and_draws_the_offspring_and_six() -> None:
    state = play(until("ann draw speed strength toughness endurance endurance agility"))
    circle = state.species["circle"]
    assert circle.hand == Counter({"size": 1, "toughness": 1}) and circle.lost == Counter({"strength": 1, "agility": 1})
    assert state.need is not None and (state.need.kind, state.need.cards) == ("draw", 6)
    assert refusal(state, "ann draw size size size size size size").ruling == "TR-13"
    assert refusal(state, "ben active field").ruling == "TR-13"


def test_TR_14_cards_above_5_plus_m_tokens_go_extinct_and_are_replaced_from_their_deck() -> None:
    state = play(until("deal fauna lake grazer-3"))
    assert "grazer-2" not in state.locations["lake"].fauna and "grazer-2" in state.discards["fauna"]
    assert refusal(state, "deal flora lake tree-2").ruling == "TR-14"
    assert refusal(state, "deal fauna lake grazer-2").ruling == "TR-14"


def test_TR_15_thriving_competitors_take_tokens_but_not_the_new_replacements() -> None:
    state = play(until("deal fauna field darter-2"))
    thriving = [
        c
        for c in RULES.apply(state, RULES.parse_action("deal fauna field darter-2")).consequences
        if c.kind == "thriving"
    ]
    assert [(c.data["location"], c.data["cards"], c.data["losses"]) for c in thriving] == [
        ("lake", ["tree-1", "grass-1"], {"circle": 2, "square": 2}),
        ("field", ["grass-2"], {"circle": 1, "square": 1}),
    ]


def test_TR_16_scoring_is_a_point_a_token_and_the_bonus() -> None:
    assert [KIT.bonus_for(n) for n in (0, 5, 6, 10, 11, 30)] == [0, 0, 3, 3, 7, 7]
    state = play(until("ben end", 2))
    scored = [c.data for c in RULES.apply(state, RULES.parse_action("ben end")).consequences if c.kind == "scored"]
    assert [(d["player"], d["tokens"], d["bonus"], d["total"]) for d in scored] == [
        ("ann", 6, 3, 9),
        ("ben", 11, 7, 18),
    ]


def test_TR_17_the_genome_target_adds_or_returns_cards_a_point_each() -> None:
    state = play(until(ACTIONS[ACTIONS.index("drop circle bountiful-size-1") - 2]))
    assert state.need is not None and (state.need.kind, state.need.cards) == ("topup", 17)
    assert refusal(state, "ann topup size").ruling == "TR-17"
    over = state.copy()
    over.own_species("circle").future = {"size": 26}
    over.needs = (over.needs[0]._replace(kind="cull", cards=2),)
    assert refusal(over, "ann cull speed speed").ruling == "TR-17"
    culled = found(over, "ann cull size size")["genome_target"]
    assert (culled["points"], culled["total"]) == (2, 11)


def test_TR_18_natural_selection_drops_the_least_used_adaptation_and_two_more_are_dealt() -> None:
    state = play(until("drop circle bountiful-size-1"))
    assert state.need is not None and state.need.candidates == ("speed-for-size", "bountiful-size-1")
    assert refusal(state, "drop circle lean-size-1").ruling == "TR-18"
    assert refusal(state, "drop square lean-speed-1").ruling == "TR-18"
    later = play(until("drop square toughness-for-speed"))
    assert "uncharted-size-1" not in later.species["circle"].adaptations  # alone with no token: dropped, no pick
    mutation = play(until("deal adaptation circle lean-size-1"))
    assert refusal(mutation, "deal adaptation circle bountiful-size-1").ruling == "TR-18"  # discarded, not in the deck


def test_TR_19_species_are_taken_fewest_points_first_with_a_population_added_and_a_free_move() -> None:
    state = play(until("ann selects square"))
    assert refusal(state, "ben selects circle").ruling == "TR-19"
    assert refusal(state, "ann selects triangle").ruling == "TR-19"
    state = play(until("ann adds field"))
    assert refusal(state, "ann adds lake").ruling == "TR-19"  # square has none at the lake yet
    state = play(until("ann draw speed speed agility endurance size strength"))
    square = state.species["square"]
    assert Counter(p.location for p in square.populations) == Counter({"field": 3, "lake": 1}) and square.reserve == 2


def test_TR_20_the_next_millennium_starts_with_the_most_points() -> None:
    state = play(until("start ben"))
    assert state.need is not None and state.need.candidates == ("ben",)
    assert refusal(state, "start ann").ruling == "TR-20"


def test_TR_21_the_game_ends_after_the_fourth_millennium_and_ties_share_the_victory() -> None:
    final = play(ACTIONS)
    outcome = RULES.outcome(final)
    assert outcome is not None and [(s.rank, s.player, s.score) for s in outcome.standings] == [
        (1, "ann", (-11,)),
        (1, "ben", (-11,)),
    ]
    assert refusal(final, "ann active lake").ruling == "TR-21"


def test_TR_22_capped_supplies_give_nothing_once_empty_and_decks_are_rebuilt_from_discards() -> None:
    state = play(FIRST_HUNT, {"finite_trait_supply": True, "token_cap": True})
    assert state.supply is not None and state.supply["size"] == 16
    state.supply = {**state.supply, "size": 0}
    hunted = found(state, "ann hunt grazer-2 size size speed")["hunted"]
    assert hunted["offspring"] is None and hunted["tokens"] == 2
    capped = play(FIRST_HUNT, {"token_cap": True})
    assert capped.tokens_left("circle") == 24
    capped.own_location("lake").tokens = {"grazer-1": {"circle": 23}}
    assert found(capped, "ann hunt grazer-2 size size speed")["hunted"]["tokens"] == 1
    emptied = play(until("deal fauna lake grazer-3"))
    emptied.out = {**emptied.out, "fauna": tuple(KIT.fauna)}
    emptied.discards = {**emptied.discards, "fauna": ("grazer-2", "darter-1")}
    rebuilt = RULES.apply(emptied, RULES.parse_action("deal fauna lake grazer-2"))
    assert [c.kind for c in rebuilt.consequences][:1] == ["deck_rebuilt"]


def test_TR_23_chance_facts_are_recorded_and_checked_against_what_remains() -> None:
    for line in (
        "ann location lake",
        "deal fauna lake grazer-1",
        "ann draw size",
        "start ann",
        "ann journey size lake",
        "ann topup size",
        "ann cull size",
        "drop circle lean-size-1",
    ):
        assert RULES.is_chance(RULES.parse_action(line)), line
    assert not RULES.is_chance(RULES.parse_action("ann hunt grazer-1 size strength"))
    state = play(until("deal fauna lake grazer-2"))
    assert refusal(state, "deal fauna lake grazer-1").ruling == "TR-04"  # already dealt


def test_TR_24_hands_journeys_and_lost_genomes_are_the_holders_alone() -> None:
    state = play(until("ann journey toughness field"))
    public = RULES.public_state(state)
    assert public["species"]["circle"]["hand"] == 1 and public["species"]["circle"]["journey"] == 2
    assert public["species"]["circle"]["deck"] == 6 and public["species"]["circle"]["future"] == {"size": 2, "speed": 1}
    assert RULES.seat_state(state, "ann")["species"]["circle"]["journey"] == ["strength", "toughness"]
    assert RULES.seat_state(state, "ben")["species"]["circle"]["hand"] == 1
    for hidden in ("ann draw size", "ann migrate strength toughness"):
        assert RULES.visible_only_to(RULES.parse_action(hidden)) == "ann"
    assert RULES.rests_on(state, RULES.parse_action("ann hunt grazer-1 size strength")) == "ann"
    swapped = play(until("ann draw speed speed agility endurance size strength"))
    assert swapped.plays == {"ann": "square"}  # ann took ben's square: the old hand is gone to the Lost Genome
    assert RULES.seat_state(swapped, "ann")["species"]["square"]["lost"] == {}


def test_TR_25_the_lost_generation_is_the_lost_genome_and_locations_are_drawn_once_each() -> None:
    state = play(until("ann end"))
    assert state.species["circle"].lost == Counter({"strength": 1})
    assert (
        refusal(play(["ann species circle", "ben species square", "ann location lake"]), "ben location lake").ruling
        == "TR-25"
    )


def test_every_action_the_ruleset_lists_is_legal_through_the_hand_worked_game() -> None:
    state: State = RULES.setup(KIT, ["ann", "ben"], {})
    for line in ACTIONS:
        for listed in list(RULES.legal_actions(state))[:40]:
            RULES.legal(state, listed)
            assert RULES.parse_action(RULES.format_action(listed)) == listed
        state = RULES.apply(state, RULES.parse_action(line)).state
    assert state.phase == Phase.OVER


def test_snapshots_read_back_the_same_state_at_every_step() -> None:
    state: State = RULES.setup(KIT, ["ann", "ben"], {})
    for line in ACTIONS:
        state = RULES.apply(state, RULES.parse_action(line)).state
        data = RULES.snapshot_state(state)
        assert RULES.snapshot_state(RULES.restore_state(KIT, json.loads(json.dumps(data)))) == data


def test_TR_16_a_millennium_s_scoring_is_explained_with_its_extinctions_and_thriving_competitors_TR_14_TR_15() -> None:
    end_of_2 = ACTIONS.index("deal fauna field darter-2")
    steps = steps_of(RULES, play(ACTIONS[:end_of_2]), ACTIONS[end_of_2])
    explanation = RULES.explain(steps, 0)
    assert explanation is not None and explanation.kind == "millennium"
    scores = {d["player"]: (d["locations"], d["tokens"], d["bonus"]) for d in explanation.data["scores"]}
    assert scores == {"ann": ({"lake": 2, "field": 7}, 9, 3), "ben": ({"field": 2}, 2, 0)}
    assert "At lake, tree-1 and grass-1 held no token, so 2 competitors thrived" in " ".join(explanation.words)
    assert "circle 2 - 2 = 0, square 4 - 2 = 2" in " ".join(explanation.words)
    extinct = RULES.explain(
        steps_of(RULES, play(until("deal fauna lake grazer-3")[:-1]), until("deal fauna lake grazer-3")[-1]), 0
    )
    assert extinct is not None and extinct.kind == "extinction"
    assert (
        extinct.data["extinct"][0]["by_species"] == {"circle": 8}
        and "more than 5 + the millennium = 7" in extinct.words[0]
    )


def test_TR_17_a_genome_top_up_is_explained_card_by_card() -> None:
    line = ACTIONS[ACTIONS.index("drop circle bountiful-size-1") - 2]
    explanation = RULES.explain(steps_of(RULES, play(until(line)), line), 0)
    assert explanation is not None and explanation.kind == "genome target"
    assert "Future Genome held 7 cards against the target of 24 for millennium 1" in explanation.words[0]
    assert "-17, -8 points" in explanation.words[0]


def test_TR_18_a_natural_selection_is_explained_with_the_pick_among_ties() -> None:
    explanation = RULES.explain(
        steps_of(RULES, play(until("drop circle bountiful-size-1")), "drop circle bountiful-size-1"), 0
    )
    assert explanation is not None and explanation.kind == "natural selection"
    assert "a random pick among speed-for-size and bountiful-size-1" in explanation.words[0]
    unique = until("drop square toughness-for-speed")[-1]  # the target whose step drops circle's one unused card
    steps = steps_of(RULES, play(until("drop square toughness-for-speed")[:-1]), unique)
    assert any(c.kind == "adaptation_dropped" for c in steps[0].consequences)
