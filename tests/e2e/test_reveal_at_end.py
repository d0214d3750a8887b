"""A finished game shows every hidden fact to every reader unless its recorder keeps them hidden: then the public
and the other seats are answered as during play. Two finished games that differ only in a card held to the end are
asked every route that quotes a game, by the public and by another seat, and answer alike once ids, hashes, salts
and times are set aside; the recorder sets it as the game is created or later, on a route of its own."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from evo_ledger.game.codec import unpack
from evo_ledger.game.notation import parse_game
from tests.helpers.hidden import Recorded, set_aside, streamed
from tests.helpers.servers import ADMIN
from tests.helpers.shown import shown
from tests.helpers.stored import FIXTURES
from tests.helpers.support import ROOT

ACTIONS = [line.text for line in parse_game((ROOT / "replays" / "evo1-hand-3p.evo").read_text()).actions]
HELD, OTHER = "ann drew loss_penalty", "ann drew stampede"  # ann holds it to the end; no one draws stampede
BATCH = 200
ROUTES = ("", "/state", "/view", "/events?limit=1000", "/export", "/legal", "/audit", "/state?at=12", "/view?at=12")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def played(client: TestClient, actions: list[str], reveal_at_end: bool | None = None) -> tuple[Recorded, str]:
    """The game created with a token per seat (`reveal_at_end` as given, left out if None) and its actions
    appended by its recorder; and the recorder's token."""
    setup: dict[str, Any] = {"kit": "standin-e1-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")]}
    setup |= {"seat_tokens": True} | ({} if reveal_at_end is None else {"reveal_at_end": reveal_at_end})
    created = client.post("/v1/games", json=setup)
    assert created.status_code == 201, created.text
    body = created.json()
    game, token, version = body["game_id"], body["recorder_token"], body["version"]
    for start in range(0, len(actions), BATCH):
        answer = client.post(
            f"/v1/games/{game}/actions", json={"actions": actions[start : start + BATCH]}, headers=bearer(token)
        )
        assert answer.status_code == 200, answer.text
        version = answer.json()["version"]
    return Recorded(game, version, body["seat_tokens"]), token


def finished(client: TestClient, actions: list[str], reveal_at_end: bool | None = None) -> tuple[Recorded, str]:
    """The game played to its end."""
    game, token = played(client, actions, reveal_at_end)
    assert client.get(f"/v1/games/{game.game}").json()["status"] == "over"
    return game, token


def bundle_said(client: TestClient, game: str, headers: dict[str, str]) -> str:
    """A bundle export as its reader gets it: its events decoded, and the events it says it leaves out; the seats'
    labels it stores (a bundle is the stored form) read as the handles they stand for."""
    got = client.get(f"/v1/games/{game}/export?format=bundle", headers=headers)
    bundle = unpack(got.content)
    ledger = client.app.state.ledger  # type: ignore[attr-defined]
    decode = ledger.store.mapper.transcoder.decode
    rows = [[topic, version, decode(state)] for topic, version, state in bundle["events"]]
    said = {"left_out": bundle.get("left_out"), "header": got.headers.get("Evo-Left-Out"), "events": rows}
    return set_aside(shown(ledger, json.dumps(said, default=str, sort_keys=True)))


def told(client: TestClient, game: Recorded, headers: dict[str, str]) -> dict[str, str]:
    """Every route that quotes the game, as the holder of `headers` is answered, ids and hashes set aside."""
    answers = {}
    for route in ROUTES:
        got = client.get(f"/v1/games/{game.game}{route}", headers=headers)
        answers[route] = f"{got.status_code} {set_aside(got.text)}"
    answers["bundle"] = bundle_said(client, game.game, headers)
    answers["stream"] = set_aside(streamed(client, game, headers))
    return answers


def test_a_finished_game_shows_a_seats_hand_to_the_public_unless_told_otherwise(client: TestClient) -> None:
    game, _ = finished(client, ACTIONS)
    assert client.get(f"/v1/games/{game.game}").json()["reveal_at_end"] is True
    public = told(client, game, {})
    assert all(HELD in public[route] for route in ("/events?limit=1000", "/export", "bundle", "stream"))
    assert "loss_penalty" in public["/state"]  # ann's hand
    assert "hidden until revealed" not in json.dumps(public)


def test_a_finished_game_keeping_its_hidden_facts_tells_the_public_and_other_seats_nothing_of_a_held_card(
    client: TestClient,
) -> None:
    pair = [finished(client, actions, reveal_at_end=False)[0] for actions in (ACTIONS, swapped(ACTIONS))]
    assert client.get(f"/v1/games/{pair[0].game}").json()["reveal_at_end"] is False
    for reader in ("public", "ben"):
        answers = [told(client, game, {} if reader == "public" else bearer(game.seats[reader])) for game in pair]
        differing = [route for route in answers[0] if answers[0][route] != answers[1][route]]
        assert not differing, {route: (answers[0][route][-400:], answers[1][route][-400:]) for route in differing}
        assert HELD not in json.dumps(answers[0]) and OTHER not in json.dumps(answers[1])
        assert "ann: hidden until revealed" in answers[0]["/events?limit=1000"]
    own = [told(client, game, bearer(game.seats["ann"])) for game in pair]  # ann still sees her own cards
    assert HELD in own[0]["/events?limit=1000"] and OTHER in own[1]["/events?limit=1000"]
    admin = client.get(f"/v1/games/{pair[0].game}/events?limit=1000", headers=bearer(ADMIN)).text
    assert HELD in admin


