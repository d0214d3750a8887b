"""Readers per seat: a game created with seat tokens answers each reader, on every endpoint, with what its seat
may see. A card cat drew is seen by cat's token and the recorder's, never by ann's or the public; the audit,
explanations and what-ifs answer everyone, leaving the card out and saying so."""

from __future__ import annotations

import httpx
from fastapi.testclient import TestClient

from tests.helpers.api import HELD_CARD, PLAYERS, append
from tests.helpers.seats import DRAWN, every_answer, seated_game
from tests.helpers.servers import running_server
from tests.helpers.support import ROOT


def test_each_seat_reads_what_it_may_see_on_every_endpoint(client: TestClient) -> None:
    game, readers = seated_game(client)
    seen = {who: every_answer(client, game, headers) for who, headers in readers.items()}
    for who in ("public", "ann", "ben"):
        leaks = [name for name, (_, body) in seen[who].items() if HELD_CARD in body]
        assert not leaks, f"{who} reads the held card in {leaks}"
        assert seen[who]["explain drawn"][0] == 404 and "hidden_event" in seen[who]["explain drawn"][1]
    for who in ("cat", "recorder"):
        for name in ("events", "state", "export", "events msgpack", "bundle"):
            assert HELD_CARD in seen[who][name][1], f"{who} does not read the held card in {name}"
    for who, answers in seen.items():
        failed = {name: status for name, (status, _) in answers.items() if status >= 400 and name != "explain drawn"}
        assert not failed, (who, failed)
        assert ('"left_out"' in answers["audit"][1]) == (who not in ("cat", "recorder"))


def test_a_seat_reads_a_private_game_and_a_stranger_does_not(client: TestClient) -> None:
    game, readers = seated_game(client)
    admin = {"Authorization": "Bearer admin-secret"}
    assert client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=admin).status_code == 200
    assert client.get(f"/v1/games/{game}/state", headers=readers["ann"]).status_code == 200
    assert client.get(f"/v1/games/{game}/state", headers=readers["public"]).status_code in (403, 404)


def test_a_seat_refused_a_change_of_a_private_game_is_told_why_and_a_stranger_of_no_game(client: TestClient) -> None:
    """Who sees a private game is one rule for reads and changes alike (`may_see`): a seat, which reads the game,
    is refused an append or a change of its broadcast as a token that does not record it (403); a token the game
    does not know is told of no such game (404)."""
    game, readers = seated_game(client)
    admin = {"Authorization": "Bearer admin-secret"}
    assert client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=admin).status_code == 200
    stranger = {"Authorization": "Bearer a-token-of-no-game"}
    for who, told in (("ann", (403, "token_refused")), ("stranger", (404, "unknown_game"))):
        headers = readers.get(who, stranger)
        appended = append(client, game, headers, "ann pass")
        delayed = client.put(f"/v1/games/{game}/broadcast-delay", json={"minutes": 5}, headers=headers)
        assert [(answer.status_code, answer.json()["code"]) for answer in (appended, delayed)] == [told, told], who


def test_a_bundle_that_leaves_out_a_hidden_action_is_refused_by_an_import_saying_why(client: TestClient) -> None:
    game, readers = seated_game(client)
    bundle = client.get(f"/v1/games/{game}/export?format=bundle", headers=readers["ann"])
    assert bundle.headers["Evo-Left-Out"] == "15"
    refused = client.post("/v1/games/import", content=bundle.content, headers={"Content-Type": "application/msgpack"})
    assert refused.status_code == 422 and "leaves out hidden actions (events 15)" in refused.text


def test_the_stream_gives_each_seat_what_it_may_see(database: str) -> None:
    with running_server(database) as base, httpx.Client(base_url=base, timeout=10) as http:
        created = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS, "seat_tokens": True})
        body = created.json()
        recorder = {"Authorization": f"Bearer {body['recorder_token']}"}
        assert http.post(f"/v1/games/{body['game_id']}/actions", json={"actions": DRAWN}, headers=recorder).is_success
        for seat, expected in (("ann", False), ("cat", True)):
            headers = {"Authorization": f"Bearer {body['seat_tokens'][seat]}"}
            assert (HELD_CARD in stream_text(http, body["game_id"], headers, events=16)) == expected


def stream_text(http: httpx.Client, game: str, headers: dict[str, str], events: int) -> str:
    """The stream's text up to its `events`-th event."""
    text, seen = "", 0
    with http.stream("GET", f"/v1/games/{game}/stream", headers=headers) as answer:
        for line in answer.iter_lines():
            text += line + "\n"
            seen += line.startswith("id: ")
            if seen == events and line == "":
                break
    return text


def evo1_turn_3() -> list[str]:
    """The hand-worked evo1 game up to turn 3's climate phase, where cards may be played."""
    lines = (ROOT / "replays" / "evo1-hand-3p.evo").read_text().splitlines()
    turn_3 = next(index for index, line in enumerate(lines) if line.startswith("# Turn 3."))
    actions = [line for line in lines[:turn_3] if line and not line.startswith(("#", "ruleset", "kit", "players"))]
    return [*actions, "roll 2", "roll 2", "roll 5", "roll 1"]


def test_the_legal_actions_show_each_seat_its_own_card_plays_only_E1_23(client: TestClient) -> None:
    created = client.post("/v1/games", json={"kit": "standin-e1-3p", "players": PLAYERS, "seat_tokens": True})
    assert created.status_code == 201, created.text
    body = created.json()
    game, recorder = body["game_id"], {"Authorization": f"Bearer {body['recorder_token']}"}
    assert append(client, game, recorder, *evo1_turn_3()).status_code == 200
    seats = {seat: {"Authorization": f"Bearer {token}"} for seat, token in body["seat_tokens"].items()}
    listed = {
        who: client.get(f"/v1/games/{game}/legal", headers=headers).json()["actions"]
        for who, headers in {"public": {}, "recorder": recorder, **seats}.items()
    }
    players_of = {who: {line.split()[0] for line in actions if " play " in line} for who, actions in listed.items()}
    assert players_of["recorder"] == {"ann", "ben"}  # cat holds only start(3) cards
    assert players_of["ann"] == {"ann"} and players_of["ben"] == {"ben"}
    assert players_of["cat"] == set() and players_of["public"] == set()
    assert "roll 1" in listed["public"]
    state = client.get(f"/v1/games/{game}/state", headers=seats["ann"]).json()
    assert "choose_climate" not in str(state) and "heat_stroke" in str(state)
