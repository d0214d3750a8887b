"""Evo 1st edition's seeded self-play: bots play complete games through the rules API.

Chance and choice come from two generators seeded from the game's seed, so that a bot's choices never shift the
chance stream: `Random("chance:SEED")` shuffles the deck and the starred beaches, draws the genes and rolls the
die; `Random("bots:SEED")` breaks the bots' ties. That is the generator a generated game commits to, and the audit
draws every chance action again from it (`first_unseeded`): each card dealt or drawn, the beaches, each die face
and each gene.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evo_ledger.rules.base import Transition
from evo_ledger.rules.contract import Ruleset
from evo_ledger.rules.evo1.actions import Action, Attack, Bid, Birth, DrawGene, Drew, Move, PlayCard, Roll, Start
from evo_ledger.rules.evo1.auction import price
from evo_ledger.rules.evo1.board import horn_difference
from evo_ledger.rules.evo1.card_sense import card_worth
from evo_ledger.rules.evo1.cards import legal_plays
from evo_ledger.rules.evo1.flow import awaited_roll
from evo_ledger.rules.evo1.kit import Kit
from evo_ledger.rules.evo1.state import Phase, State
from evo_ledger.rules.seeded import SeededSelfPlay

CHANCE_GENERATOR = "evo-ledger selfplay evo1 1: Random('chance:SEED') drawing for Table"
Bot = Callable[[State, Sequence[Action], random.Random], Action]
Rules = Ruleset[State, Action, Kit]
ZONE_WORTH = {"ideal": 3, "hot": 1, "cold": 1, "deadly": 0}
GENE_WORTH = {"egg": 4, "foot": 3, "fur": 3, "parasol": 3, "horn": 2, "tail": 2, "mutant": 2, "card": 1}


class Table:
    """What chance decides: the deck's order, the starred beaches, the gene bag and the die. A draw is made when
    the rules first wait on it and stays on the table, a card may come before it, until it is recorded."""

    def __init__(self, kit: Kit, rng: random.Random) -> None:
        self.rng = rng
        self.deck = list(kit.card_ids)
        rng.shuffle(self.deck)
        self.beaches = list(kit.start_beaches)
        rng.shuffle(self.beaches)
        self.bag = [gene for gene, count in kit.genes.items() for _ in range(count)]
        self.gene: int | None = None
        self.face: int | None = None

    def deal(self, player: str) -> Drew:
        return Drew(player, self.deck[0])

    def start(self, players: Sequence[str]) -> Start:
        return Start(tuple(zip(players, self.beaches, strict=True)))

    def draw(self) -> DrawGene:
        if self.gene is None:
            self.gene = self.rng.randrange(len(self.bag))
        return DrawGene(self.bag[self.gene])

    def roll(self) -> Roll:
        if self.face is None:
            self.face = self.rng.randint(1, 6)
        return Roll(self.face)

    def take(self, drawn: Action) -> None:
        if isinstance(drawn, Drew):
            self.deck.pop(0)
        elif isinstance(drawn, DrawGene) and self.gene is not None:
            self.bag.pop(self.gene)
            self.gene = None
        elif isinstance(drawn, Roll):
            self.face = None


def chance_action(state: State, table: Table) -> Action | None:
    """What chance draws when the rules wait on it, None when a player is to choose."""
    if state.cards_due:
        return table.deal(state.cards_due[0])
    if state.phase == Phase.SETUP and not state.board:
        return table.start(list(state.seats))
    if awaited_roll(state) is not None:
        return table.roll()
    if state.phase == Phase.EVOLUTION and len(state.rows) < state.rows_due:
        return table.draw()
    return None


def random_bot(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
    return rng.choice(legal)


def sensible_bot(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
    """Keeps to the ideal zone, fights with the horns to win, bids what a gene is worth to it at a price it can
    bear, and plays a card where it helps."""
    scored = [(score(state, action), index) for index, action in enumerate(legal)]
    best = max(value for value, _ in scored)
    return legal[rng.choice([index for value, index in scored if value == best])]


def score(state: State, action: Action) -> float:
    match action:
        case Move(_, path):
            return ZONE_WORTH[state.zone_of(path[-1])] - ZONE_WORTH[state.zone_of(path[0])] - 0.1 * len(path)
        case Attack(player, _, target):
            return 1.5 if horn_difference(state, player, state.board[target]) >= 1 else -1.0
        case Birth(player, space) if space in state.board:
            return 1.0 if horn_difference(state, player, state.board[space], birth=True) >= 1 else -1.0
        case Birth(_, space):
            return float(ZONE_WORTH[state.zone_of(space)])
        case PlayCard():
            return card_worth(state, action)
        case Bid(player, amount, target):
            gene = state.rows[int(target.removeprefix("row")) - 1] if target.startswith("row") else target
            cost = price(state, player, amount)
            return GENE_WORTH.get(gene, 1) - cost * 4 / max(4, state.seats[player].mp)
    return 0.0


BOTS: dict[str, Bot] = {"random": random_bot, "sensible": sensible_bot}


class Evo1SelfPlay(SeededSelfPlay[State, Action, Kit, Table]):
    generator = CHANCE_GENERATOR
    bots: Mapping[str, Bot] = BOTS
    player_counts = range(3, 6)
    make_table = Table
    chance = staticmethod(chance_action)

    def taken(self, table: Table, drawn: Action) -> None:
        table.take(drawn)

    def before_chance(self, state: State) -> list[Action]:
        """The cards that may be played before the die is rolled or the genes are drawn [E1-24]."""
        return list(legal_plays(state))

    def default_kit(self, players: int) -> str:
        return f"standin-e1-{players}p"

    def comments(self, transition: Transition[State]) -> list[str]:
        """The standings after each turn."""
        return [standings_comment(c.data) for c in transition.consequences if c.kind == "mp_awarded"]


def standings_comment(award: Mapping[str, Any]) -> str:
    totals: dict[str, int] = award["totals"]
    ranked = sorted(totals.items(), key=lambda item: -item[1])
    return f"# after turn {award['turn']}: " + ", ".join(f"{name} {mp} MP" for name, mp in ranked)
