"""Several servers on one PostgreSQL database: appends through any of them are stored once each and refused as on
one server, streams on each see the others' appends, and the jobs that run once (the read tables' follower, the
checkpoint signer) run in the server holding their lease and move to another within the lease's time when it
dies."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import httpx
import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.settings import CONNECT_TIMEOUT_SECONDS, Settings
from evo_ledger.store.leases import LEASE_SECONDS, RETRY_SECONDS
from projections.store import ReadStore
from tests.helpers.databases import fresh_postgres_database
from tests.helpers.servers import ADMIN, WAIT, Viewer, health_when, running_server
from tests.helpers.shown import shown
from tests.helpers.support import Served, child_env, log_position, serve_process

KEY = "the servers' shared secret"
ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}
BOTH_HELD = {"read_tables": "held", "checkpoints": "held"}
BOTH_WAITING = {"read_tables": "waiting", "checkpoints": "waiting"}
GAMES = 3
CLIENTS_PER_GAME = 4
STEPS = 30
ATTEMPTS = 12  # a client's tries of one action (the same idempotency key) before it leaves it unknown
REQUEST_SECONDS = 30.0
# How long the read tables and the checkpoints may take, past the burst's end, to reach the log's end.
CATCH_UP_SECONDS = 30.0
ROLL = "ann roll 2"  # always legal in a game where ann never holds: it is her turn for ever, and it adds one event
ENTERED_FROM = datetime(2025, 1, 1, tzinfo=UTC)
# What a health check asked every tenth of a second, on a busy machine, may add to the moment a lease moved.
HEALTH_MARGIN_SECONDS = 2.0


SERVER_ENV = {"EVO_LEDGER_SEAL_KEY": KEY, "EVO_LEDGER_CHECKPOINT_SECONDS": "1", "EVO_LEDGER_ADMIN_TOKEN": ADMIN}


class Server:
    """`evo-ledger serve` in a process of its own (`serve_process`), with the seal key, checkpoints every second and
    the tests' admin token, logging what goes wrong."""

    def __init__(self, served: Served) -> None:
        self.served, self.base = served, served.base
        self.http = httpx.Client(base_url=self.base, timeout=REQUEST_SECONDS)

    def health(self) -> dict[str, Any]:
        answer: dict[str, Any] = self.http.get("/health", headers=ADMIN_HEADERS).json()
        return answer

    def kill(self) -> float:
        """SIGKILL: the moment it was sent."""
        killed = time.monotonic()
        self.served.process.kill()
        self.served.process.wait()
        return killed


def server_health_when(
    server: Server, ready: Callable[[dict[str, Any]], bool], seconds: float
) -> tuple[dict[str, Any], float]:
    """The server's first `/health` that is `ready`, asked until `seconds` have passed, and when it was answered."""
    deadline = time.monotonic() + seconds
    while True:
        health = server.health()
        if ready(health):
            return health, time.monotonic()
        assert time.monotonic() < deadline, json.dumps(health)
        time.sleep(0.1)


@dataclass
class Action:
    """One action a client tried to append, with the key it sent it with each time, and how it ended: acknowledged
    at a version, refused with a 409's code, or unknown (every try failed on the way); how many tries failed on
    the way."""

    game: str
    entered_at: datetime
    key: str
    expected: int | None
    version: int | None = None
    refused: str | None = None
    lost_on_the_way: int = 0
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)


