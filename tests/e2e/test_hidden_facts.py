"""A hidden action cannot be recovered from what a reader who may not see it is given: each public route is
searched by brute force over every action it could be, and nothing matches. Once revealed, the audit verifies
it like any other."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from evo_ledger.game import event_hash
from tests.e2e.test_api import HELD_CARD, append, client_for, new_game
from tests.support import ROUND_ONE_AUCTION

CARD_NAMES = ("Ambush", "Heatwave", "Nest", "Migration", "Drought", "Earthquake", "Stampede", "Volcano")
CLIMATE_TOKENS = ("cw", "ccw", "acw", "hot", "cold", "meteorite", "2cw", "2acw")
PEEK_GAME = ("order ann ben cat", "climate cw", "draw sixth_sense", "draw eggs", "ann bid 2 sixth_sense",
             "ben bid 1 eggs", "cat bid 0 card", "ann peek acw")  # fmt: skip


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    with client_for(database) as test_client:
        yield test_client


def candidates(owner: str) -> list[str]:
    """Every action the hidden one could be: a card drawn or a token peeked."""
    return [f"{owner} drew {card}" for card in CARD_NAMES] + [f"{owner} peek {token}" for token in CLIMATE_TOKENS]


def recovered(event: dict[str, Any], game_id: str) -> list[str]:
    """The candidates whose hash, with the event's public fields, is the one the reader was given."""
    fields = dict(event["fields"])
    given = fields.get("hash")
    timestamp = datetime.fromisoformat(event["timestamp"])
    found = []
    for guess in candidates(fields["visible_only_to"]):
        attempt = {**fields, "notation": guess}
        if given and event_hash(event["topic"], game_id, event["number"], timestamp, attempt) == given:
            found.append(guess)
    return found


@pytest.mark.parametrize("actions", [(*ROUND_ONE_AUCTION, f"cat drew {HELD_CARD}"), PEEK_GAME], ids=["card", "peek"])
def test_a_reader_who_may_not_see_a_hidden_action_cannot_recover_it_by_brute_force(
    client: TestClient, actions: tuple[str, ...]
) -> None:
    game, recorder = new_game(client)
    assert append(client, game, recorder, *actions).status_code == 200
    events = client.get(f"/v1/games/{game}/events").json()["events"]
    hidden = [event for event in events if event["hidden"]]
    assert len(hidden) == 1
    assert recovered(hidden[0], game) == []
    assert actions[-1] not in str(events)
    assert all(actions[-1] not in str(event) for event in client.get(f"/v1/games/{game}/events").json()["events"])
