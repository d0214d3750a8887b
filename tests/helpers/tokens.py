"""A game with its recorder's headers and token, for the tests of who may record, correct and read."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.helpers.api import PLAYERS


def new_game(client: TestClient) -> tuple[str, dict[str, str], dict[str, str]]:
    """A game with seat tokens: its id, the recorder's headers and ann's."""
    body = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS, "seat_tokens": True}).json()
    return body["game_id"], bearer(body["recorder_token"]), bearer(body["seat_tokens"]["ann"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
