"""A spectator's attacks on a game broadcast with a delay: whatever it asks, with no token, a wrong or revoked one,
or any parameter or header, it learns nothing of the events stored less than the delay ago while the game goes
on; and only the recorder's own token (or the admin's) changes the delay.

Each test sets the server's clock between the events it stored (`app.state.clock`): none waits for minutes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from evo_ledger.game.notation import parse_game
from projections.schema import tables
from tests.helpers.api import PLAYERS, client_for
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
from tests.helpers.servers import ADMIN
from tests.helpers.support import ROOT
from tests.helpers.tokens import bearer, co_recorder, new_game


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with client_for(str(tmp_path / "ledger.sqlite")) as test_client:
        yield test_client


def held_back(client: TestClient, later: int = LATER) -> tuple[str, dict[str, str], dict[str, str], int]:
    """A game broadcast with a delay: SHOWN actions old enough, `later` more stored after the cut; the clock set
    between them. Its id, the recorder's and ann's headers, and the last event a spectator may see."""
    game, recorder, ann = new_game(client)
    cut = recorded(client, game, recorder, ACTIONS[:SHOWN])
    assert delay(client, game, recorder, DELAY).status_code == 200
    if later:
        recorded(client, game, recorder, ACTIONS[SHOWN : SHOWN + later])
        moment = stored_at(client, game, recorder, cut + 1) - timedelta(microseconds=1)
    else:
        moment = stored_at(client, game, recorder, cut)
    watch_at(client, moment + timedelta(minutes=DELAY))
    return game, recorder, ann, cut


def spectator_version(client: TestClient, game: str, **headers: str) -> Any:
    return client.get(f"/v1/games/{game}", headers=headers).json().get("version")


def public_statistics(client: TestClient) -> dict[str, str]:
    """Every statistic and table a spectator may read, without the read tables' positions."""
    paths = [
        "/v1/statistics/players",
        "/v1/statistics/games",
        "/v1/statistics/rulesets",
        "/v1/statistics/dice?ruleset=evo2",
        *(f"/v1/statistics/{name}?ruleset=evo2" for name in ("ratings", "seats", "first-places", "lengths")),
        *(f"/v1/statistics/{name}?ruleset=evo2" for name in ("scores", "profiles", "calibration", "seat-advantage")),
        *(f"/v1/statistics/{name}?ruleset=evo2" for name in ("batch-ratings", "skill")),
        *(f"/v1/rulesets/evo2/statistics/{name}" for name in ("genes", "genes-offered", "combats", "survival")),
        *(f"/v1/tables/{table}.csv" for table in tables()),
    ]
    told = {}
    for path in paths:
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        body = answer.json() if path.endswith(".csv") is False else answer.text
        if isinstance(body, dict):
            body = {key: value for key, value in body.items() if key not in ("position", "log_position")}
        told[path] = json.dumps(body, sort_keys=True)
    return told


def test_a_delayed_game_adds_nothing_to_any_statistic_or_table_a_spectator_reads(client: TestClient) -> None:
    """Every aggregate and every table's CSV is answered to a spectator the same with the game as without it."""
    finished, other = new_game(client)[:2]
    recorded(client, finished, other, ACTIONS)  # a game over, in every statistic
    caught_up(client)
    before = public_statistics(client)
    assert finished in before["/v1/statistics/games"]
    held_back(client)
    caught_up(client)
    assert public_statistics(client) == before


GAME_REPORTS = ("standings", "auctions")


def positions_told(client: TestClient, paths: list[str]) -> dict[str, Any]:
    """How far the log and the read tables have come, as each path tells a spectator."""
    told = {}
    for path in paths:
        body = client.get(path).json()
        body = body.get("read_tables", body)  # /health tells them of its read tables
        told[path] = (body.get("position"), body.get("log_position"))
    return told