class Burst:
    """Clients appending to the same games through all the servers at once, each trying the servers in turn; the
    actions they tried, and how many are done."""

    def __init__(self, servers: list[Server], games: dict[str, dict[str, str]], versions: dict[str, int]) -> None:
        self.servers, self.games, self.versions = servers, games, versions
        self.actions: list[Action] = []
        self.done = 0
        self.counting = threading.Lock()
        self.threads = [
            threading.Thread(target=self.client, args=(index, game), daemon=True)
            for index, game in enumerate(game for game in games for _ in range(CLIENTS_PER_GAME))
        ]

    @property
    def total(self) -> int:
        return len(self.threads) * STEPS

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def join(self) -> None:
        deadline = time.monotonic() + STEPS * REQUEST_SECONDS
        for thread in self.threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        assert not any(thread.is_alive() for thread in self.threads), "a client never finished"

    def client(self, index: int, game: str) -> None:
        """Half the clients send the version they last saw (as a recording device does), the others none."""
        known: int | None = self.versions[game] if index % 2 == 0 else None
        with httpx.Client(timeout=REQUEST_SECONDS) as http:
            for step in range(STEPS):
                entered_at = ENTERED_FROM + timedelta(seconds=index * 1000 + step)
                action = Action(game, entered_at, f"client-{index}-step-{step}", known)
                self.append(http, action, first=index + step)
                if known is not None:
                    known = action.version or (action.conflicts[-1]["version"] if action.conflicts else known)
                with self.counting:
                    self.actions.append(action)
                    self.done += 1

    def append(self, http: httpx.Client, action: Action, first: int) -> None:
        """The action sent to each server in turn from `first`, with the same key, until one answers it."""
        body: dict[str, Any] = {"actions": [ROLL], "entered_at": action.entered_at.isoformat()}
        if action.expected is not None:
            body["expected_version"] = action.expected
        headers = {**self.games[action.game], "Idempotency-Key": action.key}
        for attempt in range(ATTEMPTS):
            server = self.servers[(first + attempt) % len(self.servers)]
            try:
                answer = http.post(f"{server.base}/v1/games/{action.game}/actions", json=body, headers=headers)
            except httpx.TransportError:  # the server died under it, or is gone: stored or not, the key tells
                action.lost_on_the_way += 1
                continue
            if answer.status_code == 200:
                action.version = answer.json()["version"]
                return
            problem = answer.json()
            if answer.status_code == 409:
                action.conflicts.append(problem)
                if problem["code"] == "contention":  # not refused by the rules: sent again with its key, as a
                    continue  # device does (an attempt on a server killed mid-commit may have stored it)
                action.refused = problem["code"]
                return
            if answer.status_code != 503 or problem.get("code") != "writer_restarted":
                action.unexpected.append(f"{answer.status_code} {answer.text}")
                return


def job_states(health: dict[str, Any]) -> dict[str, str]:
    """The state of each job a `/health` names."""
    return {name: job["state"] for name, job in health.get("jobs", {}).items()}


def jobs_are(jobs: dict[str, str]) -> Callable[[dict[str, Any]], bool]:
    """Whether a `/health` says the server's jobs are in the states `jobs` names."""
    return lambda health: job_states(health) == jobs


@contextmanager
def servers_on(database: str, count: int) -> Iterator[list[Server]]:
    """`count` servers on `database`, started one after the other (the first holds both leases), killed at the
    end."""
    options = ["--database", database, "--log-level", "warning"]
    with ExitStack() as stack:
        servers: list[Server] = []
        for number in range(count):
            server = Server(stack.enter_context(serve_process(options, {**child_env(), **SERVER_ENV})))
            stack.callback(server.kill)  # at the end, as in the test: a stream left open holds up a Ctrl-C
            stack.callback(server.http.close)
            servers.append(server)
            server_health_when(server, jobs_are(BOTH_HELD if number == 0 else BOTH_WAITING), WAIT)
        yield servers


def new_games(server: Server) -> tuple[dict[str, dict[str, str]], dict[str, int]]:
    """Toy games, by their id: the recorder's headers, and the version each stands at."""
    games, versions = {}, {}
    for _ in range(GAMES):
        created = server.http.post("/v1/games", json={"kit": "toy-2p", "players": [{"name": "ann"}, {"name": "ben"}]})
        assert created.status_code == 201, created.text
        body = created.json()
        games[body["game_id"]] = {"Authorization": f"Bearer {body['recorder_token']}"}
        versions[body["game_id"]] = body["version"]
    return games, versions