def swapped(actions: list[str]) -> list[str]:
    return [OTHER if action == HELD else action for action in actions]


def test_the_recorder_shows_them_after_the_end_and_hides_them_again_and_the_audit_names_each_time(
    client: TestClient,
) -> None:
    game, token = finished(client, ACTIONS, reveal_at_end=False)
    events = client.get(f"/v1/games/{game.game}/events?limit=2", headers=bearer(token)).json()["events"]
    assert (events[1]["kind"], events[1]["topic"]) == ("EndRevealSet", "evo-ledger:Game.EndRevealSet")
    assert events[1]["fields"]["reveal_at_end"] is False and "stay hidden" in events[1]["text"]
    route = f"/v1/games/{game.game}/reveal-at-end"
    shown = client.put(route, json={"reveal_at_end": True}, headers=bearer(token))
    assert shown.status_code == 200, shown.text
    assert shown.json() == {**shown.json(), "version": game.version + 1, "reveal_at_end": True}
    assert "loss_penalty" in client.get(f"/v1/games/{game.game}/state").text
    again = client.put(route, json={"reveal_at_end": True}, headers=bearer(token))
    assert again.json()["version"] == game.version + 1  # what stands appends nothing
    hidden = client.put(route, json={"reveal_at_end": False}, headers=bearer(ADMIN))  # the admin may too
    assert hidden.status_code == 200 and hidden.json()["version"] == game.version + 2
    assert "loss_penalty" not in client.get(f"/v1/games/{game.game}/state").text
    assert HELD not in client.get(f"/v1/games/{game.game}/export").text
    audit = client.get(f"/v1/games/{game.game}/audit").json()  # the public's, with the hidden actions left out
    assert audit["verdict"] == "clean" and audit["left_out"]["hidden_actions"]
    assert audit["reveal_at_end_set"] == [
        {"event": 2, "reveal_at_end": False},
        {"event": game.version + 1, "reveal_at_end": True},
        {"event": game.version + 2, "reveal_at_end": False},
    ]
    assert client.get(f"/v1/games/{game.game}/audit").content == client.get(f"/v1/games/{game.game}/audit").content


def test_only_the_recorder_and_the_admin_set_it(client: TestClient) -> None:
    game, token = played(client, ACTIONS[:20])
    route = f"/v1/games/{game.game}/reveal-at-end"
    refused = {
        "public": client.put(route, json={"reveal_at_end": False}),
        "seat": client.put(route, json={"reveal_at_end": False}, headers=bearer(game.seats["ann"])),
        "other token": client.put(route, json={"reveal_at_end": False}, headers=bearer("not-a-token")),
    }
    assert {name: (a.status_code, a.json()["code"]) for name, a in refused.items()} == {
        "public": (401, "token_required"),
        "seat": (403, "token_refused"),
        "other token": (403, "token_refused"),
    }
    bad = client.put(route, json={"reveal_at_end": "maybe"}, headers=bearer(token))
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_request"
    unknown = client.put("/v1/games/00000000-0000-4000-8000-000000000000/reveal-at-end", json={"reveal_at_end": True})
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_game"
    assert client.get(f"/v1/games/{game.game}").json()["version"] == game.version  # nothing was written
    assert client.put(route, json={"reveal_at_end": False}, headers=bearer(token)).status_code == 200
    assert client.get(f"/v1/games/{game.game}").json()["reveal_at_end"] is False
    schema = client.get("/openapi.json").json()
    assert schema["paths"]["/v1/games/{game_id}/reveal-at-end"]["put"]["operationId"] == "set_reveal_at_end"
    assert schema["components"]["schemas"]["NewGame"]["properties"]["reveal_at_end"]["default"] is True


def test_a_co_recorder_may_not_set_it_as_no_change_of_how_the_game_is_read_is_its(client: TestClient) -> None:
    """A co-recorder records the game as the recorder does, but how the game is read (who records it, the
    broadcast's delay, whether seats record, and whether its end reveals its hidden facts) is the recorder's own
    token's to change, or the admin's."""
    game, token = played(client, ACTIONS[:20])
    issued = client.post(f"/v1/games/{game.game}/co-recorders", json={"name": "ben's phone"}, headers=bearer(token))
    phone = bearer(issued.json()["token"])
    route = f"/v1/games/{game.game}/reveal-at-end"
    refused = client.put(route, json={"reveal_at_end": False}, headers=phone)
    assert (refused.status_code, refused.json()["code"]) == (403, "token_refused")
    summary = client.get(f"/v1/games/{game.game}").json()
    assert (summary["version"], summary["reveal_at_end"]) == (game.version, True), "nothing was written"
    admin = client.put(route, json={"reveal_at_end": False}, headers=bearer(ADMIN))
    assert admin.status_code == 200 and admin.json()["reveal_at_end"] is False


def test_an_old_bundle_of_a_finished_game_shows_its_hidden_facts(client: TestClient) -> None:
    bundle = (FIXTURES / "evo1-v1-hand.msgpack").read_bytes()
    answer = client.post("/v1/games/import", content=bundle, headers={"Content-Type": "application/msgpack"})
    assert answer.status_code == 201, answer.text
    game = answer.json()["game_id"]
    assert client.get(f"/v1/games/{game}").json()["reveal_at_end"] is True
    assert "ann drew heat_stroke" in client.get(f"/v1/games/{game}/events?limit=1000").text
    assert "reveal_at_end_set" not in client.get(f"/v1/games/{game}/audit").json()
