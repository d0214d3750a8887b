"""Seeded self-play for a ruleset whose chance a table of components decides: chance and choice come from two
generators seeded from the game's seed, so that a bot's choices never shift the chance stream.
`Random("chance:SEED")` makes the ruleset's table (its deck, bag, pile and die), `Random("bots:SEED")` breaks the
bots' ties. Python's `random.Random` seeded with a string is the same on every platform, so the same seed always
gives the same game, byte for byte; the audit draws every chance action again from it (`first_unseeded`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

from evo_ledger.rules.base import Bot, Ruleset, Transition

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
KitT = TypeVar("KitT")
TableT = TypeVar("TableT")


class SeededSelfPlay(Generic[StateT, ActionT, KitT, TableT]):
    """A ruleset's bots and its table: `make_table` lays out the components from the chance generator, and
    `chance` is what the table draws when the rules wait on chance (None when a player is to choose)."""

    generator: str
    bots: Mapping[str, Bot[StateT, ActionT]]
    player_counts: range
    make_table: Callable[[KitT, random.Random], TableT]
    chance: Callable[[StateT, TableT], ActionT | None]

    def __init__(self, rules: Ruleset[StateT, ActionT, Any]) -> None:
        self.rules = rules

    def play(
        self, kit: KitT, names: Sequence[str], seed: int, bot: str
    ) -> Iterator[tuple[ActionT, Transition[StateT]]]:
        """A whole game, action by action, with the transition each made; the last transition ends the game."""
        state = self.rules.setup(kit, names, {})
        table, rng = type(self).make_table(kit, random.Random(f"chance:{seed}")), random.Random(f"bots:{seed}")
        choose = self.bots[bot]
        while self.rules.outcome(state) is None:
            action = type(self).chance(state, table) or choose(state, list(self.rules.legal_actions(state)), rng)
            transition = self.rules.apply(state, action)
            state = transition.state
            yield action, transition

    def first_unseeded(self, kit: KitT, names: Sequence[str], seed: int, actions: Sequence[ActionT]) -> int | None:
        state = self.rules.setup(kit, names, {})
        table = type(self).make_table(kit, random.Random(f"chance:{seed}"))
        for index, action in enumerate(actions):
            drawn = type(self).chance(state, table)
            if drawn is not None and drawn != action:
                return index
            state = self.rules.replay(state, action)
        return None