def positions_before_and_after_an_action_held_back(client: TestClient, paths: list[str]) -> list[dict[str, Any]]:
    """The positions each path tells a spectator, before and after the recorder records one more action, which
    the delay holds back (the game's summary stands still)."""
    game, recorder, _, cut = held_back(client, later=0)
    paths = [path.format(game=game) for path in paths]
    caught_up(client)
    before = positions_told(client, paths)
    recorded(client, game, recorder, ACTIONS[SHOWN : SHOWN + 1])
    caught_up(client)
    assert spectator_version(client, game) == cut, "the summary holds the new events back"
    return [before, positions_told(client, paths)]


def test_a_delayed_games_reports_do_not_tell_a_spectator_the_log_position_that_counts_its_held_back_events(
    client: TestClient,
) -> None:
    """The delayed game's own standings and auctions tell a spectator the log's position (and the read tables'):
    the count of every event stored, those held back included. With the game the only one going on, each
    action recorded moves it at once, though the game's summary stands still: the spectator learns that (and
    how many) events were recorded, and when, within the delay."""
    before, after = positions_before_and_after_an_action_held_back(
        client, [f"/v1/games/{{game}}/{report}" for report in GAME_REPORTS]
    )
    assert after == before


def test_a_seat_tokens_stream_stops_reading_the_game_live_once_the_token_is_revoked(client: TestClient) -> None:
    """A seat's stream reads the game live. Once the recorder issues the seat a new token, the old one holds no
    token of the game's: its reader is a spectator, whom the delay holds back (and whom the seat's hidden facts
    are not shown). Its open stream must close (or hold back what follows), as a revoked co-recorder's does; it
    goes on sending each new event as it is stored."""
    game, recorder, ann, cut = held_back(client)
    live = spectator_version(client, game, **recorder)
    assert client.get(f"/v1/games/{game}", headers=ann).json()["version"] == live
    sent: list[int] = []
    with client.stream("GET", f"/v1/games/{game}/stream?after={live - 1}", headers=ann) as stream:
        for line in stream.iter_lines():
            if line.startswith("event: closed") or (line.startswith(":") and sent):
                break  # closed, or quiet (a keep-alive comment) since the token was revoked
            if not line.startswith("id: "):
                continue
            sent.append(int(line.removeprefix("id: ")))
            if sent[-1] == live:  # the seat's token revoked, then one more action recorded
                assert client.post(f"/v1/games/{game}/seat-tokens/ann", headers=recorder).status_code == 201
                assert client.get(f"/v1/games/{game}", headers=ann).json()["version"] == cut
                recorded(client, game, recorder, ACTIONS[SHOWN + LATER : SHOWN + LATER + 1])
            elif sent[-1] > live:
                break
    assert sent == [live], f"the revoked seat token was streamed event {sent[-1]}, stored after the delay's cut {cut}"


def test_a_game_none_of_which_is_broadcast_yet_tells_a_spectator_nothing_of_its_setup(client: TestClient) -> None:
    """Before its first event is as old as the delay, a spectator is refused the game (404 `not_yet_broadcast`)
    by every route; its setup, which is younger than the delay, is not told either: not its seats (in the refusal
    of an unknown `as`), nor its ruleset (by `/auctions` of a ruleset without auctions)."""
    body = client.post("/v1/games", json={"kit": "standin-traits", "players": PLAYERS}).json()
    game, recorder = body["game_id"], bearer(body["recorder_token"])
    assert delay(client, game, recorder, DELAY).status_code == 200
    told = {}
    for route in ("", "?as=zed", "?as=public", "/auctions", "/standings", "/legal"):
        answer = client.get(f"/v1/games/{game}{route}")
        told[route] = (answer.status_code, answer.json()["code"])
    assert set(told.values()) == {(404, "not_yet_broadcast")}, told


def answers(client: TestClient, game: str, headers: dict[str, str], query: str = "") -> dict[str, tuple[int, str]]:
    """Each reading route's answer to the headers, without the read tables' positions (which every reader is told
    alike)."""
    told = {}
    for route in READ_ROUTES:
        separator = "&" if "?" in route else "?"
        answer = client.get(f"/v1/games/{game}{route}{separator + query if query else ''}", headers=headers)
        body = answer.json()
        if isinstance(body, dict):
            body = {key: value for key, value in body.items() if key not in ("position", "log_position")}
        told[route] = (answer.status_code, json.dumps(body, sort_keys=True))
    return told


