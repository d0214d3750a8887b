"""A lease on a named job among the processes on one database: on PostgreSQL one holder at a time, which the
others replace within the retry interval once its connection ends (closed by its process, by the database, or by
its process's death); on SQLite the process that opened the store holds it. A lease given up is never taken again,
even by a try already under way; a try that fails says why, in `/health` too, and is logged at most once a
minute."""

from __future__ import annotations

import asyncio
import logging
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from api.supervision import LeasedJob
from evo_ledger.settings import CONNECT_TIMEOUT_SECONDS, Settings
from evo_ledger.store import leases
from evo_ledger.store.leases import (
    LEASE_SECONDS,
    RETRY_SECONDS,
    SILENT_PEER_SECONDS,
    Lease,
    LocalLease,
    PostgresLease,
    application_name,
    lease_on,
)
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database
from tests.helpers.servers import WAIT, health_when, running_server
from tests.helpers.support import child_env

JOB = "read tables"
ISSUE_BOUND_SECONDS = 30  # the longest a job may stay with a dead holder, as the docs promise
# The longest a free lease may take to be won by a process asking again and again, on a busy machine: a connection
# made, a query answered. What the tests below time is that the lock is freed, not how fast a machine answers.
WON_SECONDS = RETRY_SECONDS + CONNECT_TIMEOUT_SECONDS
UNREACHABLE = "the database could not be reached (OperationalError)"


@pytest.fixture
def postgres() -> Iterator[Settings]:
    with fresh_postgres_database() as url:
        yield Settings(url)


def won_within(lease: Lease, seconds: float) -> float | None:
    """How long `lease` took to be won, asked for again and again, or None if it was not won within `seconds`."""
    started = time.monotonic()
    while not lease.hold():
        if time.monotonic() - started > seconds:
            return None
        time.sleep(0.05)
    return time.monotonic() - started


def end_lease_connections(settings: Settings, job: str) -> None:
    """The database ends the connection that holds the lease on `job` in its database, as it ends a silent one
    (those waiting for it are left)."""
    with psycopg.connect(settings.database, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity JOIN pg_locks USING (pid)"
            " WHERE datname = current_database() AND application_name LIKE %s AND locktype = 'advisory' AND granted",
            (f"%{job}%",),
        )


def advisory_locks_held(settings: Settings) -> int:
    with psycopg.connect(settings.database, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        ).fetchone()
    assert row is not None
    return int(row[0])


