"""What an answer reads of a game, counted on each database (`tests.helpers.reads`), never timed: a spectator's
poll of a delayed game, the games list and an audit asked again read as many events of a long game as of a short
one. Each answer is asked once before it is counted, so that what the server holds of the game (the game as it
stands, the events it has read) is settled; the answer asked again is counted."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from fastapi.testclient import TestClient

from api.deps import Reader
from api.routes.events import poll
from evo_ledger.app.ledger import Ledger
from tests.helpers.broadcast import ACTIONS, DELAY, delay, recorded, stored_at, watch_at
from tests.helpers.reads import events_read
from tests.helpers.tokens import bearer

# Actions of the golden game: the long game's log holds snapshots; neither game is over.
LENGTHS = {"short": 20, "long": 150}
HELD = 5  # notes stored after a broadcast delay's cut, held back from a spectator


def ledger_of(client: TestClient) -> Ledger:
    found: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
    return found


def played(client: TestClient, label: str, actions: int) -> tuple[str, dict[str, str]]:
    """A game of the golden game's first actions, its players' ids starting with `label`: its id and its
    recorder's headers."""
    players = [{"name": name, "id": f"{label}-{name}"} for name in ("ann", "ben", "cat")]
    created = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": players})
    assert created.status_code == 201, created.text
    game, recorder = created.json()["game_id"], bearer(created.json()["recorder_token"])
    recorded(client, game, recorder, ACTIONS[:actions])
    return game, recorder


def held_back(client: TestClient, game: str, recorder: dict[str, str]) -> tuple[int, datetime]:
    """The game broadcast DELAY minutes behind the table, then HELD notes stored: its version, and the first moment
    at which a spectator sees it as far as the event before them."""
    assert delay(client, game, recorder, DELAY).status_code == 200
    for number in range(HELD):
        noted = client.post(f"/v1/games/{game}/notes", json={"event": 1, "text": f"note {number}"}, headers=recorder)
        assert noted.status_code == 200, noted.text
    version = int(noted.json()["version"])
    cut = stored_at(client, game, recorder, version - HELD + 1) - timedelta(microseconds=1)
    return version, cut + timedelta(minutes=DELAY)


def counted_again(client: TestClient, ask: Callable[[], Any], told: Callable[[Any], None]) -> int:
    """The events read answering `ask` a second time; each answer is checked by `told`."""
    told(ask())
    with events_read(ledger_of(client)) as reads:
        told(ask())
    return reads.count


def spectator_reads(client: TestClient, game: str, moment: datetime, shown: int) -> int:
    """The events read answering a spectator's `/state` and an idle stream's poll (it has been sent the events up to
    the one shown), at `moment`."""
    watch_at(client, moment)
    ledger, reader = ledger_of(client), Reader(UUID(game), sees_all=False, clock=lambda: moment)

    def ask() -> tuple[int, Any]:
        return client.get(f"/v1/games/{game}/state").json()["version"], poll(ledger, reader, shown)

    def told(answer: Any) -> None:
        assert answer == (shown, (None, None)), answer

    return counted_again(client, ask, told)


def test_a_spectators_poll_of_a_delayed_game_reads_as_many_events_of_a_long_game_as_of_a_short_one(
    client: TestClient,
) -> None:
    """The broadcast's horizon is asked of the store by time: with as many events held back, a long game's poll
    reads as many events as a short one's; with none held back, none."""
    counts, versions = {}, {}
    for label, actions in LENGTHS.items():
        game, recorder = played(client, label, actions)
        versions[label], moment = held_back(client, game, recorder)
        inside = spectator_reads(client, game, moment, versions[label] - HELD)
        idle = spectator_reads(client, game, moment + timedelta(days=1), versions[label])
        counts[label] = (inside, idle)
    assert versions["long"] > 2 * versions["short"]
    assert counts["short"] == counts["long"], counts
    assert counts["long"][1] == 0


def listed_reads(client: TestClient, player: str, listed: int) -> int:
    """The events read answering a spectator's list of the games `player` plays, which lists `listed` of them (a
    player in no game the spectator may see yet is unknown to it)."""

    def told(answer: Any) -> None:
        if listed == 0:
            assert answer.status_code == 404 and answer.json()["code"] == "unknown_player", answer.text
        else:
            assert answer.status_code == 200 and len(answer.json()["games"]) == listed, answer.text

    return counted_again(client, lambda: client.get("/v1/games", params={"player": player}), told)


def test_the_game_list_reads_as_many_events_of_a_long_game_as_of_a_short_one(client: TestClient) -> None:
    """A game listed as it stands, one listed as it stood a broadcast's delay ago, and one left out as none of it
    is that old yet: a long game's entry reads as many events as a short one's."""
    delayed = {}
    for label, actions in LENGTHS.items():  # every game stored before any list is counted: each reads every setup
        played(client, f"{label}-live", actions)
        game, recorder = played(client, f"{label}-delayed", actions)
        started = datetime.fromisoformat(client.get(f"/v1/games/{game}", headers=recorder).json()["started_at"])
        delayed[label] = (*held_back(client, game, recorder), started)
    counts = {}
    for label, (_, moment, started) in delayed.items():
        watch_at(client, moment)
        live, inside = listed_reads(client, f"{label}-live-ann", 1), listed_reads(client, f"{label}-delayed-ann", 1)
        watch_at(client, started - timedelta(microseconds=1) + timedelta(minutes=DELAY))
        counts[label] = (live, inside, listed_reads(client, f"{label}-delayed-ann", 0))
    assert delayed["long"][0] > 2 * delayed["short"][0]
    assert counts["short"] == counts["long"], counts


def audit_reads(client: TestClient, game: str) -> int:
    """The events read answering the public's audit of the game a second time: the same report."""
    reports = []

    def told(answer: Any) -> None:
        assert answer.status_code == 200 and answer.json()["verdict"] == "clean", answer.text
        reports.append((answer.content, answer.headers["X-Report-Hash"]))

    count = counted_again(client, lambda: client.get(f"/v1/games/{game}/audit"), told)
    assert reports[0] == reports[1]
    return count


def test_an_audit_asked_again_reads_as_many_events_of_a_long_game_as_of_a_short_one(client: TestClient) -> None:
    """The audit is kept by the game's head and what its reader may see: asked again, it reads the game's last
    stored event, whatever the game's length."""
    client.app.state.audits.clock = lambda: 0.0  # type: ignore[attr-defined]
    counts = {label: audit_reads(client, played(client, label, actions)[0]) for label, actions in LENGTHS.items()}
    assert counts["short"] == counts["long"], counts
