"""Competitions over HTTP: opened by the admin alone with an organiser token shown once, their names and season
labels normalised, listed by kind and season, read with their games and standings; games entered as they are
created (stored with their entry, or neither) or later, and taken out, by the organiser or the admin alone; a
private game entered by the admin alone and shown to the admin alone; bad input answered with its code, storing
nothing; standings as docs/guide.md counts them, a withdrawn game left out of them and marked in the games; the
statistics scoped to a competition or a season, the profiles' rating histories included."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from openskill.models import PlackettLuce, PlackettLuceRating

from evo_ledger.app.ledger import Ledger
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import WAIT, caught_up
from tests.helpers.tokens import bearer

TOY_3P = {"format": 1, "ruleset": "toy", "name": "toy-3p", "stand_in": False, "players": 3, "target": 12}
THREE = [{"name": "ann"}, {"name": "ben"}, {"name": "cat"}]
# Three-player toy games to their end: the winner holds 12; each other player's banked points.
ANN_WINS = ["ann roll 6", "ann roll 6", "ann hold"]  # ann 12; ben and cat 0, sharing second place
CAT_WINS = ["ann roll 1", "ben roll 2", "ben hold", "cat roll 6", "cat roll 6", "cat hold"]  # cat 12, ben 2, ann 0
BEN_WINS = ["ann roll 1", "ben roll 6", "ben roll 6", "ben hold"]  # ben 12; ann and cat 0


def log_length(client: TestClient) -> int:
    ledger: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
    return ledger.store.recorder.max_notification_id() or 0


def opened(client: TestClient, **fields: Any) -> tuple[str, dict[str, str]]:
    """A competition opened by the admin with the fields given (a club night by default): its id and its
    organiser's header."""
    answer = client.post("/v1/competitions", json={"kind": "night", "name": "Tuesday", **fields}, headers=bearer(ADMIN))
    assert answer.status_code == 201, answer.text
    return answer.json()["competition_id"], bearer(answer.json()["organiser_token"])


def toy_kit(client: TestClient) -> str:
    answer = client.post("/v1/kits", json=TOY_3P)
    assert answer.status_code == 201, answer.text
    kit: str = answer.json()["kit"]
    return kit


def played(client: TestClient, kit: str, actions: list[str], entry: dict[str, Any], organiser: dict[str, str]) -> str:
    """A three-player toy game created in a competition and played to its end, the read tables waited for."""
    created = client.post("/v1/games", json={"kit": kit, "players": THREE, "competition": entry}, headers=organiser)
    assert created.status_code == 201, created.text
    game: str = created.json()["game_id"]
    recorder = bearer(created.json()["recorder_token"])
    appended = client.post(f"/v1/games/{game}/actions", json={"actions": actions}, headers=recorder, params=WAIT)
    assert appended.status_code == 200 and appended.headers["Evo-Projections"] == "caught-up", appended.text
    return game


def standings(client: TestClient, competition: str, headers: dict[str, str] | None = None) -> list[tuple[Any, ...]]:
    answer = client.get(f"/v1/competitions/{competition}", headers=headers or {})
    assert answer.status_code == 200, answer.text
    return [(row["place"], row["name"], row["points"], row["wins"]) for row in answer.json()["standings"]]


def test_a_competition_is_opened_listed_and_read(client: TestClient) -> None:
    answer = client.post(
        "/v1/competitions",
        json={"kind": "tournament", "name": "Spring cup", "season": "2026 spring", "points": [5, 3, 1]},
        headers=bearer(ADMIN),
    )
    assert answer.status_code == 201, answer.text
    cup = answer.json()
    assert cup["organiser_token"].startswith(cup["competition_id"] + ".")
    fields = {key: value for key, value in cup.items() if key != "organiser_token"}
    assert fields == {
        "competition_id": cup["competition_id"],
        "kind": "tournament",
        "name": "Spring cup",
        "season": "2026 spring",
        "scoring": "places",
        "points": [5, 3, 1],
        "created_at": cup["created_at"],
    }
    league, _ = opened(client, kind="season", name="League", season="2026 spring", scoring="scores")
    night, _ = opened(client)
    listed = client.get("/v1/competitions").json()["competitions"]
    assert [c["competition_id"] for c in listed] == [cup["competition_id"], league, night]
    assert listed[0] == fields and listed[1]["points"] == []
    by_kind = client.get("/v1/competitions", params={"kind": "night"}).json()["competitions"]
    assert [c["competition_id"] for c in by_kind] == [night]
    in_season = client.get("/v1/competitions", params={"season": "2026 spring"}).json()["competitions"]
    assert [c["competition_id"] for c in in_season] == [cup["competition_id"], league]
    read = client.get(f"/v1/competitions/{cup['competition_id']}").json()
    assert {key: read[key] for key in fields} == fields and "organiser_token" not in read
    assert read["games"] == [] and read["standings"] == [] and read["position"] <= read["log_position"]


