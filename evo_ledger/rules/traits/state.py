"""The state of a game of the trait-card "Evo" between two actions.

A species is a shape: its Trait Deck (face down, with the face-up offspring on top), the hand, the Future and
Lost Genomes, its adaptations with their survival tokens, its population tokens and its reserve. A player plays
one species a millennium [TR-03]. Locations hold their fauna and flora, and the survival tokens each species put
on them. `needs` is what the game waits to have recorded before it goes on: the setup's random facts, a
generation's draw, and the steps between millennia, in order. The ruleset never changes a state it was given:
`apply` works on a `copy()`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

from evo_ledger.rules.traits.kit import Kit

Cards = dict[str, int]
"""Trait cards by trait, with no zero counts: replaced, never changed in place."""


@lru_cache(maxsize=8192)
def cards_of(traits: tuple[str, ...]) -> Cards:
    """The cards by trait; the same (shared, never changed) for the same tuple."""
    counts: Cards = {}
    for trait in traits:
        counts[trait] = counts.get(trait, 0) + 1
    return counts


def plus(held: Cards, more: Cards) -> Cards:
    joined = dict(held)
    for trait, count in more.items():
        joined[trait] = joined.get(trait, 0) + count
    return joined


def minus(held: Cards, less: Cards) -> Cards:
    """`held` less `less`, which it contains."""
    left = dict(held)
    for trait, count in less.items():
        remaining = left[trait] - count
        if remaining:
            left[trait] = remaining
        else:
            del left[trait]
    return left


def contains(held: Cards, wanted: Cards) -> bool:
    return all(held.get(trait, 0) >= count for trait, count in wanted.items())


def total(cards: Cards) -> int:
    return sum(cards.values())


def spoken(cards: Cards) -> str:
    return " ".join(trait for trait in sorted(cards) for _ in range(cards[trait])) or "no card"


class Phase:
    SETUP = "setup"
    GENERATION = "generation"
    INTERLUDE = "end of millennium"
    OVER = "over"


class Need(NamedTuple):
    """A record the game waits for: its kind, whom or where it concerns, how many cards, and the candidates of a
    random pick among ties."""

    kind: str
    who: str
    cards: int = 0
    candidates: tuple[str, ...] = ()


class Population(NamedTuple):
    location: str
    standing: bool = True


@dataclass
class Species:
    """A species; its fields are replaced, never changed in place, so that a copy shares what it has not
    changed."""

    name: str
    deck: Cards = field(default_factory=dict)
    """The face-down Trait Deck by trait (its order is chance's, recorded as cards are drawn)."""
    offspring: tuple[str, ...] = ()
    """Face-up cards on top of the deck, the last placed on top [TR-08]."""
    hand: Cards = field(default_factory=dict)
    future: Cards = field(default_factory=dict)
    lost: Cards = field(default_factory=dict)
    adaptations: dict[str, int] = field(default_factory=dict)
    """Each adaptation the species holds, with the survival tokens on it [TR-12]."""
    populations: tuple[Population, ...] = ()
    reserve: int = 0
    journey: tuple[str, ...] = ()
    """The two cards chosen for a migration, until its random pick [TR-10]."""

    def copy(self) -> Species:
        """A species sharing every value with this one, made by the constructor (see `State.copy`)."""
        return Species(
            self.name,
            self.deck,
            self.offspring,
            self.hand,
            self.future,
            self.lost,
            self.adaptations,
            self.populations,
            self.reserve,
            self.journey,
        )

    @property
    def deck_size(self) -> int:
        return total(self.deck) + len(self.offspring)

    def has_future(self) -> bool:
        """A future generation: a card left in the Trait Deck, face-up offspring included [TR-06]."""
        return self.deck_size > 0


@dataclass
class Location:
    """A location in play; its fields are replaced, never changed in place."""

    id: str
    primary: str
    fauna: tuple[str, ...] = ()
    flora: tuple[str, ...] = ()
    tokens: dict[str, dict[str, int]] = field(default_factory=dict)
    """The survival tokens on each card here, by species."""
    fresh: tuple[str, ...] = ()
    """Cards dealt here to replace an extinct one at this millennium's end: not thriving competitors [TR-15]."""

    def copy(self) -> Location:
        """A location sharing every value with this one, made by the constructor (see `State.copy`)."""
        return Location(self.id, self.primary, self.fauna, self.flora, self.tokens, self.fresh)

    def species_tokens(self, species: str) -> int:
        return sum(counts.get(species, 0) for counts in self.tokens.values())

    def card_tokens(self, card: str) -> int:
        return sum(self.tokens.get(card, {}).values())


EMPTY_DECKS: dict[str, tuple[str, ...]] = {"fauna": (), "flora": (), "adaptation": ()}
NOTHING_OWNED: tuple[str, ...] = ()


@dataclass
class State:
    kit: Kit
    options: dict[str, Any]
    players: tuple[str, ...]
    phase: str = Phase.SETUP
    stage: str = ""
    """The step of the setup or of the millennium's end that `needs` belong to."""
    millennium: int = 1
    points: dict[str, int] = field(default_factory=dict)
    plays: dict[str, str] = field(default_factory=dict)
    """The species each player plays this millennium."""
    species: dict[str, Species] = field(default_factory=dict)
    locations: dict[str, Location] = field(default_factory=dict)
    drawn_locations: dict[str, str] = field(default_factory=dict)
    out: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(EMPTY_DECKS))
    """The cards of each deck dealt or discarded: the deck holds the others [TR-22]."""
    discards: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(EMPTY_DECKS))
    faces: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Fauna faces recorded where the kit has none [TR-02]."""
    start: str = ""
    current: str = ""
    active: int | None = None
    """The index of the active population among the current species' populations."""
    finished: tuple[str, ...] = ()
    """The players whose millennium is over [TR-05]."""
    needs: tuple[Need, ...] = ()
    selected: tuple[str, ...] = ()
    """Species taken in this selection [TR-19]."""
    supply: Cards | None = None
    """The trait piles under `finite_trait_supply`; None when the supply is unlimited [TR-22]."""
    _owned_species: tuple[str, ...] | None = field(default=None, compare=False, repr=False)
    """The species this state no longer shares with the one it was copied from; None for a state copied from none.
    Every field but `species` and `locations` is replaced, never changed in place."""
    _owned_locations: tuple[str, ...] | None = field(default=None, compare=False, repr=False)

    def copy(self) -> State:
        """A state sharing every value with this one. Made by the constructor, field by field in their order: an
        object whose `__dict__` was set or read is slower at every attribute read, and keywords are slower than
        places (pays for: bench.rules_speed check+apply)."""
        return State(
            self.kit,
            self.options,
            self.players,
            self.phase,
            self.stage,
            self.millennium,
            self.points,
            self.plays,
            self.species,
            self.locations,
            self.drawn_locations,
            self.out,
            self.discards,
            self.faces,
            self.start,
            self.current,
            self.active,
            self.finished,
            self.needs,
            self.selected,
            self.supply,
            NOTHING_OWNED,
            NOTHING_OWNED,
        )

    def own_species(self, name: str) -> Species:
        """The species, to be changed: copied first if this state still shares it."""
        owned = self._owned_species
        if owned is not None and name not in owned:
            self.species = {**self.species, name: self.species[name].copy()}
            self._owned_species = (*owned, name)
        return self.species[name]

    def own_location(self, place: str) -> Location:
        owned = self._owned_locations
        if owned is not None and place not in owned:
            self.locations = {**self.locations, place: self.locations[place].copy()}
            self._owned_locations = (*owned, place)
        return self.locations[place]

    def own_played(self, player: str) -> Species:
        return self.own_species(self.plays[player])

    def species_of(self, player: str) -> Species:
        return self.species[self.plays[player]]

    @property
    def need(self) -> Need | None:
        return self.needs[0] if self.needs else None

    def tokens_left(self, species: str) -> int | None:
        """Survival tokens the species has left under `token_cap`; None when they are unlimited [TR-22]."""
        if not self.options.get("token_cap"):
            return None
        placed = sum(place.species_tokens(species) for place in self.locations.values())
        return self.kit.survival_tokens - placed - sum(self.species[species].adaptations.values())


