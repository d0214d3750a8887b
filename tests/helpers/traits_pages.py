"""A trait-card game seated with a token per seat, for the pages that show its hands."""

from __future__ import annotations

import httpx

from tests.helpers.support import ROOT

TRAITS_GAME = ROOT / "replays" / "traits-hand-2p.evo"
ACTIONS = [
    line
    for line in TRAITS_GAME.read_text().splitlines()
    if line and not line.startswith(("#", "ruleset", "kit", "players", "result"))
]


def seated_traits_game(server: str, actions: int) -> tuple[str, dict[str, dict[str, str]]]:
    """A traits game with a token per seat, in progress after `actions` of the hand-worked game: headers by reader."""
    created = httpx.post(
        f"{server}/v1/games",
        json={"kit": "standin-traits", "players": [{"name": "ann"}, {"name": "ben"}], "seat_tokens": True},
    ).json()
    readers = {"public": {}, "recorder": {"Authorization": f"Bearer {created['recorder_token']}"}}
    readers |= {seat: {"Authorization": f"Bearer {token}"} for seat, token in created["seat_tokens"].items()}
    recorded = httpx.post(
        f"{server}/v1/games/{created['game_id']}/actions",
        json={"actions": ACTIONS[:actions]},
        headers=readers["recorder"],
        timeout=30,
    )
    assert recorded.status_code == 200, recorded.text
    return created["game_id"], readers