def test_a_game_created_in_a_competition_is_in_it_at_once_and_a_refused_entry_stores_no_game(
    client: TestClient,
) -> None:
    competition, organiser = opened(client)
    game = {"kit": "toy-2p", "players": [{"name": "ann"}, {"name": "ben"}]}
    entry = {"id": competition, "round": 1, "table": "A"}
    before = log_length(client)
    refusals = [
        ({}, entry, 401, "token_required"),
        (bearer("not the organiser's"), entry, 403, "token_refused"),
        (bearer(f"{competition}.guessed"), entry, 403, "token_refused"),
        (organiser, {**entry, "id": "00000000-0000-4000-8000-000000000000"}, 404, "unknown_competition"),
        (organiser, {**entry, "id": "no competition"}, 404, "unknown_competition"),
        (organiser, {**entry, "round": 0}, 422, "invalid_request"),
        (organiser, {**entry, "round": True}, 422, "invalid_request"),
        (organiser, {**entry, "round": "2"}, 422, "invalid_request"),
        (organiser, {**entry, "table": "\u0007"}, 422, "invalid_request"),
    ]
    for headers, given, status, code in refusals:
        answer = client.post("/v1/games", json={**game, "competition": given}, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code), given
    assert log_length(client) == before, "a refused entry stores no game"
    created = client.post("/v1/games", json={**game, "competition": entry}, headers=organiser)
    assert created.status_code == 201, created.text
    games = client.get(f"/v1/competitions/{competition}").json()["games"]
    assert games == [{"game_id": created.json()["game_id"], "round": 1, "table": "A", "withdrawn": False}]
    by_admin = client.post("/v1/games", json={**game, "competition": {"id": competition}}, headers=bearer(ADMIN))
    assert by_admin.status_code == 201
    assert len(client.get(f"/v1/competitions/{competition}").json()["games"]) == 2


