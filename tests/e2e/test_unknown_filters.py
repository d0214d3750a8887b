"""A filter that names what is not there (a ruleset not installed, a player no game names, a game or a recorder the
read tables do not show) is refused with a code, never answered with an empty list."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient
from httpx import Response

from evo_ledger.app.access import token_digest
from projections.readmodel import recorder_of
from tests.helpers.api import new_game
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import caught_up

ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}
BY_RULESET = (
    "ratings",
    "seats",
    "first-places",
    "lengths",
    "scores",
    "profiles",
    "calibration",
    "seat-advantage",
    "batch-ratings",
    "skill",
    "dice",
)


def refused(answer: Response, status: int, code: str) -> bool:
    return answer.status_code == status and answer.json()["code"] == code


def listed(client: TestClient, headers: dict[str, str] | None = None, **query: str) -> int:
    answer = client.get("/v1/games", params=query, headers=headers or {})
    assert answer.status_code == 200, answer.text
    return len(answer.json()["games"])


def test_the_game_list_refuses_a_ruleset_not_installed_and_a_player_no_game_names(client: TestClient) -> None:
    new_game(client)
    assert refused(client.get("/v1/games", params={"ruleset": "evo3"}), 404, "unknown_ruleset")
    assert refused(client.get("/v1/games", params={"player": "zed"}), 404, "unknown_player")
    assert listed(client, player="ann") == 1 and listed(client, player="cat@club") == 1
    assert listed(client, ruleset="evo1") == 0  # installed, with no game yet
    assert listed(client, ruleset="evo1", player="ann") == 0  # ann plays, not evo1


def test_a_player_only_a_private_game_names_is_unknown_but_to_the_admin(client: TestClient) -> None:
    game, _ = new_game(client)
    assert client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=ADMIN_HEADERS).status_code == 200
    assert refused(client.get("/v1/games", params={"player": "ann"}), 404, "unknown_player")
    assert listed(client, ADMIN_HEADERS, player="ann") == 1


@pytest.mark.parametrize("statistic", BY_RULESET)
def test_each_statistic_of_a_ruleset_refuses_one_not_installed(client: TestClient, statistic: str) -> None:
    assert refused(client.get(f"/v1/statistics/{statistic}", params={"ruleset": "evo3"}), 404, "unknown_ruleset")


def test_a_rulesets_own_statistics_refuse_one_not_installed(client: TestClient) -> None:
    assert refused(client.get("/v1/rulesets/evo3/statistics"), 404, "unknown_ruleset")
    assert refused(client.get("/v1/rulesets/evo3/statistics/genes"), 404, "unknown_ruleset")


def test_the_dice_refuse_a_game_or_a_recorder_the_read_tables_do_not_show(client: TestClient) -> None:
    game, headers = new_game(client)
    caught_up(client)
    recorder = recorder_of(token_digest(headers["Authorization"].removeprefix("Bearer ")))
    assert recorder is not None
    dice = "/v1/statistics/dice"
    assert refused(client.get(dice, params={"ruleset": "evo2", "game_id": str(uuid.uuid4())}), 404, "unknown_game")
    assert refused(client.get(dice, params={"ruleset": "evo1", "game_id": game}), 422, "wrong_ruleset")
    assert refused(client.get(dice, params={"ruleset": "evo2", "recorder": "0" * 12}), 404, "unknown_recorder")
    assert client.get(dice, params={"ruleset": "evo2", "game_id": game}).status_code == 200
    assert client.get(dice, params={"ruleset": "evo2", "recorder": recorder}).status_code == 200
