"""The kit editor's naming and checking (`evo_ledger.rules.hexisland.drafts`): spaces named by column from the
leftmost and by place in the column from the top, as every shipped island kit names them; start marks follow the
spaces they name; a refusal names its field and the ruling it cites."""

from __future__ import annotations

import json

import pytest

from evo_ledger.rules.hexisland.drafts import checked, checked_json, column_letters, space_names
from evo_ledger.rules.kits import KitError, builtin_kit_names, load_kit_document


def test_spaces_are_named_by_column_from_the_left_and_place_from_the_top() -> None:
    names = space_names([(0, 0), (-1, 2), (-1, 1), (0, -3), (2, 5)])
    assert names == {(-1, 1): "A1", (-1, 2): "A2", (0, -3): "B1", (0, 0): "B2", (2, 5): "D1"}


def test_columns_past_z_take_two_letters() -> None:
    assert [column_letters(n) for n in (0, 25, 26, 27, 52)] == ["A", "Z", "AA", "AB", "BA"]


@pytest.mark.parametrize("name", [name for name in builtin_kit_names() if "spaces" in load_kit_document(name)[0]])
def test_every_shipped_hex_kit_is_named_by_the_scheme(name: str) -> None:
    document, _ = load_kit_document(name)
    answer = checked(document)
    assert answer["problems"] == []
    assert answer["document"] == document


def test_a_space_added_renames_its_column_and_the_start_marks_follow() -> None:
    document, _ = load_kit_document("standin-e2-2p")
    top = min(space["r"] for space in document["spaces"] if space["q"] == -2)
    marks_before = {space["id"]: (space["q"], space["r"]) for space in document["spaces"]}
    grown = {**document, "spaces": [{"id": "new", "q": -2, "r": top - 1, "terrain": "yellow"}, *document["spaces"]]}
    answer = checked(grown)
    named = {(space["q"], space["r"]): space["id"] for space in answer["document"]["spaces"]}
    assert named[(-2, top - 1)] == "A1"
    for seat, ids in document["start_marks"].items():
        assert answer["document"]["start_marks"][seat] == [named[marks_before[old]] for old in ids]
    assert answer["problems"] == []


def test_a_refusal_names_its_field_and_ruling() -> None:
    document, _ = load_kit_document("standin-e1-3p")
    answer = json.loads(checked_json(json.dumps({**document, "halves": ["half-1-small"]})))
    assert answer["problems"] == [
        {
            "field": "halves",
            "message": f"kit '{document['name']}': halves: the board is two half-boards [E1-01]",
            "ruling": "E1-01",
        }
    ]
    assert answer["kit_hash"] is None


def test_a_kit_error_keeps_its_message_and_names_its_field() -> None:
    error = KitError("kit 'ours': spaces[3].terrain: 'blue' is not one of yellow, green")
    assert (str(error), error.field) == (
        "kit 'ours': spaces[3].terrain: 'blue' is not one of yellow, green",
        "spaces[3].terrain",
    )
    assert KitError("kit 'ours': format 2 is not supported").field is None
