"""The live stream against a real server: events appended after a viewer connects reach it, a viewer that comes
back with Last-Event-ID misses nothing and sees nothing twice, and appends never wait on the reads of open streams."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import httpx
import pytest
import uvicorn

from api import ApiSettings, create_app
from api.routes import events as events_routes
from evo_ledger.settings import Settings
from tests.support import ROUND_ONE_AUCTION

ADMIN = "admin-secret"
WAIT = 20.0


@contextmanager
def running_server(
    database: str,
    loop: str = "auto",
    streams_per_client: int = 16,
    projections: bool = True,
    clock: Callable[[], datetime] | None = None,
) -> Iterator[str]:
    """A server on `database`, served in a thread: its base URL. With `clock`, the server's clock is that one."""
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
    with serving(app, loop) as base:
        yield base


@contextmanager
def serving(app: Any, loop: str = "auto") -> Iterator[str]:
    """The app served by uvicorn on a free port of this machine, in a thread: its base URL."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", timeout_graceful_shutdown=1, loop=loop)
    server = uvicorn.Server(config)
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


class Viewer:
    """A stream read on its own thread: the events it received, in order."""

    def __init__(self, base: str, game: str, last_event_id: int | None = None) -> None:
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self.connected = threading.Event()
        self.stop = threading.Event()
        headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
        self.thread = threading.Thread(target=self.read, args=(f"{base}/v1/games/{game}/stream", headers), daemon=True)
        self.thread.start()
        assert self.connected.wait(WAIT), "the stream did not answer"

    def read(self, url: str, headers: dict[str, str]) -> None:
        try:
            self.follow(url, headers)
        except httpx.TransportError:  # the server went away under a viewer left open: the test has its events
            return

    def follow(self, url: str, headers: dict[str, str]) -> None:
        with (
            httpx.Client(timeout=httpx.Timeout(WAIT, read=None)) as client,
            client.stream("GET", url, headers=headers) as answer,
        ):
            assert answer.status_code == 200
            self.connected.set()
            for line in answer.iter_lines():
                if self.stop.is_set():
                    return
                if line.startswith("data: "):
                    self.received.put(json.loads(line[len("data: ") :]))

    def take(self, count: int) -> list[int]:
        return [self.received.get(timeout=WAIT)["number"] for _ in range(count)]

    def close(self) -> None:
        self.stop.set()


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


def test_a_viewer_gets_new_events_and_resumes_without_gaps_or_repeats(database: str) -> None:
    with running_server(database) as base:
        game, recorder = new_game(base)
        viewer = Viewer(base, game)
        assert viewer.take(1) == [1]
        version = 1
        for action in ROUND_ONE_AUCTION[:2]:
            version = append(base, game, recorder, action)
        seen = viewer.take(version - 1)
        viewer.close()
        for action in ROUND_ONE_AUCTION[2:5]:
            version = append(base, game, recorder, action)
        back = Viewer(base, game, last_event_id=seen[-1])
        resumed = back.take(version - seen[-1])
        back.close()
        assert [1, *seen, *resumed] == list(range(1, version + 1))
        assert back.received.empty()


def test_appends_are_answered_while_50_streams_wait_on_their_reads(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The streams read in threads of their own: with 50 streams open and every read they make held up, appends are
    still stored and answered and the board is still read; once the reads go on, every stream gets every event, in
    order."""
    reads_go_on = threading.Event()
    read = events_routes.poll

    def held_read(*args: Any) -> Any:
        reads_go_on.wait(10 * WAIT)
        return read(*args)

    monkeypatch.setattr(events_routes, "poll", held_read)
    with running_server(database, streams_per_client=50) as base:
        game, recorder = new_game(base)
        reads_go_on.set()
        viewers = [Viewer(base, game) for _ in range(50)]
        try:
            assert all(viewer.take(1) == [1] for viewer in viewers)
            reads_go_on.clear()
            versions = [append(base, game, recorder, action) for action in ROUND_ONE_AUCTION[:6]]
            board = httpx.get(f"{base}/v1/games/{game}/view", headers=recorder, timeout=WAIT)
            assert board.json()["version"] == versions[-1], board.text
            reads_go_on.set()
            assert all(viewer.take(versions[-1] - 1) == list(range(2, versions[-1] + 1)) for viewer in viewers)
        finally:
            reads_go_on.set()
            for viewer in viewers:
                viewer.close()
