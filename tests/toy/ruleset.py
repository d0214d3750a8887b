"""Pig: roll as often as you dare, a 1 loses the turn's points; hold to bank them."""

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from evo_ledger.rules.base import Consequence, Outcome, RuleViolation, SetupError, Transition
from evo_ledger.rules.defaults import BaseRuleset, PlainKit, ranked


@dataclass(frozen=True)
class Roll:
    player: str
    face: Literal[1, 2, 3, 4, 5, 6]


@dataclass(frozen=True)
class Hold:
    player: str


@dataclass(frozen=True)
class State:
    kit: PlainKit
    players: tuple[str, ...]
    scores: tuple[int, ...]
    turns: int = 0
    at_stake: int = 0


class ToyRuleset(BaseRuleset[State, Roll | Hold, PlainKit]):
    name = "toy"
    actions = (Roll, Hold)
    facts = ("DieRolled", "TurnHeld")
    consequence_kinds = ("turn_lost", "turn_scored")
    kit_counts = ("target",)

    def setup(self, kit: PlainKit, players: Sequence[str], options: Mapping[str, Any]) -> State:
        if len(players) != kit.players or options:
            raise SetupError(f"kit {kit.name!r} seats {kit.players} players and takes no options")
        return State(kit, tuple(players), (0,) * len(players))

    def legal(self, state: State, action: Roll | Hold) -> None:
        if won(state):
            raise RuleViolation("TOY-3", "the game is won: nothing follows")
        if action.player != current(state):
            raise RuleViolation("TOY-1", f"it is {current(state)}'s turn, not {action.player}'s")
        if isinstance(action, Hold) and state.at_stake == 0:
            raise RuleViolation("TOY-2", "there is nothing at stake to hold")

    def apply(self, state: State, action: Roll | Hold) -> Transition[State]:
        self.legal(state, action)
        if isinstance(action, Roll) and action.face != 1:
            return Transition(replace(state, at_stake=state.at_stake + action.face))
        banked = state.at_stake if isinstance(action, Hold) else 0
        seat = state.turns % len(state.players)
        scores = tuple(score + banked * (i == seat) for i, score in enumerate(state.scores))
        after = replace(state, scores=scores, at_stake=0)
        after = after if won(after) else replace(after, turns=state.turns + 1)
        kind = "turn_lost" if isinstance(action, Roll) else "turn_scored"
        said = {"player": action.player, "points": state.at_stake}
        return Transition(after, (Consequence(kind, said),))

    def legal_actions(self, state: State) -> Iterator[Roll | Hold]:
        if not won(state):
            yield from (Roll(current(state), face) for face in (1, 2, 3, 4, 5, 6))
        if state.at_stake:
            yield Hold(current(state))

    def standings(self, state: State) -> Outcome:
        return ranked(zip(state.players, [(score,) for score in state.scores], strict=True))


def current(state: State) -> str:
    return state.players[state.turns % len(state.players)]


def won(state: State) -> bool:
    return max(state.scores) >= int(state.kit.values["target"])
