"""Helpers shared by the tests: start a game, play actions in notation, shape a position directly."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from evo_ledger.rules.base import OptionValue, Transition
from evo_ledger.rules.evo2.ruleset import Evo2Ruleset
from evo_ledger.rules.evo2.state import State
from evo_ledger.rules.kit import load_kit

RULES = Evo2Ruleset()
ROOT = Path(__file__).resolve().parent.parent
TINY_KIT = str(ROOT / "tests" / "rulings" / "tiny-3p.json")
PLAYERS = ("ann", "ben", "cat")
# Round 1 to its movement phase: cat (card), ben (legs), ann (eggs) move in that order.
ROUND_ONE_AUCTION = (
    "order ann ben cat",
    "climate cw",
    "draw legs",
    "draw eggs",
    "ann bid 2 eggs",
    "ben bid 1 legs",
    "cat bid 0 card",
)


def new_game(
    kit: str = "standin-e2-3p", players: Iterable[str] = PLAYERS, options: Mapping[str, OptionValue] | None = None
) -> State:
    return RULES.setup(load_kit(kit), tuple(players), options or {})


def step(state: State, line: str) -> Transition[State]:
    return RULES.apply(state, RULES.parse_action(line))


def play(state: State, *lines: str) -> State:
    for line in lines:
        state = step(state, line).state
    return state


def kinds(transition: Transition[State]) -> list[str]:
    return [c.kind for c in transition.consequences]


def set_board(state: State, placement: Mapping[str, str]) -> State:
    """The same state with only the given dinosaurs on the board."""
    state = state.copy()
    state.board = dict(placement)
    return state
