"""An attacker's requests to the strength statistics (calibration, seat-advantage, batch-ratings, skill), each a test
of what they must guarantee: a private game, or one broadcast with a delay while it goes on, changes nothing a reader
who may not see it is answered; bad input is refused with a code and never a 500; the same games give the same bytes
whatever order they were recorded in and on either database; and no caller makes a request arbitrarily expensive.

The games are the test ruleset's (`toy`, Pig: three actions a game) where only results matter, self-played evo1 games
where shared places are needed, and rows written straight into the read tables where only their number matters (a
caller records as many games as it likes: `POST /v1/games` takes no token)."""

from __future__ import annotations

import json
import time
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert

from evo_ledger.app.selfplay import play_game
from projections import luce, strengths
from projections.schema import GAME_PLAYERS, GAMES, RESULTS
from projections.strengths import BotGap, Seated
from tests.helpers.api import append, client_for
from tests.helpers.broadcast import caught_up, delay
from tests.helpers.databases import ADMIN_URL, ON_POSTGRES, require_postgres, url_for
from tests.helpers.servers import ADMIN

ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("calibration", {}),
    ("seat-advantage", {"by": "seat"}),
    ("seat-advantage", {"by": "place"}),
    ("batch-ratings", {}),
    ("skill", {"min_games": 1}),
    ("skill", {"min_games": 2}),
)
ORDER_FREE: tuple[
    tuple[str, dict[str, Any]], ...
] = (  # the answers the documentation says the games' order changes nothing of
    ("seat-advantage", {"by": "seat"}),
    ("batch-ratings", {}),
    ("skill", {"min_games": 1}),
    ("skill", {"min_games": 2}),
)
BY_INCREMENTS = ("incremental_mu", "incremental_sigma", "incremental_ordinal", "incremental_rank", "difference")
Player = tuple[str, str | None]  # a name and a stable id (None: the name's own, drawn at random per database)


def toy_game(client: TestClient, first: Player, second: Player, winner: int = 0) -> tuple[str, dict[str, str]]:
    """A finished game of Pig between two players, `winner` the seat (0 or 1) that banks 12 points first."""
    players = [{"name": name, **({"id": given} if given else {})} for name, given in (first, second)]
    created = client.post("/v1/games", json={"kit": "toy-2p", "players": players})
    assert created.status_code == 201, created.text
    game, recorder = created.json()["game_id"], {"Authorization": f"Bearer {created.json()['recorder_token']}"}
    a, b = first[0], second[0]
    actions = [f"{a} roll 6", f"{a} roll 6", f"{a} hold"] if winner == 0 else [f"{a} roll 1", *[f"{b} roll 6"] * 2]
    actions += [] if winner == 0 else [f"{b} hold"]
    answer = append(client, game, recorder, *actions)
    assert answer.status_code == 200, answer.text
    return game, recorder


ANN, BEN, CAT, DAN = ("ann", "ann@club"), ("ben", "ben@club"), ("cat", "cat@club"), ("dan", "dan@club")
SEASON: list[tuple[Player, Player, int]] = [  # stable ids given: two databases then hold the same players
    (ANN, BEN, 0),
    (BEN, CAT, 0),
    (CAT, ANN, 0),
    (ANN, CAT, 0),
    (BEN, ANN, 1),
    (CAT, BEN, 1),
    (DAN, ANN, 1),
]


def answers(client: TestClient, headers: dict[str, str] | None = None, calls: Any = CALLS) -> dict[str, Any]:
    """Each call's answer for the toy ruleset, without the positions in the log (which count every event)."""
    found = {}
    for name, params in calls:
        answer = client.get(f"/v1/statistics/{name}", params={"ruleset": "toy", **params}, headers=headers or {})
        assert answer.status_code == 200, (name, params, answer.text)
        body = answer.json()
        body.pop("position"), body.pop("log_position")
        found[f"{name} {params}"] = body
    return found


def dumped(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@pytest.fixture
def other(tmp_path: Path) -> Iterator[TestClient]:
    """A second server, on SQLite, for the same games recorded otherwise."""
    with client_for(str(tmp_path / "other.sqlite")) as test_client:
        yield test_client


# 1. Hidden information and private games


def test_a_private_game_changes_nothing_a_reader_without_the_admin_token_is_answered(
    client: TestClient, other: TestClient
) -> None:
    """Two servers hold the same season; one also holds two games the admin made private: one between two of the
    season's players (it would move their strengths, the seats' effects, the calibration), one with a player seen
    nowhere else. The public, and the private games' own recorder, get the same answers from both servers to the
    bit; the admin's differ."""
    for first, second, winner in SEASON:
        toy_game(client, first, second, winner)
        toy_game(other, first, second, winner)
    hidden = [toy_game(client, BEN, ANN, 0), toy_game(client, ("zoe", None), ANN, 0)]
    for game, _ in hidden:
        answer = client.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=ADMIN_HEADERS)
        assert answer.status_code == 200, answer.text
    caught_up(client)
    caught_up(other)
    without = answers(other)
    for headers in (None, hidden[0][1], {"Authorization": "Bearer not-the-admin"}):
        seen = answers(client, headers)
        for call, answer in without.items():
            assert dumped(seen[call]) == dumped(answer), (call, headers)
        assert "zoe" not in dumped(seen)
    admin = answers(client, ADMIN_HEADERS)
    differ = [call for call in without if call != "seat-advantage {'by': 'place'}"]  # Pig sets no order of play
    assert all(dumped(admin[call]) != dumped(without[call]) for call in differ)
    assert "zoe" in dumped(admin["batch-ratings {}"])


