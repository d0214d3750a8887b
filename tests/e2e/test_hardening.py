"""Inputs that once answered 500 answer a 4xx with a machine-readable code, and the connection is kept; a
private game answers as an unknown one to those who may not see it."""

from __future__ import annotations

import uuid

from fastapi.testclient import TestClient

from tests.helpers.api import new_game
from tests.helpers.servers import ADMIN


def test_the_read_tables_position_on_an_empty_log_is_zero(client: TestClient) -> None:
    for path in ("/v1/projections", "/v1/statistics/games", "/v1/statistics/players"):
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        assert answer.json()["log_position"] == 0


def test_a_token_with_a_character_outside_ascii_is_refused_as_a_token(client: TestClient) -> None:
    game, _ = new_game(client)
    headers = [(b"authorization", "Bearer tökén".encode())]
    answer = client.get(f"/v1/games/{game}/state", headers=headers)
    assert answer.status_code == 200  # read as the public: the token is no one's
    appended = client.post(f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=headers)
    assert appended.status_code == 403 and appended.json()["code"] == "token_refused"


def test_a_last_event_id_that_is_no_decimal_number_is_refused(client: TestClient) -> None:
    game, _ = new_game(client)
    answer = client.get(f"/v1/games/{game}/stream", headers=[(b"last-event-id", "²".encode("latin-1"))])
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_request"


def test_an_action_with_an_integer_too_long_to_read_is_refused(client: TestClient) -> None:
    game, recorder = new_game(client)
    body = '{"actions": [{"kind": "bid", "player": "ann", "amount": ' + "9" * 5000 + ', "target": "eggs"}]}'
    headers = {**recorder, "Content-Type": "application/json"}
    answer = client.post(f"/v1/games/{game}/actions", content=body, headers=headers)
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_request", answer.text
    in_notation = client.post(
        f"/v1/games/{game}/actions", json={"actions": [f"ann bid {'9' * 5000} eggs"]}, headers=recorder
    )
    assert in_notation.status_code == 422 and in_notation.json()["code"] == "action_too_long", in_notation.text
    game_file = (
        f"ruleset evo2 1\nkit standin-e2-3p\nplayers ann ben cat\norder ann ben cat\nann bid {'9' * 5000} eggs\n"
    )
    imported = client.post("/v1/games/import", content=game_file, headers={"Content-Type": "text/plain"})
    assert imported.status_code == 422, imported.text
    column = client.post(
        f"/v1/games/{game}/actions", json={"actions": [f"ann bid 1 col{'9' * 4000}"]}, headers=recorder
    )
    assert column.status_code == 422, column.text
    assert client.get(f"/v1/games/{game}").status_code == 200  # the same connection goes on


def test_a_private_game_answers_as_an_unknown_one_to_a_reader_who_may_not_see_it(client: TestClient) -> None:
    game, _ = new_game(client)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    assert client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=admin).status_code == 200
    private, unknown = client.get(f"/v1/games/{game}/state"), client.get(f"/v1/games/{uuid.uuid4()}/state")
    assert (
        (private.status_code, private.json()["code"])
        == (unknown.status_code, unknown.json()["code"])
        == (
            404,
            "unknown_game",
        )
    )
    assert client.get(f"/v1/games/{game}/state", headers=admin).status_code == 200
    for path in (f"/v1/games/{game}", f"/v1/games/{game}/events", f"/v1/games/{game}/standings"):
        assert client.get(path).json()["code"] == "unknown_game", path
    stranger = {"Authorization": "Bearer a-guess"}
    appended = client.post(f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=stranger)
    assert (appended.status_code, appended.json()["code"]) == (404, "unknown_game")


def test_the_games_are_listed_a_page_at_a_time_with_a_cursor(client: TestClient) -> None:
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    made = [str(ledger.commands.create_game(None, "standin-e2-3p", ["ann", "ben", "cat"]).game_id) for _ in range(105)]
    first = client.get("/v1/games").json()
    assert [g["game_id"] for g in first["games"]] == made[:100] and first["next_cursor"]
    rest = client.get("/v1/games", params={"cursor": first["next_cursor"]}).json()
    assert [g["game_id"] for g in rest["games"]] == made[100:] and rest["next_cursor"] is None
    listed, cursor = [], None
    while True:
        page = client.get("/v1/games", params={"limit": 40, **({"cursor": cursor} if cursor else {})}).json()
        listed += [g["game_id"] for g in page["games"]]
        if (cursor := page["next_cursor"]) is None:
            break
    assert listed == made
    assert client.get("/v1/games", params={"limit": 0}).status_code == 422
    assert client.get("/v1/games", params={"cursor": "not-a-cursor"}).json()["code"] == "invalid_request"