def test_a_wrong_revoked_or_foreign_token_or_a_narrowing_query_reads_as_a_spectator_does(client: TestClient) -> None:
    """Whatever token a reader without one of the game's holds (none, a made-up one, another game's recorder
    token, a co-recorder's or a seat's once revoked, the recorder's once the admin replaced it), and whatever it
    asks to read as, it is told what a spectator is: the game as it stood at the cut; `as` a seat is refused."""
    game, recorder, ann, cut = held_back(client)
    phone, co_headers = co_recorder(client, game, recorder, "phone")
    co = co_headers["Authorization"].removeprefix("Bearer ")
    old_ann = ann
    assert client.post(f"/v1/games/{game}/seat-tokens/ann", headers=recorder).status_code == 201
    assert client.delete(f"/v1/games/{game}/co-recorders/{phone}", headers=recorder).status_code == 200
    _, foreign, foreign_seat = new_game(client)
    caught_up(client)
    spectator = answers(client, game, {})
    assert json.loads(spectator[""][1])["version"] == cut
    attackers: list[tuple[dict[str, str], str]] = [
        ({}, "as=public"),
        (bearer("made-up"), ""),
        (bearer("made-up"), "as=public"),
        (foreign, ""),
        (foreign_seat, ""),
        (old_ann, ""),
        (old_ann, "as=public"),
        (bearer(co), ""),
        (bearer(co), "as=public"),
    ]
    for headers, query in attackers:
        assert answers(client, game, headers, query) == spectator, (headers, query)
    for route in ("/state", "/view"):  # past the cut: an event the game does not have
        refused = client.get(f"/v1/games/{game}{route}", params={"at": cut + 1}, headers=bearer(co))
        assert (refused.status_code, refused.json()["code"]) == (404, "unknown_event")
    page = client.get(f"/v1/games/{game}/events", params={"after": cut}, headers=bearer("made-up")).json()
    assert page == {"events": [], "next_after": None}
    replaced = client.post(f"/v1/games/{game}/recorder-token", headers=bearer(ADMIN)).json()["recorder_token"]
    assert answers(client, game, recorder) == spectator, "the recorder token replaced reads as a spectator"
    for headers in ({}, bearer("made-up"), old_ann, recorder):
        refused = client.get(f"/v1/games/{game}/view", params={"as": "ann"}, headers=headers)
        assert (refused.status_code, refused.json()["code"]) == (403, "perspective_refused")
    assert spectator_version(client, game, **bearer(replaced)) > cut


def test_only_the_recorders_own_current_token_or_the_admin_changes_the_delay(client: TestClient) -> None:
    """Refused (401 or 403) without a token, with a made-up one, another game's, a seat's (current or revoked),
    a co-recorder's (current or revoked), the recorder's once replaced; a refused change changes nothing."""
    game, recorder, ann, cut = held_back(client)
    _, foreign, _ = new_game(client)
    _, co = co_recorder(client, game, recorder, "a")
    b, gone = co_recorder(client, game, recorder, "b")
    assert client.delete(f"/v1/games/{game}/co-recorders/{b}", headers=recorder).status_code == 200
    new_ann = bearer(client.post(f"/v1/games/{game}/seat-tokens/ann", headers=recorder).json()["token"])
    refused_to = [{}, bearer("made-up"), foreign, ann, new_ann, co, gone, {"Authorization": "Bearer " + ADMIN[:-1]}]
    for headers in refused_to:
        for minutes in (0, DELAY / 2):
            answer = delay(client, game, headers, minutes)
            assert answer.status_code in (401, 403), (headers, answer.text)
        assert client.post(f"/v1/games/{game}/seat-tokens/ben", headers=headers).status_code in (401, 403)
        assert client.post(f"/v1/games/{game}/co-recorders", json={"name": "c"}, headers=headers).status_code in (
            401,
            403,
        )
    assert spectator_version(client, game) == cut
    assert client.get(f"/v1/games/{game}").json()["broadcast_delay"] == DELAY
    replaced = bearer(client.post(f"/v1/games/{game}/recorder-token", headers=bearer(ADMIN)).json()["recorder_token"])
    assert delay(client, game, recorder, 0).status_code == 403, "the replaced recorder token"
    assert delay(client, game, bearer(ADMIN), DELAY * 2).status_code == 200
    assert delay(client, game, replaced, 0).status_code == 200
    assert spectator_version(client, game) > cut