def test_a_game_broadcast_with_a_delay_counts_for_nobody_while_it_goes_on(client: TestClient) -> None:
    """A game broadcast with a delay whose winner has banked all but its last hold: none of its players, nor any
    count, shows in any answer to the public, its recorder or the admin; once it is over it counts for everyone (the
    delay ends with the game)."""
    for first, second, winner in SEASON[:4]:
        toy_game(client, first, second, winner)
    caught_up(client)
    before = answers(client)
    created = client.post("/v1/games", json={"kit": "toy-2p", "players": [{"name": "eve"}, {"name": "ann"}]})
    game, recorder = created.json()["game_id"], {"Authorization": f"Bearer {created.json()['recorder_token']}"}
    assert delay(client, game, recorder, 30).status_code == 200
    assert append(client, game, recorder, "eve roll 6", "eve roll 6").status_code == 200
    caught_up(client)
    for headers in (None, recorder, ADMIN_HEADERS):
        seen = answers(client, headers)
        assert all(dumped(seen[call]) == dumped(before[call]) for call in before), headers
        assert "eve" not in dumped(seen)
    assert append(client, game, recorder, "eve hold").status_code == 200
    caught_up(client)
    assert "eve" in dumped(answers(client)["batch-ratings {}"])


# 2. Bad input


def refusals() -> list[tuple[str, Any]]:
    """Requests each of the four statistics must refuse with a 4xx and a code (query strings as sent)."""
    crafted = [
        "ruleset=evo2'%20OR%201=1--",
        "ruleset=evo2%00",
        "ruleset=%C3%A9vo2",
        "ruleset=%F0%9F%A6%96",
        "ruleset=",
        "ruleset=" + "x" * 20_000,
        "ruleset=chess&ruleset=checkers",
        "ruleset=evo2&ruleset=chess",
        "ruleset[]=evo2",
        "",
    ]
    found = [(name, query) for name in ("calibration", "seat-advantage", "batch-ratings", "skill") for query in crafted]
    for value in ("10" + "0" * 30, "-1", "0", "10001", "NaN", "nan", "inf", "-inf", "1e3", "2.5", "", "%D9%A3", "0x10"):
        found.append(("skill", f"ruleset=evo2&min_games={value}"))
    found.append(("skill", "ruleset=evo2&min_games=5&min_games=nan"))
    for value in ("SEAT", "seat%00", "", "place;DROP%20TABLE%20read_games", "seat&by=table", "%E2%80%8Bseat"):
        found.append(("seat-advantage", f"ruleset=evo2&by={value}"))
    return found


def test_crafted_parameters_are_refused_with_a_code(other: TestClient) -> None:
    failures = []
    for name, query in refusals():
        answer = other.get(f"/v1/statistics/{name}?{query}")
        body = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
        if not (400 <= answer.status_code < 500 and isinstance(body.get("code"), str)):
            failures.append((name, query[:80], answer.status_code, answer.text[:200]))
    for header in ("Basic YWRtaW4=", "Bearer", "Bearer " + "x" * 10_000):
        answer = other.get("/v1/statistics/skill?ruleset=evo2", headers={"Authorization": header})
        if answer.status_code >= 500 or (answer.status_code >= 400 and "code" not in answer.json()):
            failures.append(("skill", header[:40], answer.status_code, answer.text[:200]))
    assert not failures, failures


def test_a_refusal_does_not_echo_a_huge_parameter(other: TestClient) -> None:
    """A ruleset name of 20,000 characters is refused; the message names it as the API's other refusals name a
    caller's text, cut short (a game id to 80 characters, a perspective to 64), not whole."""
    for name in ("calibration", "seat-advantage", "batch-ratings", "skill"):
        answer = other.get(f"/v1/statistics/{name}", params={"ruleset": "x" * 20_000})
        assert answer.status_code == 404 and answer.json()["code"] == "unknown_ruleset"
        assert len(answer.json()["message"]) < 500, (name, len(answer.json()["message"]))


