"""Pig, the contract's core alone: roll as often as you dare, a 1 loses the turn's points; hold to bank them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from evo_ledger.rules.base import Consequence, Outcome, RuleViolation, SetupError, Standing, StateView, Transition
from evo_ledger.rules.base import Vocabulary as Events
from evo_ledger.rules.contract import Ruleset
from evo_ledger.rules.kits import PlainKit, plain_kit
from evo_ledger.rules.structured import ActionForm
from evo_ledger.rules.text import Words

FACES = ("1", "2", "3", "4", "5", "6")
EVENTS = Events("evo-ledger:toy", ("DieRolled", "TurnHeld"), {"turn_lost": "TurnLost", "turn_scored": "TurnScored"})


@dataclass(frozen=True)
class Roll:
    player: str
    face: int


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

    @property
    def current(self) -> str:
        return self.players[self.turns % len(self.players)]

    @property
    def over(self) -> bool:
        return bool(max(self.scores) >= self.kit.values["target"])


class ToyRuleset(Ruleset[State, Roll | Hold, PlainKit]):
    name, version, options, vocabulary = "toy", "1", (), EVENTS

    @staticmethod
    def parse_action(text: str) -> Roll | Hold:
        words = Words(text)
        player, verb = words.take("a player's name"), words.choice(("roll", "hold"), "roll or hold")
        action = Hold(player) if verb == "hold" else Roll(player, int(words.choice(FACES, "a die face from 1 to 6")))
        words.end()
        return action

    @staticmethod
    def format_action(action: Roll | Hold) -> str:
        return f"{action.player} roll {action.face}" if isinstance(action, Roll) else f"{action.player} hold"

    form = ActionForm(Roll | Hold, parse_action, format_action)
    action_from_data, action_data = staticmethod(form.read), staticmethod(form.write)

    def parse_kit(self, document: Any, label: str) -> PlainKit:
        return plain_kit(document, label, counts=("target",))

    def setup(self, kit: PlainKit, players: Sequence[str], options: Mapping[str, Any]) -> State:
        if len(players) != kit.players or options:
            raise SetupError(f"kit {kit.name!r} seats {kit.players} players and takes no options")
        return State(kit, tuple(players), (0,) * len(players))

    def legal(self, state: State, action: Roll | Hold) -> None:
        if state.over:
            raise RuleViolation("TOY-3", "the game is won: nothing follows")
        if action.player != state.current:
            raise RuleViolation("TOY-1", f"it is {state.current}'s turn, not {action.player}'s")
        if isinstance(action, Hold) and state.at_stake == 0:
            raise RuleViolation("TOY-2", "there is nothing at stake to hold")

    def apply(self, state: State, action: Roll | Hold) -> Transition[State]:
        self.legal(state, action)
        if isinstance(action, Roll) and action.face != 1:
            return Transition(replace(state, at_stake=state.at_stake + action.face))
        seat, banked = state.turns % len(state.players), 0 if isinstance(action, Roll) else state.at_stake
        scores = tuple(score + banked * (index == seat) for index, score in enumerate(state.scores))
        after = replace(state, scores=scores, at_stake=0)
        after = after if after.over else replace(after, turns=state.turns + 1)
        kind = "turn_lost" if isinstance(action, Roll) else "turn_scored"
        return Transition(after, (Consequence(kind, {"player": action.player, "points": state.at_stake}),))

    def legal_actions(self, state: State) -> Iterator[Roll | Hold]:
        held = [Hold(state.current)] if state.at_stake else []
        return iter([] if state.over else [*(Roll(state.current, int(face)) for face in FACES), *held])

    def outcome(self, state: State) -> Outcome | None:
        return self.standings(state) if state.over else None

    def standings(self, state: State) -> Outcome:
        ranked = sorted(zip(state.players, state.scores, strict=True), key=lambda item: -item[1])
        return Outcome(tuple(Standing(1 + sum(o > s for _, o in ranked), p, (s,)) for p, s in ranked), ("points",))

    def fact_of(self, action: Roll | Hold) -> str:
        return "DieRolled" if isinstance(action, Roll) else "TurnHeld"

    def snapshot_state(self, state: State) -> dict[str, Any]:
        return {"players": state.players, "scores": state.scores, "turns": state.turns, "at_stake": state.at_stake}

    def restore_state(self, kit: PlainKit, data: dict[str, Any]) -> State:
        return State(kit, tuple(data["players"]), tuple(data["scores"]), data["turns"], data["at_stake"])

    def view(self, state: State) -> StateView:
        lines = tuple(f"{player}: {score} points" for player, score in zip(state.players, state.scores, strict=True))
        step = "" if state.over else f"{state.current} to roll or hold, {state.at_stake} at stake"
        phase, rounds = "over" if state.over else "turn", 1 + state.turns // len(state.players)
        return StateView(step or "game won", lines, {}, round=rounds, phase=phase, step=step)

    def describe(self, kind: str, data: Mapping[str, Any]) -> str:
        return f"{data['player']} {'loses the' if kind == 'turn_lost' else 'banks'} {data['points']} points."
