"""Pig, as a ruleset: roll a die as often as you dare, a 1 loses the turn's points, hold to bank them; the first
to reach the kit's target wins. A player may peek at the next face (seen by that player only, shown by the roll
that follows). Written against `Ruleset` alone, with no edit outside this package."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib.resources.abc import Traversable
from types import MappingProxyType
from typing import Any

from evo_ledger.rules.base import (
    Bot,
    Consequence,
    Explanation,
    GameReport,
    OptionValue,
    Outcome,
    ReadContext,
    ReadItem,
    ReadResult,
    ReadTable,
    Ruleset,
    RuleViolation,
    SetupError,
    Standing,
    StateView,
    Statistic,
    Step,
    Transition,
    Vocabulary,
)
from evo_ledger.rules.kits import KitReader, canonical_hash, kits_in
from evo_ledger.rules.structured import ActionForm
from evo_ledger.rules.text import Words

FACES = range(1, 7)


@dataclass(frozen=True)
class ToyKit:
    name: str
    stand_in: bool
    players: int
    target: int
    content_hash: str


@dataclass(frozen=True)
class Roll:
    player: str
    face: int


@dataclass(frozen=True)
class Hold:
    player: str


@dataclass(frozen=True)
class Peek:
    player: str
    face: int


Action = Roll | Hold | Peek


@dataclass(frozen=True)
class State:
    kit: ToyKit
    players: tuple[str, ...]
    scores: tuple[int, ...]
    turn: int = 0
    at_stake: int = 0
    peeked: int | None = None

    @property
    def current(self) -> str:
        return self.players[self.turn]

    @property
    def over(self) -> bool:
        return max(self.scores) >= self.kit.target


def parse_action(text: str) -> Action:
    words = Words(text)
    player = words.take("a player's name")
    verb = words.choice(("roll", "hold", "peek"), "roll, hold or peek")
    if verb == "hold":
        words.end()
        return Hold(player)
    face = words.integer("a die face from 1 to 6")
    words.end()
    return Roll(player, face) if verb == "roll" else Peek(player, face)


def format_action(action: Action) -> str:
    if isinstance(action, Hold):
        return f"{action.player} hold"
    return f"{action.player} {'roll' if isinstance(action, Roll) else 'peek'} {action.face}"


class ToySelfPlay:
    generator = "toy selfplay 1: Random('chance:SEED')"
    player_counts = range(2, 3)

    def __init__(self, rules: ToyRuleset) -> None:
        self.rules = rules
        self.bots: Mapping[str, Bot[State, Action]] = {"sensible": self.careful, "random": self.careful}

    @staticmethod
    def careful(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
        return Hold(state.current) if state.at_stake >= 4 else Roll(state.current, 0)

    def default_kit(self, players: int) -> str:
        return "toy-2p"

    def play(
        self,
        kit: ToyKit,
        names: Sequence[str],
        seed: int,
        bot: str,
        options: Mapping[str, OptionValue] | None = None,
        seat_bots: Mapping[str, str] | None = None,
    ) -> Iterator[tuple[Action, Transition[State]]]:
        state = self.rules.setup(kit, names, options or {})
        chance, rng = random.Random(f"chance:{seed}"), random.Random(seed)
        while not state.over:
            action = self.bots[bot](state, [], rng)
            if isinstance(action, Roll):
                action = Roll(action.player, chance.choice(FACES))
            transition = self.rules.apply(state, action)
            state = transition.state
            yield action, transition

    def first_unseeded(
        self,
        kit: ToyKit,
        names: Sequence[str],
        seed: int,
        actions: Sequence[Action],
        options: Mapping[str, OptionValue] | None = None,
    ) -> int | None:
        chance = random.Random(f"chance:{seed}")
        for index, action in enumerate(actions):
            if isinstance(action, Roll) and action.face != chance.choice(FACES):
                return index
        return None

    def comments(self, transition: Transition[State]) -> list[str]:
        return []


class ToyReading:
    """No tables of its own: the game's result for the read tables' results."""

    tables: tuple[ReadTable, ...] = ()
    facts: frozenset[str] = frozenset()
    consequences: frozenset[str] = frozenset({"game_won"})
    reports: Mapping[str, GameReport] = MappingProxyType({})
    statistics: Mapping[str, Statistic] = MappingProxyType({})

    def from_action(self, context: ReadContext, action: Any) -> Iterator[ReadItem]:
        return iter(())

    def from_consequence(
        self, context: ReadContext, kind: str, cause: int, data: Mapping[str, Any]
    ) -> Iterator[ReadItem]:
        standings = tuple(Standing(rank, player, (score,)) for rank, player, score in data["standings"])
        yield ReadResult(Outcome(standings, ("points",)))

    def restored(self, standing: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
        return {}


class ToyRuleset(Ruleset[State, Action, ToyKit]):
    name = "toy"
    version = "1"
    options = ()
    vocabulary = Vocabulary(
        "evo-ledger:toy",
        ("DieRolled", "TurnHeld", "DiePeeked"),
        {"turn_lost": "TurnLost", "turn_scored": "TurnScored", "game_won": "GameWon"},
    )

    def parse_kit(self, document: Any, label: str) -> ToyKit:
        reader = KitReader(label)
        root = reader.mapping(document, "")
        return ToyKit(
            name=reader.string(root, "name"),
            stand_in=reader.boolean(root, "stand_in"),
            players=reader.integer(root, "players", minimum=2),
            target=reader.integer(root, "target", minimum=1),
            content_hash=canonical_hash(root),
        )

    def builtin_kits(self) -> Mapping[str, Traversable]:
        return kits_in("tests.toy")

    def describe(self, kind: str, data: Mapping[str, Any]) -> str:
        if kind == "turn_lost":
            return f"{data['player']} rolls a 1 and loses the {data['points']} points at stake."
        if kind == "turn_scored":
            return f"{data['player']} banks {data['points']} points."
        places = ", ".join(f"{rank} {player} with {score}" for rank, player, score in data["standings"])
        return f"The game is won. Standings: {places}."

    def setup(self, kit: ToyKit, players: Sequence[str], options: Mapping[str, Any]) -> State:
        if len(players) != kit.players:
            raise SetupError(f"kit {kit.name!r} seats {kit.players} players, not {len(players)}")
        if options:
            raise SetupError(f"toy has no options, not {', '.join(options)}")
        return State(kit, tuple(players), (0,) * len(players))

    def legal(self, state: State, action: Action) -> None:
        if state.over:
            raise RuleViolation("TOY-3", "the game is won: nothing follows")
        if action.player != state.current:
            raise RuleViolation("TOY-1", f"it is {state.current}'s turn, not {action.player}'s")
        if isinstance(action, Roll | Peek) and action.face not in FACES:
            raise RuleViolation(None, f"a die has faces 1 to 6, not {action.face}")
        if isinstance(action, Roll) and state.peeked not in (None, action.face):
            raise RuleViolation("TOY-2", f"{action.player} peeked a {state.peeked}: the roll must show it")
        if isinstance(action, Hold) and state.at_stake == 0:
            raise RuleViolation("TOY-1", "there is nothing at stake to hold")

    def apply(self, state: State, action: Action) -> Transition[State]:
        self.legal(state, action)
        after, consequences = self._next(state, action)
        return Transition(after, consequences)

    def _next(self, state: State, action: Action) -> tuple[State, tuple[Consequence, ...]]:
        if isinstance(action, Peek):
            return replace(state, peeked=action.face), ()
        if isinstance(action, Roll) and action.face == 1:
            lost = Consequence("turn_lost", {"player": action.player, "points": state.at_stake})
            return self._pass_turn(state, state.scores), (lost,)
        if isinstance(action, Roll):
            return replace(state, at_stake=state.at_stake + action.face, peeked=None), ()
        scores = tuple(s + state.at_stake if i == state.turn else s for i, s in enumerate(state.scores))
        scored = Consequence("turn_scored", {"player": action.player, "points": state.at_stake})
        after = self._pass_turn(state, scores)
        if after.over:
            standings = self.standings(after).standings
            won = Consequence("game_won", {"standings": [[s.rank, s.player, s.score[0]] for s in standings]})
            return after, (scored, won)
        return after, (scored,)

    @staticmethod
    def _pass_turn(state: State, scores: tuple[int, ...]) -> State:
        turn = state.turn if max(scores) >= state.kit.target else (state.turn + 1) % len(state.players)
        return replace(state, scores=scores, turn=turn, at_stake=0, peeked=None)

    def legal_actions(self, state: State) -> Iterator[Action]:
        if state.over:
            return iter(())
        rolls: list[Action] = [Roll(state.current, face) for face in FACES if state.peeked in (None, face)]
        return iter([*rolls, *([Hold(state.current)] if state.at_stake else [])])

    def outcome(self, state: State) -> Outcome | None:
        return self.standings(state) if state.over else None

    def standings(self, state: State) -> Outcome:
        ranked = sorted(zip(state.players, state.scores, strict=True), key=lambda item: -item[1])
        standings = tuple(
            Standing(1 + sum(other > score for _, other in ranked), player, (score,)) for player, score in ranked
        )
        return Outcome(standings, ("points",))

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def format_action(self, action: Action) -> str:
        return format_action(action)

    def action_from_data(self, data: Any) -> Action:
        action: Action = ACTION_FORM.read(data)
        return action

    def action_data(self, action: Action) -> dict[str, Any]:
        return ACTION_FORM.write(action)

    def snapshot_state(self, state: State) -> dict[str, Any]:
        return {"players": list(state.players), "scores": list(state.scores), "turn": state.turn,
                "at_stake": state.at_stake, "peeked": state.peeked}  # fmt: skip

    def restore_state(self, kit: ToyKit, data: dict[str, Any]) -> State:
        return State(kit, tuple(data["players"]), tuple(data["scores"]), data["turn"], data["at_stake"], data["peeked"])

    def fact_of(self, action: Action) -> str:
        return {Roll: "DieRolled", Hold: "TurnHeld", Peek: "DiePeeked"}[type(action)]

    def is_chance(self, action: Action) -> bool:
        return isinstance(action, Roll)

    def visible_only_to(self, action: Action) -> str | None:
        return action.player if isinstance(action, Peek) else None

    def reveals(self, hidden: Action, later: Action) -> bool:
        return isinstance(hidden, Peek) and isinstance(later, Roll) and later.player == hidden.player

    def public_state(self, state: State) -> dict[str, Any]:
        return {**self.snapshot_state(state), "peeked": None}

    def view(self, state: State) -> StateView:
        scores = tuple(f"{player}: {score} points" for player, score in zip(state.players, state.scores, strict=True))
        headline = "game won" if state.over else f"{state.current} to roll or hold, {state.at_stake} at stake"
        return StateView(headline, scores, {})

    def explain(self, steps: Sequence[Step[State, Action]], at: int) -> Explanation | None:
        """A turn: its rolls and how it ended."""
        player = steps[at].action.player
        first = at
        while first > 0 and steps[first - 1].before.turn == steps[at].before.turn and not steps[first - 1].consequences:
            first -= 1
        rolls = [step.action.face for step in steps[first : at + 1] if isinstance(step.action, Roll)]
        words = (f"{player} rolled {', '.join(map(str, rolls)) or 'nothing'} this turn",)
        return Explanation("turn", {"player": player, "rolls": rolls}, words)

    def reading(self) -> ToyReading:
        return ToyReading()

    def self_play(self) -> ToySelfPlay:
        return ToySelfPlay(self)


ACTION_FORM = ActionForm(Action, parse_action, format_action)
