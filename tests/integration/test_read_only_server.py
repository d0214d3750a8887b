"""A server that serves its store read only (`evo-ledger serve --read-only`): it reads what a server that writes
stored, answers every write 503 `read_only` before reading it, runs none of the jobs that write, and refuses to
open a store it could only read wrong. The same server on a real streaming replica: test_replica."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import psycopg
import pytest
from eventsourcing.persistence import PersistenceError
from fastapi import FastAPI
from fastapi.testclient import TestClient
from psycopg.errors import ReadOnlySqlTransaction, SerializationFailure, UndefinedTable
from sqlalchemy.exc import DBAPIError
from starlette.routing import Route

from api import ApiSettings, create_app, read_only
from api.app import served_routes
from api.read_only import LAG_DEGRADED_SECONDS, READING_METHODS, replica_health
from evo_ledger.app.ledger import Ledger
from evo_ledger.cli.main import run
from evo_ledger.settings import Settings
from evo_ledger.store.recorders import Replication, StoreUnusable
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


def wrapped_refusals_app() -> TestClient:
    """An app with the read-only server's answers to errors, whose routes raise a database's refusals as they
    reach the routes: wrapped by the event store's library or by SQLAlchemy."""
    app = FastAPI()
    read_only.install(app)
    raised: dict[str, Exception] = {
        "write": wrapped(PersistenceError, ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction")),
        "conflict": wrapped(DBAPIError, SerializationFailure("canceling statement due to conflict with recovery")),
        "table": wrapped(PersistenceError, UndefinedTable('relation "read_games" does not exist')),
        "other": KeyError("something else"),
    }
    for name, error in raised.items():
        app.add_api_route(f"/{name}", raising(error))
    return TestClient(app, raise_server_exceptions=False)


def wrapped(kind: type[Exception], refusal: Exception) -> Exception:
    try:
        try:
            raise refusal
        except Exception as cause:
            if kind is DBAPIError:
                raise DBAPIError("SELECT 1", None, cause) from cause
            raise kind(str(cause)) from cause
    except Exception as error:
        return error
    raise AssertionError("unreachable")


def raising(error: Exception) -> Callable[[], None]:
    def route() -> None:
        raise error

    return route


def test_a_refusal_of_the_database_is_answered_with_its_code_however_wrapped() -> None:
    """A route that wrote despite the refusal before the routes: the replica's refusal (SQLSTATE 25006) is
    answered 503 `read_only`; a read the replica cancelled (40001) 503 `replica_conflict`, to be asked again; a
    table gone under the server (42P01) 503 `read_tables_changed`; any other error is the server's 500."""
    with wrapped_refusals_app() as client:
        answers = {name: client.get(f"/{name}") for name in ("write", "conflict", "table", "other")}
    codes = {
        name: (answer.status_code, answer.json().get("code")) for name, answer in answers.items() if name != "other"
    }
    assert codes == {
        "write": (503, "read_only"),
        "conflict": (503, "replica_conflict"),
        "table": (503, "read_tables_changed"),
    }
    assert answers["conflict"].headers["Retry-After"] == "1"
    assert answers["other"].status_code == 500


@pytest.mark.parametrize(
    ("replication", "fit"),
    [
        (Replication(in_recovery=False), True),
        (Replication(True, receiving=True, lag_bytes=0, lag_seconds=0.0), True),
        (Replication(True, receiving=True, lag_bytes=900, lag_seconds=LAG_DEGRADED_SECONDS), True),
        (Replication(True, receiving=True, lag_bytes=900, lag_seconds=LAG_DEGRADED_SECONDS + 1), False),
        (Replication(True, receiving=False, lag_bytes=0, lag_seconds=0.0), False),
    ],
)
def test_a_replica_is_fit_to_read_while_it_receives_and_lags_at_most_the_bound(
    replication: Replication, fit: bool
) -> None:
    assert replica_health(replication)[0] is fit
