"""Kits: loading, validation with errors that name the field, content hashes, the stand-in islands."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from evo_ledger.rules.hexisland.kit import parse_kit
from evo_ledger.rules.hexisland.kitmap import render_map
from evo_ledger.rules.kits import KitError, builtin_kit_names, load_kit
from tools.make_standin_kits import make_kit, render

KITS = resources.files("evo_ledger.rules.evo2") / "kits"


def standin(players: int = 3) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((KITS / f"standin-e2-{players}p.json").read_text())
    return document


def rejected(document: dict[str, Any]) -> str:
    with pytest.raises(KitError) as caught:
        parse_kit(document, label="test")
    return str(caught.value)


def test_there_is_a_stand_in_kit_for_2_to_5_players_each_marked_as_one() -> None:
    assert [name for name in builtin_kit_names() if "-e2-" in name] == [f"standin-e2-{n}p" for n in (2, 3, 4, 5)]
    for players in (2, 3, 4, 5):
        kit = load_kit(f"standin-e2-{players}p")
        assert kit.stand_in and kit.players == players and kit.edition == "evo2"
        assert sorted(kit.start_marks) == list(range(1, players + 1))
        assert all(len(marks) == 2 for marks in kit.start_marks.values())
        assert {s.terrain for s in kit.spaces.values()} == {"yellow", "green", "brown", "white"}


def test_start_marks_are_on_the_coast_E2_02() -> None:
    for name in builtin_kit_names():
        kit = load_kit(name)
        if not hasattr(kit, "start_marks"):
            continue  # a kit with no island
        assert all(kit.spaces[space].coast for marks in kit.start_marks.values() for space in marks)


def test_the_stand_in_files_are_what_the_generator_writes() -> None:
    for players in (2, 3, 4, 5):
        assert (KITS / f"standin-e2-{players}p.json").read_text() == render(make_kit(players))


def test_the_hash_ignores_formatting_but_not_content() -> None:
    document = standin()
    assert parse_kit(json.loads(json.dumps(document, indent=4))).content_hash == load_kit("standin-e2-3p").content_hash
    document["spaces"][0]["terrain"] = "green"
    assert parse_kit(document).content_hash != load_kit("standin-e2-3p").content_hash


def test_adjacency_and_distance_come_from_hex_coordinates() -> None:
    kit = load_kit("standin-e2-3p")
    assert kit.neighbours["C3"] == {"B2", "B3", "C2", "C4", "D2", "D3"}
    assert kit.distance("C3", "C3") == 0 and kit.distance("C3", "E4") == 2 and kit.distance("A1", "G2") == 6


def test_a_left_out_coast_is_derived_from_open_hex_sides() -> None:
    document = standin()
    for space in document["spaces"]:
        del space["coast"]
    derived = parse_kit(document)
    assert {s.id for s in derived.spaces.values() if s.coast} == {
        s.id for s in load_kit("standin-e2-3p").spaces.values() if s.coast
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["spaces"][1].update(id=d["spaces"][0]["id"]), "spaces[1].id: 'A1' is used by another space"),
        (lambda d: d["spaces"][0].update(terrain="purple"), "spaces[0].terrain: 'purple' is not one of"),
        (lambda d: d["spaces"][0].update(q=d["spaces"][1]["q"], r=d["spaces"][1]["r"]), "are already those of"),
        (lambda d: d["spaces"].append({"id": "Z9", "q": 9, "r": 9, "terrain": "yellow"}), "form 2 island(s)"),
        (lambda d: d["start_marks"].pop("3"), "start_marks: needs exactly the seats"),
        (lambda d: d["start_marks"].update({"3": ["B5", "C1"]}), "'B5' is already the start mark of seat 1"),
        (lambda d: d["start_marks"].update({"3": ["Q1"]}), "'Q1' is not a space of the island"),
        (lambda d: d["climate"]["positions"][0].pop("white"), "climate.positions[0]: must give a zone"),
        (lambda d: d["climate"]["positions"][0].update(white="lethal"), "'lethal' is not one of ideal, hot"),
        (lambda d: d["climate"].update(start=6), "climate.start: must be at most 5, got 6"),
        (lambda d: d["climate"]["tokens"].update(cw=-1), "climate.tokens.cw: must be at least 0"),
        (lambda d: d["genes"].update(unique_in_bag=13), "genes.unique_in_bag: must be at most 12"),
        (lambda d: d["genes"]["unique"].append("legs"), "['legs'] are also normal genes"),
        (lambda d: d.update(format=2), "format 2 is not supported"),
        (lambda d: d.pop("components"), "components: must be an object"),
    ],
)
def test_an_invalid_kit_is_refused_naming_the_field(change: Any, message: str) -> None:
    document = copy.deepcopy(standin())
    change(document)
    assert message in rejected(document)


def test_a_kit_may_declare_several_islands() -> None:
    document = standin()
    document["spaces"].append({"id": "Z9", "q": 9, "r": 9, "terrain": "yellow"})
    document["islands"] = 2
    assert "Z9" in parse_kit(document).spaces


def test_loading_an_unknown_kit_names_the_built_in_ones(tmp_path: Path) -> None:
    with pytest.raises(KitError, match=r"no such built-in kit .*standin-e2-3p"):
        load_kit("nowhere")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(KitError, match="not valid JSON"):
        load_kit(str(broken))


def test_the_map_shows_every_space_once() -> None:
    kit = load_kit("standin-e2-4p")
    picture = render_map(kit, {"C3": "@ann"})
    for space in kit.spaces:
        assert picture.count(f"{space}{kit.spaces[space].terrain[0]}") == 1
    assert "@ann" in picture