def counter_data(counts: Cards) -> dict[str, int]:
    return {trait: count for trait, count in sorted(counts.items()) if count}


def state_to_data(state: State) -> dict[str, Any]:
    return {
        "options": dict(state.options),
        "players": list(state.players),
        "phase": state.phase,
        "stage": state.stage,
        "millennium": state.millennium,
        "points": dict(state.points),
        "plays": dict(state.plays),
        "species": {name: species_data(s) for name, s in state.species.items()},
        "locations": {name: location_data(place) for name, place in state.locations.items()},
        "drawn_locations": dict(state.drawn_locations),
        "out": {k: list(v) for k, v in state.out.items()},
        "discards": {k: list(v) for k, v in state.discards.items()},
        "faces": {k: list(v) for k, v in state.faces.items()},
        "start": state.start,
        "current": state.current,
        "active": state.active,
        "finished": list(state.finished),
        "needs": [[n.kind, n.who, n.cards, list(n.candidates)] for n in state.needs],
        "selected": list(state.selected),
        "supply": counter_data(state.supply) if state.supply is not None else None,
    }


def species_data(species: Species) -> dict[str, Any]:
    return {
        "deck": counter_data(species.deck),
        "offspring": list(species.offspring),
        "hand": counter_data(species.hand),
        "future": counter_data(species.future),
        "lost": counter_data(species.lost),
        "adaptations": dict(species.adaptations),
        "populations": [[p.location, p.standing] for p in species.populations],
        "reserve": species.reserve,
        "journey": list(species.journey),
    }


