"""A server that serves its store read only (`evo-ledger serve --read-only`): it reads what a server that writes
stored, answers every write 503 `read_only` before reading it, runs none of the jobs that write, and refuses to
open a store it could only read wrong. The same server on a real streaming replica: test_replica."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import psycopg
import pytest
from fastapi.testclient import TestClient
from psycopg.errors import ReadOnlySqlTransaction, SerializationFailure
from starlette.routing import Route

from api import ApiSettings, create_app
from api.app import served_routes
from api.read_only import READING_METHODS, refused_by_the_database
from evo_ledger.app.ledger import Ledger
from evo_ledger.cli.main import run
from evo_ledger.settings import Settings
from evo_ledger.store.recorders import StoreUnusable
from projections.store import ReadStore
from tests.helpers.api import PLAYERS, client_for, new_game
from tests.helpers.databases import fresh_postgres_database
from tests.helpers.servers import ADMIN

ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}


@pytest.fixture(scope="module")
def recorded() -> Iterator[tuple[str, str, int]]:
    """A database a server that writes recorded a game in, with its read tables caught up: its URL, the game and
    its version."""
    with fresh_postgres_database() as url:
        with client_for(url) as writing:
            game, recorder = new_game(writing)
            path = f"/v1/games/{game}/actions?wait_for_projections=10"
            answer = writing.post(path, json={"actions": ["order ann ben cat"]}, headers=recorder)
            assert answer.status_code == 200, answer.text
        yield url, game, answer.json()["version"]


def read_only_client(url: str) -> TestClient:
    store = Settings(url, read_only=True)
    return TestClient(create_app(ApiSettings(store=store, admin_token=ADMIN)))


def unsafe_requests() -> list[tuple[str, str]]:
    """Every route's methods that may write, with its path's parameters filled in."""
    found = []
    for route in served_routes():
        if isinstance(route, Route):
            path = re.sub(r"\{[^}]+\}", "x", route.path)
            found += [(method, path) for method in sorted(route.methods or ()) if method not in READING_METHODS]
    return found


def test_a_read_only_server_reads_what_was_recorded(recorded: tuple[str, str, int]) -> None:
    url, game, version = recorded
    with read_only_client(url) as client:
        state = client.get(f"/v1/games/{game}")
        assert state.status_code == 200, state.text
        assert state.json()["version"] == version
        listed = client.get("/v1/games").json()
        assert game in [entry["game_id"] for entry in listed["games"]]
        statistics = client.get("/v1/statistics/games")
        assert statistics.status_code == 200, statistics.text
        assert [row["game_id"] for row in statistics.json()["rows"]] == [game]


@pytest.mark.parametrize(("method", "path"), unsafe_requests())
def test_every_write_is_answered_read_only(recorded: tuple[str, str, int], method: str, path: str) -> None:
    url, _, _ = recorded
    with read_only_client(url) as client:
        answer = client.request(method, path, headers=ADMIN_HEADERS, content=b"{}")
    assert answer.status_code == 503, answer.text
    assert answer.json()["code"] == "read_only"


def test_a_write_through_the_read_only_server_stores_nothing(recorded: tuple[str, str, int]) -> None:
    url, game, version = recorded
    with Ledger(Settings(url)) as ledger:
        logged = ledger.store.recorder.max_notification_id()
    with read_only_client(url) as client:
        answer = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS}, headers=ADMIN_HEADERS)
        assert answer.status_code == 503
        assert client.get(f"/v1/games/{game}").json()["version"] == version
    with Ledger(Settings(url)) as ledger:
        assert ledger.store.recorder.max_notification_id() == logged


def test_health_names_the_read_only_parts(recorded: tuple[str, str, int]) -> None:
    url, _, _ = recorded
    with read_only_client(url) as client:
        health = client.get("/health", headers=ADMIN_HEADERS)
    body = health.json()
    assert health.status_code == 200, body
    assert body["writer"]["state"] == "read-only"
    assert body["read_tables"]["state"] == "replicated"
    assert body["read_tables"]["lag"] == 0
    assert body["jobs"] == {}
    assert body["replication"] == {"replica": False}


def test_a_store_without_a_ledger_is_refused_as_it_opens() -> None:
    with fresh_postgres_database() as url:
        with pytest.raises(StoreUnusable, match="holds no ledger to read"):
            Ledger(Settings(url, read_only=True))
        with psycopg.connect(url) as connection:
            tables = connection.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
        assert tables == (0,)


def test_read_tables_of_another_version_are_refused_not_rebuilt(recorded: tuple[str, str, int]) -> None:
    url, _, _ = recorded
    with fresh_postgres_database() as other:
        Ledger(Settings(other)).close()  # the log's tables, and no read tables
        with pytest.raises(StoreUnusable, match="read tables are missing"):
            ReadStore(Settings(other, read_only=True))
    ReadStore(Settings(url, read_only=True)).close()


def test_serve_read_only_refuses_a_sqlite_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["serve", "--read-only", "--database", "games.sqlite", "--port", "0"]) == 2
    assert "--read-only serves a PostgreSQL replica" in capsys.readouterr().err


def test_a_write_the_database_refuses_is_answered_read_only() -> None:
    """A route that wrote despite the refusal before the routes: the replica's refusal (SQLSTATE 25006), however
    wrapped, is answered 503 `read_only`; a read the replica cancelled (SQLSTATE 40001) 503 `replica_conflict`, to
    be asked again; any other error is raised on."""
    try:
        try:
            raise ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction")
        except ReadOnlySqlTransaction as refusal:
            raise RuntimeError("wrapped") from refusal
    except RuntimeError as wrapped:
        answer = refused_by_the_database(None, wrapped)  # type: ignore[arg-type]
    assert (answer.status_code, json.loads(bytes(answer.body))["code"]) == (503, "read_only")
    try:
        raise SerializationFailure("canceling statement due to conflict with recovery")
    except SerializationFailure as cancelled:
        conflict = refused_by_the_database(None, cancelled)  # type: ignore[arg-type]
    assert (conflict.status_code, json.loads(bytes(conflict.body))["code"]) == (503, "replica_conflict")
    assert conflict.headers["Retry-After"] == "1"
    with pytest.raises(KeyError):
        refused_by_the_database(None, KeyError("other"))  # type: ignore[arg-type]