def burst_with_kills(burst: Burst, bystander: Server, holder: Server) -> float:
    """The burst, with `bystander` killed a quarter of the way through it and `holder` half way: when the holder
    was killed."""
    burst.start()
    for share, server in ((1 / 4, bystander), (1 / 2, holder)):
        deadline = time.monotonic() + STEPS * REQUEST_SECONDS
        while burst.done < burst.total * share:
            assert time.monotonic() < deadline, f"the burst stalled at {burst.done} of {burst.total}"
            time.sleep(0.01)
        killed = server.kill()
    return killed


def stored_actions(ledger: Ledger, game: str) -> tuple[list[int], dict[datetime, list[int]]]:
    """A game's event versions, and the versions of the actions stored with each time they were entered at."""
    events = ledger.queries.game_events(UUID(game))
    stored: dict[datetime, list[int]] = {}
    for event in events[1:]:  # after the game's start, each an action (a roll, named by the toy ruleset's fact)
        assert shown(ledger, event.notation) == ROLL and event.entered_at is not None
        stored.setdefault(datetime.fromisoformat(event.entered_at), []).append(event.originator_version)
    return [event.originator_version for event in events], stored


def check_each_action_stored_once_as_answered(ledger: Ledger, actions: list[Action]) -> None:
    """Every acknowledged action in the log once, at the version it was answered with; a refused one never; an
    unknown one at most once; nothing else appended."""
    by_game: dict[str, list[Action]] = {}
    for action in actions:
        by_game.setdefault(action.game, []).append(action)
    for game, tried in by_game.items():
        versions, stored = stored_actions(ledger, game)
        assert versions == list(range(1, len(versions) + 1))
        tried_at = {action.entered_at for action in tried}
        assert set(stored) <= tried_at, "an action no client tried was stored"
        for action in tried:
            found = stored.get(action.entered_at, [])
            if action.version is not None:
                assert found == [action.version], f"{action.key}: acknowledged at {action.version}, stored at {found}"
            elif action.refused is not None:
                assert found == [], f"{action.key}: refused with {action.refused}, stored at {found}"
            else:
                assert len(found) <= 1, f"{action.key}: stored at {found}"


def check_conflicts_answered_as_on_one_server(actions: list[Action]) -> Counter[str]:
    """Each 409 a version conflict with what was stored since the version the client expected (or, without one,
    contention): how many of each."""
    for action in actions:
        for conflict in action.conflicts:
            if conflict["code"] == "contention":
                assert action.expected is None
                continue
            assert conflict["code"] == "version_conflict" and action.expected is not None, conflict
            assert conflict["expected_version"] == action.expected < conflict["version"]
            numbers = [event["number"] for event in conflict["recorded"]]
            assert numbers == list(range(action.expected + 1, min(conflict["version"], action.expected + 100) + 1))
    return Counter(action.refused for action in actions if action.refused is not None)


def caught_up(survivor: Server, ledger: Ledger, games: list[str], deadline: float) -> dict[str, Any]:
    """The survivor's `/health` once the read tables reach the log's end and a checkpoint it signed covers every
    game's last event, by `deadline`; their position in the read store checked too."""
    log_end = ledger.store.recorder.max_notification_id() or 0
    last_appended = max(log_position(ledger, game, ledger.queries.receipt(UUID(game)).version) for game in games)

    def reached(health: dict[str, Any]) -> bool:
        signed = health["checkpoints"]["position"] or 0
        return bool(health["read_tables"]["position"] >= log_end and signed >= last_appended)

    health, _ = server_health_when(survivor, reached, deadline - time.monotonic())
    read_store = ReadStore(ledger.store.settings)
    try:
        assert read_store.position() >= log_end
    finally:
        read_store.close()
    return health


