"""The API served by uvicorn on a free port of this machine, in a thread, with the tests' admin token; and the
requests the stream and server tests make over real HTTP."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import httpx
import uvicorn

from api import ApiSettings, create_app
from api.deps import utc_now
from evo_ledger.cli.request_deadlines import StoppingServer, served_as_the_server_serves
from evo_ledger.settings import Settings

ADMIN = "admin-secret"
WAIT = 20.0


class MovedClock:
    """The server's clock, moved on by the test: what a broadcast's delay is counted back from."""

    def __init__(self) -> None:
        self.ahead = timedelta(0)

    def __call__(self) -> datetime:
        return utc_now() + self.ahead

    def move_on(self, by: timedelta) -> None:
        self.ahead += by


@contextmanager
def running_server(
    database: str,
    loop: str = "auto",
    streams_per_client: int = 16,
    projections: bool = True,
    clock: Callable[[], datetime] | None = None,
    adapted: Callable[[Any], None] = lambda app: None,
) -> Iterator[str]:
    """A server on `database`, served in a thread: its base URL. With `clock`, the server's clock is that one;
    `adapted` changes the app before it serves (a test's middleware)."""
    settings = ApiSettings(
        store=Settings(database),
        admin_token=ADMIN,
        stream_poll_seconds=0.5,
        streams_per_client=streams_per_client,
        follow_projections=projections,
    )
    app = create_app(settings)
    if clock is not None:
        app.state.clock = clock
    adapted(app)
    with serving(app, loop) as base:
        yield base


@contextmanager
def serving(app: Any, loop: str = "auto") -> Iterator[str]:
    """The app served by uvicorn on a free port of this machine, in a thread, as `evo-ledger serve` serves it (each
    request's head and body read within the deadlines of the app's settings): its base URL."""
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        log_level="warning",
        loop=loop,
        **(served_as_the_server_serves(app.state.settings) | {"timeout_graceful_shutdown": 1}),
    )
    server = StoppingServer(config, app.state.stopping)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=WAIT)
        assert not thread.is_alive(), f"the server did not stop within {WAIT} s"


def new_game(base: str) -> tuple[str, dict[str, str]]:
    body = httpx.post(
        f"{base}/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")]}
    )
    answer = body.json()
    return answer["game_id"], {"Authorization": f"Bearer {answer['recorder_token']}"}


def append(base: str, game: str, headers: dict[str, str], action: str) -> int:
    answer = httpx.post(f"{base}/v1/games/{game}/actions", json={"actions": [action]}, headers=headers, timeout=WAIT)
    assert answer.status_code == 200, answer.text
    version: int = answer.json()["version"]
    return version


def health_when(http: httpx.Client, ready: Any) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT
    while True:
        health = http.get("/health").json()
        if ready(health):
            return dict(health)
        assert time.monotonic() < deadline, health
        time.sleep(0.1)


class Viewer:
    """A game's stream read on a thread of its own: the numbers of the events it received, in order."""

    def __init__(self, base: str, game: str) -> None:
        self.numbers: list[int] = []
        self.thread = threading.Thread(target=self.read, args=(f"{base}/v1/games/{game}/stream",), daemon=True)
        self.thread.start()

    def read(self, url: str) -> None:
        try:
            with (
                httpx.Client(timeout=httpx.Timeout(WAIT, read=None)) as client,
                client.stream("GET", url) as answer,
            ):
                for line in answer.iter_lines():
                    if line.startswith("data: "):
                        self.numbers.append(json.loads(line[len("data: ") :])["number"])
        except httpx.TransportError:  # its server stopped
            return

    def received_up_to(self, number: int, seconds: float) -> list[int]:
        deadline = time.monotonic() + seconds
        while (not self.numbers or self.numbers[-1] < number) and time.monotonic() < deadline:
            time.sleep(0.05)
        return list(self.numbers)
