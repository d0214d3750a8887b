"""People over HTTP: every stable id in use is a person until a keeper registers, renames, links, merges and splits
them; every refusal answers its code and stores nothing; two stable ids merged rate as one person in the ratings
and the player statistics, and split back answer as if never merged, a registered person's merge as a chain of
merges undone a step at a time; a stable id seen only at a private game is not shown to the public, nor its person,
nor a name it sat under there, and no merge makes it shown; a competition's organiser keeps the people seated at
its games that every reader sees and no other, told of a stable id seen only at a private game as of one no seat
has; and a withdrawn game seats no one in the list of people."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.people import PERSON_TOPICS
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import caught_up
from tests.helpers.tokens import bearer
from tests.helpers.toy_game import WHOLE_GAME

KEEPER = bearer(ADMIN)
NAMES = {"ann-a": "ann", "ann-b": "anne", "ben-1": "ben", "cat-1": "cat", "secret-1": "sam", "bot-1": "bot"}
STATISTICS = ("/v1/statistics/ratings", "/v1/statistics/players", "/v1/statistics/profiles")


def toy_game(client: TestClient, first: str, second: str, private: bool = False) -> str:
    """A whole toy game between two stable ids, each under its name in NAMES, which the first seat wins."""
    return game_as(client, (NAMES[first], first), (NAMES[second], second), private)


def game_as(client: TestClient, first: tuple[str, str], second: tuple[str, str], private: bool = False) -> str:
    """A whole toy game between two seats (each a name and a stable id), which the first wins: made private first,
    where `private`."""
    players = [{"name": name, "id": seat_id} for name, seat_id in (first, second)]
    created = client.post("/v1/games", json={"kit": "toy-2p", "players": players})
    assert created.status_code == 201, created.text
    game: str = created.json()["game_id"]
    recorder = bearer(created.json()["recorder_token"])
    if private:
        made_private = client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=KEEPER)
        assert made_private.status_code == 200, made_private.text
    renamed = {"ann": first[0], "ben": second[0]}
    actions = [f"{renamed[action.split()[0]]} {action.split(' ', 1)[1]}" for action in WHOLE_GAME]
    recorded = client.post(f"/v1/games/{game}/actions", json={"actions": actions}, headers=recorder)
    assert recorded.status_code == 200, recorded.text
    return game


def people(client: TestClient, **params: str) -> dict[str, dict[str, Any]]:
    answer = client.get("/v1/people", params=params)
    assert answer.status_code == 200, answer.text
    return {person["person_id"]: person for person in answer.json()["people"]}


def changed(
    client: TestClient,
    method: str,
    path: str,
    body: dict[str, Any],
    status: int = 200,
    headers: dict[str, str] = KEEPER,
) -> dict[str, Any]:
    """A keeper's change (the admin's, unless `headers` name another), answered with `status`: its answer."""
    answer = client.request(method, path, json=body, headers=headers)
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
        "erased": False,
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


def ledger_of(client: TestClient) -> Ledger:
    ledger: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
    return ledger


def organiser_of(client: TestClient, *games: str) -> tuple[str, dict[str, str]]:
    """A competition opened by the admin, with the games added (by the admin, who may add a private one): its id
    and its organiser's header."""
    opened = client.post("/v1/competitions", json={"kind": "night", "name": "Tuesday"}, headers=KEEPER)
    assert opened.status_code == 201, opened.text
    competition, organiser = opened.json()["competition_id"], bearer(opened.json()["organiser_token"])
    for game in games:
        added = client.post(f"/v1/competitions/{competition}/games", json={"game_id": game}, headers=KEEPER)
        assert added.status_code == 201, added.text
    return competition, organiser


def withdrawn_game(client: TestClient, first: str, second: str) -> str:
    """A whole toy game (`toy_game`), withdrawn by the admin."""
    game = toy_game(client, first, second)
    withdrawn = client.post(f"/v1/games/{game}/withdraw", json={"reason": "a test game"}, headers=KEEPER)
    assert withdrawn.status_code == 200, withdrawn.text
    return game


def public_text(client: TestClient) -> str:
    """Everything the public reads of the people and of the toy's statistics, as one text."""
    caught_up(client)
    paths = ["/v1/people", *STATISTICS, "/v1/tables/read_people.csv", "/v1/tables/read_person_seats.csv"]
    answers = [client.get(path, params={"ruleset": "toy"} if path in STATISTICS else {}) for path in paths]
    assert all(answer.status_code == 200 for answer in answers)
    return "\n".join(answer.text for answer in answers)


