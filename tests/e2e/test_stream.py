"""The live stream against a real server: events appended after a viewer connects reach it, a viewer that comes
back with Last-Event-ID misses nothing and sees nothing twice, and appends never wait on the reads of open streams."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any

import httpx
import pytest

from api.routes import events as events_routes
from tests.helpers.servers import WAIT, append, new_game, running_server
from tests.helpers.support import ROUND_ONE_AUCTION


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


@pytest.mark.slow
def test_appends_are_answered_while_50_streams_wait_on_their_reads(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The streams read in threads of their own: with 50 streams open and every read they make held up, appends are
    still stored and answered and the board is still read; once the reads go on, every stream gets every event, in
    order.

    Slow: fifty streams held open on a real server while appends are timed against them."""
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
