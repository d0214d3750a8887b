"""Appends over HTTP through one and through three `evo-ledger serve` on one PostgreSQL database, against the
database's own floor for single-row transactions.

    python -m bench.several_servers [--clients 24] [--seconds 15] [--warm-up 3] [--floor-seconds 5]
                                    [--floor pgbench|psycopg] [--postgres postgresql://postgres@127.0.0.1:5432/test]

In a PostgreSQL database made for the run and dropped after it (on the server at EVO_TEST_POSTGRES, else the
default above), in turn:
- the floor: single-row INSERT transactions into a scratch table from as many connections as there are HTTP
  clients, each INSERT its own transaction (autocommit, with `synchronous_commit` as the server has it): by pgbench
  with a script of that one INSERT where pgbench is installed, else by psycopg, one thread and connection a client;
- one server (its writing process, and its read tables' process following the log): each client appends
  "ann roll 2" to a toy game of its own (ann never holds, so the roll is always legal and adds one event), one
  action a request with the version it last stored, on a kept-alive connection; the acknowledged appends (2xx)
  answered within a fixed window after a warm-up are counted a wall-second;
- the floor again (the server idle), then two more servers started on the same database and the same load spread
  over the three, client by client in turn (the first keeps the read tables' lease), then the floor once more, the
  servers stopped.
Each figure through the servers is set against the mean of the floors measured just before and after it. Before
each floor the read tables are waited for until they reach the log's end, so that the follower's catching up
falls on no floor. At the end every game's events are counted in the log: each holds exactly the appends its
client had acknowledged, or the run fails.
The toy ruleset is the tests' own (`tests/toy_dist`): the servers are started with it importable.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from uuid import UUID

import httpx
import psycopg

from bench.api_speed import APPEND, Connection, free_port, served
from bench.ledger_speed import postgres_database
from bench.report import reporting
from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
ADMIN_URL = os.environ.get("EVO_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
NEW_GAME = {"kit": "toy-2p", "players": [{"name": "ann"}, {"name": "ben"}]}
ROLL = "ann roll 2"
FLOOR_INSERT = "INSERT INTO bench_floor (data) VALUES (repeat('x', 200))"
CATCH_UP_SECONDS = 120.0
REQUEST_SECONDS = 30.0
SERVERS = {1: "one server", 3: "three servers"}


@dataclass(frozen=True)
class Sizes:
    clients: int = 24
    seconds: float = 15.0
    warm_up: float = 3.0
    floor_seconds: float = 5.0
    floor: str = "pgbench" if shutil.which("pgbench") else "psycopg"


@dataclass
class Recorder:
    """One client: the server it appends through, its game there, the recorder's token, the version it last
    stored, and how many of its appends were acknowledged."""

    base: str
    game: str
    token: str
    version: int
    first_version: int
    acknowledged: int = 0


@dataclass
class Tally:
    """What the clients were answered: acknowledged appends answered within the window, other answers by status."""

    counted: int = 0
    refused: Counter[int] = field(default_factory=Counter)


@dataclass(frozen=True)
class Through:
    """Appends through some servers: acknowledged appends a second in the window, the other answers, the read
    tables' lag when the window closed and how long they took to reach the log's end after it."""

    servers: int
    rate: float
    refused: Counter[int]
    lag: int
    caught_up_after: float | None


# The floor.


def floor_rate(url: str, sizes: Sizes) -> float:
    """Single-row INSERT transactions a second, from `sizes.clients` connections for `sizes.floor_seconds`."""
    if sizes.floor == "pgbench":
        return pgbench_rate(url, sizes.clients, sizes.floor_seconds)
    return psycopg_rate(url, sizes.clients, sizes.floor_seconds)


def make_floor_table(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE bench_floor (id BIGSERIAL PRIMARY KEY, data TEXT)")


def pgbench_rate(url: str, clients: int, seconds: float) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as script:
        script.write(f"{FLOOR_INSERT};\n")
        script.flush()
        command = ["pgbench", "--no-vacuum", "--protocol=prepared", f"--client={clients}"]
        command += [f"--jobs={min(clients, os.cpu_count() or 1)}", f"--time={max(1, round(seconds))}"]
        command += [f"--file={script.name}", url]
        done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=seconds + REQUEST_SECONDS)
    found = re.search(r"^tps = ([\d.]+)", done.stdout, flags=re.MULTILINE)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"pgbench gave no rate (exit status {done.returncode}):\n{done.stderr[-2000:]}")
    return float(found.group(1))


def psycopg_rate(url: str, clients: int, seconds: float) -> float:
    connections = [psycopg.connect(url, autocommit=True) for _ in range(clients)]
    counts = [0] * clients
    started = time.perf_counter()

    def insert_until(index: int) -> None:
        inserted = 0
        while time.perf_counter() < started + seconds:
            connections[index].execute(FLOOR_INSERT)
            inserted += 1
        counts[index] = inserted

    try:
        threads = [threading.Thread(target=insert_until, args=(index,)) for index in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=seconds + REQUEST_SECONDS)
        return sum(counts) / (time.perf_counter() - started)
    finally:
        for connection in connections:
            connection.close()


# The appends through the servers.


def server_env() -> dict[str, str]:
    """The servers' environment: this checkout importable, with the tests' toy ruleset."""
    return {"PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "toy_dist")])}


@contextmanager
def server(database: str) -> Iterator[str]:
    port = free_port()
    command = [sys.executable, "-m", "evo_ledger", "serve", "--port", str(port), "--database", database]
    with served([*command, "--log-level", "warning"], port, server_env()) as base:
        yield base


def new_recorder(http: httpx.Client, base: str) -> Recorder:
    created = http.post(f"{base}/v1/games", json=NEW_GAME)
    created.raise_for_status()
    body = created.json()
    version = body["version"]
    return Recorder(base, body["game_id"], body["recorder_token"], version, version)


async def append_until(recorder: Recorder, window: tuple[float, float], tally: Tally) -> None:
    """The client's appends, one after the other, until the window closes."""
    start, end = window
    connection = await Connection.open(recorder.base)
    path = APPEND.format(game_id=recorder.game)
    try:
        while time.perf_counter() < end:
            body = {"actions": [ROLL], "expected_version": recorder.version}
            status, answer = await connection.post(path, body, recorder.token)
            answered = time.perf_counter()
            if 200 <= status < 300:
                recorder.version = answer["version"]
                recorder.acknowledged += 1
                tally.counted += start <= answered < end
            else:
                tally.refused[status] += 1
    finally:
        connection.close()


