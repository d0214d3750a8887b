"""People over HTTP: every stable id in use is a person until a keeper registers, renames, links, merges and splits
them; every refusal answers its code and stores nothing; two stable ids merged rate as one person in the ratings
and the player statistics, and split back answer as if never merged; and a stable id seen only at a private game is
not shown to the public, nor its person."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from evo_ledger.app.ledger import Ledger
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import caught_up
from tests.helpers.tokens import bearer
from tests.helpers.toy_game import WHOLE_GAME

KEEPER = bearer(ADMIN)
NAMES = {"ann-a": "ann", "ann-b": "anne", "ben-1": "ben", "secret-1": "sam"}
STATISTICS = ("/v1/statistics/ratings", "/v1/statistics/players", "/v1/statistics/profiles")


def toy_game(client: TestClient, first: str, second: str) -> str:
    """A whole toy game between two stable ids, which the first seat wins."""
    players = [{"name": NAMES[first], "id": first}, {"name": NAMES[second], "id": second}]
    created = client.post("/v1/games", json={"kit": "toy-2p", "players": players})
    assert created.status_code == 201, created.text
    game: str = created.json()["game_id"]
    recorder = bearer(created.json()["recorder_token"])
    renamed = {"ann": NAMES[first], "ben": NAMES[second]}
    actions = [f"{renamed[action.split()[0]]} {action.split(' ', 1)[1]}" for action in WHOLE_GAME]
    recorded = client.post(f"/v1/games/{game}/actions", json={"actions": actions}, headers=recorder)
    assert recorded.status_code == 200, recorded.text
    return game


def people(client: TestClient, **params: str) -> dict[str, dict[str, Any]]:
    answer = client.get("/v1/people", params=params)
    assert answer.status_code == 200, answer.text
    return {person["person_id"]: person for person in answer.json()["people"]}


def changed(client: TestClient, method: str, path: str, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    answer = client.request(method, path, json=body, headers=KEEPER)
    assert answer.status_code == status, answer.text
    found: dict[str, Any] = answer.json()
    return found


def log_length(client: TestClient) -> int:
    ledger: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
    return ledger.store.recorder.max_notification_id() or 0


def statistics(client: TestClient) -> dict[str, list[dict[str, Any]]]:
    """The ratings and the player statistics of the toy's games, once the read tables have followed the log."""
    caught_up(client)
    answers = {path: client.get(path, params={"ruleset": "toy"}) for path in STATISTICS}
    assert all(answer.status_code == 200 for answer in answers.values())
    return {
        path: [row for row in answer.json()["rows"] if row.get("ruleset", "toy") == "toy"]
        for path, answer in answers.items()
    }


def test_a_keeper_registers_renames_links_merges_and_splits_people(client: TestClient) -> None:
    toy_game(client, "ann-a", "ben-1")
    toy_game(client, "ben-1", "ann-b")
    caught_up(client)
    seated = people(client)
    assert seated["ann-a"] == {
        "person_id": "ann-a",
        "name": "ann",
        "seat_ids": ["ann-a"],
        "games": 1,
        "merged_into": None,
        "recorded": False,
    }
    assert seated["ben-1"]["games"] == 2

    ann = changed(client, "POST", "/v1/people", {"name": "  Ann Example ", "link": ["ann-a"]}, 201)
    assert (ann["name"], ann["seat_ids"], ann["games"], ann["recorded"]) == ("Ann Example", ["ann-a"], 1, True)
    anne = changed(client, "PATCH", "/v1/people/ann-b", {"name": "Anne"})
    assert (anne["person_id"], anne["name"], anne["seat_ids"], anne["recorded"]) == ("ann-b", "Anne", ["ann-b"], True)
    joined = changed(client, "POST", "/v1/people/ann-b/merge", {"into": ann["person_id"]})
    assert (joined["person_id"], joined["seat_ids"], joined["games"]) == (ann["person_id"], ["ann-a", "ann-b"], 2)

    listed = people(client)
    assert ann["person_id"] in listed and not {"ann-a", "ann-b"} & set(listed)
    assert set(people(client, q="ANN-B")) == {ann["person_id"]}
    merged_away = client.get("/v1/people/ann-b").json()
    assert (merged_away["merged_into"], merged_away["seat_ids"], merged_away["name"]) == (ann["person_id"], [], "Anne")

    back = changed(client, "POST", f"/v1/people/{ann['person_id']}/split", {"seat_id": "ann-b"})
    assert (back["seat_ids"], back["games"]) == (["ann-a"], 1)
    again = client.get("/v1/people/ann-b").json()
    assert (again["name"], again["seat_ids"], again["merged_into"]) == ("Anne", ["ann-b"], None)