def test_an_organiser_keeps_the_people_seated_at_its_competitions_games_that_every_reader_sees(
    client: TestClient,
) -> None:
    kept = toy_game(client, "ann-a", "ben-1")
    toy_game(client, "ann-b", "cat-1")
    hidden = toy_game(client, "secret-1", "ben-1", private=True)
    dropped = withdrawn_game(client, "bot-1", "ben-1")
    caught_up(client)
    competition, organiser = organiser_of(client, kept, hidden, dropped)
    _, stranger = organiser_of(client)
    refused = [
        (stranger, "PATCH", "/v1/people/ann-a", {"name": "Vandal"}, 403, "not_your_people", "'ann-a'"),
        (stranger, "POST", "/v1/people/ben-1/merge", {"into": "ann-a"}, 403, "not_your_people", "'ben-1'"),
        (stranger, "POST", "/v1/people", {"name": "Nobody", "link": ["ann-a"]}, 403, "not_your_people", "'ann-a'"),
        (organiser, "POST", "/v1/people", {"name": "Anne", "link": ["ann-b"]}, 403, "not_your_people", "'ann-b'"),
        (organiser, "PATCH", "/v1/people/ann-b", {"name": "Anne"}, 403, "not_your_people", "'ann-b'"),
        (organiser, "PATCH", "/v1/people/ann-a", {"link": ["ann-b"]}, 403, "not_your_people", "'ann-b'"),
        (organiser, "POST", "/v1/people/ann-b/merge", {"into": "ann-a"}, 403, "not_your_people", "'ann-b'"),
        (organiser, "POST", "/v1/people/ann-a/merge", {"into": "cat-1"}, 403, "not_your_people", "'cat-1'"),
        (organiser, "PATCH", "/v1/people/ben-1", {"link": ["secret-1"]}, 404, "unknown_person", "'secret-1'"),
        (organiser, "PATCH", "/v1/people/ben-1", {"link": ["bot-1"]}, 404, "unknown_person", "'bot-1'"),
    ]
    before = log_length(client)
    for headers, method, path, body, status, code, named in refused:
        answer = client.request(method, path, json=body, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code), (method, path, body, answer.text)
        assert named in answer.json()["message"], answer.text
    assert log_length(client) == before

    ann = changed(client, "POST", "/v1/people", {"name": "Ann Smith", "link": ["ann-a"]}, 201, organiser)
    changed(client, "PATCH", "/v1/people/ben-1", {"name": "Ben Jones"}, headers=organiser)
    joined = changed(client, "POST", "/v1/people/ben-1/merge", {"into": ann["person_id"]}, headers=organiser)
    assert joined["seat_ids"] == ["ann-a", "ben-1"]
    changed(client, "PATCH", "/v1/people/cat-1", {"name": "Cat"})
    ledger = ledger_of(client)
    keepers = {record.person_id: record.changed_by for record in ledger.people.records()}
    assert keepers == {
        ann["person_id"]: f"organiser:{competition}",
        "ben-1": f"organiser:{competition}",
        "cat-1": "admin",
    }
    stored: list[Any] = [
        ledger.store.mapper.to_domain_event(n) for n in ledger.queries.notifications_after(0, PERSON_TOPICS)
    ]
    assert {event.by for event in stored if event.person_id != "cat-1"} == {f"organiser:{competition}"}


def test_an_organiser_is_told_of_a_stable_id_seen_only_at_private_games_as_of_one_no_seat_has(
    client: TestClient,
) -> None:
    kept = toy_game(client, "ann-a", "ben-1")
    toy_game(client, "secret-1", "ben-1", private=True)
    caught_up(client)
    changed(client, "PATCH", "/v1/people/ann-a", {"link": ["secret-1"]})
    _, organiser = organiser_of(client, kept)
    probes: list[tuple[str, str, Callable[[str], dict[str, Any]]]] = [
        ("PATCH", "/v1/people/ben-1", lambda seat_id: {"link": [seat_id]}),
        ("POST", "/v1/people", lambda seat_id: {"name": "Sam", "link": [seat_id]}),
        ("POST", "/v1/people/ann-a/split", lambda seat_id: {"seat_id": seat_id}),
    ]
    before = log_length(client)
    for method, path, body in probes:
        secret = client.request(method, path, json=body("secret-1"), headers=organiser)
        never = client.request(method, path, json=body("never-sat"), headers=organiser)
        assert (secret.status_code, secret.json()["code"]) == (404, "unknown_person"), secret.text
        assert secret.json()["message"] == never.json()["message"].replace("never-sat", "secret-1")
    renamed = client.patch("/v1/people/ann-a", json={"name": "Ann"}, headers=organiser)
    assert (renamed.status_code, renamed.json()["code"]) == (403, "not_your_people")
    assert "secret-1" not in renamed.text
    assert log_length(client) == before


