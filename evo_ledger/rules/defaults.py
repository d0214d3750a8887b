"""A base class for a ruleset, with a default for every member of the contract that can have one, so that a ruleset
writes only what its game decides: its `setup`, its rules (`apply`, `legal_actions`) and its `standings`, the four
members it must write.

The defaults read the ruleset's plain declarations:
- `actions`: its action classes (dataclasses). An action is written `[player] word value...`: its player first
  where its first field is `player`, then its word (the class's name in snake case), then its other fields in
  order, each an `int`, a `str` (one word) or a `Literal` of choices (`check_actions` refuses others). A first
  word that is the word of an action without a player is that action; any other is a player's name. Its data
  form is `evo_ledger.rules.structured`'s.
- `facts`: the name of the event each kind of action records, in the past tense, in the order of `actions`
  (`{Class}Recorded` where none are given); `consequence_kinds`: the kinds of consequence its transitions carry
  (each stored as an event named by its kind in camel case). Once stored, these names keep their meaning.
- the state class, given as the base's first parameter (`BaseRuleset[State, Action, Kit]`): a dataclass whose
  field `kit` holds the kit; its snapshot is its other fields.
- `kit_counts`: the integers its kit document must hold (a `PlainKit`).
- `score_labels`: what each number of a standing's score counts.

Every capability has its plain default here too, as the contract serves a ruleset without it; a ruleset that
writes any member of a capability has that capability, and takes the defaults for the members it leaves out. Where
a default would show a hidden fact there is none: a ruleset that hides facts writes all of `HiddenInformation`
itself, and its own `outcome` and `view` (their defaults read the legal actions, which may rest on hidden facts:
`check_hiding` refuses the class otherwise). A member a ruleset writes itself always wins.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import fields
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

from evo_ledger.rules.base import (
    Advice,
    Explanation,
    NextWords,
    OptionSpec,
    OptionValue,
    Outcome,
    Standing,
    StateView,
    Step,
    Transition,
    Vocabulary,
)
from evo_ledger.rules.boards import BoardLayout
from evo_ledger.rules.contract import CONTRACT_DEFAULT, contract_default, contract_required, listed_next_words
from evo_ledger.rules.kits import PlainKit, plain_kit
from evo_ledger.rules.structured import ActionForm, kind_of
from evo_ledger.rules.text import Words

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")
KitT = TypeVar("KitT")
PLAYER = "player"


def camel_case(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("_"))


def has_player(action_class: type) -> bool:
    written = fields(action_class)
    return bool(written) and written[0].name == PLAYER


def as_tuples(value: Any) -> Any:
    """A snapshot's value as the state holds it: its lists (JSON's arrays) as tuples, however deep."""
    if isinstance(value, list):
        return tuple(map(as_tuples, value))
    if isinstance(value, dict):
        return {key: as_tuples(item) for key, item in value.items()}
    return value


def check_actions(actions: Sequence[type]) -> None:
    """Refuse, when the ruleset's class is made, action classes the default notation cannot write and read back:
    two with one word, or a field other than the player that is not an `int`, a `str` or a `Literal` of values
    written apart."""
    words = [kind_of(action) for action in actions]
    if len(set(words)) < len(words):
        raise TypeError(f"two action classes have one word: {sorted(words)}")
    for action in actions:
        for field in fields(action)[1 if has_player(action) else 0 :]:
            hint = typing.get_type_hints(action)[field.name]
            choices = [str(choice) for choice in typing.get_args(hint)]
            literal = typing.get_origin(hint) is typing.Literal and len(set(choices)) == len(choices)
            if hint not in (int, str) and not literal:
                raise TypeError(f"{action.__name__}.{field.name}: the default notation writes int, str and Literal")


# The defaults that read the legal actions, which may rest on hidden facts.
READ_LEGAL_ACTIONS = ("outcome", "view")


def check_hiding(ruleset: type) -> None:
    """Refuse, when the ruleset's class is made, one that hides facts and keeps a default that reads its legal
    actions: they may rest on hidden facts (a card drawn that lets a play), and neither the view nor the game's
    end may tell them."""
    if not callable(getattr(ruleset, "visible_only_to", None)):
        return
    kept = [name for name in READ_LEGAL_ACTIONS if getattr(getattr(ruleset, name), CONTRACT_DEFAULT, False)]
    if kept:
        raise TypeError(f"{ruleset.__name__} hides facts, so it writes its own {' and '.join(kept)}")


def ranked(scores: Iterable[tuple[str, Sequence[int]]], labels: tuple[str, ...] = ("points",)) -> Outcome:
    """Standings from each player's score (its numbers compared in turn, the highest first); equal scores share
    a place."""
    order = sorted(((player, tuple(score)) for player, score in scores), key=lambda item: item[1], reverse=True)
    places = [Standing(1 + sum(other > score for _, other in order), player, score) for player, score in order]
    return Outcome(tuple(places), labels)


class BaseRuleset(Generic[StateT, ActionT, KitT]):
    """A ruleset's defaults (the module says what each reads); a subclass overrides what its game decides."""

    name: str
    version: str = "1"
    options: tuple[OptionSpec, ...] = ()
    vocabulary: Vocabulary
    actions: ClassVar[tuple[type, ...]] = ()
    facts: ClassVar[tuple[str, ...]] = ()
    consequence_kinds: ClassVar[tuple[str, ...]] = ()
    kit_counts: ClassVar[tuple[str, ...]] = ()
    score_labels: ClassVar[tuple[str, ...]] = ("points",)
    state_class: ClassVar[type]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """The subclass's vocabulary (unless it declares its own: its `facts`, or `{Class}Recorded` for each
        action, and each consequence's kind in camel case) and its state class, from the base's first parameter."""
        super().__init_subclass__(**kwargs)
        if "vocabulary" not in vars(cls) and "name" in vars(cls):
            facts = cls.facts or tuple(f"{action.__name__}Recorded" for action in cls.actions)
            kinds = {kind: camel_case(kind) for kind in cls.consequence_kinds}
            cls.vocabulary = Vocabulary(f"evo-ledger:{cls.name}", facts, kinds)
        for base in vars(cls).get("__orig_bases__", ()):
            if typing.get_origin(base) is BaseRuleset and "state_class" not in vars(cls):
                cls.state_class = typing.get_args(base)[0]
        if "actions" in vars(cls):
            check_actions(cls.actions)
        check_hiding(cls)

    # The core: notation and data.

    @contract_default
    def parse_action(self, text: str) -> ActionT:
        words = Words(text)
        first = words.take("an action")
        if first in self._words and not has_player(self._words[first]):
            player, word = None, first
        else:  # a player's name, even one spelt as an action's word
            player, word = first, words.choice(self._played, "an action's word")
        action_class = self._words[word]
        values = [self._value(words, field.name, hint) for field, hint in self._fields(action_class)]
        words.end()
        action: ActionT = action_class(*([player] if player is not None else []), *values)
        return action

    def _value(self, words: Words, name: str, hint: Any) -> Any:
        if hint is int:
            return words.integer(f"{name}, a whole number")
        if typing.get_origin(hint) is typing.Literal:
            choices = {str(choice): choice for choice in typing.get_args(hint)}
            return choices[words.choice(choices, f"{name}: one of {', '.join(choices)}")]
        return words.take(name)

    @contract_default
    def format_action(self, action: ActionT) -> str:
        values = [str(getattr(action, field.name)) for field, _ in self._fields(type(action))]
        player = [getattr(action, PLAYER)] if has_player(type(action)) else []
        return " ".join([*player, kind_of(type(action)), *values])

    @cached_property
    def _words(self) -> dict[str, type]:
        return {kind_of(action): action for action in self.actions}

    @cached_property
    def _played(self) -> list[str]:
        """The words of the actions a player makes (written after the player's name)."""
        return [word for word, action in self._words.items() if has_player(action)]

    def _fields(self, action_class: type) -> list[tuple[Any, Any]]:
        """The fields written after the action's word, with their types."""
        hints = typing.get_type_hints(action_class)
        return [(field, hints[field.name]) for field in fields(action_class) if field.name != PLAYER]

    @cached_property
    def _form(self) -> ActionForm:
        return ActionForm(typing.Union[self.actions], self.parse_action, self.format_action)  # noqa: UP007

    @contract_default
    def action_from_data(self, data: Any) -> ActionT:
        action: ActionT = self._form.read(data)
        return action

    @contract_default
    def action_data(self, action: ActionT) -> dict[str, Any]:
        return self._form.write(action)

    @contract_default
    def fact_of(self, action: ActionT) -> str:
        return self.vocabulary.facts[self.actions.index(type(action))]

    # The core: the game.

    @contract_default
    def parse_kit(self, document: Any, label: str) -> KitT:
        kit: Any = plain_kit(document, label, counts=self.kit_counts)
        return typing.cast(KitT, kit)

    @contract_required
    def setup(self, kit: KitT, players: Sequence[str], options: Mapping[str, OptionValue]) -> StateT:
        raise NotImplementedError

    @contract_required
    def apply(self, state: StateT, action: ActionT) -> Transition[StateT]:
        raise NotImplementedError

    @contract_required
    def legal_actions(self, state: StateT) -> Iterator[ActionT]:
        raise NotImplementedError

    @contract_required
    def standings(self, state: StateT) -> Outcome:
        raise NotImplementedError

    @contract_default
    def legal(self, state: StateT, action: ActionT) -> None:
        self.apply(state, action)

    @contract_default
    def outcome(self, state: StateT) -> Outcome | None:
        """The standings once no action is legal."""
        return None if next(self.legal_actions(state), None) is not None else self.standings(state)

    @contract_default
    def snapshot_state(self, state: StateT) -> dict[str, Any]:
        kept = [field.name for field in fields(typing.cast(Any, state)) if field.name != "kit"]
        return {name: getattr(state, name) for name in kept}

    @contract_default
    def restore_state(self, kit: KitT, data: dict[str, Any]) -> StateT:
        values = {name: as_tuples(value) for name, value in data.items()}
        state: StateT = self.state_class(kit=kit, **values)
        return state

    @contract_default
    def view(self, state: StateT) -> StateView:
        """Each player's score, and who is to do what: the players and the words of the legal actions."""
        outcome = self.outcome(state)
        standings = (outcome or self.standings(state)).standings
        lines = tuple(f"{standing.player}: {self._score(standing.score)}" for standing in standings)
        step = "" if outcome is not None else self._awaited(state)
        phase = "over" if outcome is not None else "play"
        return StateView(step or "game over", lines, {}, round=1, phase=phase, step=step)

    def _awaited(self, state: StateT) -> str:
        """`ann to roll or hold`: those who may act now, and the words of what they may do."""
        legal = list(self.legal_actions(state))
        players = dict.fromkeys(getattr(action, PLAYER, "the table") for action in legal)
        verbs = dict.fromkeys(kind_of(type(action)).replace("_", " ") for action in legal)
        return f"{' or '.join(players)} to {' or '.join(verbs)}"

    def _score(self, score: Sequence[int]) -> str:
        return ", ".join(f"{value} {label}" for value, label in zip(score, self.score_labels, strict=False))

    @contract_default
    def describe(self, kind: str, data: Mapping[str, Any]) -> str:
        said = ", ".join(f"{key} {value}" for key, value in data.items())
        return f"{kind.replace('_', ' ')}: {said}." if said else f"{kind.replace('_', ' ')}."

    # Every capability's plain default.

    @contract_default
    def is_chance(self, action: ActionT) -> bool:
        return False

    @contract_default
    def self_play(self) -> Any:
        return None

    @contract_default
    def reading(self) -> Any:
        return None

    @contract_default
    def explain(self, steps: Sequence[Step[Any, Any]], at: int) -> Explanation | None:
        return None

    @contract_default
    def layout(self, state: StateT, seat: str | None) -> BoardLayout | None:
        return None

    @contract_default
    def draw(self, kit: KitT, labels: Mapping[str, str] | None = None) -> str:
        return ""

    @contract_default
    def advice(self, state: StateT) -> Advice | None:
        return None

    @contract_default
    def replay(self, state: StateT, action: ActionT) -> StateT:
        return self.apply(state, action).state

    @contract_default
    def at_version(self, version: str) -> Any:
        return None

    @contract_default
    def next_words(self, state: StateT, words: Sequence[str]) -> NextWords:
        return listed_next_words((self.format_action(action) for action in self.legal_actions(state)), words)


__all__ = ["BaseRuleset", "PlainKit", "ranked"]
