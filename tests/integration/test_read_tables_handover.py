"""The read tables' position, held by a runner whose server went silent mid-page, stops the next runner no longer
than the read tables' connections allow: the database ends a writing transaction left idle, a runner gives up
waiting for the position's lock and starts again from its position, setting no event aside, and catches up once
the lock is free. Every connection of the read tables drops a silent peer as the leases' do. While the tables,
run by a server, stay behind without moving on, its `/health` says they are stalled."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import psycopg
import pytest
import sqlalchemy.exc

from api import supervision
from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import LOCK_TIMEOUT_SECONDS, Settings
from evo_ledger.store.keepalives import SILENT_PEER_SECONDS
from projections.runner import RETRY_SECONDS, BackgroundProjection, database_unavailable, wait_until
from projections.store import IDLE_IN_TRANSACTION_SECONDS, PROJECTION, ReadStore
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database
from tests.helpers.servers import WAIT, health_when, running_server

pytestmark = ON_POSTGRES

SHOWN = (
    "tcp_keepalives_idle",
    "tcp_keepalives_interval",
    "tcp_keepalives_count",
    "tcp_user_timeout",
    "lock_timeout",
    "idle_in_transaction_session_timeout",
)
LOCKED_POSITION = "SELECT notification_id FROM read_positions WHERE projection = %s FOR UPDATE"
STALLED_SECONDS = 1.0  # the server's, for the test: how long tables behind may stay where they are


@pytest.fixture
def postgres() -> Iterator[Settings]:
    with fresh_postgres_database() as url:
        yield Settings(url)


def log_with_a_game(settings: Settings) -> int:
    """A game stored in the log: the log's last position."""
    with Ledger(settings) as ledger:
        ledger.commands.create_game("evo2", "standin-e2-3p", ["ann", "ben", "cat"])
        return ledger.store.recorder.max_notification_id() or 0


def test_every_connection_drops_a_silent_peer_waits_for_a_lock_briefly_and_a_writing_one_ends_idle_transactions(
    postgres: Settings,
) -> None:
    store = ReadStore(postgres)
    try:
        with store.engine.connect() as reading, store.writing.connect() as writing:
            shown = {
                name: [connection.exec_driver_sql(f"SHOW {name}").scalar() for connection in (reading, writing)]
                for name in SHOWN
            }
    finally:
        store.close()
    assert shown == {
        "tcp_keepalives_idle": ["5", "5"],
        "tcp_keepalives_interval": ["2", "2"],
        "tcp_keepalives_count": ["3", "3"],
        "tcp_user_timeout": [f"{SILENT_PEER_SECONDS * 1000}"] * 2,
        "lock_timeout": [f"{LOCK_TIMEOUT_SECONDS}s"] * 2,
        "idle_in_transaction_session_timeout": ["0", f"{IDLE_IN_TRANSACTION_SECONDS}s"],
    }


def test_a_runner_that_meets_the_position_held_gives_up_within_the_lock_timeout_as_on_an_unavailable_database(
    postgres: Settings,
) -> None:
    store = ReadStore(postgres)
    with psycopg.connect(postgres.database) as holder, ThreadPoolExecutor(1) as pool:
        holder.execute(LOCKED_POSITION, (PROJECTION,))

        def advanced() -> None:
            with store.advancing(0):
                pass

        tried = pool.submit(advanced)
        try:
            with pytest.raises(sqlalchemy.exc.OperationalError) as gave_up:
                tried.result(timeout=LOCK_TIMEOUT_SECONDS + WAIT)
        finally:
            holder.rollback()  # the try ends, whether or not it gave up
            store.close()
    assert isinstance(gave_up.value.orig, psycopg.errors.LockNotAvailable)
    assert database_unavailable(gave_up.value)


def test_a_holder_gone_idle_mid_page_stops_a_runner_no_longer_than_the_timeouts(postgres: Settings) -> None:
    """A second read store takes the position's row as a page does and goes idle, standing for a runner whose
    server went silent mid-page: the database ends its transaction, and a runner started beside it, which gave up
    on the lock and started again meanwhile, catches up after it and sets no event aside."""
    log_end = log_with_a_game(postgres)
    silent = ReadStore(postgres)
    page = silent.advancing(silent.position())
    page.__enter__()
    held_at = time.monotonic()
    runner, store = BackgroundProjection(postgres), ReadStore(postgres)
    runner.start()
    try:
        caught_up = wait_until(
            store, log_end, IDLE_IN_TRANSACTION_SECONDS + LOCK_TIMEOUT_SECONDS + RETRY_SECONDS + WAIT
        )
        took = time.monotonic() - held_at
        with pytest.raises(sqlalchemy.exc.DBAPIError) as ended:
            page.__exit__(None, None, None)  # the silent holder's page, committed at last
        set_aside = store.set_aside_count()
    finally:
        runner.stop()
        store.close()
        silent.close()
    assert caught_up and set_aside == 0
    assert took >= IDLE_IN_TRANSACTION_SECONDS - 1  # the runner waited for the holder's transaction to end
    assert database_unavailable(ended.value)


def test_health_is_degraded_while_the_read_tables_run_here_stay_behind_without_moving_on(
    postgres: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervision, "STALLED_SECONDS", STALLED_SECONDS)
    players = [{"name": "ann"}, {"name": "ben"}]
    with running_server(postgres.database) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        health_when(http, lambda health: health["read_tables"]["state"] == "running")
        with psycopg.connect(postgres.database) as holder:
            holder.execute(LOCKED_POSITION, (PROJECTION,))
            created = http.post("/v1/games", json={"kit": "toy-2p", "players": players})
            behind = http.get("/health").json()
            stalled = health_when(http, lambda health: health["read_tables"]["stalled"])
            holder.rollback()
        moved_on = health_when(http, lambda health: health["read_tables"]["lag"] == 0)
    assert created.status_code == 201, created.text
    assert behind["read_tables"]["lag"] > 0 and not behind["read_tables"]["stalled"]
    assert stalled["status"] == "degraded" and stalled["read_tables"]["state"] == "running"
    assert stalled["read_tables"]["position"] == behind["read_tables"]["position"]
    assert moved_on["status"] == "ok" and not moved_on["read_tables"]["stalled"]
