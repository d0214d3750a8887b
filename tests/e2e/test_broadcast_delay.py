"""A game broadcast with a delay, on each database: a reader without a token sees it as it stood that long ago,
never later, by every route, until the game ends; its recorder, its seats and the admin see it as it stands.

The server's clock is set where a test needs it (`app.state.clock`), between the events it stored: a test never
waits for minutes to pass."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient

from tests.helpers.broadcast import (
    ACTIONS,
    DELAY,
    LATER,
    READ_ROUTES,
    SHOWN,
    caught_up,
    delay,
    recorded,
    stored_at,
    watch_at,
)
from tests.helpers.hidden import set_aside
from tests.helpers.servers import ADMIN
from tests.helpers.tokens import bearer, new_game


def rows_of(report: dict[str, Any]) -> dict[str, Any]:
    """A report's rows, without how far the read tables had followed the log."""
    return {part: rows for part, rows in report.items() if part not in ("position", "log_position")}


SPECTATOR_ROUTES = (*READ_ROUTES, f"/state?at={SHOWN}", f"/view?at={SHOWN}")


def spectated(client: TestClient, game: str, headers: dict[str, str] | None = None) -> dict[str, str]:
    """What a reader (without a token, if no headers) is answered by every route that quotes the game, the
    stream from a few events back included, and the game's entry in the list."""
    told = {}
    for route in SPECTATOR_ROUTES:
        answer = client.get(f"/v1/games/{game}{route}", headers=headers or {})
        told[route or "summary"] = f"{answer.status_code} {set_aside(answer.text)}"
    listed = [
        entry for entry in client.get("/v1/games", params={"limit": 100}).json()["games"] if entry["game_id"] == game
    ]
    told["list"] = set_aside(json.dumps(listed, sort_keys=True))
    return told


def streamed_until(client: TestClient, game: str, after: int, last: int) -> list[int]:
    """The events a reader without a token is streamed after event `after`, until event `last`."""
    sent = []
    with client.stream("GET", f"/v1/games/{game}/stream?after={after}") as stream:
        for line in stream.iter_lines():
            if line.startswith("id: "):
                sent.append(int(line.removeprefix("id: ")))
                if sent[-1] >= last:
                    break
    return sent


def test_a_spectator_is_answered_the_same_for_two_games_that_differ_only_after_the_delay(client: TestClient) -> None:
    """One game goes on past the delay's cut and the other stops there: a reader without a token is answered the
    same by every route, byte for byte once ids and times are set aside, while the recorder and a seat see the
    first game's later events."""
    (first, recorder, ann), (second, other, _) = new_game(client), new_game(client)
    cut = recorded(client, first, recorder, ACTIONS[:SHOWN])
    assert recorded(client, second, other, ACTIONS[:SHOWN]) == cut
    for game, headers in ((first, recorder), (second, other)):
        assert delay(client, game, headers, DELAY).json() == {"minutes": DELAY}
    latest = recorded(client, first, recorder, ACTIONS[SHOWN : SHOWN + LATER])
    between = stored_at(client, first, recorder, cut + 1) - timedelta(microseconds=1)
    assert stored_at(client, second, other, cut) <= between
    watch_at(client, between + timedelta(minutes=DELAY))
    caught_up(client)
    assert spectated(client, first) == spectated(client, second)
    assert client.get(f"/v1/games/{first}").json()["broadcast_delay"] == DELAY
    assert client.get(f"/v1/games/{first}/state", params={"at": cut + 1}).json()["code"] == "unknown_event"
    assert streamed_until(client, first, cut - 3, cut) == [cut - 2, cut - 1, cut]
    for headers in (recorder, ann, bearer(ADMIN)):
        assert client.get(f"/v1/games/{first}", headers=headers).json()["version"] == latest
    for route in ("/audit", f"/events/{cut}/explanation", f"/events/{cut}/what-if?drop=true", "/export"):
        refused = client.get(f"/v1/games/{first}{route}")
        assert (refused.status_code, refused.json()["code"]) == (409, "delayed_broadcast"), route
        assert client.get(f"/v1/games/{first}{route}", headers=recorder).status_code != 409, route

    watch_at(client, datetime.now().astimezone() + timedelta(minutes=DELAY + 1))  # every event is that old now
    assert client.get(f"/v1/games/{first}").json()["version"] == latest


