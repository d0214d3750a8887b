"""Seeded self-play for the trait-card "Evo": bots play whole games through the rules API.

`Random("chance:SEED")` shuffles the location boards and the fauna, flora and adaptation decks, draws trait cards
from a species' deck, picks the start player, a journey's card, the supply cards of a top-up, the cards a cull
returns and the adaptation natural selection drops among ties [TR-23]; `Random("bots:SEED")` breaks the bots'
ties. The audit draws every chance action again from the seed (`first_unseeded`). A journey's destination and
the order of players tied at selection are the bots' (the first location in play other than the population's, the
seat order).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from evo_ledger.rules.base import Transition
from evo_ledger.rules.seeded import SeededSelfPlay
from evo_ledger.rules.traits import flow
from evo_ledger.rules.traits.actions import (
    Action,
    Cull,
    Deal,
    Draw,
    DrawLocation,
    Drop,
    EndGeneration,
    Forage,
    Hunt,
    Journey,
    Migrate,
    StartPlayer,
    TopUp,
)
from evo_ledger.rules.traits.generation import active_location
from evo_ledger.rules.traits.kit import Kit
from evo_ledger.rules.traits.state import Cards, Phase, State

CHANCE_GENERATOR = "evo-ledger selfplay traits 1: Random('chance:SEED') drawing for Table"
Bot = Callable[[State, Sequence[Action], random.Random], Action]
MIGRATING_HAND = 4
"""A hand of this many cards left, with nothing here to hunt or forage, is worth a journey to the sensible bot."""


class Table:
    """What chance decides: the order of the location boards and of the three decks, and every random pick."""

    def __init__(self, kit: Kit, rng: random.Random) -> None:
        self.rng = rng
        self.boards = list(kit.locations)
        rng.shuffle(self.boards)
        self.decks: dict[str, list[str]] = {"fauna": list(kit.fauna), "flora": list(kit.flora)}
        self.decks["adaptation"] = list(kit.adaptations)
        for deck in self.decks.values():
            rng.shuffle(deck)

    def deal(self, state: State, kind: str) -> str:
        """The top card of the deck; an empty deck is its discards shuffled again [TR-22]."""
        if flow.deck_empty(state, kind):
            self.decks[kind] = sorted(state.discards[kind])
            self.rng.shuffle(self.decks[kind])
        return self.decks[kind].pop(0)

    def draw(self, deck: Cards, count: int) -> tuple[str, ...]:
        cards = [trait for trait in sorted(deck) for _ in range(deck[trait])]
        return tuple(sorted(self.rng.sample(cards, count)))

    def pick(self, candidates: Sequence[str]) -> str:
        return self.rng.choice(list(candidates))


def chance_action(state: State, table: Table) -> Action | None:
    """What chance draws when the rules wait on it, None when a player is to choose."""
    need = state.need
    if need is None:
        return journey(state, table)
    kind, who = need.kind, need.who
    if kind == "location":
        return DrawLocation(who, table.boards.pop(0))
    if kind in ("fauna", "flora", "adaptation"):
        return Deal(kind, who, table.deal(state, kind))
    if kind == "draw":
        return Draw(who, table.draw(state.species_of(who).deck, need.cards))
    if kind == "start":
        return StartPlayer(table.pick(need.candidates))
    if kind == "topup":
        return TopUp(who, tuple(table.pick(state.kit.traits) for _ in range(need.cards)))
    if kind == "cull":
        return Cull(who, table.draw(state.species_of(who).future, need.cards))
    if kind == "drop":
        return Drop(who, table.pick(need.candidates))
    return None


def journey(state: State, table: Table) -> Journey | None:
    """A migration's random pick; the population goes to the first other location in play."""
    if state.phase != Phase.GENERATION or not state.current:
        return None
    species = state.species_of(state.current)
    if not species.journey:
        return None
    here = active_location(state).id
    there = next(place for place in state.locations if place != here)
    return Journey(state.current, table.pick(species.journey), there)


def random_bot(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
    return rng.choice(legal)


def sensible_bot(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
    """Hunts and forages whatever the hand pays for, the largest first, and migrates rather than lose a hand of 4 or
    more cards when the location offers nothing it can pay for."""
    scored = [(score(state, action), index) for index, action in enumerate(legal)]
    best = max(value for value, _ in scored)
    return legal[rng.choice([index for value, index in scored if value == best])]


def score(state: State, action: Action) -> float:
    match action:
        case Hunt(_, _, cards):
            return 3.0 + len(cards)
        case Forage(_, _, cards):
            return 2.0 + len(cards)
        case Migrate(player):
            return 1.5 if sum(state.species_of(player).hand.values()) >= MIGRATING_HAND else 0.5
        case EndGeneration():
            return 1.0
    return 0.0


BOTS: dict[str, Bot] = {"random": random_bot, "sensible": sensible_bot}


class TraitsSelfPlay(SeededSelfPlay[State, Action, Kit, Table]):
    generator = CHANCE_GENERATOR
    bots: Mapping[str, Bot] = BOTS
    player_counts = range(2, 5)
    make_table = Table
    chance = staticmethod(chance_action)

    def default_kit(self, players: int) -> str:
        return "standin-traits"

    def comments(self, transition: Transition[State]) -> list[str]:
        """The points after each millennium's genome targets."""
        state = transition.state
        if not any(c.kind in ("millennium_begun", "game_ended") for c in transition.consequences):
            return []
        if state.millennium == 1 and state.phase != Phase.OVER:
            return []
        ranked = sorted(state.points.items(), key=lambda item: -item[1])
        done = state.millennium if state.phase == Phase.OVER else state.millennium - 1
        return [f"# after millennium {done}: " + ", ".join(f"{name} {points} points" for name, points in ranked)]
