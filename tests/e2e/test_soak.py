"""A soak test: two servers on one PostgreSQL database, 8 recorders and 50 open streams, while the servers'
writing processes and read tables' processes are killed on a seeded schedule. Nothing acknowledged is lost or
stored twice, no answer is a 5xx but 503 `writer_restarted`, every stream sees each event once and in order, and
the read tables equal a rebuild from the log."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections import Counter
from contextlib import ExitStack
from typing import Any
from uuid import UUID

import httpx
from sqlalchemy import select

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import play_game
from evo_ledger.game.aggregate import Game
from evo_ledger.settings import Settings
from projections.runner import Projector
from projections.schema import read_tables
from projections.store import ReadStore
from tests.helpers.databases import ON_POSTGRES, fresh_postgres_database, require_postgres
from tests.helpers.servers import running_server
from tests.helpers.shown import shown

SEED = 29
RECORDERS, STREAMS, ACTIONS = 8, 50, 120
KILL_EVERY = 0.7
DEADLINE = 80.0
PLAYERS = [{"name": name} for name in ("ann", "ben", "cat")]


class Recorder(threading.Thread):
    """Appends its game's actions one at a time, each with its own idempotency key, to either server in turn;
    a `503 writer_restarted` is sent again with the same key."""

    def __init__(self, bases: list[str], game: str, token: str, actions: list[str], rng: random.Random) -> None:
        super().__init__(daemon=True)
        self.bases, self.game, self.actions, self.rng = bases, game, actions, rng
        self.headers = {"Authorization": f"Bearer {token}"}
        self.statuses: Counter[int] = Counter()
        self.acknowledged = 0

    def run(self) -> None:
        with httpx.Client(timeout=30) as http:
            for number, action in enumerate(self.actions):
                key = {"Idempotency-Key": f"{self.game}-{number}"}
                while True:
                    base = self.rng.choice(self.bases)
                    try:
                        answer = http.post(
                            f"{base}/v1/games/{self.game}/actions",
                            json={"actions": [action]},
                            headers={**self.headers, **key},
                        )
                    except httpx.TransportError:
                        continue
                    self.statuses[answer.status_code] += 1
                    if answer.status_code == 200:
                        self.acknowledged += 1
                        break
                    assert answer.status_code == 503 and answer.json()["code"] == "writer_restarted", answer.text


class Viewer(threading.Thread):
    """Follows a game's stream, coming back with Last-Event-ID when cut, until it has seen the game's `last`
    event (told once the recorders are done)."""

    def __init__(self, base: str, game: str) -> None:
        super().__init__(daemon=True)
        self.base, self.game = base, game
        self.last = 1 << 62
        self.seen: list[int] = []

    def run(self) -> None:
        deadline = time.monotonic() + DEADLINE
        with httpx.Client(timeout=httpx.Timeout(10, read=5)) as http:
            while (not self.seen or self.seen[-1] < self.last) and time.monotonic() < deadline:
                headers = {"Last-Event-ID": str(self.seen[-1])} if self.seen else {}
                try:
                    with http.stream("GET", f"{self.base}/v1/games/{self.game}/stream", headers=headers) as answer:
                        for line in answer.iter_lines():
                            if line.startswith("id: "):
                                self.seen.append(int(line.removeprefix("id: ")))
                                if self.seen[-1] >= self.last:
                                    return
                except (httpx.TransportError, httpx.ReadTimeout):
                    continue


def kill_on_schedule(bases: list[str], stop: threading.Event, rng: random.Random, kills: list[str]) -> None:
    with httpx.Client(timeout=10) as http:
        while not stop.wait(KILL_EVERY):
            base = rng.choice(bases)
            process = rng.choice(["writer", "read_tables"])
            pid = http.get(f"{base}/health").json()[process].get("pid")
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:  # it ended (an earlier kill's restart) between /health and now
                    continue
                kills.append(process)


def table_rows(store: ReadStore) -> dict[str, list[tuple[Any, ...]]]:
    with store.engine.connect() as connection:
        return {
            table.name: sorted((tuple(row) for row in connection.execute(select(table))), key=repr)
            for table in read_tables()
        }


@ON_POSTGRES
def test_two_servers_lose_and_repeat_nothing_while_their_processes_are_killed(tmp_path: Any) -> None:
    """Long by design: the recorders append their actions one request at a time while a writing or read tables'
    process is killed every `KILL_EVERY` seconds, so the run spans many kills and the restarts they wait for; then
    the viewers finish their streams and the read tables are rebuilt from the log to be compared."""
    require_postgres()
    rng = random.Random(SEED)
    games = [play_game(3, seed, "sensible", "evo2").lines for seed in range(RECORDERS)]
    actions = [[line for line in lines if not line.startswith("#")][:ACTIONS] for lines in games]
    with fresh_postgres_database() as url, ExitStack() as servers:
        bases = [servers.enter_context(running_server(url, streams_per_client=STREAMS)) for _ in range(2)]
        with httpx.Client(timeout=30) as http:
            created = [
                http.post(f"{bases[i % 2]}/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS}).json()
                for i in range(RECORDERS)
            ]
        recorders = [
            Recorder(bases, game["game_id"], game["recorder_token"], game_actions, random.Random(rng.random()))
            for game, game_actions in zip(created, actions, strict=True)
        ]
        viewers = [Viewer(bases[i % 2], recorders[i % RECORDERS].game) for i in range(STREAMS)]
        for viewer in viewers:
            viewer.start()
        stop, kills = threading.Event(), list[str]()
        killer = threading.Thread(target=kill_on_schedule, args=(bases, stop, random.Random(SEED), kills), daemon=True)
        killer.start()
        for recorder in recorders:
            recorder.start()
        for recorder in recorders:
            recorder.join(DEADLINE)
            assert not recorder.is_alive(), "a recorder did not finish in time"
        stop.set()
        killer.join()
        assert kills, "the schedule killed nothing"
        with Ledger(Settings(url)) as ledger:
            for recorder in recorders:
                recorded = [
                    shown(ledger, e.notation)  # as the recorder entered it: its seats by their handles
                    for e in ledger.queries.game_events(UUID(recorder.game))
                    if isinstance(e, Game.ActionRecorded)
                ]
                assert recorded == recorder.actions  # nothing lost, nothing twice
                assert set(recorder.statuses) <= {200, 503}, recorder.statuses
            lasts = {recorder.game: ledger.queries.receipt(UUID(recorder.game)).version for recorder in recorders}
        for viewer in viewers:
            viewer.last = lasts[viewer.game]
        for viewer in viewers:
            viewer.join(DEADLINE)
            assert viewer.seen == list(range(1, viewer.last + 1))
        with httpx.Client(timeout=10) as http:
            deadline = time.monotonic() + 45
            while any(http.get(f"{base}/health").json()["read_tables"]["lag"] for base in bases):
                assert time.monotonic() < deadline, "the read tables did not catch up"
                time.sleep(0.2)
        servers.close()  # the tables the servers kept, against a rebuild from the log
        with Ledger(Settings(url)) as ledger:
            store = ReadStore(Settings(url))
            try:
                kept = table_rows(store)
                store.reset()
                Projector(ledger, store).catch_up()
                rebuilt = table_rows(store)
                differing = {
                    name: (
                        sorted(set(kept[name]) - set(rows), key=repr)[:2],
                        sorted(set(rows) - set(kept[name]), key=repr)[:2],
                    )
                    for name, rows in rebuilt.items()
                    if rows != kept[name]
                }
                assert not differing, differing
            finally:
                store.close()