def test_bad_input_answers_its_code_and_stores_nothing(client: TestClient) -> None:
    competition, organiser = opened(client)
    admin = bearer(ADMIN)
    game = client.post("/v1/games", json={"kit": "toy-2p", "players": [{"name": "ann"}, {"name": "ben"}]}).json()
    game_id = game["game_id"]
    added = client.post(f"/v1/competitions/{competition}/games", json={"game_id": game_id}, headers=organiser)
    assert added.status_code == 201 and added.json() == {"game_id": game_id, "round": None, "table": None}
    unknown = "00000000-0000-4000-8000-000000000000"
    games = f"/v1/competitions/{competition}/games"
    asked: list[tuple[str, str, dict[str, Any] | None, dict[str, str], int, str]] = [
        ("POST", "/v1/competitions", {"kind": "night", "name": "x"}, {}, 401, "token_required"),
        ("POST", "/v1/competitions", {"kind": "night", "name": "x"}, organiser, 403, "token_refused"),
        ("POST", "/v1/competitions", {"kind": "night", "name": "x"}, bearer("not the admin's"), 403, "token_refused"),
        ("POST", "/v1/competitions", {"kind": "league", "name": "x"}, admin, 422, "invalid_request"),
        ("POST", "/v1/competitions", {"kind": "night", "name": " \u3000 "}, admin, 422, "invalid_request"),
        ("POST", "/v1/competitions", {"kind": "night", "name": ""}, admin, 422, "invalid_request"),
        ("POST", "/v1/competitions", {"kind": "night", "name": "x", "points": [3, 1.5]}, admin, 422, "invalid_request"),
        ("POST", "/v1/competitions", {"kind": "night", "name": "x", "points": ["3"]}, admin, 422, "invalid_request"),
        ("POST", "/v1/competitions", {"kind": "night", "name": "x", "points": []}, admin, 422, "invalid_request"),
        (
            "POST",
            "/v1/competitions",
            {"kind": "night", "name": "x", "scoring": "scores", "points": [1]},
            admin,
            422,
            "invalid_request",
        ),
        ("POST", "/v1/competitions", {"kind": "night", "name": "x", "host": "y"}, admin, 422, "invalid_request"),
        ("GET", f"/v1/competitions/{unknown}", None, {}, 404, "unknown_competition"),
        ("GET", "/v1/competitions/nothing", None, {}, 404, "unknown_competition"),
        ("GET", f"/v1/competitions/{game_id}", None, {}, 404, "unknown_competition"),
        ("GET", "/v1/competitions?season=1999", None, {}, 404, "unknown_season"),
        ("GET", "/v1/competitions?kind=league", None, {}, 422, "invalid_request"),
        ("POST", f"/v1/competitions/{unknown}/games", {"game_id": game_id}, organiser, 404, "unknown_competition"),
        ("POST", games, {"game_id": unknown}, organiser, 404, "unknown_game"),
        ("POST", games, {"game_id": "a game"}, organiser, 404, "unknown_game"),
        ("POST", games, {"game_id": competition}, organiser, 404, "unknown_game"),
        ("POST", games, {"game_id": game_id}, organiser, 409, "game_in_competition"),
        ("POST", games, {"game_id": game_id, "round": 1.5}, organiser, 422, "invalid_request"),
        ("POST", games, {"game_id": game_id, "round": True}, organiser, 422, "invalid_request"),
        ("POST", games, {"game_id": game_id, "round": "2"}, organiser, 422, "invalid_request"),
        ("POST", games, {"game_id": game_id, "table": "x" * 41}, organiser, 422, "invalid_request"),
        ("POST", games, {"game_id": game_id}, {}, 401, "token_required"),
        ("POST", games, {"game_id": game_id}, bearer("wrong"), 403, "token_refused"),
        ("DELETE", f"{games}/{game_id}", None, {}, 401, "token_required"),
        ("DELETE", f"{games}/{game_id}", None, bearer("wrong"), 403, "token_refused"),
        ("DELETE", f"{games}/{unknown}", None, organiser, 404, "unknown_game"),
    ]
    before = log_length(client)
    for method, path, body, headers, status, code in asked:
        answer = client.request(method, path, json=body, headers=headers)
        assert (answer.status_code, answer.json()["code"]) == (status, code), (method, path, body)
        assert str(answer.json()["message"]), (method, path)
    assert log_length(client) == before, "a refused request stores nothing"
    assert client.delete(f"{games}/{game_id}", headers=organiser).status_code == 204
    again = client.delete(f"{games}/{game_id}", headers=organiser)
    assert (again.status_code, again.json()["code"]) == (404, "game_not_in_competition")
    assert client.get(f"/v1/competitions/{competition}").json()["games"] == []


def test_a_private_game_is_entered_by_the_admin_alone_and_shown_to_the_admin_alone(client: TestClient) -> None:
    competition, organiser = opened(client)
    kit = toy_kit(client)
    shown = played(client, kit, ANN_WINS, {"id": competition}, organiser)
    hidden = client.post("/v1/games", json={"kit": kit, "players": THREE}).json()
    admin = bearer(ADMIN)
    privacy = client.put(f"/v1/games/{hidden['game_id']}/privacy", json={"private": True}, headers=admin)
    assert privacy.status_code == 200
    path = f"/v1/competitions/{competition}/games"
    refused = client.post(path, json={"game_id": hidden["game_id"]}, headers=organiser)
    assert (refused.status_code, refused.json()["code"]) == (404, "unknown_game")
    taken_out = client.delete(f"{path}/{hidden['game_id']}", headers=organiser)
    assert (taken_out.status_code, taken_out.json()["code"]) == (404, "unknown_game")
    assert client.post(path, json={"game_id": hidden["game_id"], "table": "B"}, headers=admin).status_code == 201
    recorder = bearer(hidden["recorder_token"])
    appended = client.post(
        f"/v1/games/{hidden['game_id']}/actions", json={"actions": CAT_WINS}, headers=recorder, params=WAIT
    )
    assert appended.status_code == 200
    public = client.get(f"/v1/competitions/{competition}").json()
    assert [game["game_id"] for game in public["games"]] == [shown]
    assert standings(client, competition) == [(1, "ann", 3, 1), (2, "ben", 1.5, 0), (2, "cat", 1.5, 0)]
    to_admin = client.get(f"/v1/competitions/{competition}", headers=admin).json()
    assert [game["game_id"] for game in to_admin["games"]] == [shown, hidden["game_id"]]
    assert standings(client, competition, admin)[0] == (1, "cat", 4.5, 1)


