"""Personal data kept so that erasure makes it unreadable: seats stored under labels, handles entered and shown
as the rules and readers expect, typed text sealed, an erased stable id given to no seat again, and sealed text
entering by no other way than the ledger's own sealing."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from evo_ledger.app.ledger import AppendRequest, Ledger
from evo_ledger.app.personal import ErasedSeatId, LabelShapedHandle, as_csv_field, game_owner
from evo_ledger.app.transfer import game_from_notation
from evo_ledger.game.labels import is_label, readings
from evo_ledger.game.notation import GameFileError
from tests.helpers.api import client_for
from tests.helpers.shown import shown
from tests.helpers.tokens import bearer

OPENING = ["order eggs ben cat", "climate cw", "draw legs", "draw eggs"]


@pytest.fixture
def api(database: str) -> Iterator[TestClient]:
    with client_for(database) as client:
        yield client


def test_a_handle_spelt_as_a_word_of_the_notation_is_read_where_the_rules_take_it(ledger: Ledger) -> None:
    receipt = ledger.commands.create_game(None, "standin-e2-3p", ["eggs", "ben", "cat"])
    ledger.commands.record(receipt.game_id, [*OPENING, "eggs bid 2 eggs"])
    game = ledger.queries.game(receipt.game_id)
    eggs = game.player_names[0]
    assert [entry[1] for entry in game.history][-2:] == ["draw eggs", f"{eggs} bid 2 eggs"]
    assert list(readings("eggs bid 2 eggs", {"eggs": eggs})) == [
        f"{eggs} bid 2 {eggs}",
        f"{eggs} bid 2 eggs",
        f"eggs bid 2 {eggs}",
        "eggs bid 2 eggs",
    ]


def test_a_label_that_begins_a_sentence_is_shown_as_its_handle_with_a_capital(ledger: Ledger) -> None:
    receipt = ledger.commands.create_game(None, "standin-e2-3p", ["ann", "ben", "cat"])
    ann = ledger.queries.game(receipt.game_id).player_names[0]
    assert shown(ledger, f"{ann.capitalize()} rolls 6; {ann} moves") == "Ann rolls 6; ann moves"


def test_a_handle_shaped_as_a_label_is_refused_at_the_table_and_in_a_game_file(ledger: Ledger) -> None:
    with pytest.raises(LabelShapedHandle, match="anonabcdefgh"):
        ledger.commands.create_game(None, "standin-e2-3p", ["anonabcdefgh", "ben", "cat"])
    with pytest.raises(GameFileError, match="erased"):
        game_from_notation("ruleset evo2 1\nkit standin-e2-3p\nplayers anonabcdefgh ben cat\n")


def test_an_erased_stable_id_is_given_to_no_seat_again_and_an_erased_handle_is_a_new_player(ledger: Ledger) -> None:
    first = ledger.commands.create_game(None, "standin-e2-3p", [("zorqa", "zq-1"), "ben", "cat"])
    plain = ledger.commands.create_game(None, "standin-e2-3p", ["zorqa", "ben", "cat"])
    before = ledger.queries.game(plain.game_id).players[0]
    for seat_id in ("zq-1", before["id"]):
        ledger.people.erase(ledger.people.register("Zorqa", [seat_id]).person_id)

    with pytest.raises(ErasedSeatId, match="zq-1"):
        ledger.commands.create_game(None, "standin-e2-3p", [("zorqa", "zq-1"), "ben", "cat"])
    again = ledger.queries.game(ledger.commands.create_game(None, "standin-e2-3p", ["zorqa", "ben", "cat"]).game_id)

    assert again.players[0]["id"] != before["id"] and again.players[0]["name"] != before["name"]
    assert shown(ledger, again.players[0]["name"]) == "zorqa"
    assert is_label(shown(ledger, before["name"])) and is_label(
        shown(ledger, ledger.queries.game(first.game_id).players[0]["name"])
    )


def test_typed_text_is_stored_sealed_and_one_sealed_text_is_one_field_of_a_table(ledger: Ledger) -> None:
    receipt = ledger.commands.create_game(None, "standin-e2-3p", ["ann", "ben", "cat"])
    ledger.commands.annotate(receipt.game_id, 1, 'ann said "no", twice')
    [(_, stored)] = ledger.queries.game(receipt.game_id).annotations
    assert "ann" not in stored and stored == ledger.store.personal.seal(
        game_owner(receipt.game_id), 'ann said "no", twice'
    )
    assert ledger.store.personal.render(stored, as_csv_field) == '"ann said ""no"", twice"'


@pytest.mark.parametrize(
    "written",
    [
        lambda sealed: json.dumps({"event": 1, "text": sealed}).encode(),
        lambda sealed: json.dumps({"event": 1, "text": sealed}).replace("~", "\\u007e").encode(),
        lambda sealed: json.dumps({"event": 1, "text": sealed}).encode("utf-16"),
    ],
    ids=["as it is", "escaped", "utf-16"],
)
def test_a_request_holding_sealed_text_is_refused_however_it_is_written(api: TestClient, written: object) -> None:
    created = api.post(
        "/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")]}
    )
    game, recorder = created.json()["game_id"], bearer(created.json()["recorder_token"])
    ledger: Ledger = api.app.state.ledger  # type: ignore[attr-defined]
    sealed = ledger.store.personal.seal(game_owner(game), "a note of another game")
    body = written(sealed)  # type: ignore[operator]
    answer = api.post(f"/v1/games/{game}/notes", content=body, headers={**recorder, "Content-Type": "application/json"})
    assert answer.status_code == 422 and answer.json()["code"] == "sealed_text_given", answer.text
    listed = api.get("/v1/games", params={"player": sealed})
    assert listed.status_code == 422 and listed.json()["code"] == "sealed_text_given"
    assert len(api.get(f"/v1/games/{game}/events").json()["events"]) == 1


def test_a_seats_token_appends_no_other_players_action_however_its_handles_are_read(api: TestClient) -> None:
    players = [{"name": name} for name in ("eggs", "ben", "cat")]
    created = api.post("/v1/games", json={"kit": "standin-e2-3p", "players": players, "seat_tokens": True}).json()
    game, recorder = created["game_id"], bearer(created["recorder_token"])
    assert api.put(f"/v1/games/{game}/seats-record", json={"allowed": True}, headers=recorder).status_code == 200
    assert api.post(f"/v1/games/{game}/actions", json={"actions": OPENING}, headers=recorder).status_code == 200
    ben = bearer(created["seat_tokens"]["ben"])

    refused = api.post(f"/v1/games/{game}/actions", json={"actions": ["eggs bid 2 eggs"]}, headers=ben)
    recorded = api.post(f"/v1/games/{game}/actions", json={"actions": ["eggs bid 2 eggs"]}, headers=recorder)
    own = api.post(f"/v1/games/{game}/actions", json={"actions": ["ben bid 3 eggs"]}, headers=ben)

    assert (refused.status_code, refused.json()["code"]) == (403, "not_own_action"), refused.text
    assert recorded.status_code == 200 and own.status_code == 200, own.text
    events = api.get(f"/v1/games/{game}/events").json()["events"]
    notations = [event["fields"]["notation"] for event in events if "notation" in event["fields"]]
    assert notations[-2:] == ["eggs bid 2 eggs", "ben bid 3 eggs"]


def test_a_refusal_quoting_what_a_request_said_opens_no_sealed_text(api: TestClient) -> None:
    players = [{"name": name} for name in ("ann", "ben", "cat")]
    created = api.post("/v1/games", json={"kit": "standin-e2-3p", "players": players}).json()
    game = created["game_id"]
    ledger: Ledger = api.app.state.ledger  # type: ignore[attr-defined]
    sealed = ledger.store.personal.seal(game_owner(game), "a note of a private game")
    echoed = api.get(f"/v1/games/{game}/stream", headers={"Last-Event-ID": sealed})
    assert echoed.status_code == 422 and "private game" not in echoed.text
    twice = api.post(
        f"/v1/games/{game}/notes",
        content=json.dumps({"event": 1, "text": "x"}).encode(),
        headers=[("Content-Type", "application/json"), ("Content-Type", "application/msgpack")],
    )
    assert twice.status_code == 400 and twice.json()["code"] == "invalid_request"


def test_an_action_given_as_data_reads_its_handles_where_the_rules_take_them(ledger: Ledger) -> None:
    receipt = ledger.commands.create_game(None, "standin-e2-3p", ["eggs", "ben", "cat"])
    bid: dict[str, object] = {"kind": "bid", "player": "eggs", "amount": 2, "target": "eggs"}
    ledger.commands.record(receipt.game_id, OPENING)
    ledger.commands.record_many([AppendRequest(receipt.game_id, [bid])])
    game = ledger.queries.game(receipt.game_id)
    assert game.history[-1][1] == f"{game.player_names[0]} bid 2 eggs"


def test_erasing_a_person_erases_the_names_of_everyone_merged_into_them_at_any_depth(ledger: Ledger) -> None:
    people = ledger.people
    first, second, third = (people.register(name, [f"m-{n}"]) for n, name in enumerate(("Ann A", "Ben B", "Cat C")))
    people.merge(third.person_id, second.person_id)
    people.merge(second.person_id, first.person_id)
    people.erase(first.person_id)
    for person in (first, second, third):
        stored = people.person(person.person_id)
        assert stored is not None and stored.name is not None and shown(ledger, stored.name) == "[erased]"