async def load(recorders: list[Recorder], sizes: Sizes) -> Tally:
    tally = Tally()
    start = time.perf_counter() + sizes.warm_up
    window = (start, start + sizes.seconds)
    await asyncio.gather(*(append_until(recorder, window, tally) for recorder in recorders))
    return tally


def read_tables(http: httpx.Client, base: str) -> dict[str, int]:
    answer: dict[str, int] = http.get(f"{base}/health").json()["read_tables"]
    return answer


def caught_up_after(http: httpx.Client, base: str) -> float | None:
    """Seconds until the read tables reach the log's end, asked every tenth of a second; None past
    `CATCH_UP_SECONDS`."""
    started = time.monotonic()
    while read_tables(http, base)["lag"] > 0:
        if time.monotonic() - started > CATCH_UP_SECONDS:
            return None
        time.sleep(0.1)
    return time.monotonic() - started


def appends_through(bases: list[str], sizes: Sizes, recorders: list[Recorder]) -> Through:
    """The load spread over `bases` client by client in turn; the first server's read tables waited for after."""
    with httpx.Client(timeout=REQUEST_SECONDS) as http:
        mine = [new_recorder(http, bases[index % len(bases)]) for index in range(sizes.clients)]
        tally = asyncio.run(load(mine, sizes))
        lag = read_tables(http, bases[0])["lag"]
        after = caught_up_after(http, bases[0])
    recorders.extend(mine)
    return Through(len(bases), tally.counted / sizes.seconds, tally.refused, lag, after)


def check_the_log(database: str, recorders: list[Recorder]) -> None:
    """Each game's events in the log, numbered from 1 without a gap: its first ones, then exactly the appends its
    client had acknowledged; the run fails otherwise."""
    wrong = []
    with Ledger(Settings(database)) as ledger:
        for recorder in recorders:
            versions = [event.originator_version for event in ledger.store.recorder.select_events(UUID(recorder.game))]
            if versions != list(range(1, recorder.first_version + recorder.acknowledged + 1)):
                wrong.append(f"{recorder.game}: {recorder.acknowledged} acknowledged, stored {len(versions)} events")
    if wrong:
        raise RuntimeError("the log does not hold exactly the acknowledged appends:\n  " + "\n  ".join(wrong))


# The run.


@dataclass(frozen=True)
class Measured:
    floors: list[float]
    one: Through
    three: Through
    acknowledged: int

    def against_floor(self, through: Through) -> float:
        index = 0 if through.servers == 1 else 1
        return through.rate / statistics.mean(self.floors[index : index + 2])