def test_standings_count_places_and_shared_places_and_leave_out_a_withdrawn_game(client: TestClient) -> None:
    competition, organiser = opened(client, kind="tournament", name="Cup")
    kit = toy_kit(client)
    played(client, kit, ANN_WINS, {"id": competition, "round": 1, "table": "A"}, organiser)
    second = client.post(
        "/v1/games",
        json={"kit": kit, "players": THREE, "competition": {"id": competition, "round": 2}},
        headers=organiser,
    ).json()
    recorder = bearer(second["recorder_token"])
    appended = client.post(
        f"/v1/games/{second['game_id']}/actions", json={"actions": CAT_WINS}, headers=recorder, params=WAIT
    )
    assert appended.status_code == 200 and appended.headers["Evo-Projections"] == "caught-up"
    # ann 3 + 1, wins 1, score 12; cat 1.5 + 3, wins 1, score 12; ben 1.5 + 2, no win, score 2.
    assert standings(client, competition) == [(1, "cat", 4.5, 1), (2, "ann", 4, 1), (3, "ben", 3.5, 0)]
    read = client.get(f"/v1/competitions/{competition}").json()
    assert [(game["round"], game["table"]) for game in read["games"]] == [(1, "A"), (2, None)]
    assert [(row["games"], row["score"]) for row in read["standings"]] == [(2, 12), (2, 12), (2, 2)]
    withdrawn = client.post(
        f"/v1/games/{second['game_id']}/withdraw", json={"reason": "played with a missing die"}, headers=recorder
    )
    assert withdrawn.status_code == 200, withdrawn.text
    caught_up(client)
    assert standings(client, competition) == [(1, "ann", 3, 1), (2, "ben", 1.5, 0), (2, "cat", 1.5, 0)]
    listed = client.get(f"/v1/competitions/{competition}").json()["games"]
    assert [(game["game_id"] == second["game_id"], game["withdrawn"]) for game in listed] == [
        (False, False),
        (True, True),
    ]


def test_a_competitions_name_and_season_label_are_kept_normalised_and_the_label_asked_is_read_alike(
    client: TestClient,
) -> None:
    # "Cafe" with its accent as a combining mark, runs of spaces, an ideographic space, spaces at either end.
    night, organiser = opened(client, name="  Cafe\u0301\u3000 night ", season="2026  autumn ")
    read = client.get(f"/v1/competitions/{night}").json()
    assert (read["name"], read["season"]) == ("Caf\u00e9 night", "2026 autumn")
    played(client, toy_kit(client), ANN_WINS, {"id": night}, organiser)
    for asked in ("2026 autumn", "2026  autumn", " 2026 autumn\u00a0"):
        listed = client.get("/v1/competitions", params={"season": asked}).json()["competitions"]
        assert [competition["competition_id"] for competition in listed] == [night], asked
        counted = client.get("/v1/statistics/games", params={"season": asked})
        assert counted.status_code == 200 and len(counted.json()["rows"]) == 1, asked
    unknown = client.get("/v1/competitions", params={"season": "2026 autumn 2"})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_season")


def test_a_profile_scoped_to_a_competition_or_a_season_is_rated_from_its_games_alone(client: TestClient) -> None:
    night, organiser = opened(client, season="2026 autumn")
    other, other_organiser = opened(client, name="Friday", season="2026 winter")
    kit = toy_kit(client)
    played(client, kit, BEN_WINS, {"id": other}, other_organiser)
    played(client, kit, ANN_WINS, {"id": night}, organiser)
    played(client, kit, CAT_WINS, {"id": night}, organiser)
    for scope in ({"competition": night}, {"season": "2026 autumn"}):
        rated = client.get("/v1/statistics/ratings", params={"ruleset": "toy", **scope}).json()["rows"]
        profiles = client.get("/v1/statistics/profiles", params={"ruleset": "toy", **scope}).json()["rows"]
        assert {row["name"]: (row["games"], row["rated_games"]) for row in profiles} == {
            name: (2, [1, 2]) for name in ("ann", "ben", "cat")
        }, scope
        latest = {row["name"]: row["ratings"][-1] for row in profiles}
        assert latest == pytest.approx({row["name"]: row["ordinal"] for row in rated}), scope
    every = client.get("/v1/statistics/profiles", params={"ruleset": "toy"}).json()["rows"]
    assert {row["name"]: row["rated_games"] for row in every} == {name: [1, 2, 3] for name in ("ann", "ben", "cat")}


@pytest.mark.parametrize("scoring", ["places", "scores"])
def test_a_competition_scored_by_the_games_scores_sums_them(client: TestClient, scoring: str) -> None:
    competition, organiser = opened(client, scoring=scoring)
    kit = toy_kit(client)
    played(client, kit, CAT_WINS, {"id": competition}, organiser)
    expected = {
        "places": [(1, "cat", 3, 1), (2, "ben", 2, 0), (3, "ann", 1, 0)],
        "scores": [(1, "cat", 12, 1), (2, "ben", 2, 0), (3, "ann", 0, 0)],
    }
    assert standings(client, competition) == expected[scoring]


