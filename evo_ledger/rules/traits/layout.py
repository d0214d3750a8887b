"""A position of the trait-card "Evo" as a board is drawn (the board capability's `layout`): a panel a location,
with its fauna and flora cards and the survival tokens on them and each species' populations there, then a panel a
species (its player and points, its decks as counts, its hand, Future Genome and adaptations); a hand is drawn as
cards only for a reader who may see it [TR-24]. Cards of one trait are told once, with their number. The headline's
millennium, phase and awaited step are not drawn again."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from evo_ledger.rules.boards import DASHED, OUTLINE, BoardLayout, Card, Line, Panel, PanelGroup, Token
from evo_ledger.rules.contract import ALL_SEATS
from evo_ledger.rules.traits.state import Location, Species, State, total

TIMES = "\N{MULTIPLICATION SIGN}"
DECK_COLOURS = {"fauna": ("#fff7ed", "#b45309"), "flora": ("#f0fdf4", "#15803d")}
"""Each deck's cards' colour and edge."""


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
class Table:
    """The table as a reader may see it, before it is drawn: the locations, the species."""

    places: tuple[PlaceOnTable, ...]
    species: tuple[SpeciesOnTable, ...]


def layout(state: State, seat: str | None = None) -> BoardLayout:
    """The table as a board, for a reader who may see the hidden facts of `seat` (every seat's for ALL_SEATS)."""
    return table_board(table(state, seat))


def table(state: State, seat: str | None = None) -> Table:
    """The table for a reader who may see the hidden facts of `seat` (every seat's for ALL_SEATS)."""
    players = {species: player for player, species in state.plays.items()}
    return Table(
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


def table_board(drawn: Table) -> BoardLayout:
    """The locations' panels, then the species', each species' tokens and panel in its own colour."""
    return BoardLayout(
        owners=tuple(species.name for species in drawn.species),
        groups=(
            PanelGroup("locations", tuple(map(place_panel, drawn.places))),
            PanelGroup("species", tuple(map(species_panel, drawn.species))),
        ),
        says_all=True,
    )


def place_panel(place: PlaceOnTable) -> Panel:
    """A location: its cards, then each species' populations there, standing and used."""
    populations = [
        Token(
            species, count, f"{species} {count} {state}", OUTLINE if state == "standing" else DASHED, {"state": state}
        )
        for species, standing, used in place.populations
        for state, count in (("standing", standing), ("used", used))
        if count
    ]
    lines = (Line(cards=tuple(map(card_drawn, place.cards))), Line(tokens=tuple(populations), tags={"populations": ""}))
    return Panel(place.id, note=place.primary, lines=lines, tags={"place": place.id})


def card_drawn(card: CardOnTable) -> Card:
    """A fauna or flora card: its symbols where known (else its deck), the survival tokens on it."""
    fill, edge = DECK_COLOURS.get(card.deck, ("", ""))
    tokens = tuple(Token(species, count, f"{species} {count}") for species, count in card.tokens)
    text = " ".join(card.symbols) or card.deck
    return Card(card.id, id=card.id, text=text, fill=fill, edge=edge, tokens=tokens, tags={"deck": card.deck})


def species_panel(species: SpeciesOnTable) -> Panel:
    """A species' board: its player and points and its hand (which a players' panel says too), its decks, Future
    Genome and adaptations."""
    offspring = f" ({tallied_text(species.offspring)} face up)" if species.offspring else ""
    journey = f" · journey {species.journey}" if species.journey else ""
    decks = f"deck {species.deck}{offspring} · Lost Genome {species.lost} · reserve {species.reserve}{journey}"
    future = f"Future Genome{f' ({len(species.future)})' if species.future else ''}: "
    adaptations = ", ".join(f"{name} ({tokens})" for name, tokens in species.adaptations) or "none"
    player = f"{species.player} · {species.points} points"
    lines = (
        *((Line(player, players_panel=True, tags={"player": species.player}),) if species.player else ()),
        Line(decks, tags={"decks": ""}),
        hand_line(species),
        Line(future + (tallied_text(species.future) or "empty"), tags={"future": str(len(species.future))}),
        Line(f"adaptations: {adaptations}", tags={"adaptations": ""}),
    )
    return Panel(species.name, owner=species.name, lines=lines, tags={"species": species.name})


def hand_line(species: SpeciesOnTable) -> Line:
    """A hand: as its cards, a trait once with its number, for a reader who may see it; else as a count."""
    if not species.hand_cards:
        count = f"hand: {species.hand} card{'' if species.hand == 1 else 's'}"
        return Line(count, players_panel=True, tags={"hand-count": str(species.hand)})
    cards = tuple(
        Card(f"{trait} {TIMES}{count}" if count > 1 else trait, tags={"count": str(count)})
        for trait, count in tallied(species.hand_cards)
    )
    return Line(cards=cards, players_panel=True, tags={"hand": " ".join(species.hand_cards)})


def tallied(names: Iterable[str]) -> list[tuple[str, int]]:
    """Each name once, with how many times it comes, in the order they first come: [("agility", 3), ("size", 1)]."""
    return list(Counter(names).items())


def tallied_text(names: Iterable[str]) -> str:
    """Each name once, with its number where it comes more than once: `agility`, the times sign, 3, then `size`."""
    return ", ".join(f"{name} {TIMES}{count}" if count > 1 else name for name, count in tallied(names))
