"""Withdrawn games over HTTP, on each database: withdrawing a finished game changes no statistic (every route the app
serves under /v1/statistics/ and every ruleset's own), reinstating it brings it back; the list leaves it out
unless asked; the recorder's own token and the admin withdraw, no one else; bad input answers its code and stores
nothing; the audit says the game is withdrawn and why."""

from __future__ import annotations

import time
from typing import Any
from uuid import uuid4

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from evo_ledger.rules import rulesets
from tests.helpers.api import HAND_GAME
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import import_hand_game
from tests.helpers.support import ROOT
from tests.helpers.tokens import bearer, co_recorder

ADMIN_HEADERS = bearer(ADMIN)
TEST_GAME, FOUND_AGAIN = "a test game, recorded to try the phones", "it was a real game after all"
RECORDED = ("selfplay-3p-seed10.evo", "evo1-hand-3p.evo", "evo1-selfplay-3p-seed5.evo", "traits-hand-2p.evo")
LATER = "selfplay-4p-seed2.evo"  # an evo2 game: it moves the ratings, the win rates and the horn die's rolls
STATISTICS = "/v1/statistics/"
OWN_STATISTICS = "/v1/rulesets/{ruleset}/statistics"
FRESHNESS = ("position", "log_position")  # where the answer was read in the log, which every event moves


