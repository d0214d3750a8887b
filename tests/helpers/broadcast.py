"""A game broadcast with a delay: the golden game's actions, the delay set and recorded, the server's clock set
between stored events, and the read routes a spectator is answered by."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi.testclient import TestClient

from evo_ledger.game.notation import parse_game
from projections.runner import wait_until
from tests.helpers.api import append
from tests.helpers.support import ROOT

DELAY = 10  # minutes
GOLDEN = parse_game((ROOT / "replays" / "hand-3p-first-game.evo").read_text())
ACTIONS = [line.text for line in GOLDEN.actions]


SHOWN, LATER = 30, 12  # actions stored long enough ago, and after them


def delay(client: TestClient, game: str, headers: dict[str, str], minutes: float) -> Any:
    return client.put(f"/v1/games/{game}/broadcast-delay", json={"minutes": minutes}, headers=headers)


def recorded(client: TestClient, game: str, recorder: dict[str, str], actions: list[str]) -> int:
    answer = append(client, game, recorder, *actions)
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def stored_at(client: TestClient, game: str, recorder: dict[str, str], event: int) -> datetime:
    page = client.get(f"/v1/games/{game}/events", params={"after": event - 1, "limit": 1}, headers=recorder).json()
    return datetime.fromisoformat(page["events"][0]["timestamp"])


def caught_up(client: TestClient) -> None:
    """The read tables have followed the whole log."""
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    assert wait_until(client.app.state.read_store, ledger.store.recorder.max_notification_id() or 0, 120)  # type: ignore[attr-defined]


def watch_at(client: TestClient, moment: datetime) -> None:
    """The server's clock set to `moment`."""
    client.app.state.clock = lambda: moment  # type: ignore[attr-defined]


# The routes that read a game as it stands for its reader, and those that read it at an event.
READ_ROUTES = (
    "",
    "/state",
    "/view",
    "/events?limit=1000",
    "/legal",
    "/choices",
    "/choices?forced=true",
    "/standings",
    "/auctions",
)