def test_an_organisers_token_keeps_the_peoples_records_and_the_standings_count_their_people(
    client: TestClient,
) -> None:
    competition, organiser = opened(client)
    kit = toy_kit(client)
    for header, status in (({}, 401), (bearer("not a keeper's"), 403), (bearer(f"{competition}.guessed"), 403)):
        refused = client.post("/v1/people", json={"name": "Ann Smith"}, headers=header)
        assert refused.status_code == status, refused.text
    played(client, kit, ANN_WINS, {"id": competition}, organiser)
    [ann] = [seat for seat in client.get("/v1/games").json()["games"][0]["players"] if seat["name"] == "ann"]
    registered = client.post("/v1/people", json={"name": "Ann Smith", "link": [ann["id"]]}, headers=organiser)
    assert registered.status_code == 201, registered.text
    caught_up(client)
    [first, *_] = client.get(f"/v1/competitions/{competition}").json()["standings"]
    assert (first["name"], first["person_id"]) == ("Ann Smith", registered.json()["person_id"])


def rated_alone(games: list[dict[str, int]], player_ids: dict[str, str]) -> dict[str, tuple[float, float]]:
    """Each player's rating from zero over these games alone, in order (each a place by player), as the ratings
    rate a game: its players by place, then stable id."""
    model, current = PlackettLuce(), dict[str, PlackettLuceRating]()
    for places in games:
        order = sorted(places, key=lambda name: (places[name], player_ids[name]))
        teams = [[current.get(name) or model.rating()] for name in order]
        for name, [rating] in zip(order, model.rate(teams, ranks=[places[name] for name in order]), strict=True):
            current[name] = rating
    return {name: (rating.mu, rating.sigma) for name, rating in current.items()}


def test_ratings_and_statistics_filtered_by_a_competition_or_a_season_count_its_games_alone(
    client: TestClient,
) -> None:
    night, organiser = opened(client, season="2026 autumn")
    other, other_organiser = opened(client, name="Friday", season="2026 winter")
    kit = toy_kit(client)
    played(client, kit, ANN_WINS, {"id": night}, organiser)
    played(client, kit, BEN_WINS, {"id": other}, other_organiser)
    played(client, kit, CAT_WINS, {"id": night}, organiser)
    ratings = "/v1/statistics/ratings?ruleset=toy"
    everyone = {row["name"]: row for row in client.get(ratings).json()["rows"]}
    assert {row["games"] for row in everyone.values()} == {3}
    ids = {name: row["player_id"] for name, row in everyone.items()}
    expected = rated_alone([{"ann": 1, "ben": 2, "cat": 2}, {"cat": 1, "ben": 2, "ann": 3}], ids)
    for scope in (f"competition={night}", "season=2026 autumn"):
        rows = client.get(f"{ratings}&{scope}").json()["rows"]
        assert [row["name"] for row in rows] == sorted(
            expected, key=lambda name: -(expected[name][0] - 3 * expected[name][1])
        )
        for row in rows:
            assert (row["mu"], row["sigma"]) == pytest.approx(expected[row["name"]]), scope
            assert row["games"] == 2
    assert everyone["ben"]["mu"] != pytest.approx(expected["ben"][0]), "the other competition's game counts in all"
    games = client.get("/v1/statistics/games", params={"competition": other}).json()["rows"]
    assert len(games) == 1
    lengths = client.get("/v1/statistics/lengths", params={"ruleset": "toy", "season": "2026 autumn"}).json()["rows"]
    assert sum(row["games"] for row in lengths) == 2


def test_every_statistic_refuses_an_unknown_competition_or_season(client: TestClient) -> None:
    opened(client, season="2026 autumn")
    routes = [
        route.path
        for route in client.app.routes  # type: ignore[attr-defined]
        if getattr(route, "path", "").startswith("/v1/statistics/") and "GET" in getattr(route, "methods", ())
    ]
    assert len(routes) > 10
    for path in routes:
        for query, code in (
            ({"competition": "00000000-0000-4000-8000-000000000000"}, "unknown_competition"),
            ({"competition": "none"}, "unknown_competition"),
            ({"season": "1999"}, "unknown_season"),
        ):
            answer = client.get(path, params={"ruleset": "toy", **query})
            assert (answer.status_code, answer.json()["code"]) == (404, code), (path, query)
