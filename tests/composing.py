"""What the composers' tests share: a game's actions, each with the state it was entered in."""

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
