"""The API in-process (a TestClient over a database, with the tests' admin token), the players of its games, and
the requests most of its tests make: a new game and an append."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from api import ApiSettings, create_app
from evo_ledger.settings import Settings
from tests.helpers.servers import ADMIN
from tests.helpers.support import ROOT

PLAYERS = [{"name": "ann"}, {"name": "ben"}, {"name": "cat", "id": "cat@club"}]
HAND_GAME = (ROOT / "replays" / "hand-3p-first-game.evo").read_text()
HELD_CARD = "Heatwave"


def client_for(database: str, **settings: Any) -> TestClient:
    return TestClient(create_app(ApiSettings(store=Settings(database), admin_token=ADMIN, **settings)))


def new_game(client: TestClient) -> tuple[str, dict[str, str]]:
    answer = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    return body["game_id"], {"Authorization": f"Bearer {body['recorder_token']}"}


def append(client: TestClient, game: str, headers: dict[str, str], *actions: str | dict[str, Any], **extra: Any) -> Any:
    return client.post(f"/v1/games/{game}/actions", json={"actions": list(actions), **extra}, headers=headers)
