"""Erasure over HTTP, on SQLite and PostgreSQL: a person who played three games, with notes, an undo and a correction
whose reasons name them, is erased by the admin. Then no answer of any route a reader may ask (each game's reads for
the public and for the admin, its exports, audits, explanations, branches and stream, every statistic and table's
CSV, the people, the pages), no row of any table of the database, and no event of the log once decoded, holds their
handle or their name in clear; every game they played replays, audits clean with the seal key, and the checkpoints
signed before the erasure still verify; the statistics are what they were, each of their seats by its label.
Erasing an unknown person, or one erased already, is refused with its code and changes nothing."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, inspect, text

from api import ApiSettings, create_app
from evo_ledger.app.ledger import Ledger
from evo_ledger.game.labels import LABEL
from evo_ledger.settings import Settings
from projections.schema import tables
from projections.store import read_tables_file
from tests.helpers.servers import ADMIN
from tests.helpers.statistics import WAIT
from tests.helpers.tokens import bearer
from tests.helpers.toy_game import WHOLE_GAME

HANDLE, NAME = "zorqa", "Zorqa Vellinghast"
OPPONENTS = ("bixby", "quill", "bixby")
IN_CLEAR = re.compile(r"zorqa|vellinghast", re.IGNORECASE)
SEAL_KEY = "erasure-test-seal-key"
KEEPER = bearer(ADMIN)
STATISTICS = "/v1/statistics/"
CAUGHT_UP_SECONDS = 60
PAGES = ("/", "/dashboard", "/people", "/docs")


@pytest.fixture
def client(database: str) -> Iterator[TestClient]:
    settings = ApiSettings(store=Settings(database, seal_key=SEAL_KEY), admin_token=ADMIN)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def played(client: TestClient, opponent: str, round_: int) -> str:
    """A whole toy game the person wins against `opponent`, with a note, an undo and a correction naming them, a
    co-recorder's device named after them, and a withdrawal and a reinstatement whose reasons name them."""
    players = [{"name": HANDLE}, {"name": opponent}]
    created = client.post("/v1/games", json={"kit": "toy-2p", "players": players})
    assert created.status_code == 201, created.text
    game: str = created.json()["game_id"]
    recorder = bearer(created.json()["recorder_token"])
    actions = [action.replace("ann", HANDLE).replace("ben", opponent) for action in WHOLE_GAME]
    asked = [
        ("actions", {"actions": actions[:2]}),
        ("notes", {"event": 2, "text": f"{NAME} ({HANDLE}) rolled a six in round {round_}"}),
        ("actions", {"actions": actions[2:3]}),
        ("undo", {"count": 1, "reason": f"{HANDLE} had not said hold yet"}),
        ("actions", {"actions": actions[2:4]}),
        ("correct", {"action": actions[3], "reason": f"{NAME} checked the die"}),
        ("actions", {"actions": actions[4:]}),
    ]
    for route, body in asked:
        answer = client.post(f"/v1/games/{game}/{route}", json=body, headers=recorder, params=WAIT)
        assert answer.status_code == 200, (route, answer.text)
    phone = client.post(f"/v1/games/{game}/co-recorders", json={"name": f"{HANDLE}'s phone"}, headers=recorder)
    assert phone.status_code == 201 and phone.json()["name"] == f"{HANDLE}'s phone", phone.text
    for route, reason in (("withdraw", f"{NAME} asked for a replay"), ("reinstate", f"{HANDLE} won it fairly")):
        answer = client.post(f"/v1/games/{game}/{route}", json={"reason": reason}, headers=recorder)
        assert answer.status_code == 200 and answer.json()["reason"] == reason, answer.text
    return game


def statistics_of(client: TestClient) -> list[str]:
    """Every statistic the app serves under /v1/statistics."""
    paths = [getattr(route, "path", "") for route in client.app.routes]  # type: ignore[attr-defined]
    return [path.removeprefix(STATISTICS) for path in paths if path.startswith(STATISTICS) and "{" not in path]


def streamed(client: TestClient, game: str, last: int) -> str:
    lines = []
    with client.stream("GET", f"/v1/games/{game}/stream?after=0") as stream:
        for line in stream.iter_lines():
            lines.append(line)
            if line.startswith("id: ") and int(line.removeprefix("id: ")) >= last:
                break
    return "\n".join(lines)


