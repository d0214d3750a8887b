"""The square-grid toy (`tests/grid_toy`, noughts and crosses), installed only through the rulesets' entry point
group: its rules [GT-01, GT-02, GT-03], and its board given as data (`evo_ledger.rules.boards`), a square a space at
its column and row, a tap on one entering its name, a mark a piece in its player's colour; plain values that JSON
writes, the same whatever the seat, since nothing is hidden."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

from evo_ledger.rules import get_ruleset, rulesets
from evo_ledger.rules.base import RuleViolation
from evo_ledger.rules.boards import SQUARE, BoardLayout
from evo_ledger.rules.contract import ALL_SEATS, Board, contract_problems, has, layout
from evo_ledger.rules.kits import load_kit
from tests.grid_toy.ruleset import GridRuleset, State

RULES = get_ruleset("grid")


def played(*actions: str) -> State:
    state: State = RULES.setup(load_kit("grid-3x3"), ["ann", "ben"], {})
    for text in actions:
        state = RULES.apply(state, RULES.parse_action(text)).state
    return state


def board(state: State, seat: str | None = None) -> BoardLayout:
    drawn = layout(RULES, state, seat)
    assert isinstance(drawn, BoardLayout)
    return drawn


def test_the_grid_toy_is_installed_through_its_entry_point_and_keeps_the_contract_with_a_board() -> None:
    assert isinstance(rulesets()["grid"], GridRuleset)
    assert contract_problems(RULES) == [] and has(RULES, Board)


def test_the_board_is_a_square_grid_a_space_a_square_with_a_tap_entering_its_name() -> None:
    drawn = board(played())
    assert drawn.grid == SQUARE and not drawn.pieces and not drawn.legend and not drawn.groups
    assert [(space.id, space.x, space.y) for space in drawn.spaces[:4]] == [
        ("a1", 0, 0),
        ("b1", 1, 0),
        ("c1", 2, 0),
        ("a2", 0, 1),
    ]
    assert len(drawn.spaces) == 9 and all(space.tap == space.id == space.label for space in drawn.spaces)
    assert drawn.owners == ("ann", "ben")


def test_each_mark_is_a_piece_of_its_player_with_x_or_o_on_it_and_the_board_is_json() -> None:
    drawn = board(played("ann mark b2", "ben mark a1", "ann mark c3"))
    assert [(piece.space, piece.owner, piece.label) for piece in drawn.pieces] == [
        ("b2", "ann", "X"),
        ("a1", "ben", "O"),
        ("c3", "ann", "X"),
    ]
    written = json.loads(json.dumps(asdict(drawn)))
    assert written["spaces"][4] == {
        "id": "b2",
        "x": 1,
        "y": 1,
        "label": "b2",
        "fill": "#f4efe1",
        "title": "",
        "edges": [],
        "tap": "b2",
        "tags": {},
    }


def test_nothing_is_hidden_so_every_seat_is_drawn_the_same_board() -> None:
    state = played("ann mark b2", "ben mark a1")
    assert board(state, None) == board(state, "ann") == board(state, "ben") == board(state, ALL_SEATS)


def test_players_mark_in_turn_GT_01() -> None:
    with pytest.raises(RuleViolation, match=r"\[GT-01\] it is ann's turn, not ben's"):
        played("ben mark b2")


def test_a_marked_square_is_not_marked_again_GT_02() -> None:
    with pytest.raises(RuleViolation, match=r"\[GT-02\] b2 is marked already"):
        played("ann mark b2", "ben mark b2")


def test_a_line_wins_and_nothing_follows_a_full_grid_without_one_is_drawn_GT_03() -> None:
    won = played("ann mark a1", "ben mark a2", "ann mark b1", "ben mark b2", "ann mark c1")
    outcome = RULES.outcome(won)
    assert outcome is not None and outcome.winners == ("ann",)
    assert list(RULES.legal_actions(won)) == []
    with pytest.raises(RuleViolation, match=r"\[GT-03\]"):
        RULES.apply(won, RULES.parse_action("ben mark c3"))
    drawn = played(
        "ann mark a1",
        "ben mark b1",
        "ann mark c1",
        "ben mark b2",
        "ann mark a2",
        "ben mark c2",
        "ann mark b3",
        "ben mark a3",
        "ann mark c3",
    )
    outcome = RULES.outcome(drawn)
    assert outcome is not None and outcome.winners == ("ann", "ben")
