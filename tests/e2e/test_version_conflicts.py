"""A change made on a game another device moved on stores nothing, and its 409 `version_conflict` says what was
stored since the version it expected: each event as the caller may see it, as the events show it to that caller, so
that the device that lost a race tells its person what the other recorded, and nothing of what is hidden from it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from api import schemas
from tests.helpers.api import append
from tests.helpers.hidden import set_aside
from tests.helpers.holds import Hold, appends_by
from tests.helpers.servers import WAIT, running_server
from tests.helpers.support import ROUND_ONE_AUCTION
from tests.helpers.tokens import bearer, co_recorder, new_game

KEYS = ["code", "message", "expected_version", "version", "recorded", "next_after"]


def events_after(client: TestClient, game: str, after: int, headers: dict[str, str]) -> list[Any]:
    answer = client.get(f"/v1/games/{game}/events", params={"after": after}, headers=headers)
    assert answer.status_code == 200, answer.text
    events: list[Any] = answer.json()["events"]
    return events


def test_an_append_another_device_overtook_stores_nothing_and_is_told_what_was_stored_since(
    client: TestClient,
) -> None:
    game, recorder, _ = new_game(client)
    _, phone = co_recorder(client, game, recorder, "ben's phone")
    seen = append(client, game, recorder, *ROUND_ONE_AUCTION[:2]).json()["version"]
    stands = append(client, game, phone, "draw eggs").json()["version"]
    for device in (recorder, phone):
        refused = append(client, game, device, "draw legs", expected_version=seen)
        assert refused.status_code == 409, refused.text
        told = refused.json()
        assert list(told) == KEYS
        assert told["code"] == "version_conflict" and f"expected version {seen}" in told["message"]
        assert (told["expected_version"], told["version"], told["next_after"]) == (seen, stands, None)
        assert told["recorded"] == events_after(client, game, seen, device)
        assert told["recorded"][0]["text"] == "draw eggs"
        schemas.VersionConflictProblem.model_validate(told)
    assert client.get(f"/v1/games/{game}").json()["version"] == stands, "nothing was stored"


def test_a_device_ahead_of_the_game_is_told_nothing_was_stored_after_the_version_it_expected(
    client: TestClient,
) -> None:
    game, recorder, _ = new_game(client)
    stands = append(client, game, recorder, ROUND_ONE_AUCTION[0]).json()["version"]
    refused = append(client, game, recorder, ROUND_ONE_AUCTION[1], expected_version=stands + 5)
    assert refused.status_code == 409
    assert {key: refused.json()[key] for key in KEYS[2:]} == {
        "expected_version": stands + 5,
        "version": stands,
        "recorded": [],
        "next_after": None,
    }


def test_an_undo_a_correction_and_a_note_overtaken_are_told_what_was_stored_since(client: TestClient) -> None:
    game, recorder, _ = new_game(client)
    seen = append(client, game, recorder, *ROUND_ONE_AUCTION[:2]).json()["version"]
    stands = append(client, game, recorder, "draw eggs").json()["version"]
    revisions: dict[str, dict[str, Any]] = {
        "undo": {"count": 1, "reason": "misread the die"},
        "correct": {"action": "climate acw", "reason": "misread the token"},
        "notes": {"event": 2, "text": "a disputed roll"},
    }
    for path, body in revisions.items():
        refused = client.post(f"/v1/games/{game}/{path}", json={**body, "expected_version": seen}, headers=recorder)
        assert refused.status_code == 409, (path, refused.text)
        assert (refused.json()["expected_version"], refused.json()["version"]) == (seen, stands), path
        assert refused.json()["recorded"] == events_after(client, game, seen, recorder), path


def test_a_seat_overtaken_is_told_the_same_whichever_card_another_seat_drew_meanwhile_E2_15(
    client: TestClient,
) -> None:
    """[E2-15] a drawn card is hidden from everyone but its holder until played: a seat's append overtaken by the
    draw is told that cat acted, never what cat drew, whichever card it was."""
    told_to_ann = []
    for held in ("Heatwave", "Ambush"):
        game, recorder, ann = new_game(client)
        allowed = client.put(f"/v1/games/{game}/seats-record", json={"allowed": True}, headers=recorder)
        assert allowed.status_code == 200, allowed.text
        seen = append(client, game, recorder, *ROUND_ONE_AUCTION).json()["version"]
        assert append(client, game, recorder, f"cat drew {held}").status_code == 200
        refused = append(client, game, ann, "ann pass", expected_version=seen)
        assert refused.status_code == 409, refused.text
        assert held not in refused.text
        assert [(event["text"], event["hidden"]) for event in refused.json()["recorded"]] == [
            ("an action of cat, hidden from this reader", True)
        ]
        told_to_ann.append(set_aside(refused.text))
        to_the_recorder = append(client, game, recorder, "ann pass", expected_version=seen)
        assert f"cat drew {held}" in to_the_recorder.text, "the recorder sees the card"
    assert told_to_ann[0] == told_to_ann[1]


def test_the_schema_documents_what_a_version_conflict_says(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    conflict = {"$ref": schemas.COMPONENTS + "VersionConflictProblem"}
    for path in ("actions", "undo", "correct", "notes"):
        documented = spec["paths"][f"/v1/games/{{game_id}}/{path}"]["post"]["responses"]["409"]
        assert conflict in documented["content"]["application/json"]["schema"]["anyOf"], path
    model = spec["components"]["schemas"]["VersionConflictProblem"]
    assert sorted(model["required"]) == sorted(KEYS)


def game_of_two_devices(http: httpx.Client) -> tuple[str, str, dict[str, str]]:
    """A game over HTTP with the round begun: its id, the recorder's token and a co-recorder's headers."""
    players = [{"name": name} for name in ("ann", "ben", "cat")]
    created = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": players}).json()
    game, token = created["game_id"], created["recorder_token"]
    added = http.post(f"/v1/games/{game}/co-recorders", json={"name": "ben's phone"}, headers=bearer(token))
    begun = http.post(f"/v1/games/{game}/actions", json={"actions": ROUND_ONE_AUCTION[:2]}, headers=bearer(token))
    assert (added.status_code, begun.status_code) == (201, 200), (added.text, begun.text)
    return game, token, bearer(added.json()["token"])


def test_two_devices_racing_the_one_held_at_the_server_until_the_other_is_stored_is_told_what_it_stored(
    tmp_path: Path,
) -> None:
    hold = Hold()
    with (
        running_server(str(tmp_path / "race.sqlite"), adapted=hold.install) as base,
        httpx.Client(base_url=base, timeout=WAIT) as http,
        ThreadPoolExecutor(1) as pool,
    ):
        game, token, phone = game_of_two_devices(http)
        actions, seen = f"/v1/games/{game}/actions", http.get(f"/v1/games/{game}").json()["version"]
        with hold.holding(appends_by(token)):
            entry = {"actions": ["draw legs"], "expected_version": seen}
            held = pool.submit(http.post, actions, json=entry, headers=bearer(token))
            hold.wait_held()
            first = http.post(actions, json={"actions": ["draw eggs"], "expected_version": seen}, headers=phone)
            assert first.status_code == 200, first.text
        refused = held.result(timeout=WAIT)
        assert refused.status_code == 409, refused.text
        recorded = http.get(f"/v1/games/{game}/events", params={"after": seen}, headers=bearer(token)).json()
        assert refused.json()["recorded"] == recorded["events"] and recorded["events"][0]["text"] == "draw eggs"
        assert refused.json()["version"] == first.json()["version"]
