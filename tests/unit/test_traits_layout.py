"""The trait-card game's table as the viewer draws it: every location's cards and the tokens on them as the state has
them, each species' populations, decks as counts, and a hand drawn as cards only for a reader who may see it
[TR-24]."""

from __future__ import annotations

from dataclasses import asdict

from evo_ledger.rules.contract import ALL_SEATS, Board
from evo_ledger.rules.traits.layout import TraitsLayout
from evo_ledger.rules.traits.state import State, total
from tests.helpers.traits import ACTIONS, RULES, play, until


def table(state: State, seat: str | None) -> TraitsLayout:
    drawn = RULES.layout(state, seat)
    assert isinstance(drawn, TraitsLayout) and drawn.kind == "traits"
    return drawn


def test_every_location_card_and_token_of_the_state_is_on_the_table() -> None:
    for cut in (40, 120, len(ACTIONS)):
        state = play(ACTIONS[:cut])
        drawn = table(state, None)
        assert [place.id for place in drawn.places] == list(state.locations)
        for place in drawn.places:
            location = state.locations[place.id]
            assert [card.id for card in place.cards] == [*location.fauna, *location.flora]
            for card in place.cards:
                assert dict(card.tokens) == {s: n for s, n in location.tokens.get(card.id, {}).items() if n}
            for species, standing, used in place.populations:
                here = [p for p in state.species[species].populations if p.location == place.id]
                assert (standing, used) == (sum(p.standing for p in here), sum(not p.standing for p in here))


def test_a_hand_is_drawn_as_cards_for_its_seat_and_the_recorder_alone_TR_24() -> None:
    state = play(until("ann journey toughness field"))
    circle, square = state.species["circle"], state.species["square"]
    public, ann, ben, everyone = (table(state, seat) for seat in (None, "ann", "ben", ALL_SEATS))
    by_name = {board.name: board for board in public.species}
    assert by_name["circle"].hand == total(circle.hand) and by_name["circle"].hand_cards == ()
    assert {board.name: board.hand_cards for board in ann.species}["square"] == ()
    assert sorted({board.name: board.hand_cards for board in ann.species}["circle"]) == sorted(
        trait for trait, count in circle.hand.items() for _ in range(count)
    )
    assert {board.name: board.hand_cards for board in ben.species}["circle"] == ()
    assert all(len(board.hand_cards) == board.hand for board in everyone.species)
    assert {board.name: board.deck for board in public.species}["square"] == square.deck_size


def test_the_public_table_is_the_same_whatever_a_hand_holds_TR_24() -> None:
    state = play(until("ann journey toughness field"))
    other = state.copy()
    circle = other.species["circle"].copy()
    circle.hand = {"size": total(circle.hand)}
    other.species = {**other.species, "circle": circle}
    assert asdict(table(other, None)) == asdict(table(state, None))
    assert asdict(table(other, "ben")) == asdict(table(state, "ben"))
    assert asdict(table(other, "ann")) != asdict(table(state, "ann"))


def test_traits_draws_a_board_but_no_text_picture() -> None:
    assert isinstance(RULES, Board) and not hasattr(RULES, "draw")


def test_a_species_nobody_plays_shows_no_hand_to_the_public_TR_24() -> None:
    state = play(until("ann journey toughness field"))
    unplayed = state.species["circle"].copy()
    unplayed.name, unplayed.hand = "triangle", {"size": 2}
    state.species = {**state.species, "triangle": unplayed}
    boards = {board.name: board for board in table(state, None).species}
    assert boards["triangle"].player is None and boards["triangle"].hand == 2 and boards["triangle"].hand_cards == ()
    assert {board.name: board for board in table(state, ALL_SEATS).species}["triangle"].hand_cards == ("size", "size")
