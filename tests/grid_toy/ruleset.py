"""Noughts and crosses on a square grid: the contract's defaults (`BaseRuleset`), its rules, and a board given as data,
which the viewer and the recording page draw with no JavaScript of the ruleset's own. A square is named by its
column's letter and its row's number (`b2`); an action is a player marking a square (`ann mark b2`)."""

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from evo_ledger.rules.base import Outcome, RuleViolation, SetupError, StateView, Transition
from evo_ledger.rules.boards import SQUARE, BoardLayout, Piece, Space
from evo_ledger.rules.defaults import BaseRuleset, PlainKit, ranked

MARKS = ("X", "O")
SQUARE_COLOUR = "#f4efe1"


@dataclass(frozen=True)
class Mark:
    player: str
    square: str


@dataclass(frozen=True)
class State:
    kit: PlainKit
    players: tuple[str, ...]
    marked: tuple[str, ...] = ()
    """The squares marked, in the order they were: the first seat's, then the second's, in turn."""


class GridRuleset(BaseRuleset[State, Mark, PlainKit]):
    name = "grid"
    actions = (Mark,)
    facts = ("SquareMarked",)
    kit_counts = ("size",)
    score_labels = ("lines",)

    def setup(self, kit: PlainKit, players: Sequence[str], options: Mapping[str, Any]) -> State:
        if len(players) != kit.players or options:
            raise SetupError(f"kit {kit.name!r} seats {kit.players} players and takes no options")
        return State(kit, tuple(players))

    def legal(self, state: State, action: Mark) -> None:
        if over(state):
            raise RuleViolation("GT-03", "the game is over: nothing follows")
        if action.player != current(state):
            raise RuleViolation("GT-01", f"it is {current(state)}'s turn, not {action.player}'s")
        if action.square not in squares(state):
            raise RuleViolation(None, f"there is no square {action.square} on this grid")
        if action.square in state.marked:
            raise RuleViolation("GT-02", f"{action.square} is marked already")

    def apply(self, state: State, action: Mark) -> Transition[State]:
        self.legal(state, action)
        return Transition(replace(state, marked=(*state.marked, action.square)))

    def legal_actions(self, state: State) -> Iterator[Mark]:
        if not over(state):
            yield from (Mark(current(state), square) for square in squares(state) if square not in state.marked)

    def standings(self, state: State) -> Outcome:
        return ranked(((player, (int(player == winner(state)),)) for player in state.players), self.score_labels)

    def view(self, state: State) -> StateView:
        found, step = winner(state), "" if over(state) else f"{current(state)} to mark a square"
        headline = step or (f"{found} wins" if found else "a draw: every square is marked")
        players = tuple(f"{player}: {mark}" for player, mark in zip(state.players, MARKS, strict=False))
        round_number = 1 + len(state.marked) // len(state.players)
        return StateView(
            headline, players, owners(state), round=round_number, phase="over" if over(state) else "play", step=step
        )

    def layout(self, state: State, seat: str | None) -> BoardLayout:
        """The grid, a square each with its name on it, a tap on one entering its name; each mark a piece in its
        player's colour, with X or O on it. Nothing is hidden, whoever the `seat`."""
        marks = dict(zip(state.players, MARKS, strict=False))
        return BoardLayout(
            grid=SQUARE,
            spaces=tuple(map(grid_space, squares(state))),
            pieces=tuple(Piece(square, player, label=marks[player]) for square, player in owners(state).items()),
            owners=state.players,
        )


def grid_space(square: str) -> Space:
    """A square as the board draws it: at its column and row, its name on it, a tap entering its name."""
    column, row = ord(square[0]) - ord("a"), int(square[1:]) - 1
    return Space(square, column, row, label=square, fill=SQUARE_COLOUR, tap=square)


def squares(state: State) -> tuple[str, ...]:
    """Row by row from the top, each from the left: `a1 b1 c1 a2 ...`."""
    size = range(int(state.kit.values["size"]))
    return tuple(square_name(column, row) for row in size for column in size)


def square_name(column: int, row: int) -> str:
    return f"{chr(ord('a') + column)}{row + 1}"


def lines(size: int) -> Iterator[tuple[str, ...]]:
    """Every row, column and the two diagonals."""
    span = range(size)
    yield from (tuple(square_name(column, row) for column in span) for row in span)
    yield from (tuple(square_name(column, row) for row in span) for column in span)
    yield tuple(square_name(at, at) for at in span)
    yield tuple(square_name(at, size - 1 - at) for at in span)


def current(state: State) -> str:
    return state.players[len(state.marked) % len(state.players)]


def owners(state: State) -> dict[str, str]:
    """Each marked square's player, in the order they were marked."""
    return {square: state.players[turn % len(state.players)] for turn, square in enumerate(state.marked)}


def winner(state: State) -> str | None:
    marked = owners(state)
    for line in lines(int(state.kit.values["size"])):
        found = {marked.get(square) for square in line}
        if len(found) == 1 and None not in found:
            return marked[line[0]]
    return None


def over(state: State) -> bool:
    return winner(state) is not None or len(state.marked) == len(squares(state))