def test_the_delays_routes_refuse_a_crafted_request_without_an_error_of_the_servers(client: TestClient) -> None:
    """No body, id, name or query around a delayed game answers 500."""
    game, recorder, _, _ = held_back(client, later=2)
    url = f"/v1/games/{game}/broadcast-delay"
    bodies = ["", "nope", "[]", '"x"', '{"minutes": 1e400}', '{"minutes": "NaN"}', '{"minutes": null}']
    bodies += ['{"minutes": [5]}', '{"minutes": 5, "x": 1}', '{"minutes": 1e40}', '{"minutes": -1e-9}']
    for body in bodies:
        for headers in (recorder, {}, bearer("made-up")):
            answer = client.put(url, content=body, headers={**headers, "Content-Type": "application/json"})
            assert answer.status_code == 422, (body, answer.text)
    for game_id in ("x", "%00", "a" * 5000, "00000000-0000-0000-0000-000000000000"):
        for headers in (recorder, bearer(ADMIN)):
            answer = client.put(f"/v1/games/{game_id}/broadcast-delay", json={"minutes": 1}, headers=headers)
            assert answer.status_code in (403, 404), (game_id, answer.text)
    for name in ("%00", "x" * 10000, "%20"):
        assert client.delete(f"/v1/games/{game}/co-recorders/{name}", headers=recorder).status_code == 422
        assert client.post(f"/v1/games/{game}/seat-tokens/{name}", headers=recorder).status_code == 422
    for query in ("at=0", "at=99999999999999999999", "after=-1", "limit=0", "words=" + "w " * 3000, "as=" + "x" * 65):
        for route in ("/state", "/view", "/events", "/choices"):
            assert client.get(f"/v1/games/{game}{route}?{query}").status_code < 500, (route, query)
    stream = client.get(f"/v1/games/{game}/stream", headers={"Last-Event-ID": "1e9"})
    assert stream.status_code == 422


