"""A game seated with a token per seat, and every answer a reader gets from the read routes."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.api import HELD_CARD, PLAYERS
from tests.helpers.support import ROUND_ONE_AUCTION

DRAWN = [*ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}", "cat pass"]


def seated_game(client: TestClient) -> tuple[str, dict[str, dict[str, str]]]:
    """A game with seat tokens in which cat drew a card: each reader's headers, by who reads."""
    answer = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS, "seat_tokens": True})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert sorted(body["seat_tokens"]) == ["ann", "ben", "cat"]
    readers = {"public": {}, "recorder": {"Authorization": f"Bearer {body['recorder_token']}"}}
    readers |= {seat: {"Authorization": f"Bearer {token}"} for seat, token in body["seat_tokens"].items()}
    recorded = client.post(
        f"/v1/games/{body['game_id']}/actions?wait_for_projections=30",
        json={"actions": DRAWN},
        headers=readers["recorder"],
    )
    assert recorded.status_code == 200, recorded.text
    return body["game_id"], readers


def every_answer(client: TestClient, game: str, headers: dict[str, str], perspective: str = "") -> dict[str, Any]:
    """What every endpoint answers the reader, by endpoint (status and body); with a `perspective`, the game's
    endpoints are asked `as` it."""
    drew = 15  # the game's start, seven actions and seven consequences before it
    paths = {
        "summary": f"/v1/games/{game}",
        "events": f"/v1/games/{game}/events",
        "state": f"/v1/games/{game}/state",
        "legal": f"/v1/games/{game}/legal",
        "export": f"/v1/games/{game}/export",
        "bundle": f"/v1/games/{game}/export?format=bundle",
        "audit": f"/v1/games/{game}/audit",
        "explain auction": f"/v1/games/{game}/events/12/explanation",
        "what-if": f"/v1/games/{game}/events/10/what-if?replace=ann%20bid%203%20eggs",
        "explain drawn": f"/v1/games/{game}/events/{drew}/explanation",
        "standings": f"/v1/games/{game}/standings",
        "auctions": f"/v1/games/{game}/auctions",
        "statistics": "/v1/statistics/games",
        "tables": "/v1/tables/read_auction_results.csv",
    }
    if perspective:
        paths = {name: as_perspective(path, game, perspective) for name, path in paths.items()}
    answers = {name: client.get(path, headers=headers) for name, path in paths.items()}
    packed = client.get(paths["events"], headers={**headers, "Accept": "application/msgpack"})
    return {
        **{name: (a.status_code, a.content.decode("latin-1")) for name, a in answers.items()},
        "events msgpack": (packed.status_code, packed.content.decode("latin-1")),
    }


def as_perspective(path: str, game: str, perspective: str) -> str:
    if not path.startswith(f"/v1/games/{game}"):
        return path
    return path + ("&" if "?" in path else "?") + f"as={perspective}"
