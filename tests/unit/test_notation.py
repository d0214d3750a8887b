"""Notation: every action's text form round-trips; game files and their errors name line and column."""

from __future__ import annotations

import pytest

from evo_ledger.game.notation import GameFileError, Header, format_game, format_result, parse_game
from evo_ledger.rules.base import Outcome, Standing
from evo_ledger.rules.evo2.actions import (
    Attack,
    Bid,
    Birth,
    DrawGene,
    Move,
    Pass,
    Remove,
    RevealClimate,
    Roll,
    SetOrder,
    format_action,
    parse_action,
)
from evo_ledger.rules.text import NotationError

HEADER = "ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben cat\n"
EXAMPLES = [
    ("order ann ben cat", SetOrder(("ann", "ben", "cat"))),
    ("climate cw2", RevealClimate("cw2")),
    ("climate meteorite", RevealClimate("meteorite")),
    ("draw thermo", DrawGene("thermo")),
    ("draw none", DrawGene(None)),
    ("ann bid 3 horns", Bid("ann", 3, "horns")),
    ("ben bid 0 card", Bid("ben", 0, "card")),
    ("cat bid 1 col3", Bid("cat", 1, "col3")),
    ("ann move B5 C5 D5", Move("ann", ("B5", "C5", "D5"))),
    ("ann attack C5 D5", Attack("ann", "C5", "D5")),
    ("roll horn++", Roll("horn++")),
    ("roll x", Roll("x")),
    ("ben birth E2", Birth("ben", "E2")),
    ("ben birth E2 from G1", Birth("ben", "E2", "G1")),
    ("cat pass", Pass("cat")),
    ("cat remove C1 B1", Remove("cat", ("C1", "B1"))),
]


@pytest.mark.parametrize(("text", "action"), EXAMPLES)
def test_every_action_round_trips_between_text_and_value(text: str, action: object) -> None:
    assert parse_action(text) == action
    assert format_action(parse_action(text)) == text


def test_extra_spaces_are_forgiven_but_the_canonical_form_has_single_spaces() -> None:
    assert format_action(parse_action("  ann   bid 3  horns ")) == "ann bid 3 horns"


@pytest.mark.parametrize(
    ("text", "column", "expected"),
    [
        ("roll h0rn", 6, "a die face"),
        ("ann jump B5", 5, "a verb"),
        ("ann bid three horns", 9, "a bid (a whole number)"),
        ("ann move B5", 12, "a space"),
        ("climate", 8, "a climate token"),
        ("ann pass now", 10, "the end of the action"),
        ("ann birth C4 to B4", 14, "'from'"),
        ("Ann pass", 1, "an action"),
    ],
)
def test_a_parse_error_names_the_column_and_what_was_expected(text: str, column: int, expected: str) -> None:
    with pytest.raises(NotationError) as caught:
        parse_action(text)
    assert caught.value.column == column
    assert caught.value.expected.startswith(expected)


