"""What the composers' tests share: a game's actions, each with the state it was entered in, and the checks that an
action is offered word by word and that a start reported complete is one the rules take."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from evo_ledger.rules.contract import Ruleset

StateT = TypeVar("StateT")


@dataclass(frozen=True)
class Game(Generic[StateT]):
    positions: tuple[tuple[StateT, str], ...]
    """Each action in notation, with the state it was entered in."""


def played(rules: Ruleset[StateT, Any, Any], state: StateT, lines: Sequence[str]) -> Game[StateT]:
    """The actions applied in turn from `state`, each with the state before it."""
    positions = []
    for line in lines:
        positions.append((state, line))
        state = rules.apply(state, rules.parse_action(line)).state
    return Game(tuple(positions))


def entered(rules: Any, state: Any, line: str) -> None:
    """The action is offered word by word, and complete once whole."""
    words = line.split()
    for at, word in enumerate(words):
        offered = rules.next_words(state, words[:at])
        assert word in offered.words, f"{line!r}: {word!r} is not offered after {words[:at]}: {offered.words}"
    assert rules.next_words(state, words).complete, f"{line!r} is not complete"


def assert_legal(rules: Any, state: Any, words: Sequence[str]) -> None:
    """A start reported complete is an action the rules take."""
    action = rules.parse_action(" ".join(words))
    rules.legal(state, action)
    rules.apply(state, action)
