"""The read side on a PostgreSQL streaming replica: a game recorded through a server on the primary is read, with
its statistics and its stream, through `evo-ledger serve --read-only` on a real replica of it, which answers a
write 503 `read_only` and says in `/health` how far it lags, and that it no longer receives once its primary
stops. The replica is made by the test (tests/helpers/replica.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import psycopg
import pytest

from tests.helpers.replica import PrimaryAndReplica, primary_and_replica
from tests.helpers.servers import ADMIN, WAIT, Viewer
from tests.helpers.support import child_env, serve_process

ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}
ROLL = "ann roll 2"  # always legal in a toy game where ann never holds, adding one event
ROLLS = 5
SERVER_ENV = {"EVO_LEDGER_ADMIN_TOKEN": ADMIN}
pytestmark = pytest.mark.slow(reason="a PostgreSQL primary and its replica made, and servers started on each")
READS = ("/v1/games/{game}", "/v1/games/{game}/events", "/v1/statistics/games", "/v1/statistics/players")


def served(database: str, *options: str) -> Any:
    return serve_process(["--database", database, "--log-level", "warning", *options], {**child_env(), **SERVER_ENV})


def health_when(http: httpx.Client, ready: Any, seconds: float = WAIT) -> dict[str, Any]:
    """The first `/health` (asked as the admin) that is `ready`, within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        health: dict[str, Any] = http.get("/health", headers=ADMIN_HEADERS).json()
        if ready(health):
            return health
        assert time.monotonic() < deadline, health
        time.sleep(0.1)


def reader_role_on(pair: PrimaryAndReplica) -> str:
    """A role that logs in and reads the ledger's tables and nothing more, made on the primary (a replica is made
    what its primary is): the replica's URL as that role."""
    with psycopg.connect(pair.primary_url, autocommit=True) as primary:
        primary.execute("CREATE ROLE reader LOGIN")
        primary.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    return pair.replica_url.replace("postgres@", "reader@", 1)


@pytest.fixture(scope="module")
def pair() -> Iterator[PrimaryAndReplica]:
    with primary_and_replica() as made:
        yield made


def test_a_game_recorded_on_the_primary_is_read_with_its_statistics_and_stream_on_the_replica(
    pair: PrimaryAndReplica,
) -> None:
    """Each read the replica's server, logged in as a role that may only read, answers as the primary's does, once
    the replica replayed the primary's log and the primary's read tables reached its end; an append through the
    primary reaches a stream on the replica's server, which polls for it."""
    with ExitStack() as stack:
        primary = stack.enter_context(httpx.Client(base_url=stack.enter_context(served(pair.primary_url)).base))
        created = primary.post("/v1/games", json={"kit": "toy-2p", "players": [{"name": "ann"}, {"name": "ben"}]})
        game, recorder = created.json()["game_id"], {"Authorization": f"Bearer {created.json()['recorder_token']}"}
        for _ in range(ROLLS):
            assert primary.post(f"/v1/games/{game}/actions", json={"actions": [ROLL]}, headers=recorder).is_success
        health_when(primary, lambda health: health["read_tables"]["lag"] == 0)
        reader_url = reader_role_on(pair)
        pair.caught_up()
        replica_base = stack.enter_context(served(reader_url, "--read-only")).base
        replica = stack.enter_context(httpx.Client(base_url=replica_base))
        paths = [path.format(game=game) for path in READS]
        on_primary = {path: primary.get(path).json() for path in paths}
        on_replica = {path: replica.get(path).json() for path in paths}
        viewer = Viewer(replica_base, game)
        appended = primary.post(f"/v1/games/{game}/actions", json={"actions": [ROLL]}, headers=recorder).json()
        streamed = viewer.received_up_to(appended["version"], WAIT)
        refused = replica.post(f"/v1/games/{game}/actions", json={"actions": [ROLL]}, headers=recorder)
        health = health_when(replica, lambda health: health["replication"]["lag_bytes"] is not None)
    assert on_replica == on_primary
    assert on_replica[paths[0]]["version"] == ROLLS + 1
    assert [row["game_id"] for row in on_replica[paths[2]]["rows"]] == [game]
    assert streamed == list(range(1, appended["version"] + 1))
    assert (refused.status_code, refused.json()["code"]) == (503, "read_only")
    assert health["status"] == "ok", health
    assert health["writer"]["state"] == "read-only" and health["read_tables"]["state"] == "replicated"
    assert health["jobs"] == {}
    assert health["replication"]["replica"] is True and health["replication"]["receiving"] is True
    assert health["replication"]["lag_bytes"] >= 0 and health["replication"]["lag_seconds"] >= 0


def test_a_replica_cut_off_from_its_primary_serves_what_it_has_and_says_it_is_degraded(
    pair: PrimaryAndReplica,
) -> None:
    """Its primary stopped, the replica's server still answers reads, and `/health` says `degraded` (503): what it
    serves no longer follows the primary."""
    with served(pair.replica_url, "--read-only") as server, httpx.Client(base_url=server.base) as replica:
        before = replica.get("/health", headers=ADMIN_HEADERS)
        pair.stop_primary()
        cut_off = health_when(replica, lambda health: health["replication"]["receiving"] is False)
        listed = replica.get("/v1/games")
    assert before.status_code == 200 and before.json()["replication"]["receiving"] is True
    assert cut_off["status"] == "degraded"
    assert listed.status_code == 200