def location_data(place: Location) -> dict[str, Any]:
    return {
        "primary": place.primary,
        "fauna": list(place.fauna),
        "flora": list(place.flora),
        "tokens": {card: counter_data(counts) for card, counts in place.tokens.items()},
        "fresh": list(place.fresh),
    }


def state_from_data(kit: Kit, data: dict[str, Any]) -> State:
    return State(
        kit=kit,
        options=dict(data["options"]),
        players=tuple(data["players"]),
        phase=data["phase"],
        stage=data["stage"],
        millennium=data["millennium"],
        points=dict(data["points"]),
        plays=dict(data["plays"]),
        species={name: species_from(name, s) for name, s in data["species"].items()},
        locations={name: location_from(name, p) for name, p in data["locations"].items()},
        drawn_locations=dict(data["drawn_locations"]),
        out={k: tuple(v) for k, v in data["out"].items()},
        discards={k: tuple(v) for k, v in data["discards"].items()},
        faces={k: tuple(v) for k, v in data["faces"].items()},
        start=data["start"],
        current=data["current"],
        active=data["active"],
        finished=tuple(data["finished"]),
        needs=tuple(Need(kind, who, count, tuple(c)) for kind, who, count, c in data["needs"]),
        selected=tuple(data["selected"]),
        supply=dict(data["supply"]) if data["supply"] is not None else None,
    )


def species_from(name: str, data: dict[str, Any]) -> Species:
    return Species(
        name,
        dict(data["deck"]),
        tuple(data["offspring"]),
        dict(data["hand"]),
        dict(data["future"]),
        dict(data["lost"]),
        dict(data["adaptations"]),
        tuple(Population(location, standing) for location, standing in data["populations"]),
        data["reserve"],
        tuple(data["journey"]),
    )


def location_from(name: str, data: dict[str, Any]) -> Location:
    return Location(
        name,
        data["primary"],
        tuple(data["fauna"]),
        tuple(data["flora"]),
        {card: dict(counts) for card, counts in data["tokens"].items()},
        tuple(data["fresh"]),
    )