def test_a_record_a_change_makes_is_named_as_its_stable_id_sat_where_each_reader_is_told_of_it(
    client: TestClient,
) -> None:
    game_as(client, ("pat", "pub-1"), ("ben", "ben-1"))
    game_as(client, ("secretname", "pub-1"), ("ben", "ben-1"), private=True)
    caught_up(client)
    linked = changed(client, "PATCH", "/v1/people/pub-1", {"link": ["pub-2"]})
    assert (linked["name"], linked["recorded"]) == ("secretname", True)  # the admin is told of the private game
    assert people(client)["pub-1"]["name"] == "pat"
    assert client.get("/v1/people/pub-1").json()["name"] == "pat"
    assert "secretname" not in public_text(client)
    assert "secretname" in client.get("/v1/tables/read_game_players.csv", headers=KEEPER).text


def test_a_merge_split_back_names_the_person_as_never_merged_also_after_a_game_under_a_new_name(
    client: TestClient,
) -> None:
    game_as(client, ("ann", "ann-a"), ("ben", "ben-1"))
    caught_up(client)
    changed(client, "POST", "/v1/people/ann-a/merge", {"into": "ben-1"})
    changed(client, "POST", "/v1/people/ben-1/split", {"seat_id": "ann-a"})
    game_as(client, ("annie", "ann-a"), ("ben", "ben-1"))
    rows = statistics(client)
    ratings = {row["person_id"]: row["name"] for row in rows["/v1/statistics/ratings"]}
    players = {row["person_id"]: row["name"] for row in rows["/v1/statistics/players"]}
    assert ratings["ann-a"] == players["ann-a"] == people(client)["ann-a"]["name"] == "annie"
    assert (ratings["ben-1"], client.get("/v1/people/ann-a").json()["name"]) == ("ben", "annie")


def test_a_merge_into_a_person_no_public_game_shows_is_refused_and_the_other_way_shows_nothing_private(
    client: TestClient,
) -> None:
    NAMES.update({"pub-1": "pat", "priv-1": "quinn"})
    toy_game(client, "pub-1", "ben-1")
    toy_game(client, "priv-1", "ben-1", private=True)
    toy_game(client, "secret-1", "ben-1", private=True)
    caught_up(client)
    quinn = changed(client, "POST", "/v1/people", {"name": "Quinn Q", "link": ["secret-1"]}, 201)["person_id"]
    before = log_length(client)
    for into in ("priv-1", quinn):
        answer = client.post("/v1/people/pub-1/merge", json={"into": into}, headers=KEEPER)
        assert (answer.status_code, answer.json()["code"]) == (409, "person_private"), answer.text
        assert "'pub-1' instead" in answer.json()["message"]
    assert log_length(client) == before

    changed(client, "POST", "/v1/people/priv-1/merge", {"into": "pub-1"})
    changed(client, "POST", f"/v1/people/{quinn}/merge", {"into": "pub-1"})
    shown = public_text(client)
    assert all(text not in shown for text in ("priv-1", "quinn", "secret-1", "sam"))
    assert client.get("/v1/people/priv-1").status_code == 404
    merged = client.get(f"/v1/people/{quinn}").json()  # the name a keeper gave, shown with whom it was merged into
    assert (merged["merged_into"], merged["seat_ids"], merged["name"]) == ("pub-1", [], "Quinn Q")
    assert client.get("/v1/people/pub-1", headers=KEEPER).json()["seat_ids"] == ["pub-1", "priv-1", "secret-1"]


def test_a_person_merged_into_one_the_public_is_not_shown_is_not_shown_either(client: TestClient) -> None:
    toy_game(client, "ann-a", "ben-1")
    toy_game(client, "secret-1", "ben-1", private=True)
    caught_up(client)
    sam = changed(client, "POST", "/v1/people", {"name": "Sam Hidden", "link": ["secret-1"]}, 201)["person_id"]
    someone = changed(client, "POST", "/v1/people", {"name": "Someone"}, 201)["person_id"]
    changed(client, "POST", f"/v1/people/{sam}/merge", {"into": someone})
    for person in (sam, someone):
        answer = client.get(f"/v1/people/{person}")
        assert (answer.status_code, answer.json()["code"]) == (404, "unknown_person")
    assert client.get(f"/v1/people/{sam}", headers=KEEPER).json()["merged_into"] == someone
    assert "Sam Hidden" not in public_text(client)