def caught_up(client: TestClient) -> None:
    """Waits until the read tables have followed the whole log (a condition, not a pause of a set length)."""
    deadline = time.monotonic() + CAUGHT_UP_SECONDS
    while (fresh := client.get("/v1/projections").json())["position"] < fresh["log_position"]:
        assert time.monotonic() < deadline, f"the read tables did not catch up: {fresh}"
        time.sleep(0.05)


def game_answers(client: TestClient, game: str) -> dict[str, bytes]:
    """Every read of the game, by the public and by the admin: its summary, state, view, events (JSON and msgpack),
    legal actions, choices, setup, standings, auctions, exports, audit, and each event's explanation and branch."""
    last = client.get(f"/v1/games/{game}").json()["version"]
    paths = [
        "",
        "/state",
        "/view",
        "/events?limit=1000",
        "/legal",
        "/choices",
        "/setup",
        "/co-recorders",
        "/standings",
        "/auctions",
        "/export",
        "/export?format=bundle",
        "/audit",
        *(f"/events/{event}/explanation" for event in range(1, last + 1)),
        *(f"/events/{event}/what-if?drop=true" for event in (2, 3)),
    ]
    found = {}
    for reader, headers in (("public", {}), ("admin", KEEPER)):
        for path in paths:
            answer = client.get(f"/v1/games/{game}{path}", headers=headers)
            found[f"{reader} {path}"] = answer.content
        packed = client.get(f"/v1/games/{game}/events", headers={**headers, "Accept": "application/msgpack"})
        found[f"{reader} /events msgpack"] = packed.content
    found["/stream"] = streamed(client, game, last).encode()
    found["/games page"] = client.get(f"/games/{game}").content
    return found


def every_answer(client: TestClient, games: list[str], person: str, label: str) -> dict[str, bytes]:
    """The answers of every route a reader may read, for these games and this person (the games listed by the label
    of the person's seats)."""
    found: dict[str, bytes] = {}
    for game in games:
        found.update({f"{game} {path}": body for path, body in game_answers(client, game).items()})
    for statistic in statistics_of(client):
        found[statistic] = client.get(f"/v1/statistics/{statistic}").content
    names = client.get("/v1/rulesets/toy/statistics").json()
    for name in names.get("statistics", []):
        found[f"toy {name}"] = client.get(f"/v1/rulesets/toy/statistics/{name['name']}").content
    for table in tables():
        found[f"{table}.csv"] = client.get(f"/v1/tables/{table}.csv").content
    for path in ("/v1/people", f"/v1/people/{person}", "/v1/games", f"/v1/games?player={label}", "/v1/projections"):
        found[path] = client.get(path, headers=KEEPER).content
    for page in PAGES:
        found[page] = client.get(page).content
    return found