def test_a_game_file_has_header_actions_comments_and_a_result() -> None:
    game = parse_game(
        "# a comment\n" + HEADER + "option affordable_bids=false\n\norder ann ben cat  # random\n"
        "result 1 ann 20/4, 1 ben 20/4, 3 cat 9/2\n"
    )
    assert game.header == Header("evo2", "1", "standin-e2-3p", None, ("ann", "ben", "cat"), {"affordable_bids": False})
    assert [(line.line, line.text) for line in game.actions] == [(7, "order ann ben cat")]
    assert game.result == (Standing(1, "ann", (20, 4)), Standing(1, "ben", (20, 4)), Standing(3, "cat", (9, 2)))
    assert game.result_line == 8


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        (HEADER + "order ann ben cat\nroll h0rn\n", 5, 6, "expected a die face"),
        (HEADER + "   ann  bid x card\n", 4, 13, "expected a bid"),
        ("kit standin-e2-3p\nplayers a b c\norder a b c\n", 1, 1, "expected a 'ruleset' line"),
        ("ruleset evo2\nkit k\nplayers a\n", 1, 1, "expected 'ruleset NAME VERSION'"),
        ("ruleset evo9 1\nkit k\nplayers a\n", 1, 1, "no ruleset 'evo9'"),
        ("ruleset evo2 7\nkit k\nplayers a\n", 1, 1, "recorded with 7"),
        (HEADER + "kit other\n", 4, 1, "more than one 'kit' line"),
        (HEADER + "order ann ben cat\nplayers x\n", 5, 1, "must come before the first action"),
        (HEADER + "result 1 ann 3/2\norder ann ben cat\n", 5, 1, "nothing may follow the result line"),
        (HEADER + "result 1 ann 3/2, first ben\n", 4, 19, "expected 'RANK PLAYER SCORE/SCORE'"),
        (HEADER + "option fast\n", 4, 1, "expected 'option NAME=VALUE'"),
        ("ruleset evo2 1\nkit standin-e2-3p md5:00\nplayers a\n", 2, 1, "expected 'kit NAME-OR-PATH"),
    ],
)
def test_game_file_errors_name_line_and_column(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(GameFileError) as caught:
        parse_game(text)
    assert (caught.value.line, caught.value.column) == (line, column)
    assert message in caught.value.message


def test_a_formatted_game_reads_back_the_same() -> None:
    header = Header("evo2", "1", "standin-e2-3p", "sha256:ab", ("ann", "ben", "cat"), {"affordable_bids": True})
    outcome = Outcome((Standing(1, "ben", (12, 3)), Standing(2, "ann", (7, 2))), ("mp", "dinosaurs"))
    text = format_game(header, ["order ann ben cat", "climate cw"], outcome, comments=["made in a test"])
    game = parse_game(text)
    assert game.header == header and game.result == outcome.standings
    assert [line.text for line in game.actions] == ["order ann ben cat", "climate cw"]
    assert text.splitlines()[-1] == format_result(outcome) == "result 1 ben 12/3, 2 ann 7/2"


REVISED = """ruleset evo2 1
kit standin-e2-3p
players ann ben cat
order ann ben cat
climate cw
climate acw
undo 1 (the wrong token)
climate zero
correct climate cw (it was clockwise)
note 3 the table argued about this token
"""


def test_revision_lines_leave_the_effective_actions_and_keep_every_entry_in_order() -> None:
    game = parse_game(REVISED)
    assert [line.text for line in game.actions] == ["order ann ben cat", "climate cw", "climate cw"]
    kinds = [getattr(entry, "kind", "action") for entry in game.entries]
    assert kinds == ["action", "action", "action", "undo", "action", "correct", "note"]
    assert [(r.count, r.text) for r in game.revisions] == [
        (1, "the wrong token"),
        (0, "it was clockwise"),
        (3, "the table argued about this token"),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("undo 9 (too many)", "3 actions stand, so 9 cannot be undone"),
        ("undo 1 no reason", "expected 'undo COUNT (REASON)'"),
        ("correct climate x (a bad token)", "expected a climate token"),
        ("note x a note", "expected 'note EVENT TEXT'"),
    ],
)
def test_a_revision_line_that_cannot_stand_is_refused_naming_its_line(line: str, message: str) -> None:
    with pytest.raises(GameFileError) as caught:
        parse_game(REVISED + line + "\n")
    assert caught.value.line == 11 and message in caught.value.message


def test_no_player_bears_the_name_of_a_revision_line() -> None:
    with pytest.raises(GameFileError, match="'note' cannot be a player's name"):
        parse_game("ruleset evo2 1\nkit standin-e2-3p\nplayers ann note cat\norder ann note cat\n")


def test_a_result_may_hold_negative_scores_where_points_go_below_zero_TR_03() -> None:
    game = parse_game("ruleset traits 1\nkit standin-traits\nplayers ann ben\nresult 1 ann -11, 1 ben -11\n")
    assert game.result is not None and [s.score for s in game.result] == [(-11,), (-11,)]