def test_the_people_table_as_csv_leaves_out_a_person_of_private_games_only_beside_people_with_linked_ids(
    client: TestClient,
) -> None:
    toy_game(client, "ann-a", "ben-1")
    toy_game(client, "secret-1", "ben-1", private=True)
    changed(client, "POST", "/v1/people", {"name": "Sam Hidden", "link": ["secret-1"]}, 201)
    changed(client, "POST", "/v1/people", {"name": "Ann Public", "link": ["ann-a"]}, 201)
    caught_up(client)
    public = client.get("/v1/tables/read_people.csv").text
    assert "Ann Public" in public and "Sam Hidden" not in public
    assert "Sam Hidden" in client.get("/v1/tables/read_people.csv", headers=KEEPER).text


def test_a_registered_persons_merge_split_back_a_stable_id_at_a_time_gives_them_back_as_never_merged(
    client: TestClient,
) -> None:
    toy_game(client, "ann-a", "ben-1")
    toy_game(client, "ben-1", "ann-b")
    ann = changed(client, "POST", "/v1/people", {"name": "Ann Smith", "link": ["ann-a", "ann-b"]}, 201)["person_id"]
    never_merged = statistics(client)
    changed(client, "POST", f"/v1/people/{ann}/merge", {"into": "ben-1"})
    first = changed(client, "POST", "/v1/people/ben-1/split", {"seat_id": "ann-a"})
    assert first["seat_ids"] == ["ben-1", "ann-b"]
    assert client.get(f"/v1/people/{ann}").json()["seat_ids"] == ["ann-a"]
    changed(client, "POST", "/v1/people/ben-1/split", {"seat_id": "ann-b"})
    back = client.get(f"/v1/people/{ann}").json()
    assert (back["name"], back["seat_ids"], back["merged_into"], back["games"]) == (
        "Ann Smith",
        ["ann-a", "ann-b"],
        None,
        2,
    )
    assert statistics(client) == never_merged


def test_a_withdrawn_game_seats_no_one_in_the_list_of_people(client: TestClient) -> None:
    toy_game(client, "ann-a", "ben-1")
    withdrawn_game(client, "bot-1", "ben-1")
    caught_up(client)
    for headers in ({}, KEEPER):
        listed = client.get("/v1/people", headers=headers).json()["people"]
        games = {person["person_id"]: person["games"] for person in listed}
        assert "bot-1" not in games and (games["ann-a"], games["ben-1"]) == (1, 1)
    answer = client.get("/v1/people/bot-1", headers=KEEPER)
    assert (answer.status_code, answer.json()["code"]) == (404, "unknown_person")


def test_a_stable_id_linked_to_another_person_is_answered_as_theirs_where_that_person_is_shown(
    client: TestClient,
) -> None:
    toy_game(client, "ann-a", "ben-1")
    toy_game(client, "secret-1", "ben-1", private=True)
    caught_up(client)
    ann = changed(client, "POST", "/v1/people", {"name": "Ann Smith", "link": ["ann-a"]}, 201)["person_id"]
    sam = changed(client, "POST", "/v1/people", {"name": "Sam", "link": ["secret-1"]}, 201)["person_id"]
    asked = [
        ("GET", "/v1/people/{}", None),
        ("PATCH", "/v1/people/{}", {"name": "Ann"}),
        ("POST", "/v1/people/{}/merge", {"into": "ben-1"}),
    ]
    for method, path, body in asked:
        answer = client.request(method, path.format("ann-a"), json=body, headers=KEEPER)
        assert (answer.status_code, answer.json()["code"]) == (404, "unknown_person"), answer.text
        assert f"stable id 'ann-a' belongs to person {ann!r}" in answer.json()["message"]
    told = client.get("/v1/people/secret-1", headers=KEEPER).json()["message"]
    untold = client.get("/v1/people/secret-1").json()["message"]
    assert f"belongs to person {sam!r}" in told
    assert untold == client.get("/v1/people/never-sat").json()["message"].replace("never-sat", "secret-1")
