"""The statistics that weigh the players' strengths over HTTP, on each database: calibration, seat advantage, batch
ratings and skill against luck answer from the finished games the reader may see (a private game for the admin
alone), the incremental ratings they replay are the served ones, bad parameters are refused with a code, and every
call docs/projections.md shows answers with the fields it documents."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from evo_ledger.app.selfplay import play_game
from projections import strengths
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import caught_up, import_hand_game
from tests.helpers.support import ROOT

ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}
MIXED = (["sensible", "random"], ["random", "sensible", "random"], ["random", "sensible"])
GAMES = 6
STRENGTHS = ("calibration", "seat-advantage", "batch-ratings", "skill")
PAGE = (ROOT / "docs" / "projections.md").read_text()


def documented_calls() -> list[tuple[str, list[str]]]:
    """Each call the page shows for these statistics, with the fields its answer is documented to have."""
    section = PAGE.split("## Statistics that weigh the players' strengths", 1)[1].split("\n## ", 1)[0]
    calls = []
    for block in re.findall(r"```http\n(.*?)```", section, flags=re.DOTALL):
        call, *answer = block.strip().splitlines()
        calls.append((call.removeprefix("GET "), re.findall(r'"(\w+)":', "\n".join(answer))))
    return calls


def record_mixed_tables(client: TestClient) -> list[str]:
    games = []
    for seed in range(GAMES):
        bots = MIXED[seed % len(MIXED)]
        games.append(import_hand_game(client, play_game(len(bots), seed, "sensible", "evo2", None, bots).text()))
    return games


def test_the_strength_statistics_answer_from_the_games_the_reader_may_see(client: TestClient) -> None:
    games = record_mixed_tables(client)
    assert client.put(f"/v1/games/{games[0]}/privacy", json={"private": True}, headers=ADMIN_HEADERS).status_code == 200
    caught_up(client)
    query = {"ruleset": "evo2"}
    public = client.get("/v1/statistics/calibration", params=query).json()
    admin = client.get("/v1/statistics/calibration", params=query, headers=ADMIN_HEADERS).json()
    assert (public["games"], admin["games"]) == (GAMES - 1, GAMES)
    assert public["position"] == public["log_position"] and public["ruleset"] == "evo2"
    assert public["later_half"]["games"] == (GAMES - 1) - (GAMES - 1) // 2
    assert sum(row["predictions"] for row in public["bins"]) == sum(2 + (s % 3 == 1) for s in range(1, GAMES))

    batch = client.get("/v1/statistics/batch-ratings", params=query).json()["rows"]
    served = {row["player_id"]: row for row in client.get("/v1/statistics/ratings", params=query).json()["rows"]}
    assert {row["player_id"] for row in batch} == set(served)
    for row in batch:  # the incremental ratings beside the batch ones are the served ones
        assert (row["incremental_mu"], row["incremental_sigma"]) == (
            served[row["player_id"]]["mu"],
            served[row["player_id"]]["sigma"],
        )
        assert row["difference"] == row["mu"] - row["incremental_mu"]
    assert batch[0]["name"] == "sensible" and batch[0]["rank"] == 1

    seats = client.get("/v1/statistics/seat-advantage", params=query).json()
    assert seats["by"] == "seat" and seats["games"] == GAMES - 1 and seats["players"] == 3
    assert [(row["players"], row["at"]) for row in seats["rows"]] == [(2, 1), (2, 2), (3, 1), (3, 2), (3, 3)]
    raw = client.get("/v1/statistics/seats", params=query).json()["rows"]
    assert [row["win_rate"] for row in seats["rows"]] == [row["win_rate"] for row in raw]
    by_place = client.get("/v1/statistics/seat-advantage", params={**query, "by": "place"}).json()
    assert by_place["by"] == "place" and by_place["games"] == GAMES - 1

    skill = client.get("/v1/statistics/skill", params={**query, "min_games": 1}).json()
    assert skill["games"] == GAMES - 1 and skill["counted_players"] == 3 and skill["bots"]["gap"] > 0
    assert [row["bots_share"] for row in skill["benchmarks"]] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert 0 <= skill["skill_share"] <= 1
    few = client.get("/v1/statistics/skill", params={**query, "min_games": GAMES}).json()
    assert few["dispersion"] is None and few["counted_players"] == 0  # nobody has played every game

    for call, fields in documented_calls():
        answer = client.get(call)
        assert answer.status_code == 200, (call, answer.text)
        assert set(fields) <= set(answer.text and _keys(answer.json())), call
    assert len(documented_calls()) == len(STRENGTHS)


def _keys(value: object) -> set[str]:
    """Every key of a JSON answer, at any depth."""
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in _keys(item)}
    if isinstance(value, list):
        return {key for item in value for key in _keys(item)}
    return set()


def test_an_unknown_ruleset_and_bad_parameters_are_refused_with_a_code(client: TestClient) -> None:
    for name in STRENGTHS:
        answer = client.get(f"/v1/statistics/{name}", params={"ruleset": "chess"})
        assert answer.status_code == 404 and answer.json()["code"] == "unknown_ruleset", name
        assert client.get(f"/v1/statistics/{name}").json()["code"] == "invalid_request"
    for params in ({"by": "table"}, {"by": ""}):
        answer = client.get("/v1/statistics/seat-advantage", params={"ruleset": "evo2", **params})
        assert answer.status_code == 422 and answer.json()["code"] == "invalid_request"
    for value in ("0", "-3", "many"):
        answer = client.get("/v1/statistics/skill", params={"ruleset": "evo2", "min_games": value})
        assert answer.status_code == 422 and answer.json()["code"] == "invalid_request"
    empty = client.get("/v1/statistics/seat-advantage", params={"ruleset": "traits"}).json()
    assert (empty["games"], empty["rows"]) == (0, [])
    assert client.get("/v1/statistics/calibration", params={"ruleset": "traits"}).json()["all"]["log_loss"] is None


def test_a_strength_statistic_is_made_once_for_each_position_of_the_read_tables(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over a federation a fit costs a minute: the same question at the same position of the read tables is
    answered as it was made, and made again once they move on; the admin's, which counts private games, apart."""
    made: list[int] = []
    fit = strengths.batch_ratings

    def counted(games: list[strengths.Game]) -> list[dict[str, Any]]:
        made.append(len(games))
        return fit(games)

    monkeypatch.setattr(strengths, "batch_ratings", counted)
    games = record_mixed_tables(client)
    assert client.put(f"/v1/games/{games[0]}/privacy", json={"private": True}, headers=ADMIN_HEADERS).status_code == 200
    caught_up(client)
    query = {"ruleset": "evo2"}
    first, again = (client.get("/v1/statistics/batch-ratings", params=query).json() for _ in range(2))
    admin = client.get("/v1/statistics/batch-ratings", params=query, headers=ADMIN_HEADERS).json()
    assert first == again and made == [GAMES - 1, GAMES]
    import_hand_game(client, play_game(2, GAMES, "sensible", "evo2", None, list(MIXED[0])).text())
    caught_up(client)
    later = client.get("/v1/statistics/batch-ratings", params=query).json()
    assert made == [GAMES - 1, GAMES, GAMES] and later["position"] > first["position"]
    assert admin["position"] == first["position"]
