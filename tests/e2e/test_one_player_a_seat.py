"""Each seat of a game is a different player: a game whose seats share a player's id is refused, whether it is
created, imported as a game file or as a bundle (its read-table rows are keyed by the player)."""

from __future__ import annotations

from uuid import uuid4

from fastapi.testclient import TestClient

from evo_ledger.game.aggregate import stored_hash
from evo_ledger.game.codec import pack, unpack
from tests.helpers.api import new_game


def test_a_game_whose_seats_share_a_player_id_is_refused(client: TestClient) -> None:
    players = [{"name": "ann", "id": "same"}, {"name": "ben", "id": "same"}, {"name": "cat"}]
    answer = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": players})
    assert answer.status_code == 422 and answer.json()["code"] == "setup_error", answer.text
    assert "share the player id 'same'" in answer.json()["message"]


def test_a_bundle_whose_seats_share_a_player_id_is_refused(client: TestClient) -> None:
    game, _ = new_game(client)
    bundle = unpack(client.get(f"/v1/games/{game}/export", params={"format": "bundle"}).content)
    topic, version, state = bundle["events"][0]
    started, other = unpack(state), str(uuid4())  # the game's setup, under another id, its seats one player
    started["players"] = [{**seat, "id": "same"} for seat in started["players"]]
    started["hash"] = stored_hash(topic, other, 1, started)
    forged = pack({**bundle, "game": other, "events": [[topic, version, pack(started)]]})
    answer = client.post("/v1/games/import", content=forged, headers={"Content-Type": "application/msgpack"})
    assert answer.status_code == 422 and answer.json()["code"] == "bundle_error", answer.text
    assert "share the player id 'same'" in answer.json()["message"]