def table_rows(database: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the database (on SQLite, of the log's file and the read tables' file)."""
    if database.startswith("postgresql"):
        urls = [database.replace("postgresql://", "postgresql+psycopg://")]
    else:
        urls = [f"sqlite:///{database}", f"sqlite:///{read_tables_file(database)}"]
    found: dict[str, list[tuple[Any, ...]]] = {}
    for url in urls:
        engine = create_engine(url)
        try:
            with engine.connect() as connection:
                for name in inspect(connection).get_table_names():
                    found[name] = [tuple(row) for row in connection.execute(text(f'SELECT * FROM "{name}"'))]
        finally:
            engine.dispose()
    return found


def in_clear(value: Any) -> bool:
    if isinstance(value, bytes | bytearray | memoryview):
        return IN_CLEAR.search(bytes(value).decode("latin-1")) is not None
    return IN_CLEAR.search(str(value)) is not None


def decoded_log(ledger: Ledger) -> list[str]:
    """Every event of the log, decoded: its topic and fields."""
    return [
        f"{notification.topic} {vars(ledger.store.mapper.to_domain_event(notification))}"
        for notification in ledger.store.notifications_after(0)
    ]


def statistic(body: bytes, *names: str) -> Any:
    """A statistic's answer with each of `names` (the person's name and handle before the erasure, the label of
    their seats after it) read as one word, the log's positions set aside (the erasure is an event), and its rows
    in an order of their own (a list by name puts the person elsewhere once named by a label)."""
    for name in names:
        body = body.replace(name.encode(), b"PERSON")
    answer = json.loads(body)
    for key in ("position", "log_position"):
        answer.pop(key, None)
    return in_any_order(answer)


def in_any_order(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: in_any_order(item) for key, item in value.items()}
    if isinstance(value, list):
        return sorted((in_any_order(item) for item in value), key=lambda item: json.dumps(item, sort_keys=True))
    return value


def test_an_erased_person_is_in_no_answer_no_row_and_no_event_and_their_games_audit_clean(
    client: TestClient, database: str
) -> None:
    games = [played(client, opponent, round_) for round_, opponent in enumerate(OPPONENTS, 1)]
    seat = client.get(f"/v1/games/{games[0]}").json()["players"][0]
    registered = client.post("/v1/people", json={"name": NAME, "link": [seat["id"]]}, headers=KEEPER)
    assert registered.status_code == 201, registered.text
    person = registered.json()["person_id"]
    assert client.get(f"/v1/people/{person}").json()["name"] == NAME
    ledger: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
    label = ledger.queries.game(UUID(games[0])).player_names[0]
    assert LABEL.fullmatch(label) and {ledger.queries.game(UUID(game)).player_names[0] for game in games} == {label}
    ledger.commands.take_checkpoint()
    caught_up(client)
    assert {"players", "ratings", "dice"} <= set(statistics_of(client))
    statistics = {
        name: statistic(client.get(f"/v1/statistics/{name}").content, NAME, HANDLE) for name in statistics_of(client)
    }
    before = every_answer(client, games, person, label)
    assert any(in_clear(body) for body in before.values())

    erased = client.delete(f"/v1/people/{person}/personal-data", headers=KEEPER)

    assert erased.status_code == 200, erased.text
    assert erased.json()["erased"] and erased.json()["name"] == label
    caught_up(client)
    after = every_answer(client, games, person, label)
    assert after.keys() == before.keys()
    shown = [route for route, body in after.items() if in_clear(body)]
    assert not shown, f"answers that still name the person: {shown}"
    by_handle = client.get("/v1/games", params={"player": HANDLE})
    assert by_handle.status_code == 404 and by_handle.json()["code"] == "unknown_player"
    assert b"[erased]" in after[f"{games[0]} admin /events?limit=1000"]
    rows = [(table, row) for table, found in table_rows(database).items() for row in found if in_clear(row)]
    assert not rows, f"rows that still name the person: {rows[:3]}"
    assert not [event for event in decoded_log(ledger) if in_clear(event)]
    for game in games:
        audit = client.get(f"/v1/games/{game}/audit", headers=KEEPER).json()
        assert audit["verdict"] == "clean", audit
        assert {check["check"]: check["verdict"] for check in audit["checks"]}["checkpoints"] == "pass", audit
        replayed = ledger.queries.game(UUID(game))
        assert replayed.rules.outcome(replayed.state) is not None
    for name, body in statistics.items():
        assert statistic(client.get(f"/v1/statistics/{name}").content, label) == body, name


def test_erasing_an_unknown_person_or_one_erased_already_is_refused_and_changes_nothing(client: TestClient) -> None:
    game = played(client, "bixby", 1)
    caught_up(client)  # a stable id no record claims is a person as far as the read tables show its seats
    seat = client.get(f"/v1/games/{game}").json()["players"][0]["id"]
    unknown = client.delete("/v1/people/no-such-person/personal-data", headers=KEEPER)
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_person"
    assert client.delete(f"/v1/people/{seat}/personal-data").status_code in (401, 403)
    assert client.get(f"/v1/games/{game}/view").content == client.get(f"/v1/games/{game}/view").content
    view = client.get(f"/v1/games/{game}/view").content
    assert HANDLE.encode() in view

    assert client.delete(f"/v1/people/{seat}/personal-data", headers=KEEPER).status_code == 200
    erased_view = client.get(f"/v1/games/{game}/view").content
    again = client.delete(f"/v1/people/{seat}/personal-data", headers=KEEPER)

    assert again.status_code == 409 and again.json()["code"] == "already_erased", again.text
    assert client.get(f"/v1/games/{game}/view").content == erased_view
    assert HANDLE.encode() not in erased_view
    renamed = client.patch(f"/v1/people/{seat}", json={"name": NAME}, headers=KEEPER)
    assert renamed.status_code == 409 and renamed.json()["code"] == "already_erased"
    assert json.loads(client.get(f"/v1/people/{seat}").content)["erased"] is True
