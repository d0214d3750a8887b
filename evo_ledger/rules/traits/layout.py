"""A position of the trait-card "Evo" as the viewer draws it: the locations with their fauna and flora cards and the
survival tokens on them, each species' populations on them, and each species' board (its decks as counts, its
Future Genome, adaptations and points); a hand is drawn as cards only for a reader who may see it [TR-24]."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from evo_ledger.rules.contract import ALL_SEATS
from evo_ledger.rules.traits.state import Location, Species, State, total
from evo_ledger.rules.traits.view import where


@dataclass(frozen=True)
class CardOnTable:
    """A fauna or flora card at a location: its type, its symbols where known, and the survival tokens each species
    has on it."""

    id: str
    deck: str
    type: str
    symbols: tuple[str, ...]
    tokens: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class PlaceOnTable:
    """A location in play: its primary trait, its cards, and each species' populations there (standing, used)."""

    id: str
    primary: str
    cards: tuple[CardOnTable, ...]
    populations: tuple[tuple[str, int, int], ...]


@dataclass(frozen=True)
class SpeciesOnTable:
    """A species' board. `hand_cards` is empty unless the reader may see the hand; `hand` always counts it."""

    name: str
    player: str | None
    points: int
    deck: int
    offspring: tuple[str, ...]
    hand: int
    hand_cards: tuple[str, ...]
    lost: int
    future: tuple[str, ...]
    adaptations: tuple[tuple[str, int], ...]
    reserve: int
    journey: int


@dataclass(frozen=True)
class TraitsLayout:
    """The table: the millennium, the phase and what is awaited, the locations, the species."""

    millennium: int
    phase: str
    awaited: str
    places: tuple[PlaceOnTable, ...]
    species: tuple[SpeciesOnTable, ...]
    kind: str = "traits"
    """The drawing the viewer makes of it."""


def layout(state: State, seat: str | None = None) -> TraitsLayout:
    """The table for a reader who may see the hidden facts of `seat` (every seat's for ALL_SEATS)."""
    millennium, phase, awaited = where(state)
    players = {species: player for player, species in state.plays.items()}
    return TraitsLayout(
        millennium,
        phase,
        awaited,
        tuple(place_on_table(state, place) for place in state.locations.values()),
        tuple(
            species_on_table(
                state, species, players.get(name), seat is not None and seat in (ALL_SEATS, players.get(name))
            )
            for name, species in state.species.items()
        ),
    )


def place_on_table(state: State, place: Location) -> PlaceOnTable:
    cards = [*(("fauna", card) for card in place.fauna), *(("flora", card) for card in place.flora)]
    populations = [
        (name, standing[True], standing[False])
        for name, species in state.species.items()
        if (standing := Counter(p.standing for p in species.populations if p.location == place.id))
    ]
    return PlaceOnTable(
        place.id,
        place.primary,
        tuple(card_on_table(state, place, deck, card) for deck, card in cards),
        tuple(populations),
    )


def card_on_table(state: State, place: Location, deck: str, card: str) -> CardOnTable:
    kit = state.kit
    if deck == "fauna":
        fauna = kit.fauna[card]
        kind, symbols = fauna.type, fauna.symbols or state.faces.get(card, ())
    else:
        kind, symbols = kit.flora[card].type, ()
    tokens = tuple(sorted((species, n) for species, n in place.tokens.get(card, {}).items() if n))
    return CardOnTable(card, deck, kind, tuple(symbols), tokens)


def species_on_table(state: State, species: Species, player: str | None, shown: bool) -> SpeciesOnTable:
    cards = tuple(trait for trait in sorted(species.hand) for _ in range(species.hand[trait]))
    return SpeciesOnTable(
        name=species.name,
        player=player,
        points=state.points.get(player, 0) if player else 0,
        deck=species.deck_size,
        offspring=species.offspring,
        hand=total(species.hand),
        hand_cards=cards if shown else (),
        lost=total(species.lost),
        future=tuple(trait for trait in sorted(species.future) for _ in range(species.future[trait])),
        adaptations=tuple(species.adaptations.items()),
        reserve=species.reserve,
        journey=len(species.journey),
    )