def test_extreme_but_valid_parameters_answer_quickly(other: TestClient) -> None:
    for first, second, winner in SEASON:
        toy_game(other, first, second, winner)
    caught_up(other)
    for params in ({"min_games": 10_000}, {"min_games": 1}, {"min_games": "00000000000000000000001"}):
        started = time.perf_counter()
        answer = other.get("/v1/statistics/skill", params={"ruleset": "toy", **params})
        assert answer.status_code == 200 and time.perf_counter() - started < 2, answer.text
    assert (
        other.get("/v1/statistics/skill", params={"ruleset": "toy", "min_games": 10_000}).json()["dispersion"] is None
    )


# 3. The same games, the same bytes


def test_the_order_games_were_recorded_in_changes_nothing_order_free(client: TestClient, other: TestClient) -> None:
    """The season recorded forwards on one server (either database) and backwards on a SQLite one: the seat
    advantage, the batch ratings (all but the incremental ones beside them, which follow the order by design) and the
    skill measure are the same bytes."""
    for first, second, winner in SEASON:
        toy_game(client, first, second, winner)
    for first, second, winner in reversed(SEASON):
        toy_game(other, first, second, winner)
    caught_up(client)
    caught_up(other)
    forwards, backwards = answers(client, calls=ORDER_FREE), answers(other, calls=ORDER_FREE)
    for answer in (forwards, backwards):
        for row in answer["batch-ratings {}"]["rows"]:
            for field in BY_INCREMENTS:
                row.pop(field)
    for call in forwards:
        assert dumped(forwards[call]) == dumped(backwards[call]), call


def seated(game: str, seats: list[tuple[str, int]]) -> list[Seated]:
    return [Seated(game, player, player.lower(), rank, seat, seat) for seat, (player, rank) in enumerate(seats, 1)]


def test_the_order_of_players_sharing_a_place_changes_nothing() -> None:
    """The read tables give a game's seats ordered by place, then by player id in the database's collation: SQLite
    and PostgreSQL under the C collation put "Bob" before "alf", PostgreSQL under any other (en_US, ICU) after. The
    same games, with the players sharing a place in either order, must give the same bytes."""
    ids = ["Zed", "alf", "Bob", "carl", "Dan", "eve"]
    games = []
    for number in range(24):
        chosen = [ids[(number + step * (1 + number % 5)) % len(ids)] for step in range(4)]
        if len(set(chosen)) < 4:
            chosen = [ids[(number + step) % len(ids)] for step in range(4)]
        places = [1, 1, 3, 4] if number % 2 else [1, 2, 2, 4]
        places = places[number % 4 :] + places[: number % 4]
        games.append(seated(f"g{number}", list(zip(chosen, places, strict=True))))
    binary = [tuple(sorted(game, key=lambda s: (s.rank, s.player_id))) for game in games]
    linguistic = [tuple(sorted(game, key=lambda s: (s.rank, s.player_id.lower()))) for game in games]
    assert binary != linguistic
    gap = BotGap(20, 3.0, 1.0, 5.0)
    for name, statistic in (
        ("seat-advantage", strengths.seat_advantage),
        ("batch-ratings", strengths.batch_ratings),
        ("skill", lambda found: strengths.skill(found, gap, 1)),
        ("calibration", strengths.calibration),
    ):
        assert dumped(statistic(binary)) == dumped(statistic(linguistic)), name


@contextmanager
def linguistic_postgres() -> Iterator[str]:
    """A fresh PostgreSQL database whose text sorts as ICU's en-US does (as most installations' en_US.UTF-8)."""
    require_postgres()
    name = f"evo_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
        admin.execute(
            f"CREATE DATABASE \"{name}\" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"
        )
    try:
        yield url_for(name)
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


TIED_SEEDS = (2, 5, 8)  # evo1 games of three random bots in which two share a place
IDS = ("Ann", "ben", "Cat")  # C: Ann < Cat < ben; en-US: Ann < ben < Cat


def record_evo1(client: TestClient, seed: int) -> None:
    played = play_game(3, seed, "random", "evo1")
    players = [{"name": name, "id": given} for name, given in zip(played.header.players, IDS, strict=True)]
    created = client.post("/v1/games", json={"kit": played.header.kit, "players": players})
    assert created.status_code == 201, created.text
    game, recorder = created.json()["game_id"], {"Authorization": f"Bearer {created.json()['recorder_token']}"}
    actions = [line for line in played.lines if not line.startswith("#")]
    for start in range(0, len(actions), 200):
        answer = append(client, game, recorder, *actions[start : start + 200])
        assert answer.status_code == 200, answer.text