def test_a_spectators_standings_and_auctions_are_those_that_stood_at_the_cut(client: TestClient) -> None:
    """An undo after the cut is not seen: the rows it undid stood then."""
    game, recorder, _ = new_game(client)
    cut = recorded(client, game, recorder, ACTIONS[:SHOWN])
    caught_up(client)
    stood = {report: rows_of(client.get(f"/v1/games/{game}/{report}").json()) for report in ("standings", "auctions")}
    assert delay(client, game, recorder, DELAY).status_code == 200
    undo = client.post(f"/v1/games/{game}/undo", json={"count": 1, "reason": "a slip"}, headers=recorder)
    assert undo.status_code == 200, undo.text
    recorded(client, game, recorder, [ACTIONS[SHOWN - 1], *ACTIONS[SHOWN : SHOWN + LATER]])
    caught_up(client)
    watch_at(client, stored_at(client, game, recorder, cut + 1) - timedelta(microseconds=1) + timedelta(minutes=DELAY))
    for report, rows in stood.items():
        assert rows_of(client.get(f"/v1/games/{game}/{report}").json()) == rows
    live = {report: rows_of(client.get(f"/v1/games/{game}/{report}", headers=recorder).json()) for report in stood}
    assert live != stood, "the recorder's rows are the game's as it stands"


def test_a_delayed_game_is_out_of_the_statistics_and_tables_until_it_ends_and_then_shown_whole(
    client: TestClient,
) -> None:
    game, recorder, _ = new_game(client)
    assert delay(client, game, recorder, DELAY).status_code == 200
    recorded(client, game, recorder, ACTIONS[:SHOWN])
    admin = bearer(ADMIN)
    caught_up(client)
    for path in ("/v1/statistics/games", "/v1/tables/read_bids.csv"):
        assert game not in client.get(path).text and game in client.get(path, headers=admin).text, path
    assert client.get(f"/v1/games/{game}").json()["code"] == "not_yet_broadcast"
    assert game not in client.get("/v1/games").text

    recorded(client, game, recorder, ACTIONS[SHOWN:])  # the game's end ends the delay
    caught_up(client)
    summary = client.get(f"/v1/games/{game}").json()
    assert (
        summary["status"] == "over"
        and summary["version"] == client.get(f"/v1/games/{game}", headers=admin).json()["version"]
    )
    for path in ("/v1/statistics/games", "/v1/tables/read_bids.csv", "/v1/games?limit=100"):
        assert game in client.get(path).text, path
    assert client.get(f"/v1/games/{game}/audit").status_code == 200


def test_only_the_recorders_own_token_sets_a_delay_and_a_delay_is_minutes_of_a_day_or_less(client: TestClient) -> None:
    game, recorder, ann = new_game(client)
    co = client.post(f"/v1/games/{game}/co-recorders", json={"name": "ben's phone"}, headers=recorder).json()
    for headers, status, code in (
        ({}, 401, "token_required"),
        (ann, 403, "token_refused"),
        (bearer(co["token"]), 403, "token_refused"),
    ):
        refused = delay(client, game, headers, 5)
        assert (refused.status_code, refused.json()["code"]) == (status, code)
    for minutes in (-1, 0.01, 24 * 60 + 1, "soon", True):
        refused = client.put(f"/v1/games/{game}/broadcast-delay", json={"minutes": minutes}, headers=recorder)
        assert refused.status_code == 422 and "minutes" in refused.text, minutes
    assert delay(client, game, recorder, 0.5).status_code == 200
    assert client.get(f"/v1/games/{game}", headers=recorder).json()["broadcast_delay"] == 0.5


def test_a_spectator_shown_nothing_yet_is_told_when_the_broadcast_starts_and_is_shown_the_game_then(
    client: TestClient,
) -> None:
    """Before its first event is as old as the delay, every route tells a reader without a token the same: when the
    broadcast starts (`broadcast_starts_at`: that first event's time and the delay) and the delay, and nothing else;
    from that moment on it is shown the game as it stood then. A seat reads it as it stands all along."""
    game, recorder, ann = new_game(client)
    assert delay(client, game, recorder, DELAY).status_code == 200
    stands = recorded(client, game, recorder, ACTIONS[:SHOWN])
    starts = stored_at(client, game, recorder, 1) + timedelta(minutes=DELAY)
    for route in (*READ_ROUTES, "?as=public", "?as=zed"):
        told = client.get(f"/v1/games/{game}{route}").json()
        assert set(told) == {"code", "message", "broadcast_starts_at", "broadcast_delay"}, route
        assert told["code"] == "not_yet_broadcast" and told["broadcast_delay"] == DELAY, route
        assert datetime.fromisoformat(told["broadcast_starts_at"]) == starts, route
    assert client.get(f"/v1/games/{game}", headers=ann).json()["version"] == stands
    watch_at(client, starts - timedelta(microseconds=1))
    assert client.get(f"/v1/games/{game}/view").json()["code"] == "not_yet_broadcast"
    watch_at(client, starts)
    assert client.get(f"/v1/games/{game}/view").json()["version"] == 1
