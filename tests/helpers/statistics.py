"""Games imported for the statistics tests, and an append that waits until the read tables include it."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.helpers.api import HAND_GAME, new_game

WAIT = {"wait_for_projections": 20}


def import_hand_game(client: TestClient, text: str = HAND_GAME) -> str:
    answer = client.post("/v1/games/import", content=text, headers={"Content-Type": "text/plain"})
    assert answer.status_code == 201, answer.text
    game: str = answer.json()["game_id"]
    return game


def caught_up(client: TestClient) -> None:
    game, recorder = new_game(client)
    answer = client.post(
        f"/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=recorder, params=WAIT
    )
    assert answer.headers["Evo-Projections"] == "caught-up"
