"""Evo 2nd edition's seeded self-play: bots play complete games through the rules API.

Chance and choice come from two generators seeded from the game's seed, so that a bot's choices never shift the
chance stream: `Random("chance:SEED")` shuffles the climate pile and the gene bag, draws the initiative order
and rolls the die; `Random("bots:SEED")` breaks the bots' ties. Python's `random.Random` seeded with a string is
the same on every platform, so the same seed always gives the same game, byte for byte.

That is the generator named `CHANCE_GENERATOR`: a game the service generates commits to it, a secret salt and
its seed in its first event and reveals them at its end, and the audit draws every chance action again from
them (`first_unseeded`): the initiative order, each climate token, each gene and each die face.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evo_ledger.rules.base import Transition
from evo_ledger.rules.contract import Ruleset
from evo_ledger.rules.evo2.actions import (
    Action,
    Attack,
    Bid,
    Birth,
    DrawGene,
    Move,
    Pass,
    RevealClimate,
    Roll,
    SetOrder,
)
from evo_ledger.rules.evo2.climate import METEORITE
from evo_ledger.rules.evo2.movement import DIE, attack_horns, defence_horns
from evo_ledger.rules.evo2.state import ESCAPE, Phase, State
from evo_ledger.rules.hexisland.kit import Kit
from evo_ledger.rules.seeded import SeededSelfPlay

CHANCE_GENERATOR = "evo-ledger selfplay evo2 1: Random('chance:SEED') drawing for Table"
Bot = Callable[[State, Sequence[Action], random.Random], Action]
Rules = Ruleset[State, Action, Kit]


class Table:
    """The components chance decides: the climate pile, the gene bag, the initiative draw and the die."""

    def __init__(self, kit: Kit, rng: random.Random) -> None:
        self.rng = rng
        self.climate_pile = self._climate_pile(kit)
        uniques = rng.sample(list(kit.genes.unique), kit.genes.unique_in_bag)
        self.bag = [gene for gene, count in kit.genes.normal.items() for _ in range(count)] + uniques
        self.set_aside: list[str] = []

    def _climate_pile(self, kit: Kit) -> list[str]:
        """One token removed unseen; the meteorite shuffled among the last few; the rest on top [E2-04]."""
        others = [token for token, count in kit.climate.tokens.items() if token != METEORITE for _ in range(count)]
        self.rng.shuffle(others)
        others = others[kit.climate.removed_unseen :]
        bottom = [METEORITE, *others[: kit.climate.meteorite_among_last - 1]]
        top = others[kit.climate.meteorite_among_last - 1 :]
        self.rng.shuffle(bottom)
        self.rng.shuffle(top)
        return top + bottom

    def order(self, players: Sequence[str]) -> SetOrder:
        shuffled = list(players)
        self.rng.shuffle(shuffled)
        return SetOrder(tuple(shuffled))

    def reveal(self) -> RevealClimate:
        return RevealClimate(self.climate_pile.pop(0))

    def draw(self, lab: Sequence[str | None], lab_size: int) -> DrawGene:
        """A random token from the bag; a duplicate is set aside and goes back once the lab is full [E2-06]."""
        if not any(gene not in lab for gene in self.bag):
            self.bag.extend(self.set_aside)
            self.set_aside = []
            return DrawGene(None)
        gene = self.bag.pop(self.rng.randrange(len(self.bag)))
        if gene in lab:
            self.set_aside.append(gene)
        elif len(lab) + 1 == lab_size:
            self.bag.extend(self.set_aside)
            self.set_aside = []
        return DrawGene(gene)

    def roll(self) -> Roll:
        return Roll(self.rng.choice(DIE))


def random_bot(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
    return rng.choice(legal)


GENE_VALUE = {"horns": 3, "eggs": 3, "legs": 2, "fur": 2, "thermo": 2, "vial": 1, "card": 1}
UNIQUE_VALUE = 3


def sensible_bot(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
    """Bids for what it values at a price it can bear, keeps to ideal ground, fights when it has the horns."""
    scored = [(score(state, action), index) for index, action in enumerate(legal)]
    best = max(value for value, _ in scored)
    return legal[rng.choice([index for value, index in scored if value == best])]


def score(state: State, action: Action) -> float:
    match action:
        case Bid(player, amount, target):
            item = target if target in GENE_VALUE or target in state.kit.genes.unique else None
            value = GENE_VALUE.get(item, UNIQUE_VALUE) if item else 0
            return value - amount * 6 / max(6, state.players[player].mp)
        case Move(_, path):
            return zone_gain(state, path[0], path[-1]) - 0.1 * len(path)
        case Attack(player, _, target):
            return 1.5 if attack_horns(state, player) - defence_horns(state, state.board[target]) >= 1 else -1
        case Birth(_, space, _):
            return {"ideal": 2, "hot": 1, "cold": 1, "deadly": -1}[state.zone_of(space)]
        case Pass():
            return 0
    return 0


def zone_gain(state: State, source: str, target: str) -> float:
    worth = {"ideal": 2, "hot": 1, "cold": 1, "deadly": 0}
    return float(worth[state.zone_of(target)] - worth[state.zone_of(source)])


BOTS: dict[str, Bot] = {"random": random_bot, "sensible": sensible_bot}


def chance_action(state: State, table: Table) -> Action | None:
    """What chance draws when the rules wait on it, None when a player is to choose."""
    if state.phase == Phase.ORDER:
        return table.order(list(state.players))
    if state.pending is not None and state.pending.kind != ESCAPE:
        return table.roll()
    if state.phase == Phase.CLIMATE:
        return table.reveal()
    if state.phase == Phase.MUTATIONS:
        return table.draw(state.lab, len(state.players) - 1)
    return None


def next_action(rules: Rules, state: State, table: Table, bot: Bot, rng: random.Random) -> Action:
    """Chance's move when the rules wait on chance (the initiative draw, a token, a gene, the die); else the bot's."""
    return chance_action(state, table) or bot(state, list(rules.legal_actions(state)), rng)


class Evo2SelfPlay(SeededSelfPlay[State, Action, Kit, Table]):
    generator = CHANCE_GENERATOR
    bots: Mapping[str, Bot] = BOTS
    player_counts = range(2, 6)
    make_table = Table
    chance = staticmethod(chance_action)

    def default_kit(self, players: int) -> str:
        return f"standin-e2-{players}p"

    def comments(self, transition: Transition[State]) -> list[str]:
        """The standings after each round."""
        return [standings_comment(c.data) for c in transition.consequences if c.kind == "mp_awarded"]


def standings_comment(award: Mapping[str, Any]) -> str:
    totals: dict[str, int] = award["totals"]
    ranked = sorted(totals.items(), key=lambda item: -item[1])
    return f"# after round {award['round']}: " + ", ".join(f"{name} {mp} MP" for name, mp in ranked)