def measure(admin_url: str, sizes: Sizes) -> Measured:
    with postgres_database(admin_url) as database:
        make_floor_table(database)
        recorders: list[Recorder] = []
        floors = [floor_rate(database, sizes)]
        with ExitStack() as servers:
            bases = [servers.enter_context(server(database))]
            one = appends_through(bases, sizes, recorders)
            floors.append(floor_rate(database, sizes))
            bases += [servers.enter_context(server(database)) for _ in range(2)]
            three = appends_through(bases, sizes, recorders)
        floors.append(floor_rate(database, sizes))  # the servers stopped: their connections leave room for the floor's
        check_the_log(database, recorders)
    return Measured(floors, one, three, sum(recorder.acknowledged for recorder in recorders))


def database_settings(admin_url: str) -> str:
    with psycopg.connect(admin_url) as connection:
        version = connection.execute("SHOW server_version").fetchone()
        synchronous = connection.execute("SHOW synchronous_commit").fetchone()
        fsync = connection.execute("SHOW fsync").fetchone()
    assert version and synchronous and fsync
    return f"PostgreSQL {version[0].split()[0]}, synchronous_commit {synchronous[0]}, fsync {fsync[0]}"


def print_report(measured: Measured, sizes: Sizes, settings: str) -> None:
    cores = os.cpu_count()
    floor_by = "pgbench, a script of one INSERT" if sizes.floor == "pgbench" else "psycopg, a thread a connection"
    print(f"{settings}; {sizes.clients} clients, {sizes.seconds:g} s counted after {sizes.warm_up:g} s of warm-up")
    print(f"The floor by {floor_by}, {sizes.clients} connections, {sizes.floor_seconds:g} s each time.")
    print(
        f"This machine's {cores} cores are shared by the servers, their writing and read tables' processes, the\n"
        "clients and the database: three servers on it share the same cores, so the three servers' figure shows\n"
        "what serving one database from several servers costs or gives here, not what machines of their own add."
    )
    print()
    print("| | per second | against the floor beside it |")
    print("| --- | ---: | ---: |")
    floors = " / ".join(f"{floor:,.0f}" for floor in measured.floors)
    print(f"| floor: single-row transactions, {sizes.clients} connections (before, between, after) | {floors} | |")
    for through in (measured.one, measured.three):
        each = f"{sizes.clients / through.servers:g} clients" + (" each" if through.servers > 1 else "")
        rate, ratio = f"{through.rate:,.0f}", f"{measured.against_floor(through):.2f}x"
        print(f"| appends through {SERVERS[through.servers]}, {each} | {rate} | {ratio} |")
    print(f"| three servers against one | {measured.three.rate / measured.one.rate:.2f}x | |")
    print()
    for through in (measured.one, measured.three):
        refused = ", ".join(f"{count} answered {status}" for status, count in sorted(through.refused.items()))
        after = "not within the wait" if through.caught_up_after is None else f"{through.caught_up_after:.1f} s"
        print(
            f"{SERVERS[through.servers].capitalize()}: {refused or 'every append acknowledged'}; the read tables"
            f" {through.lag:,} events behind the log when the window closed, at its end {after} later."
        )
    print(
        f"The log holds exactly the {measured.acknowledged:,} appends acknowledged (warm-up included), each game"
        " its client's, numbered without a gap: none lost or doubled."
    )


def run(admin_url: str, sizes: Sizes) -> None:
    settings = f"{database_settings(admin_url)}; load average {os.getloadavg()[0]:.2f} as the run began"
    print_report(measure(admin_url, sizes), sizes, settings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=Sizes.clients, help="HTTP clients, and floor connections")
    parser.add_argument("--seconds", type=float, default=Sizes.seconds, help="how long the appends are counted")
    parser.add_argument("--warm-up", type=float, default=Sizes.warm_up, help="appends before the counting")
    parser.add_argument("--floor-seconds", type=float, default=Sizes.floor_seconds, help="each floor's length")
    parser.add_argument("--floor", choices=("pgbench", "psycopg"), default=Sizes.floor, help="the floor's client")
    parser.add_argument("--postgres", default=ADMIN_URL)
    parser.add_argument("--report", action="store_true", help="write this benchmark's section of docs/benchmarks.md")
    args = parser.parse_args()
    sizes = Sizes(args.clients, args.seconds, args.warm_up, args.floor_seconds, args.floor)
    targets = "none; its table is the one docs/scaling.md gives."
    command = ".venv/bin/python -m bench.several_servers"
    title = "Several servers on one PostgreSQL database"
    reporting("several-servers", title, command, targets, lambda: run(args.postgres, sizes), args.report)


if __name__ == "__main__":
    main()
