"""Seeded self-play for a ruleset whose chance a table of components decides: chance and choice come from two
generators seeded from the game's seed, so that a bot's choices never shift the chance stream.
`Random("chance:SEED")` makes the ruleset's table (its deck, bag, pile and die), `Random("bots:SEED")` breaks the
bots' ties. Python's `random.Random` seeded with a string is the same on every platform, so the same seed always
gives the same game, byte for byte; the audit draws every chance action again from it (`first_unseeded`).

Where a player may act before chance does (an event card before a die is rolled), the table's next draw waits
for it: `chance` shows the draw without taking it, and `taken` takes it once it is recorded."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Generic, TypeVar

from evo_ledger.rules.base import OptionValue, Transition
from evo_ledger.rules.contract import Bot, Ruleset, advice, is_chance, replayer

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
KitT = TypeVar("KitT")
TableT = TypeVar("TableT")


class SeededSelfPlay(Generic[StateT, ActionT, KitT, TableT]):
    """A ruleset's bots and its table: `make_table` lays out the components from the chance generator, and
    `chance` is what the table draws when the rules wait on chance (None when a player is to choose); `taken`
    takes that draw from the table once it is recorded, and `before_chance` lists what players may do first."""

    generator: str
    bots: Mapping[str, Bot[StateT, ActionT]]
    player_counts: range
    make_table: Callable[[KitT, random.Random], TableT]
    chance: Callable[[StateT, TableT], ActionT | None]

    def __init__(self, rules: Ruleset[StateT, ActionT, Any]) -> None:
        self.rules = rules

    def taken(self, table: TableT, drawn: ActionT) -> None:
        """The table's draw is recorded: a table whose `chance` takes as it draws has nothing left to do."""

    def before_chance(self, state: StateT) -> list[ActionT]:
        """What players may do before chance acts (none unless a ruleset says)."""
        return []

    def play(
        self,
        kit: KitT,
        names: Sequence[str],
        seed: int,
        bot: str,
        options: Mapping[str, OptionValue] | None = None,
        seat_bots: Mapping[str, str] | None = None,
    ) -> Iterator[tuple[ActionT, Transition[StateT]]]:
        """A whole game, action by action, with the transition each made; the last transition ends the game.
        `seat_bots` gives seats bots of their own (the others play `bot`): the seat most of the legal actions
        belong to chooses among its own and those that name no player."""
        state = self.rules.setup(kit, names, options or {})
        table, rng = type(self).make_table(kit, random.Random(f"chance:{seed}")), random.Random(f"bots:{seed}")
        choose = self.bots[bot]
        while self.rules.outcome(state) is None:
            drawn = type(self).chance(state, table)
            advised = advice(self.rules, state) if drawn is None else None
            if advised is not None:
                action = advised.actions[0]  # a seat the rules run plays the rules' own decision
            elif drawn is None:
                legal = list(self.rules.legal_actions(state))
                if seat_bots:
                    mover = most_named(legal)
                    legal = [a for a in legal if getattr(a, "player", mover) == mover]
                    action = self.bots[seat_bots.get(mover or "", bot)](state, legal, rng)
                else:
                    action = choose(state, legal, rng)
            else:
                first = self.before_chance(state)
                action = choose(state, [*first, drawn], rng) if first else drawn
            transition = self.rules.apply(state, action)
            if drawn is not None and action == drawn:
                self.taken(table, drawn)
            state = transition.state
            yield action, transition

    def first_unseeded(
        self,
        kit: KitT,
        names: Sequence[str],
        seed: int,
        actions: Sequence[ActionT],
        options: Mapping[str, OptionValue] | None = None,
    ) -> int | None:
        """The first chance action the seed does not draw; a player's action where chance waits lets it wait."""
        state = self.rules.setup(kit, names, options or {})
        table = type(self).make_table(kit, random.Random(f"chance:{seed}"))
        replay = replayer(self.rules)
        for index, action in enumerate(actions):
            drawn = type(self).chance(state, table)
            if drawn is not None and drawn != action and is_chance(self.rules, action):
                return index
            state = replay(state, action)
            if drawn is not None and drawn == action:
                self.taken(table, drawn)
        return None


def most_named(actions: Sequence[Any]) -> str | None:
    """The player most of the actions name, None when none names one."""
    named = Counter(player for action in actions if (player := getattr(action, "player", None)) is not None)
    return named.most_common(1)[0][0] if named else None