def unused_port() -> int:
    """A port of this machine on which nothing listens (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def refused(*args: Any, **kwargs: Any) -> psycopg.Connection[Any]:
    raise psycopg.OperationalError('connection to server at "db.internal", port 5432 failed: Connection refused')


def job_states(health: dict[str, Any]) -> dict[str, str]:
    return {name: job["state"] for name, job in health["jobs"].items()}


def test_the_lease_moves_within_the_bound_the_docs_state() -> None:
    assert RETRY_SECONDS < SILENT_PEER_SECONDS < LEASE_SECONDS <= ISSUE_BOUND_SECONDS
    docs = (Path(__file__).parents[2] / "docs" / "scaling.md").read_text()
    assert f"{LEASE_SECONDS} s" in docs and f"{RETRY_SECONDS} s" in docs


def test_on_sqlite_the_process_that_opened_the_store_holds_the_lease_until_it_gives_it_up(tmp_path: Path) -> None:
    lease = lease_on(Settings(str(tmp_path / "games.sqlite")), JOB)
    before = lease.held
    holds = [lease.hold(), lease.hold(), lease.held]
    lease.release()
    assert isinstance(lease, LocalLease) and not before and holds == [True, True, True] and not lease.held
    assert not lease.hold() and not lease.held and lease.failure is None


def test_a_connections_name_keeps_the_holders_process_when_it_is_cut_short() -> None:
    short = application_name(JOB, "host-1", 4242)
    long = application_name(JOB, "a-very-long-host-name." * 5, 4242)
    assert short == "evo-ledger lease read tables host-1 4242"
    assert long == "evo-ledger lease read tables a-very-long-host-name.a-very- 4242" and len(long.encode()) == 63


def test_a_lease_whose_database_refuses_connections_says_why_and_logs_it_once_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=leases.__name__)
    lease = lease_on(Settings(f"postgresql://evo@127.0.0.1:{unused_port()}/nowhere"), JOB)
    assert isinstance(lease, PostgresLease)
    first = [lease.hold(), lease.failure, len(caplog.records)]
    second = [lease.hold(), lease.failure, len(caplog.records)]
    assert lease.failures.logged_at is not None
    lease.failures.logged_at -= leases.FAILURE_LOG_SECONDS  # a minute gone by since the first line
    third = [lease.hold(), len(caplog.records)]
    lease.release()
    assert first == [False, UNREACHABLE, 1] and second == [False, UNREACHABLE, 1] and third == [False, 2]
    assert "the lease on read tables cannot be asked for: connection failed" in caplog.records[0].getMessage()
    assert "(1 more tries failed since the last said)" in caplog.records[1].getMessage()
    assert not lease.held


@ON_POSTGRES
def test_of_two_holders_one_wins_and_the_other_wins_once_the_first_lets_go(postgres: Settings) -> None:
    first, second = lease_on(postgres, JOB), lease_on(postgres, JOB)
    try:
        assert isinstance(first, PostgresLease)
        assert first.hold() and not second.hold()
        assert first.hold() and not second.hold()  # the holder keeps it; the other asks in vain
        assert first.held and not second.held
        first.release()
        assert won_within(second, WON_SECONDS) is not None
        assert not first.hold()
    finally:
        first.release()
        second.release()


@ON_POSTGRES
def test_leases_on_other_jobs_or_other_databases_never_meet(postgres: Settings) -> None:
    leases = [lease_on(postgres, JOB), lease_on(postgres, "checkpoints")]
    with fresh_postgres_database() as other:
        leases.append(lease_on(Settings(other), JOB))
        try:
            assert all(lease.hold() for lease in leases)
        finally:
            for lease in leases:
                lease.release()


@ON_POSTGRES
def test_a_holder_whose_connection_the_database_ends_knows_it_lost_the_lease(postgres: Settings) -> None:
    holder, other = lease_on(postgres, JOB), lease_on(postgres, JOB)
    try:
        assert holder.hold() and not other.hold()
        end_lease_connections(postgres, JOB)
        assert won_within(other, WON_SECONDS) is not None
        assert not holder.hold() and not holder.held
        assert holder.failure is not None and holder.failure.startswith("the database did not answer")
        assert "SQLSTATE 57P01" in holder.failure  # the database ended the session (admin_shutdown)
        assert other.hold() and other.failure is None
    finally:
        holder.release()
        other.release()


HOLDER = """
import sys, time
from evo_ledger.settings import Settings
from evo_ledger.store.leases import lease_on
lease = lease_on(Settings(sys.argv[1]), sys.argv[2])
print(lease.hold(), flush=True)
time.sleep(120)
"""


@ON_POSTGRES
def test_a_holder_killed_leaves_the_lease_to_another_within_the_retry_interval(postgres: Settings) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, postgres.database, JOB], stdout=subprocess.PIPE, text=True, env=child_env()
    )
    other = lease_on(postgres, JOB)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "True"
        assert not other.hold()
        holder.kill()
        holder.wait()
        assert won_within(other, WON_SECONDS) is not None
    finally:
        holder.kill()
        holder.wait()
        other.release()


@ON_POSTGRES
def test_the_lease_connection_drops_a_silent_peer_on_both_ends_and_bounds_its_queries(postgres: Settings) -> None:
    lease = lease_on(postgres, JOB)
    try:
        assert lease.hold() and isinstance(lease, PostgresLease) and lease.connection is not None
        server_side = {
            name: lease.connection.execute(f"SHOW {name}").fetchone()
            for name in (
                "tcp_keepalives_idle",
                "tcp_keepalives_interval",
                "tcp_keepalives_count",
                "tcp_user_timeout",
                "statement_timeout",
            )
        }
        client_side = lease.connection.info.get_parameters()
    finally:
        lease.release()
    assert server_side == {
        "tcp_keepalives_idle": ("5",),
        "tcp_keepalives_interval": ("2",),
        "tcp_keepalives_count": ("3",),
        "tcp_user_timeout": (f"{SILENT_PEER_SECONDS * 1000}",),
        "statement_timeout": (f"{RETRY_SECONDS}s",),
    }
    assert client_side["keepalives"] == "1"
    assert client_side["tcp_user_timeout"] == str(SILENT_PEER_SECONDS * 1000)


@ON_POSTGRES
def test_a_waiting_process_asks_again_on_the_connection_it_keeps(postgres: Settings) -> None:
    holder, waiting = lease_on(postgres, JOB), lease_on(postgres, JOB)
    try:
        assert holder.hold() and isinstance(waiting, PostgresLease)
        assert not waiting.hold() and waiting.connection is not None
        backend = waiting.connection.info.backend_pid
        assert not waiting.hold() and not waiting.hold()
        assert waiting.connection is not None and waiting.connection.info.backend_pid == backend
        holder.release()
        assert waiting.hold() and waiting.connection.info.backend_pid == backend
    finally:
        holder.release()
        waiting.release()
    assert advisory_locks_held(postgres) == 0


@ON_POSTGRES
def test_a_lease_that_could_not_be_asked_for_says_so_once_and_is_won_once_it_can(
    postgres: Settings, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.INFO, logger=leases.__name__)
    lease = lease_on(postgres, JOB)
    try:
        monkeypatch.setattr(PostgresLease, "open_connection", refused)
        failed = [lease.hold(), lease.hold(), lease.failure]
        monkeypatch.undo()
        won = [lease.hold(), lease.failure]
    finally:
        lease.release()
    assert failed == [False, False, UNREACHABLE] and won == [True, None]
    assert [record.getMessage() for record in caplog.records] == [
        'the lease on read tables cannot be asked for: connection to server at "db.internal", port 5432 failed: '
        "Connection refused",
        "the lease on read tables can be asked for again",
    ]


@ON_POSTGRES
def test_a_try_under_way_as_the_lease_is_given_up_takes_it_not(postgres: Settings) -> None:
    """The server stops while a try to take the lease is on its way to its thread (the review's forced delay,
    here until the lease is given up): the try finds the lease given up, takes no lock and starts no job."""
    lease = lease_on(postgres, JOB)
    entered, released, tried = threading.Event(), threading.Event(), threading.Event()
    answers: list[bool] = []
    started: list[str] = []
    real_hold, real_release = lease.hold, lease.release

    def late_hold() -> bool:
        entered.set()
        released.wait(WAIT)  # preempted on its way until the server has given the lease up
        answers.append(real_hold())
        tried.set()
        return answers[-1]

    def release() -> None:
        real_release()
        released.set()

    async def stopped() -> None:
        started.append("stopped")

    job = LeasedJob(lease, lambda: started.append("started"), stopped)
    lease.hold, lease.release = late_hold, release  # type: ignore[method-assign]

    async def stopped_while_trying() -> None:
        step = asyncio.create_task(job.step())
        assert await asyncio.to_thread(entered.wait, WAIT)
        step.cancel()  # the server stops (LeasedJobs.aclose)
        await asyncio.gather(step, return_exceptions=True)
        await job.close()

    asyncio.run(stopped_while_trying())
    assert tried.wait(WAIT)
    assert answers == [False] and started == [] and not lease.held
    assert advisory_locks_held(postgres) == 0


@ON_POSTGRES
def test_a_server_that_loses_its_lease_stops_the_job_and_starts_it_again_once_it_wins_it_back(
    postgres: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """The server's lease connection ended by the database: at its next check the server stops the read tables'
    process and says so (`waiting`, still healthy); at the try after, with no other server to hold it, it wins the
    lease back and starts the process again."""
    caplog.set_level(logging.INFO)
    with running_server(postgres.database) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        before = health_when(http, lambda health: health["read_tables"]["state"] == "running")
        end_lease_connections(postgres, JOB)
        waiting = health_when(http, lambda health: job_states(health) == {"read_tables": "waiting"})
        again = health_when(http, lambda health: health["read_tables"]["state"] == "running")
    assert before["jobs"] == {"read_tables": {"state": "held", "failure": None}}
    assert waiting["status"] == "ok" and waiting["read_tables"]["state"] == "waiting"
    assert again["jobs"] == {"read_tables": {"state": "held", "failure": None}}
    assert again["read_tables"]["pid"] != before["read_tables"]["pid"]
    assert "this server stops the read tables: it lost their lease" in caplog.text


@ON_POSTGRES
def test_a_server_that_cannot_ask_for_a_lease_says_why_under_jobs_and_takes_it_once_it_can(
    postgres: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PostgresLease, "open_connection", refused)
    with running_server(postgres.database) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        refusing = http.get("/health")
        monkeypatch.undo()
        held = health_when(http, lambda health: job_states(health) == {"read_tables": "held"})
    assert refusing.status_code == 200 and refusing.json()["status"] == "ok"
    assert refusing.json()["jobs"] == {"read_tables": {"state": "waiting", "failure": UNREACHABLE}}
    assert "db.internal" not in refusing.text  # the database's own words stay in the server's log
    assert held["jobs"] == {"read_tables": {"state": "held", "failure": None}}