def imported(client: TestClient, name: str) -> tuple[str, dict[str, str]]:
    """A replay imported: its game's id and its recorder's headers."""
    answer = client.post(
        "/v1/games/import", content=(ROOT / "replays" / name).read_text(), headers={"Content-Type": "text/plain"}
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["game_id"], bearer(answer.json()["recorder_token"])


def settled(client: TestClient) -> None:
    """The read tables include every event stored so far."""
    deadline = time.monotonic() + 30
    while (fresh := client.get("/v1/projections").json())["position"] != fresh["log_position"]:
        assert time.monotonic() < deadline, f"the read tables did not catch up: {fresh}"
        time.sleep(0.1)


def statistic_paths(client: TestClient) -> list[str]:
    """Every statistic the app serves, asked of every installed ruleset: the routes under /v1/statistics/ (a
    ruleset in the query, which those across rulesets leave unread), and each ruleset's own."""
    app: Any = client.app
    routes = [route.path for route in app.routes if isinstance(route, APIRoute) and "GET" in (route.methods or ())]
    across = sorted(path for path in routes if path.startswith(STATISTICS))
    assert not [path for path in across if "{" in path], "a statistic with a path parameter: ask it here"
    own = sorted(path for path in routes if path.startswith(OWN_STATISTICS))
    assert own == [OWN_STATISTICS, OWN_STATISTICS + "/{name}"], own
    paths: list[str] = []
    for ruleset in sorted(rulesets()):
        paths.extend(f"{path}?ruleset={ruleset}" for path in across)
        paths.append(f"/v1/statistics/seat-advantage?ruleset={ruleset}&by=place")
        listed = client.get(OWN_STATISTICS.format(ruleset=ruleset)).json()["statistics"]
        paths.append(OWN_STATISTICS.format(ruleset=ruleset))
        paths.extend(f"{OWN_STATISTICS.format(ruleset=ruleset)}/{statistic['name']}" for statistic in listed)
    return paths


def answers(client: TestClient, paths: list[str]) -> dict[tuple[str, str], tuple[int, Any]]:
    """Each statistic's status and body, as the public and as the admin, with where it was read in the log set
    aside."""
    found = {}
    for path in paths:
        for who, headers in (("public", {}), ("admin", ADMIN_HEADERS)):
            answer = client.get(path, headers=headers)
            assert answer.status_code < 500, f"{path}: {answer.text}"
            body = answer.json()
            if isinstance(body, dict):
                body = {key: value for key, value in body.items() if key not in FRESHNESS}
            found[(who, path)] = (answer.status_code, body)
    return found


@pytest.mark.slow
def test_a_withdrawn_game_changes_no_statistic_and_a_reinstated_one_counts_again(client: TestClient) -> None:
    """Slow: every statistic asked three times over five games, with their read tables brought up each time."""
    import_hand_game(client)
    for name in RECORDED:
        imported(client, name)
    settled(client)
    paths = statistic_paths(client)
    without = answers(client, paths)
    game, recorder = imported(client, LATER)
    settled(client)
    counted = answers(client, paths)
    moved = {key for key in without if counted[key] != without[key]}
    for path in ("ratings?ruleset=evo2", "seats?ruleset=evo2", "dice?ruleset=evo2", "games?ruleset=evo2"):
        assert ("public", STATISTICS + path) in moved and ("admin", STATISTICS + path) in moved, path
    withdrawn = client.post(f"/v1/games/{game}/withdraw", json={"reason": TEST_GAME}, headers=recorder)
    assert withdrawn.status_code == 200, withdrawn.text
    settled(client)
    assert answers(client, paths) == without
    reinstated = client.post(f"/v1/games/{game}/reinstate", json={"reason": FOUND_AGAIN}, headers=recorder)
    assert reinstated.json() == {"game_id": game, "withdrawn": False, "reason": FOUND_AGAIN}
    settled(client)
    assert answers(client, paths) == counted


def listed(client: TestClient, query: str = "", headers: dict[str, str] | None = None) -> list[str]:
    answer = client.get(f"/v1/games{query}", headers=headers or {})
    assert answer.status_code == 200, answer.text
    return [game["game_id"] for game in answer.json()["games"]]


def test_the_list_leaves_a_withdrawn_game_out_unless_asked_and_its_summary_says_why(client: TestClient) -> None:
    kept = import_hand_game(client)
    game, recorder = imported(client, "evo1-hand-3p.evo")
    answer = client.post(f"/v1/games/{game}/withdraw", json={"reason": TEST_GAME}, headers=recorder)
    assert answer.json() == {"game_id": game, "withdrawn": True, "reason": TEST_GAME}
    for headers in ({}, ADMIN_HEADERS):
        assert listed(client, headers=headers) == [kept]
        assert listed(client, "?withdrawn=exclude", headers) == [kept]
        assert listed(client, "?withdrawn=include", headers) == [kept, game]
        assert listed(client, "?withdrawn=only", headers) == [game]
    summary = client.get(f"/v1/games/{game}").json()
    assert (summary["withdrawn"], summary["withdrawn_reason"]) == (True, TEST_GAME)
    assert (client.get(f"/v1/games/{kept}").json()["withdrawn"], summary["status"]) == (False, "over")
    refused = client.get("/v1/games?withdrawn=hidden")
    assert refused.status_code == 422 and refused.json()["code"] == "invalid_request"
    assert "withdrawn" in refused.json()["message"]
    client.post(f"/v1/games/{game}/reinstate", json={"reason": FOUND_AGAIN}, headers=recorder)
    assert listed(client) == [kept, game] and listed(client, "?withdrawn=only") == []
    summary = client.get(f"/v1/games/{game}").json()
    assert (summary["withdrawn"], summary["withdrawn_reason"]) == (False, None)


def test_a_player_of_withdrawn_games_alone_is_listed_with_none_not_unknown(client: TestClient) -> None:
    players = [{"name": "zoe"}, {"name": "yan"}, {"name": "xia"}]
    created = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": players}).json()
    recorder = bearer(created["recorder_token"])
    client.post(f"/v1/games/{created['game_id']}/withdraw", json={"reason": TEST_GAME}, headers=recorder)
    assert listed(client, "?player=zoe") == []
    assert listed(client, "?player=zoe&withdrawn=include") == [created["game_id"]]
    unknown = client.get("/v1/games?player=nobody")
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_player"


def new_game_with_seats(client: TestClient) -> tuple[str, dict[str, dict[str, str]]]:
    """A game with seat tokens and a co-recorder: its id and each role's headers."""
    players = [{"name": "ann"}, {"name": "ben"}, {"name": "cat"}]
    body = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": players, "seat_tokens": True}).json()
    game, recorder = body["game_id"], bearer(body["recorder_token"])
    _, co = co_recorder(client, game, recorder, "ben's phone")
    roles = {
        "recorder": recorder,
        "co-recorder": co,
        "seat": bearer(body["seat_tokens"]["ann"]),
        "public": {},
        "stranger": bearer("a token no game knows"),
        "admin": ADMIN_HEADERS,
    }
    return game, roles


def log_position(client: TestClient) -> int:
    position: int = client.get("/v1/projections").json()["log_position"]
    return position


def test_the_recorders_own_token_and_the_admin_withdraw_and_no_one_else(client: TestClient) -> None:
    game, roles = new_game_with_seats(client)
    refused = {role: (403, "token_refused") for role in ("co-recorder", "seat", "stranger")}
    refused["public"] = (401, "token_required")
    stored = log_position(client)
    for role, (status, code) in refused.items():
        for change in ("withdraw", "reinstate"):
            answer = client.post(f"/v1/games/{game}/{change}", json={"reason": TEST_GAME}, headers=roles[role])
            assert (answer.status_code, answer.json()["code"]) == (status, code), (role, change, answer.text)
    assert log_position(client) == stored
    for role in ("recorder", "admin"):
        withdrawn = client.post(f"/v1/games/{game}/withdraw", json={"reason": TEST_GAME}, headers=roles[role])
        assert withdrawn.status_code == 200 and withdrawn.json()["withdrawn"] is True, (role, withdrawn.text)
        reinstated = client.post(f"/v1/games/{game}/reinstate", json={"reason": FOUND_AGAIN}, headers=roles[role])
        assert reinstated.status_code == 200 and reinstated.json()["withdrawn"] is False, (role, reinstated.text)


def test_a_private_game_is_unknown_to_the_public_that_withdraws_it(client: TestClient) -> None:
    game, roles = new_game_with_seats(client)
    assert client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=ADMIN_HEADERS).status_code == 200
    for role in ("public", "stranger"):
        answer = client.post(f"/v1/games/{game}/withdraw", json={"reason": TEST_GAME}, headers=roles[role])
        assert (answer.status_code, answer.json()["code"]) == (404, "unknown_game"), role
    seat = client.post(f"/v1/games/{game}/withdraw", json={"reason": TEST_GAME}, headers=roles["seat"])
    assert (seat.status_code, seat.json()["code"]) == (403, "token_refused")
    unknown = client.post(f"/v1/games/{uuid4()}/withdraw", json={"reason": TEST_GAME}, headers=ADMIN_HEADERS)
    assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_game")


