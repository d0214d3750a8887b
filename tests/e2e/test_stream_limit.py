"""A client holds at most `streams_per_client` live streams open: one more is refused with 429 `too_many_streams`
and `Retry-After` before it starts, another client (another token, or the public from its address) still gets
one, and a stream that ends, closed by its client or by the server, frees its place; a refused stream takes none."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.requests import ClientDisconnect

from api.app import ApiSettings, create_app
from evo_ledger.settings import Settings
from tests.helpers.servers import ADMIN, WAIT, new_game, serving

LIMIT = 2
AS_ADMIN = {"Authorization": f"Bearer {ADMIN}"}


@pytest.fixture
def base(tmp_path: Any) -> Iterator[str]:
    settings = ApiSettings(
        store=Settings(str(tmp_path / "streams.sqlite")),
        admin_token=ADMIN,
        stream_poll_seconds=0.1,
        follow_projections=False,
        streams_per_client=LIMIT,
    )
    with serving(create_app(settings)) as served:
        yield served


@dataclass
class Stream:
    """A stream on a connection of its own, its answer's status and headers read, its body not yet."""

    client: httpx.Client
    answer: httpx.Response

    def close(self) -> None:
        self.answer.close()
        self.client.close()

    def problem(self) -> dict[str, Any]:
        self.answer.read()
        found: dict[str, Any] = self.answer.json()
        return found

    def read_until_closed(self) -> None:
        """Reads the events until the server's last, `closed`."""
        assert any(line == "event: closed" for line in self.answer.iter_lines())


def open_stream(
    base: str, game: str, headers: dict[str, str] | None = None, last_event_id: str | None = None
) -> Stream:
    headers = {**(headers or {}), **({"Last-Event-ID": last_event_id} if last_event_id is not None else {})}
    client = httpx.Client(timeout=WAIT)
    answer = client.send(client.build_request("GET", f"{base}/v1/games/{game}/stream", headers=headers), stream=True)
    return Stream(client, answer)


def accepted_once_a_place_is_free(base: str, game: str, headers: dict[str, str] | None = None) -> Stream:
    """A stream opened as soon as the server takes it (each one refused closed at once), within WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while True:
        stream = open_stream(base, game, headers)
        if stream.answer.status_code == 200:
            return stream
        assert stream.answer.status_code == 429, stream.problem()
        stream.close()
        assert time.monotonic() < deadline, "no stream's place was freed"
        time.sleep(0.05)


def test_a_client_past_its_streams_is_refused_until_one_of_them_closes(base: str) -> None:
    game, recorder = new_game(base)
    unread = [open_stream(base, game, recorder, last_event_id="x") for _ in range(LIMIT + 1)]
    assert [stream.answer.status_code for stream in unread] == [422] * (LIMIT + 1)  # refused first: no place taken
    streams = [open_stream(base, game, recorder) for _ in range(LIMIT)]
    try:
        assert [stream.answer.status_code for stream in streams] == [200] * LIMIT
        refused = open_stream(base, game, recorder)
        streams.append(refused)
        assert refused.answer.status_code == 429 and refused.answer.headers["Retry-After"].isdigit()
        problem = refused.problem()
        assert problem["code"] == "too_many_streams"
        assert f"{LIMIT} live streams" in problem["message"] and "closing one" in problem["message"]
        streams += [open_stream(base, game, AS_ADMIN), open_stream(base, game)]  # another token; the public
        assert [stream.answer.status_code for stream in streams[-2:]] == [200, 200]
        streams[0].close()
        streams.append(accepted_once_a_place_is_free(base, game, recorder))
        streams.append(open_stream(base, game, recorder))
        assert streams[-1].answer.status_code == 429  # the refused streams took no place
    finally:
        for stream in [*unread, *streams]:
            stream.close()


def test_streams_the_server_closes_free_their_places(base: str) -> None:
    game, _ = new_game(base)
    other, _ = new_game(base)
    streams = [open_stream(base, game) for _ in range(LIMIT)]
    try:
        assert [stream.answer.status_code for stream in streams] == [200] * LIMIT
        made_private = httpx.put(f"{base}/v1/games/{game}/privacy", json={"private": True}, headers=AS_ADMIN)
        assert made_private.status_code == 200, made_private.text
        for stream in streams:
            stream.read_until_closed()  # the public lost the game: the server ends its streams
        streams += [accepted_once_a_place_is_free(base, other) for _ in range(LIMIT)]
    finally:
        for stream in streams:
            stream.close()


def test_a_stream_whose_client_is_gone_before_its_first_event_gives_its_place_back(tmp_path: Any) -> None:
    store = Settings(str(tmp_path / "gone.sqlite"))
    settings = ApiSettings(store=store, streams_per_client=1, follow_projections=False, writer_process=False)
    app = create_app(settings)

    async def client_gone(message: Any) -> None:
        raise OSError("the connection is closed")

    async def disconnected() -> dict[str, str]:
        return {"type": "http.disconnect"}

    with TestClient(app) as client:
        players = [{"name": name} for name in ("ann", "ben", "cat")]
        game = client.post("/v1/games", json={"kit": "standin-e2-3p", "players": players}).json()["game_id"]
        path = f"/v1/games/{game}/stream"
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        assert client.portal is not None
        # The disconnect reaches the server from within the task group that feeds the stream, or by itself.
        with pytest.RaisesGroup(ClientDisconnect, allow_unwrapped=True, flatten_subgroups=True):
            client.portal.call(app, scope, disconnected, client_gone)
        assert app.state.open_streams.held == {}
        with app.state.open_streams.place("address 127.0.0.1"):  # its place is free again
            pass