@pytest.mark.slow
def test_three_servers_on_one_database_lose_nothing_when_one_and_then_the_lease_holder_die() -> None:
    """Three servers on one database, twelve clients appending to three games through all of them with idempotency
    keys (half with the version they last saw): one server is killed a quarter of the way through, the one holding
    both leases half way. Every acknowledged action is stored once, at its version; every refusal is a
    version conflict (or contention) as on one server; the survivor takes both jobs within the lease's time; the
    read tables reach the log's end and a checkpoint signed by the survivor covers it; a stream on the survivor
    saw every event of its game once.

    Slow: three servers with their processes started, a burst of 360 appends, two servers killed."""
    with fresh_postgres_database() as database, servers_on(database, 3) as servers:
        holder, bystander, survivor = servers
        games, versions = new_games(holder)
        watched = next(iter(games))
        viewer = Viewer(survivor.base, watched)
        burst = Burst(servers, games, versions)
        killed = burst_with_kills(burst, bystander, holder)
        _, taken_over = server_health_when(survivor, jobs_are(BOTH_HELD), LEASE_SECONDS)
        burst.join()
        deadline = max(killed + LEASE_SECONDS, time.monotonic()) + CATCH_UP_SECONDS
        assert taken_over - killed <= LEASE_SECONDS
        assert [action.unexpected for action in burst.actions if action.unexpected] == []
        with Ledger(Settings(database, seal_key=KEY)) as ledger:
            check_each_action_stored_once_as_answered(ledger, burst.actions)
            health = caught_up(survivor, ledger, list(games), deadline)
            assert all(ledger.queries.audit(UUID(game)).verdict == "clean" for game in games)
            final = ledger.queries.receipt(UUID(watched)).version
        refusals = check_conflicts_answered_as_on_one_server(burst.actions)
        assert refusals["version_conflict"] > 0
        assert sum(action.version is not None for action in burst.actions) > burst.total / 3
        assert sum(action.lost_on_the_way for action in burst.actions) > 0  # tries sent to the servers killed
        assert health["status"] == "ok" and job_states(health) == BOTH_HELD
        assert health["read_tables"]["state"] == "running" and health["checkpoints"]["failure"] is None
        assert viewer.received_up_to(final, WAIT) == list(range(1, final + 1))


@pytest.mark.slow
def test_a_stream_on_one_server_sees_appends_made_through_another_and_a_lease_given_up_moves() -> None:
    """Two servers on one database: the first holds the read tables' lease and the second waits, both healthy; an
    append through the first reaches a stream on the second, which polls the log for it; once the first stops,
    the second takes the read tables within the retry interval and brings them to the log's end.

    Slow: two servers with their processes started, on PostgreSQL."""
    with fresh_postgres_database() as database, ExitStack() as first_server:
        first = first_server.enter_context(running_server(database))
        first_http = first_server.enter_context(httpx.Client(base_url=first, timeout=WAIT))
        holding = health_when(first_http, lambda health: health["read_tables"]["state"] == "running")
        with running_server(database) as second, httpx.Client(base_url=second, timeout=WAIT) as second_http:
            waiting = second_http.get("/health")
            players = [{"name": "ann"}, {"name": "ben"}]
            created = first_http.post("/v1/games", json={"kit": "toy-2p", "players": players}).json()
            viewer = Viewer(second, created["game_id"])
            recorder = {"Authorization": f"Bearer {created['recorder_token']}"}
            appended = first_http.post(
                f"/v1/games/{created['game_id']}/actions", json={"actions": [ROLL]}, headers=recorder
            )
            version = appended.json()["version"]
            seen = viewer.received_up_to(version, WAIT)
            first_server.close()
            stopped = time.monotonic()
            health_when(second_http, jobs_are({"read_tables": "held"}))
            taken_over = time.monotonic() - stopped
            with Ledger(Settings(database)) as ledger:
                log_end = ledger.store.recorder.max_notification_id()
            caught_up = health_when(second_http, lambda health: health["read_tables"]["position"] == log_end)
    assert holding["jobs"] == {"read_tables": {"state": "held", "failure": None}}
    assert waiting.status_code == 200 and waiting.json()["status"] == "ok"
    assert waiting.json()["jobs"] == {"read_tables": {"state": "waiting", "failure": None}}
    assert waiting.json()["read_tables"]["state"] == "waiting"
    assert seen == list(range(1, version + 1))
    assert taken_over <= RETRY_SECONDS + CONNECT_TIMEOUT_SECONDS + HEALTH_MARGIN_SECONDS
    assert caught_up["status"] == "ok" and caught_up["read_tables"]["state"] == "running"
