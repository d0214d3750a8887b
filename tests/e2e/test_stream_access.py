"""An open stream follows its reader's access: made private, the game's stream to the public closes; with the
recorder token replaced, the old token's stream closes before it sends what only a recorder may see. Each closes
with a final event saying why."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx

from tests.helpers.servers import ADMIN, WAIT, running_server
from tests.helpers.support import ROUND_ONE_AUCTION

PLAYERS = [{"name": name} for name in ("ann", "ben", "cat")]
ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN}"}


class Stream:
    """A stream read on its own thread until it closes: its events' kinds and data, in order."""

    def __init__(self, base: str, game: str, headers: dict[str, str]) -> None:
        self.events: list[tuple[str, Any]] = []
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self.read, args=(f"{base}/v1/games/{game}/stream", headers), daemon=True)
        self.thread.start()

    def read(self, url: str, headers: dict[str, str]) -> None:
        kind = ""
        with (
            httpx.Client(timeout=httpx.Timeout(WAIT, read=WAIT)) as client,
            client.stream("GET", url, headers=headers) as answer,
        ):
            for line in answer.iter_lines():
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                elif line.startswith("data: "):
                    self.events.append((kind, json.loads(line.removeprefix("data: "))))
        self.closed.set()

    def wait_for(self, count: int) -> None:
        deadline = time.monotonic() + WAIT
        while len(self.events) < count:
            assert time.monotonic() < deadline, self.events
            time.sleep(0.02)


def test_a_stream_closes_when_its_reader_loses_access(tmp_path: Any) -> None:
    with running_server(str(tmp_path / "access.sqlite")) as base, httpx.Client(base_url=base, timeout=WAIT) as http:
        created = http.post("/v1/games", json={"kit": "standin-e2-3p", "players": PLAYERS}).json()
        game, recorder = created["game_id"], {"Authorization": f"Bearer {created['recorder_token']}"}
        public, old_recorder = Stream(base, game, {}), Stream(base, game, recorder)
        public.wait_for(1)
        old_recorder.wait_for(1)
        assert http.put(f"/v1/games/{game}/privacy", json={"private": True}, headers=ADMIN_HEADERS).is_success
        assert public.closed.wait(WAIT), "the public's stream stayed open on a private game"
        assert public.events[-1][0] == "closed" and "private" in public.events[-1][1]["reason"]
        replaced = http.post(f"/v1/games/{game}/recorder-token", headers=ADMIN_HEADERS).json()["recorder_token"]
        assert old_recorder.closed.wait(WAIT), "the old recorder token's stream stayed open"
        assert old_recorder.events[-1][0] == "closed" and "token" in old_recorder.events[-1][1]["reason"]
        new_recorder = {"Authorization": f"Bearer {replaced}"}
        held = [*ROUND_ONE_AUCTION, "cat drew Heatwave"]
        assert http.post(f"/v1/games/{game}/actions", json={"actions": held}, headers=new_recorder).is_success
        assert not any("Heatwave" in json.dumps(data) for _, data in old_recorder.events)
