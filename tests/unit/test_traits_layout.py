"""The trait-card game's table as the pages draw it, a board as data: every location's cards and the tokens on them
as the state has them, each species' populations, decks as counts, and a hand drawn as cards only for a reader who
may see it [TR-24]."""

from __future__ import annotations

from dataclasses import asdict

from evo_ledger.rules.boards import BoardLayout, Line, Panel
from evo_ledger.rules.contract import ALL_SEATS, Board
from evo_ledger.rules.traits.state import State, total
from tests.helpers.traits import ACTIONS, RULES, play, until


def table(state: State, seat: str | None) -> BoardLayout:
    drawn = RULES.layout(state, seat)
    assert isinstance(drawn, BoardLayout) and drawn.says_all and not drawn.spaces
    assert [group.name for group in drawn.groups] == ["locations", "species"]
    return drawn


def panels(drawn: BoardLayout, group: str) -> dict[str, Panel]:
    """The group's panels by their heading."""
    return {panel.title: panel for found in drawn.groups if found.name == group for panel in found.panels}


def line(panel: Panel, tag: str) -> Line | None:
    return next((found for found in panel.lines if tag in found.tags), None)


def hand(panel: Panel) -> tuple[int, tuple[str, ...]]:
    """A species' hand as drawn: its count, and its cards where they are drawn."""
    shown = line(panel, "hand")
    if shown is not None:
        cards = tuple(shown.tags["hand"].split())
        return len(cards), cards
    counted = line(panel, "hand-count")
    assert counted is not None and counted.players_panel
    return int(counted.tags["hand-count"]), ()


def test_every_location_card_and_token_of_the_state_is_on_the_table() -> None:
    for cut in (40, 120, len(ACTIONS)):
        state = play(ACTIONS[:cut])
        places = panels(table(state, None), "locations")
        assert list(places) == list(state.locations)
        for name, place in places.items():
            location = state.locations[name]
            cards = place.lines[0].cards
            assert [card.id for card in cards] == [*location.fauna, *location.flora]
            for card in cards:
                tokens = {token.owner: token.count for token in card.tokens}
                assert tokens == {s: n for s, n in location.tokens.get(card.id, {}).items() if n}
            populations = line(place, "populations")
            assert populations is not None
            for species in state.species.values():
                here = [p for p in species.populations if p.location == name]
                drawn = {
                    token.tags["state"]: token.count for token in populations.tokens if token.owner == species.name
                }
                assert drawn == {
                    state: count
                    for state, count in (
                        ("standing", sum(p.standing for p in here)),
                        ("used", sum(not p.standing for p in here)),
                    )
                    if count
                }


def test_a_hand_is_drawn_as_cards_for_its_seat_and_the_recorder_alone_TR_24() -> None:
    state = play(until("ann journey toughness field"))
    circle, square = state.species["circle"], state.species["square"]
    public, ann, ben, everyone = (panels(table(state, seat), "species") for seat in (None, "ann", "ben", ALL_SEATS))
    assert hand(public["circle"]) == (total(circle.hand), ())
    assert hand(ann["square"])[1] == ()
    assert sorted(hand(ann["circle"])[1]) == sorted(trait for trait, count in circle.hand.items() for _ in range(count))
    assert hand(ben["circle"])[1] == ()
    assert all(hand(board)[0] == total(state.species[name].hand) for name, board in everyone.items())
    assert all(len(hand(board)[1]) == hand(board)[0] for board in everyone.values())
    decks = line(public["square"], "decks")
    assert decks is not None and decks.text.startswith(f"deck {square.deck_size} ")


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
    boards = panels(table(state, None), "species")
    assert line(boards["triangle"], "player") is None and hand(boards["triangle"]) == (2, ())
    assert hand(panels(table(state, ALL_SEATS), "species")["triangle"]) == (2, ("size", "size"))
