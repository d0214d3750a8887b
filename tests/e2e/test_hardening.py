"""Inputs that once answered 500 answer a 4xx with a machine-readable code, and the connection is kept; a
private game answers as an unknown one to those who may not see it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.e2e.test_api import ADMIN, append, client_for, new_game


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with client_for(database) as test_client:
        yield test_client


def test_the_read_tables_position_on_an_empty_log_is_zero(client: TestClient) -> None:
    for path in ("/v1/projections", "/v1/statistics/games", "/v1/statistics/players"):
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        assert answer.json()["log_position"] == 0


def test_a_token_with_a_character_outside_ascii_is_refused_as_a_token(client: TestClient) -> None:
    game, _ = new_game(client)
    headers = [(b"authorization", "Bearer tökén".encode())]
    answer = client.get(f"/v1/games/{game}/state", headers=headers)  # type: ignore[arg-type]
    assert answer.status_code in (401, 403) and answer.json()["code"] in ("token_refused", "token_required")
    appended = client.post(f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=headers)  # type: ignore[arg-type]
    assert appended.status_code == 403 and appended.json()["code"] == "token_refused"


def test_a_last_event_id_that_is_no_decimal_number_is_refused(client: TestClient) -> None:
    game, _ = new_game(client)
    answer = client.get(f"/v1/games/{game}/stream", headers=[(b"last-event-id", "²".encode("latin-1"))])  # type: ignore[arg-type]
    assert answer.status_code == 422 and answer.json()["code"] == "invalid_request"


def test_an_action_with_an_integer_too_long_to_read_is_refused(client: TestClient) -> None:
    game, recorder = new_game(client)
    huge = {"kind": "bid", "player": "ann", "amount": int("9" * 5000), "target": "eggs"}
    answer = append(client, game, recorder, huge)
    assert answer.status_code == 422, answer.text
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