def test_every_refusal_answers_its_code_and_stores_nothing(client: TestClient) -> None:
    toy_game(client, "ann-a", "ben-1")
    caught_up(client)
    ann = changed(client, "POST", "/v1/people", {"name": "Ann", "link": ["ann-a"]}, 201)["person_id"]
    changed(client, "POST", "/v1/people/ben-1/merge", {"into": ann})
    ben_too = changed(client, "POST", "/v1/people", {"name": "Ben too"}, 201)["person_id"]
    refused = [
        ("POST", "/v1/people", {"name": "   "}, 422, "invalid_request"),
        ("POST", "/v1/people", {"name": "a" * 81}, 422, "invalid_request"),
        ("POST", "/v1/people", {"name": "tab\there"}, 422, "invalid_request"),
        ("POST", "/v1/people", {"name": "Ann again", "link": ["ann-a"]}, 409, "seat_id_linked"),
        ("PATCH", "/v1/people/nobody", {"name": "No One"}, 404, "unknown_person"),
        ("PATCH", f"/v1/people/{ben_too}", {"link": ["ben-1"]}, 409, "seat_id_linked"),
        ("PATCH", "/v1/people/ben-1", {"name": "Ben"}, 409, "person_merged"),
        ("POST", f"/v1/people/{ann}/merge", {"into": ann}, 422, "merge_into_itself"),
        ("POST", f"/v1/people/{ann}/merge", {"into": "nobody"}, 404, "unknown_person"),
        ("POST", "/v1/people/nobody/merge", {"into": ann}, 404, "unknown_person"),
        ("POST", f"/v1/people/{ben_too}/merge", {"into": "ben-1"}, 409, "person_merged"),
        ("POST", f"/v1/people/{ann}/merge", {"into": "ben-1"}, 409, "merge_cycle"),
        ("POST", "/v1/people/ben-1/merge", {"into": ben_too}, 409, "person_merged"),
        ("POST", f"/v1/people/{ann}/split", {"seat_id": "elsewhere"}, 409, "seat_id_not_linked"),
        ("POST", "/v1/people/ann-b/split", {"seat_id": "ann-b"}, 404, "unknown_person"),
        ("POST", f"/v1/people/{ben_too}/split", {"seat_id": ben_too}, 409, "own_seat_id"),
        ("POST", "/v1/people", {"name": "Ann", "links": []}, 422, "invalid_request"),
        ("POST", "/v1/people", {"name": "Ann", "link": ["a\u0000b"]}, 422, "invalid_request"),
        ("PATCH", f"/v1/people/{ben_too}", {"link": ["   "]}, 422, "invalid_request"),
        ("POST", f"/v1/people/{ann}/merge", {"into": "a\u0000b"}, 404, "unknown_person"),
        ("PATCH", "/v1/people/a%00b", {"name": "Ann"}, 404, "unknown_person"),
    ]
    before = log_length(client)
    for method, path, body, status, code in refused:
        answer = client.request(method, path, json=body, headers=KEEPER)
        assert (answer.status_code, answer.json()["code"]) == (status, code), (method, path, body, answer.text)
    merged_away = client.post(f"/v1/people/{ben_too}/merge", json={"into": "ben-1"}, headers=KEEPER)
    assert f"was merged into {ann!r}" in merged_away.json()["message"]
    for headers, status, code in (({}, 401, "token_required"), (bearer("not the admin"), 403, "token_refused")):
        answer = client.post("/v1/people", json={"name": "Someone"}, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code)
    assert log_length(client) == before


def test_two_stable_ids_merged_rate_as_one_and_split_back_answer_as_never_merged(client: TestClient) -> None:
    for first, second in (("ann-a", "ben-1"), ("ben-1", "ann-b"), ("ann-b", "ben-1"), ("ben-1", "ann-a")):
        toy_game(client, first, second)
    apart = statistics(client)
    assert {row["person_id"] for row in apart["/v1/statistics/ratings"]} == {"ann-a", "ann-b", "ben-1"}

    changed(client, "POST", "/v1/people/ann-b/merge", {"into": "ann-a"})
    together = statistics(client)
    rated = {row["person_id"]: row for row in together["/v1/statistics/ratings"]}
    assert set(rated) == {"ann-a", "ben-1"} and rated["ann-a"]["games"] == 4
    records = {row["person_id"]: row for row in together["/v1/statistics/players"]}
    assert (records["ann-a"]["games"], records["ann-a"]["wins"]) == (4, 2)
    profile = {row["person_id"]: row for row in together["/v1/statistics/profiles"]}["ann-a"]
    assert profile["rated_games"] == [1, 2, 3, 4] and profile["ratings"][-1] == rated["ann-a"]["ordinal"]

    changed(client, "POST", "/v1/people/ann-a/split", {"seat_id": "ann-b"})
    assert statistics(client) == apart


def test_a_stable_id_seen_only_at_a_private_game_is_not_shown_to_the_public(client: TestClient) -> None:
    toy_game(client, "ann-a", "ben-1")
    hidden = toy_game(client, "secret-1", "ben-1")
    made_private = client.put(f"/v1/games/{hidden}/privacy", json={"private": True}, headers=KEEPER)
    assert made_private.status_code == 200, made_private.text
    sam = changed(client, "POST", "/v1/people", {"name": "Sam Hidden", "link": ["secret-1"]}, 201)["person_id"]
    caught_up(client)

    public = people(client)
    assert "secret-1" not in public and sam not in public and public["ben-1"]["games"] == 1
    assert "secret-1" not in str(client.get("/v1/people", params={"q": "sec"}).json())
    for person in ("secret-1", sam):
        answer = client.get(f"/v1/people/{person}")
        assert (answer.status_code, answer.json()["code"]) == (404, "unknown_person")
    assert "Sam Hidden" not in client.get("/v1/tables/read_people.csv").text

    admin = client.get("/v1/people", headers=KEEPER).json()["people"]
    told = {person["person_id"]: person for person in admin}
    assert told[sam]["seat_ids"] == ["secret-1"] and told["ben-1"]["games"] == 2
    assert "Sam Hidden" in client.get("/v1/tables/read_people.csv", headers=KEEPER).text