@ON_POSTGRES
def test_shared_places_give_the_same_bytes_on_sqlite_and_on_postgresql_with_its_usual_collation(
    other: TestClient,
) -> None:
    with linguistic_postgres() as url, client_for(url) as postgres:
        for seed in TIED_SEEDS:
            record_evo1(other, seed)
            record_evo1(postgres, seed)
        caught_up(other)
        caught_up(postgres)
        for name, params in (("seat-advantage", {"by": "seat"}), ("batch-ratings", {}), ("skill", {"min_games": 1})):
            found = [
                server.get(f"/v1/statistics/{name}", params={"ruleset": "evo1", **params}).json()
                for server in (other, postgres)
            ]
            for answer in found:
                answer.pop("position"), answer.pop("log_position")
            assert dumped(found[0]) == dumped(found[1]), name


# 4. Cost


DENSE_SHARE = 1 / 8
"""The most memory a fit of more parameters than `luce.EXACT_UP_TO` may hold, as a share of a dense matrix over
every pair of its parameters: its memory grows with its games, not with the square of its players."""


def recorded_in_read_tables(client: TestClient, games: int) -> None:
    """`games` finished games of Pig, each between two players seen nowhere else, as the read tables hold them once
    a caller has recorded them (written there directly: recording them over HTTP takes too long for a test)."""
    rows: dict[Any, list[dict[str, Any]]] = {GAMES: [], GAME_PLAYERS: [], RESULTS: []}
    for number in range(games):
        game = str(uuid.UUID(int=number + 1))
        rows[GAMES].append(
            {
                "game_id": game,
                "ruleset": "toy",
                "ruleset_version": "1",
                "kit": "toy-2p",
                "kit_hash": "-",
                "started_at": "2026-01-01T00:00:00+00:00",
                "ended_at": "2026-01-01T00:01:00+00:00",
                "ended_position": 10_000_000 + number,
                "players": 2,
                "generated": False,
                "private": False,
                "broadcast_delay": 0,
                "status": "over",
                "rounds": 1,
                "events": 4,
                "actions": 3,
                "actions_undone": 0,
                "memory": "{}",
            }
        )
        for seat in (1, 2):
            player = f"guest-{number}-{seat}"
            rows[GAME_PLAYERS].append({"game_id": game, "seat": seat, "player_id": player, "name": f"g{number}_{seat}"})
            rows[RESULTS].append(
                {
                    "game_id": game,
                    "event": 4,
                    "player_id": player,
                    "action": 4,
                    "round": 1,
                    "name": f"g{number}_{seat}",
                    "rank": seat,
                    "score": 12 if seat == 1 else 0,
                    "scores": "[]",
                    "undone": False,
                }
            )
    with client.app.state.read_store.engine.begin() as connection:  # type: ignore[attr-defined]
        for table, values in rows.items():
            connection.execute(insert(table), values)


def test_no_request_holds_a_matrix_over_every_pair_of_players_however_many_there_are(
    other: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,200 two-player games among 2,400 guests (anyone may record games), more players than a fit inverts whole:
    every fit a statistic makes holds at most DENSE_SHARE of the memory of a dense matrix over its parameters (46 MB
    over 2,401), and every request is answered."""
    recorded_in_read_tables(other, 1_200)
    peaks: list[tuple[int, int]] = []
    real_fit, real_fit_choices = strengths.fit, strengths.fit_choices  # type: ignore[attr-defined]

    def traced(size: int, fit: Callable[[], Any]) -> Any:
        started = not tracemalloc.is_tracing()
        if started:
            tracemalloc.start()
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        try:
            return fit()
        finally:
            peaks.append((size, tracemalloc.get_traced_memory()[1] - before))
            if started:
                tracemalloc.stop()

    def fit(games: Any, players: int, covariates: int = 0, *rest: Any) -> Any:
        return traced(players + covariates, lambda: real_fit(games, players, covariates, *rest))

    def fit_choices(made: Any, players: int, *rest: Any) -> Any:
        return traced(made.size, lambda: real_fit_choices(made, players, *rest))

    monkeypatch.setattr(strengths, "fit", fit)
    monkeypatch.setattr(strengths, "fit_choices", fit_choices)
    for name, params in (("seat-advantage", {}), ("batch-ratings", {}), ("skill", {"min_games": 1})):
        answer = other.get(f"/v1/statistics/{name}", params={"ruleset": "toy", **params})
        assert answer.status_code == 200, answer.text
    large = [(size, peak) for size, peak in peaks if size > luce.EXACT_UP_TO]
    assert len(large) >= 3, peaks  # the seat advantage's, the batch ratings', the skill measure's
    too_much = [(size, peak) for size, peak in large if peak > DENSE_SHARE * size * size * 8]
    assert not too_much, f"fits holding more than {DENSE_SHARE} of a dense matrix (parameters, bytes): {too_much}"