def test_bad_input_answers_its_code_and_stores_nothing(client: TestClient) -> None:
    game, roles = new_game_with_seats(client)
    recorder = roles["recorder"]
    stored = log_position(client)
    for body in (
        {},
        {"reason": ""},
        {"reason": "x" * 201},
        {"reason": "   "},
        {"reason": "abandoned\u0000"},
        {"reason": 5},
        {"reason": TEST_GAME, "withdrawn": True},
    ):
        answer = client.post(f"/v1/games/{game}/withdraw", json=body, headers=recorder)
        assert (answer.status_code, answer.json()["code"]) == (422, "invalid_request"), (body, answer.text)
        assert "body" in answer.json()["message"], answer.text
    assert "reason" in client.post(f"/v1/games/{game}/withdraw", json={"reason": ""}, headers=recorder).text
    not_withdrawn = client.post(f"/v1/games/{game}/reinstate", json={"reason": FOUND_AGAIN}, headers=recorder)
    assert (not_withdrawn.status_code, not_withdrawn.json()["code"]) == (409, "not_withdrawn")
    assert log_position(client) == stored
    assert client.post(f"/v1/games/{game}/withdraw", json={"reason": TEST_GAME}, headers=recorder).status_code == 200
    again = client.post(f"/v1/games/{game}/withdraw", json={"reason": "once more"}, headers=recorder)
    assert (again.status_code, again.json()["code"]) == (409, "already_withdrawn")
    assert again.json()["message"].endswith("is withdrawn already")  # a refusal opens no typed text
    assert log_position(client) == stored + 1


def test_the_audit_of_a_withdrawn_game_says_so_and_is_the_same_bytes_twice(client: TestClient) -> None:
    answer = client.post("/v1/games/import", content=HAND_GAME, headers={"Content-Type": "text/plain"})
    game, recorder = answer.json()["game_id"], bearer(answer.json()["recorder_token"])
    before = client.get(f"/v1/games/{game}/audit")
    assert "withdrawal" not in before.json()
    client.post(f"/v1/games/{game}/withdraw", json={"reason": TEST_GAME}, headers=recorder)
    first, second = client.get(f"/v1/games/{game}/audit"), client.get(f"/v1/games/{game}/audit", headers=recorder)
    assert first.status_code == 200 and first.content == second.content
    assert first.headers["X-Report-Hash"] == second.headers["X-Report-Hash"] != before.headers["X-Report-Hash"]
    report = first.json()
    assert report["verdict"] == "clean" and report["events_audited"] == before.json()["events_audited"]
    assert (report["withdrawal"]["withdrawn"], report["withdrawal"]["reason"]) == (True, TEST_GAME)
    client.post(f"/v1/games/{game}/reinstate", json={"reason": FOUND_AGAIN}, headers=recorder)
    reinstated = client.get(f"/v1/games/{game}/audit").json()["withdrawal"]
    assert reinstated["withdrawn"] is False and [c["withdrawn"] for c in reinstated["changes"]] == [True, False]


def test_the_dice_of_a_withdrawn_game_are_refused_and_left_out_of_the_rest(client: TestClient) -> None:
    game, recorder = imported(client, LATER)
    settled(client)
    every_game = client.get("/v1/statistics/dice", params={"ruleset": "evo2"}).json()["fit"]["rolls"]
    assert every_game > 0
    client.post(f"/v1/games/{game}/withdraw", json={"reason": TEST_GAME}, headers=recorder)
    settled(client)
    refused = client.get("/v1/statistics/dice", params={"ruleset": "evo2", "game_id": game})
    assert (refused.status_code, refused.json()["code"]) == (409, "withdrawn_game")
    assert client.get("/v1/statistics/dice", params={"ruleset": "evo2"}).json()["fit"]["rolls"] == 0
    standings = client.get(f"/v1/games/{game}/standings")
    assert standings.status_code == 200 and standings.json()["final"]  # the game's own report: its log, kept
