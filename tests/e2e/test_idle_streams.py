"""Idle streams cost the server nothing but a look at the game's version: with the server's threads limited to 4
and 8 idle streams open on a long game, no stream reads an event while nothing is appended, and another game's
state answers (a stream holding a thread would starve it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from api.app import ApiSettings, create_app
from evo_ledger.settings import Settings
from tests.helpers.servers import ADMIN, serving
from tests.helpers.support import ROOT, Counted

STREAMS = 8
THREADS = 4
POLL_SECONDS = 0.1
IDLE_POLLS = 10
WAIT = 60


@pytest.fixture
def served(tmp_path: Any) -> Iterator[tuple[str, Any]]:
    settings = ApiSettings(
        store=Settings(str(tmp_path / "idle.sqlite")),
        admin_token=ADMIN,
        stream_poll_seconds=POLL_SECONDS,
        worker_threads=THREADS,
    )
    app = create_app(settings)
    with serving(app) as base:
        yield base, app


def idle_stream(url: str, version: int, opened: threading.Semaphore, stop: threading.Event) -> None:
    """A public stream that has every event already (`Last-Event-ID`), held open until `stop`."""
    headers = {"Last-Event-ID": str(version)}
    with httpx.Client(timeout=httpx.Timeout(WAIT, read=None)) as client, client.stream("GET", url, headers=headers):
        opened.release()
        stop.wait(WAIT)


def test_idle_streams_read_no_event_and_leave_threads_to_other_requests(served: tuple[str, Any]) -> None:
    base, app = served
    game_file = (ROOT / "replays" / "evo1-selfplay-5p-seed22-experienced.evo").read_text()
    long_game = httpx.post(f"{base}/v1/games/import", content=game_file, headers={"Content-Type": "text/plain"}).json()
    other = httpx.post(f"{base}/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in "abc"]})
    reads = Counted(app.state.ledger.queries, "game_events")
    opened, stop = threading.Semaphore(0), threading.Event()
    url = f"{base}/v1/games/{long_game['game_id']}/stream"
    streams = [
        threading.Thread(target=idle_stream, args=(url, long_game["version"], opened, stop), daemon=True)
        for _ in range(STREAMS)
    ]
    for stream in streams:
        stream.start()
    try:
        for _ in streams:
            assert opened.acquire(timeout=WAIT), "a stream did not open"
        time.sleep(POLL_SECONDS * IDLE_POLLS)  # each stream looks at the game about this many times
        assert reads.count == 0, f"idle streams read the game's events {reads.count} times"
        state = httpx.get(f"{base}/v1/games/{other.json()['game_id']}/state", timeout=WAIT)
        assert state.status_code == 200
    finally:
        stop.set()
        for stream in streams:
            stream.join(timeout=WAIT)
