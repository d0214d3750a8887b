"""A game with its recorder's headers and token, for the tests of who may record, correct and read."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient

from evo_ledger.app.access import GameAccess, new_token, token_digest
from evo_ledger.app.ledger import Ledger
from tests.helpers.api import PLAYERS


def new_game(client: TestClient) -> tuple[str, dict[str, str], dict[str, str]]:
    """A game with seat tokens: its id, the recorder's headers and ann's."""
    body = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS, "seat_tokens": True}).json()
    return body["game_id"], bearer(body["recorder_token"]), bearer(body["seat_tokens"]["ann"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def co_recorder(client: TestClient, game: str, recorder: dict[str, str], name: str) -> tuple[int, dict[str, str]]:
    """A co-recorder the recorder adds: its id and its headers."""
    issued = client.post(f"/v1/games/{game}/co-recorders", json={"name": name}, headers=recorder)
    assert issued.status_code == 201, issued.text
    return issued.json()["id"], bearer(issued.json()["token"])


def co_recorder_stored_before_the_rule(client: TestClient, game: str, name: str) -> dict[str, str]:
    """A co-recorder under a name the rule on names now refuses (`a/b`, `..`), as a game stored before the rule
    holds it: its access event stored as such events always were. Its headers."""
    token = new_token()
    app: Any = client.app
    ledger: Ledger = app.state.ledger

    def add(access: GameAccess) -> None:
        access.trigger_event(GameAccess.CoRecorderAdded, name=name, token_digest=token_digest(token))

    ledger.commands.change_access(UUID(game), add)
    return bearer(token)