@pytest.mark.parametrize("replay", ["hand-3p-first-game.evo", "evo1-hand-3p.evo", "traits-hand-2p.evo"])
def test_a_spectator_held_back_by_nothing_yet_is_given_the_recorders_reports_row_for_row(
    client: TestClient, replay: str
) -> None:
    """Where every event is old enough, the rows a spectator's reports select as of the cut (an undo before it
    among them) are the recorder's, for each ruleset: none left out, none added."""
    golden = parse_game((ROOT / "replays" / replay).read_text())
    actions = [line.text for line in golden.actions][: len(golden.actions) * 2 // 3]
    players = [{"name": name} for name in golden.header.players]
    body = client.post("/v1/games", json={"kit": golden.header.kit, "players": players}).json()
    game, recorder = body["game_id"], bearer(body["recorder_token"])
    recorded(client, game, recorder, actions)
    undo = client.post(f"/v1/games/{game}/undo", json={"count": 2, "reason": "a slip"}, headers=recorder)
    assert undo.status_code == 200, undo.text
    last = recorded(client, game, recorder, actions[-2:])
    assert delay(client, game, recorder, DELAY).status_code == 200
    watch_at(client, stored_at(client, game, recorder, last) + timedelta(minutes=DELAY))
    caught_up(client)
    assert spectator_version(client, game) == last
    for report in ("standings", "auctions"):
        spectator, live = (
            client.get(f"/v1/games/{game}/{report}"),
            client.get(f"/v1/games/{game}/{report}", headers=recorder),
        )
        assert spectator.status_code == live.status_code, report
        untold = {"position": None, "log_position": None} if live.status_code == 200 else {}
        assert spectator.json() == {**live.json(), **untold}, report


def test_a_revoked_or_seat_token_neither_records_nor_changes_who_records_nor_learns_the_live_version(
    client: TestClient,
) -> None:
    """A seat's token (where seats record, its old one once reissued), a co-recorder's once revoked, another
    game's or a made-up one: each append, undo, correction and note is refused for its token before the game's
    version is compared (a stale `expected_version` is not answered with the live one), and a co-recorder or
    a seat changes nobody's access."""
    game, recorder, ann, cut = held_back(client)
    live = spectator_version(client, game, **recorder)
    assert client.put(f"/v1/games/{game}/seats-record", json={"allowed": True}, headers=recorder).status_code == 200
    a, co = co_recorder(client, game, recorder, "a")
    b, gone = co_recorder(client, game, recorder, "b")
    assert client.delete(f"/v1/games/{game}/co-recorders/{b}", headers=recorder).status_code == 200
    new_ann = bearer(client.post(f"/v1/games/{game}/seat-tokens/ann", headers=recorder).json()["token"])
    _, foreign, _ = new_game(client)
    writes = (
        ("actions", {"actions": ["ben pass"], "expected_version": cut}),
        ("undo", {"count": 1, "reason": "x", "expected_version": cut}),
        ("correct", {"action": "ben pass", "reason": "x", "expected_version": cut}),
        ("notes", {"event": 2, "text": "x", "expected_version": cut}),
    )
    for headers in (ann, gone, foreign, bearer("made-up"), {}):
        for route, body in writes:
            answer = client.post(f"/v1/games/{game}/{route}", json=body, headers=headers)
            assert answer.status_code in (401, 403), (route, answer.text)
            assert not re.search(rf"\b{live}\b", answer.text), answer.text
    for headers in (new_ann, co):  # holders who read the game live: undo, correct and notes stay the recorders'
        for route, body in writes[1:]:
            assert client.post(f"/v1/games/{game}/{route}", json=body, headers=headers).status_code in (
                (403,) if headers is new_ann else (409,)
            ), route
        assert client.delete(f"/v1/games/{game}/co-recorders/{a}", headers=headers).status_code == 403
        assert client.put(f"/v1/games/{game}/seats-record", json={"allowed": False}, headers=headers).status_code == 403
        assert client.post(f"/v1/games/{game}/seat-tokens/ben", headers=headers).status_code == 403
    assert spectator_version(client, game, **recorder) == live


def test_a_cut_at_any_event_even_inside_one_append_is_answered_by_every_route(client: TestClient) -> None:
    """The cut may fall between an action and its consequences, or inside an append of several actions: every
    route answers the game as it stood after that event, without an error of the server's."""
    game, recorder, _, _ = held_back(client)
    caught_up(client)
    for event in client.get(f"/v1/games/{game}/events?limit=1000", headers=recorder).json()["events"]:
        watch_at(client, datetime.fromisoformat(event["timestamp"]) + timedelta(minutes=DELAY))
        assert spectator_version(client, game) == event["number"]
        for route in READ_ROUTES:
            answer = client.get(f"/v1/games/{game}{route}")
            assert answer.status_code == 200, (event["number"], event["kind"], route, answer.text)


def test_a_change_of_who_records_an_unknown_game_is_told_the_game_is_unknown(client: TestClient) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    for method, route, body in (
        ("PUT", "broadcast-delay", {"minutes": 5}),
        ("PUT", "seats-record", {"allowed": True}),
        ("POST", "co-recorders", {"name": "ben's phone"}),
        ("POST", "seat-tokens/ann", {}),
    ):
        told = client.request(method, f"/v1/games/{unknown}/{route}", json=body, headers=bearer("a-token"))
        assert (told.status_code, told.json()["code"]) == (404, "unknown_game"), route
