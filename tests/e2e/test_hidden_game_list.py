"""The list of games summarises each game as its own summary does for the public: a card drawn, swapped for
another, changes nothing the list tells a caller who may not see it, whatever the list is filtered by."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from tests.helpers.api import PLAYERS
from tests.helpers.hidden import set_aside
from tests.helpers.support import ROUND_ONE_AUCTION

FILTERS = ("", "?player=cat", "?ruleset=evo2", "?status=ongoing")


def drawn(client: TestClient, held: str) -> str:
    """A game in which cat drew `held`, recorded once the read tables include it: its id."""
    created = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS})
    assert created.status_code == 201, created.text
    game, token = created.json()["game_id"], created.json()["recorder_token"]
    recorded = client.post(
        f"/v1/games/{game}/actions?wait_for_projections=30",
        json={"actions": [*ROUND_ONE_AUCTION, f"cat drew {held}", "cat pass"]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert recorded.status_code == 200, recorded.text
    return str(game)


def listed(client: TestClient, query: str) -> dict[str, str]:
    """Each game the list shows the public, by id, with its ids, hashes and times set aside."""
    answer = client.get(f"/v1/games{query}")
    assert answer.status_code == 200, answer.text
    return {entry["game_id"]: set_aside(json.dumps(entry, sort_keys=True)) for entry in answer.json()["games"]}


def test_a_swapped_card_changes_nothing_the_list_of_games_tells_the_public_E2_15(client: TestClient) -> None:
    """[E2-15] a drawn card is hidden from everyone but its holder until played."""
    games = [drawn(client, held) for held in ("Heatwave", "Ambush")]
    for query in FILTERS:
        shown = listed(client, query)
        assert shown[games[0]] == shown[games[1]], (query, shown[games[0]], shown[games[1]])
